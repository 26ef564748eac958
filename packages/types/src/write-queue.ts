/**
 * Runs writes one at a time, in call order. Writes of a retriever or a vector store are async
 * (analysis, embedding and backend requests yield to the event loop), so without a queue a later
 * write could land before an earlier one and be undone by it. A failed write does not block the
 * ones after it.
 */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `operation` after every previously queued one has settled; resolves with its result. */
  run<T>(operation: () => T | Promise<T>): Promise<T> {
    const result = this.tail.then(operation, operation);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once every write queued so far has settled (it never rejects). */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}
