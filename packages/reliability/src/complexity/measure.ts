/** One text path and its worst known input. */
export interface TextPath {
  /** `package: entry point — pattern`. */
  name: string;
  /**
   * Builds the input of about `size` UTF-16 units, deterministic for a given `variant`. Paths whose
   * implementation memoizes (a token counter's merge cache) give a different variant per sample,
   * so that a repeated small input is not measured from a warm cache.
   */
  input(size: number, variant?: number): string;
  /** Runs the path on the input once (awaited when it returns a promise). */
  run(input: string): unknown;
}

/** The growth of one path: the best time at 100 KB and at 1 MB, and their ratio. */
export interface Growth {
  name: string;
  smallMs: number;
  largeMs: number;
  /** largeMs / smallMs: about 10 for a linear path, about 100 for a quadratic one. */
  ratio: number;
  /** Measurement rounds it took (a suspicious ratio is measured again before it counts). */
  rounds: number;
}

/** Sizes compared, in UTF-16 units: 100 KB and 1 MB (the adversarial range). */
export const SMALL = 100_000;
export const LARGE = 1_000_000;
/** The limit: 10× the input may cost at most 15× the time. */
export const MAX_RATIO = 15;

/** Collects garbage first when the process allows it (`--expose-gc`), so a sample does not pay for an earlier one's garbage. */
function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function timeOnce(path: TextPath, input: string): Promise<number> {
  collect();
  const started = performance.now();
  await path.run(input);
  return performance.now() - started;
}

/** A small input is timed several times per sample so that a sample lasts long enough to measure. */
async function sample(path: TextPath, input: string, minimumMs: number): Promise<number> {
  collect();
  let runs = 0;
  const started = performance.now();
  do {
    await path.run(input);
    runs++;
  } while (performance.now() - started < minimumMs && runs < 50);
  return (performance.now() - started) / runs;
}

/**
 * Measures how a path's time grows from 100 KB to 1 MB of its worst pattern, in this process: a warm
 * up, then samples of both sizes interleaved (so that load from other processes hits both alike), the
 * best of each kept. A ratio above {@link MAX_RATIO} is measured again (up to `rounds` times) before
 * it is reported, because one noisy sample must not fail a linear path — while a quadratic path
 * (ratio near 100) fails every round. No absolute time is ever compared with a limit.
 */
export async function measureGrowth(path: TextPath, { samples = 2, rounds = 5 }: { samples?: number; rounds?: number } = {}): Promise<Growth> {
  await path.run(path.input(10_000, 99));
  await path.run(path.input(SMALL, 98));
  let best: Growth | undefined;
  for (let round = 1; round <= rounds; round++) {
    let smallMs = Number.POSITIVE_INFINITY;
    let largeMs = Number.POSITIVE_INFINITY;
    for (let i = 0; i < samples; i++) {
      const variant = round * samples + i;
      smallMs = Math.min(smallMs, await sample(path, path.input(SMALL, variant), 20));
      largeMs = Math.min(largeMs, await timeOnce(path, path.input(LARGE, variant)));
      // A slow path's first sample is stable enough; a suspicious ratio gets another round anyway.
      if (largeMs > 1500 && largeMs / Math.max(smallMs, 1) <= MAX_RATIO) break;
    }
    // Below a millisecond at 100 KB a path costs nothing that matters (a capped input, one flattening
    // of the string); its ratio is taken against 1 ms, so noise in microseconds cannot fail it.
    const ratio = largeMs / Math.max(smallMs, 1);
    if (!best || ratio < best.ratio) best = { name: path.name, smallMs, largeMs, ratio, rounds: round };
    if (best.ratio <= MAX_RATIO) break;
  }
  return best!;
}
