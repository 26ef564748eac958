import { checkInteger, invalidArgument } from './errors.js';

/**
 * A bounded binary min-heap keeping the `capacity` best items offered to it: highest rank first,
 * equal ranks ordered by `tieBefore(a, b)` (true when item `a` comes first), so results are
 * deterministic whatever order items are offered in. The root is the weakest kept item, so most
 * candidates of a long scan are rejected with one comparison. Items are integers (row or chunk
 * ordinals); the caller keeps what they stand for. The one top-k of zerda: BM25 scoring and the
 * in-memory vector scan both use it.
 */
export class TopK {
  private readonly ranks: Float64Array;
  private readonly items: Int32Array;
  private size = 0;

  constructor(
    readonly capacity: number,
    private readonly tieBefore: (a: number, b: number) => boolean,
  ) {
    checkInteger(capacity, 'capacity', 0, 2 ** 31 - 1);
    if (typeof tieBefore !== 'function') throw invalidArgument('tieBefore', 'a function (a, b) => boolean ordering equal ranks', tieBefore);
    this.ranks = new Float64Array(capacity);
    this.items = new Int32Array(capacity);
  }

  /** How many items are kept. */
  get length(): number {
    return this.size;
  }

  /** True when `(rankA, itemA)` ranks below `(rankB, itemB)`. */
  private weaker(rankA: number, itemA: number, rankB: number, itemB: number): boolean {
    return rankA < rankB || (rankA === rankB && this.tieBefore(itemB, itemA));
  }

  /**
   * True when an item with this rank would be kept. Lets callers skip expensive checks (such as a
   * metadata filter) for candidates that could not enter anyway.
   */
  admits(rank: number, item: number): boolean {
    if (this.size < this.capacity) return true;
    return this.capacity > 0 && this.weaker(this.ranks[0]!, this.items[0]!, rank, item);
  }

  /** The weakest kept rank (the root), or undefined when nothing is kept. */
  weakestRank(): number | undefined {
    return this.size === 0 ? undefined : this.ranks[0];
  }

  /** Offers an item; it is kept when there is room or it beats the weakest kept item. */
  push(rank: number, item: number): void {
    if (!this.admits(rank, item)) return;
    let index: number;
    if (this.size < this.capacity) {
      index = this.size++;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (!this.weaker(rank, item, this.ranks[parent]!, this.items[parent]!)) break;
        this.ranks[index] = this.ranks[parent]!;
        this.items[index] = this.items[parent]!;
        index = parent;
      }
    } else {
      // Replace the root and sift down.
      index = 0;
      for (;;) {
        const left = 2 * index + 1;
        if (left >= this.size) break;
        const right = left + 1;
        const child = right < this.size && this.weaker(this.ranks[right]!, this.items[right]!, this.ranks[left]!, this.items[left]!) ? right : left;
        if (!this.weaker(this.ranks[child]!, this.items[child]!, rank, item)) break;
        this.ranks[index] = this.ranks[child]!;
        this.items[index] = this.items[child]!;
        index = child;
      }
    }
    this.ranks[index] = rank;
    this.items[index] = item;
  }

  /** Forgets every kept item (the capacity stays), so one heap can serve many searches. */
  clear(): void {
    this.size = 0;
  }

  /** The kept items, best first (the heap itself is left as it was). */
  sorted(): Array<{ rank: number; item: number }> {
    const count = this.size;
    const out = new Array<{ rank: number; item: number }>(count);
    if (count === 0) return out;
    // Heap-sort a copy: pop the weakest to the back until one is left. Cheaper than a comparison
    // sort of objects through a closure, and the heap order is already half the work.
    const ranks = this.ranks.slice(0, count);
    const items = this.items.slice(0, count);
    for (let end = count - 1; end >= 0; end--) {
      out[end] = { rank: ranks[0]!, item: items[0]! };
      const rank = ranks[end]!;
      const item = items[end]!;
      let index = 0;
      for (;;) {
        const left = 2 * index + 1;
        if (left >= end) break;
        const right = left + 1;
        const child = right < end && this.weaker(ranks[right]!, items[right]!, ranks[left]!, items[left]!) ? right : left;
        if (!this.weaker(ranks[child]!, items[child]!, rank, item)) break;
        ranks[index] = ranks[child]!;
        items[index] = items[child]!;
        index = child;
      }
      ranks[index] = rank;
      items[index] = item;
    }
    return out;
  }
}
