/**
 * Single-flight preparation of a backend (connect, find or create the table, read its settings):
 * concurrent callers share one attempt; once an attempt succeeded every later call answers `true`
 * at once. `attempt(dimensions, create)` resolves `true` when the backend is ready, `false` when it
 * does not exist and `create` was false (a read on a store nothing was written to yet).
 *
 * A caller that must create (it holds vectors) does not settle for a concurrent read-only attempt
 * that found nothing, nor for one that failed: it starts its own attempt.
 */
export class Preparation {
  private done = false;
  private running: Promise<boolean> | undefined;

  constructor(private readonly attempt: (dimensions: number | undefined, create: boolean) => Promise<boolean>) {}

  /** True once an attempt succeeded (until {@link reset}). */
  get ready(): boolean {
    return this.done;
  }

  /** Prepares (creating when `create`); resolves whether the backend is ready. */
  async run(dimensions: number | undefined, create: boolean): Promise<boolean> {
    if (this.done) return true;
    while (this.running) {
      try {
        const ready = await this.running;
        if (ready || !create) return ready;
      } catch (error) {
        if (!create) throw error;
      }
    }
    if (this.done) return true;
    const running = this.attempt(dimensions, create).then((ready) => {
      if (ready) this.done = true;
      return ready;
    });
    this.running = running;
    try {
      return await running;
    } finally {
      if (this.running === running) this.running = undefined;
    }
  }

  /** Forgets a success (the table was dropped, or its layout changed): the next call prepares again. */
  reset(): void {
    this.done = false;
  }
}
