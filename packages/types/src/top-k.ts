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
  /** False while items appended since the last heapify break the heap order. */
  private ordered = true;

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

  /**
   * True when an item with this rank would be kept. Lets callers skip expensive checks (such as a
   * metadata filter) for candidates that could not enter anyway.
   */
  admits(rank: number, item: number): boolean {
    if (this.size < this.capacity) return true;
    if (this.capacity === 0) return false;
    if (!this.ordered) this.heapify();
    return weaker(this.ranks[0]!, this.items[0]!, rank, item, this.tieBefore);
  }

  /** The weakest kept rank (the root), or undefined when nothing is kept. */
  weakestRank(): number | undefined {
    if (this.size === 0) return undefined;
    if (!this.ordered) this.heapify();
    return this.ranks[0];
  }

  /** Offers an item; it is kept when there is room or it beats the weakest kept item. */
  push(rank: number, item: number): void {
    if (this.size < this.capacity) {
      // Filling up: append, and order the heap only once it is needed (one linear heapify
      // instead of a sift per item).
      this.ranks[this.size] = rank;
      this.items[this.size++] = item;
      this.ordered = false;
      return;
    }
    if (!this.admits(rank, item)) return;
    // Replace the root and sift down.
    siftDown(this.ranks, this.items, 0, rank, item, this.size, this.tieBefore);
  }

  /** Floyd's heap construction over the appended items. */
  private heapify(): void {
    for (let index = (this.size >> 1) - 1; index >= 0; index--) siftDown(this.ranks, this.items, index, this.ranks[index]!, this.items[index]!, this.size, this.tieBefore);
    this.ordered = true;
  }

  /** Forgets every kept item (the capacity stays), so one heap can serve many searches. */
  clear(): void {
    this.size = 0;
    this.ordered = true;
  }

  /** The kept items, best first (the heap itself is left as it was). */
  sorted(): Array<{ rank: number; item: number }> {
    const { ranks, items } = this.sortedArrays();
    const out = new Array<{ rank: number; item: number }>(ranks.length);
    for (let index = 0; index < ranks.length; index++) out[index] = { rank: ranks[index]!, item: items[index]! };
    return out;
  }

  /** {@link sorted} as two parallel typed arrays (no object per item): ranks and items, best first. */
  sortedArrays(): { ranks: Float64Array; items: Int32Array } {
    if (!this.ordered) this.heapify();
    const count = this.size;
    // Heap-sort a copy: swap the weakest to the back until one is left. Cheaper than a comparison
    // sort through a closure, and the heap order is already half the work. Bottom-up: the hole at
    // the root moves down along the weaker children to a leaf (one comparison per level), and the
    // displaced last item, usually weak, rises from there a level or two — about half the
    // comparisons of a sift-down that compares with the item at every level. The order is the same
    // (ranks with ties by `tieBefore` order items totally).
    const ranks = this.ranks.slice(0, count);
    const items = this.items.slice(0, count);
    const tieBefore = this.tieBefore;
    for (let end = count - 1; end > 0; end--) {
      const rank = ranks[end]!;
      const item = items[end]!;
      ranks[end] = ranks[0]!;
      items[end] = items[0]!;
      let index = 0;
      for (;;) {
        const left = 2 * index + 1;
        if (left >= end) break;
        const child = weakerChild(ranks, items, left, end, tieBefore);
        ranks[index] = ranks[child]!;
        items[index] = items[child]!;
        index = child;
      }
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (!weaker(rank, item, ranks[parent]!, items[parent]!, tieBefore)) break;
        ranks[index] = ranks[parent]!;
        items[index] = items[parent]!;
        index = parent;
      }
      ranks[index] = rank;
      items[index] = item;
    }
    return { ranks, items };
  }
}

/**
 * Places `(rank, item)` at `index` of the min-heap `ranks`/`items` of `size` entries, moving weaker
 * children up (ties: `tieBefore(a, b)` means a ranks above b).
 */
function siftDown(ranks: Float64Array, items: Int32Array, index: number, rank: number, item: number, size: number, tieBefore: (a: number, b: number) => boolean): void {
  for (;;) {
    const left = 2 * index + 1;
    if (left >= size) break;
    const child = weakerChild(ranks, items, left, size, tieBefore);
    if (!weaker(ranks[child]!, items[child]!, rank, item, tieBefore)) break;
    ranks[index] = ranks[child]!;
    items[index] = items[child]!;
    index = child;
  }
  ranks[index] = rank;
  items[index] = item;
}

/** Of the children `left` and `left + 1` (when below `size`) of a min-heap node, the weaker (the one that belongs nearer the root). */
function weakerChild(ranks: Float64Array, items: Int32Array, left: number, size: number, tieBefore: (a: number, b: number) => boolean): number {
  const right = left + 1;
  return right < size && weaker(ranks[right]!, items[right]!, ranks[left]!, items[left]!, tieBefore) ? right : left;
}

/** True when `(rankA, itemA)` ranks below `(rankB, itemB)`: a lower rank, or an equal one with B first in the tie order. */
function weaker(rankA: number, itemA: number, rankB: number, itemB: number, tieBefore: (a: number, b: number) => boolean): boolean {
  return rankA < rankB || (rankA === rankB && tieBefore(itemB, itemA));
}
