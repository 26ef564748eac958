/**
 * A bounded binary min-heap keeping the `capacity` best `(score, order)` pairs offered to it. The
 * root is the weakest kept entry, so most candidates of a long postings scan are rejected with a
 * single comparison. Ties on score go to the smaller `order` (insertion order), which keeps results
 * deterministic whatever order candidates are offered in.
 */
export class TopKHeap {
  private readonly scores: Float64Array;
  private readonly orders: Float64Array;
  private readonly items: Int32Array;
  private count = 0;

  constructor(readonly capacity: number) {
    this.scores = new Float64Array(capacity);
    this.orders = new Float64Array(capacity);
    this.items = new Int32Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** True when `(scoreA, orderA)` ranks below `(scoreB, orderB)`. */
  private static weaker(scoreA: number, orderA: number, scoreB: number, orderB: number): boolean {
    return scoreA < scoreB || (scoreA === scoreB && orderA > orderB);
  }

  /**
   * True when an entry with this score and order would be kept. Lets callers skip expensive checks
   * (such as evaluating a metadata filter) for candidates that could not enter the heap anyway.
   */
  admits(score: number, order: number): boolean {
    if (this.count < this.capacity) return this.capacity > 0;
    return TopKHeap.weaker(this.scores[0]!, this.orders[0]!, score, order);
  }

  /** The weakest kept score (the root), or undefined when the heap is empty. */
  weakestScore(): number | undefined {
    return this.count === 0 ? undefined : this.scores[0];
  }

  /** Offers an entry; it is kept when the heap has room or it beats the weakest kept entry. */
  offer(score: number, order: number, item: number): void {
    if (!this.admits(score, order)) return;
    if (this.count < this.capacity) {
      let index = this.count++;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (!TopKHeap.weaker(score, order, this.scores[parent]!, this.orders[parent]!)) break;
        this.move(parent, index);
        index = parent;
      }
      this.place(index, score, order, item);
      return;
    }
    let index = 0;
    const length = this.count;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = left;
      if (right < length && TopKHeap.weaker(this.scores[right]!, this.orders[right]!, this.scores[left]!, this.orders[left]!)) child = right;
      if (!TopKHeap.weaker(this.scores[child]!, this.orders[child]!, score, order)) break;
      this.move(child, index);
      index = child;
    }
    this.place(index, score, order, item);
  }

  /** The kept entries, best first (descending score, then ascending order). */
  drain(): Array<{ score: number; item: number }> {
    const entries: Array<{ score: number; order: number; item: number }> = [];
    for (let index = 0; index < this.count; index++) {
      entries.push({ score: this.scores[index]!, order: this.orders[index]!, item: this.items[index]! });
    }
    entries.sort((a, b) => (a.score !== b.score ? b.score - a.score : a.order - b.order));
    this.count = 0;
    return entries.map(({ score, item }) => ({ score, item }));
  }

  private move(from: number, to: number): void {
    this.scores[to] = this.scores[from]!;
    this.orders[to] = this.orders[from]!;
    this.items[to] = this.items[from]!;
  }

  private place(index: number, score: number, order: number, item: number): void {
    this.scores[index] = score;
    this.orders[index] = order;
    this.items[index] = item;
  }
}
