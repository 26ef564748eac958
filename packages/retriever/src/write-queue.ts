/**
 * Runs writes one at a time, in call order. A retriever's `index`, `add` and `remove` are async
 * (analysis and embedding yield to the event loop), so without a queue a later `add` could land
 * before an earlier `index` and be wiped by it. A failed write does not block the ones after it.
 */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `operation` after every previously queued one has settled; resolves with its result. */
  run<T>(operation: () => T | Promise<T>): Promise<T> {
    const result = this.tail.then(operation, operation);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** Lets other tasks run (timers, I/O, other requests) during a long CPU-bound loop. */
export function yieldToEventLoop(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => {
    if (immediate) immediate(resolve);
    else setTimeout(resolve, 0);
  });
}
