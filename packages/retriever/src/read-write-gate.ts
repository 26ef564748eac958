/**
 * A readers–writer gate for async work: any number of reads run together; a write runs alone,
 * after the reads in progress have finished, and reads that arrive while a write waits or runs wait
 * for it (so a stream of reads cannot starve a write). Used by HybridRetriever so that a retrieval
 * never sees one sub-retriever's new corpus next to another's old one.
 */
export class ReadWriteGate {
  private readers = 0;
  private writing = false;
  private waitingWriters = 0;
  private waiters: Array<() => void> = [];

  /** Runs `read` when no write runs or waits; resolves with its result. */
  async read<T>(read: () => Promise<T>): Promise<T> {
    while (this.writing || this.waitingWriters > 0) await this.wait();
    this.readers++;
    try {
      return await read();
    } finally {
      this.readers--;
      if (this.readers === 0) this.wakeAll();
    }
  }

  /** Runs `write` alone, once the reads in progress have finished; resolves with its result. */
  async write<T>(write: () => Promise<T>): Promise<T> {
    this.waitingWriters++;
    try {
      while (this.writing || this.readers > 0) await this.wait();
    } finally {
      this.waitingWriters--;
    }
    this.writing = true;
    try {
      return await write();
    } finally {
      this.writing = false;
      this.wakeAll();
    }
  }

  private wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wakeAll(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
