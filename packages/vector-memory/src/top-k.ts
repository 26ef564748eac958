/**
 * A bounded min-heap that keeps the `k` best (highest-ranked) rows seen so far. The root is the
 * worst kept row, so a candidate that does not beat it is rejected in O(1) — most rows of a large
 * scan are. Ties are broken by a caller-supplied order so results are deterministic.
 */
export class TopK {
  private readonly ranks: Float64Array;
  private readonly rows: Int32Array;
  private size = 0;

  constructor(
    readonly capacity: number,
    /** Returns true when row `a` should come before row `b` at equal rank (deterministic ties). */
    private readonly tieBefore: (a: number, b: number) => boolean,
  ) {
    this.ranks = new Float64Array(capacity);
    this.rows = new Int32Array(capacity);
  }

  get length(): number {
    return this.size;
  }

  /** True when `(rankA, rowA)` is worse than `(rankB, rowB)`. */
  private worse(rankA: number, rowA: number, rankB: number, rowB: number): boolean {
    if (rankA !== rankB) return rankA < rankB;
    return this.tieBefore(rowB, rowA);
  }

  /** Offers a row; keeps it if the heap is not full or it beats the worst kept row. */
  push(rank: number, row: number): void {
    if (this.capacity === 0) return;
    if (this.size < this.capacity) {
      let i = this.size++;
      // Sift up.
      while (i > 0) {
        const parent = (i - 1) >> 1;
        const parentRank = this.ranks[parent]!;
        const parentRow = this.rows[parent]!;
        if (!this.worse(rank, row, parentRank, parentRow)) break;
        this.ranks[i] = parentRank;
        this.rows[i] = parentRow;
        i = parent;
      }
      this.ranks[i] = rank;
      this.rows[i] = row;
      return;
    }
    if (!this.worse(this.ranks[0]!, this.rows[0]!, rank, row)) return;
    // Replace the root and sift down.
    let i = 0;
    const n = this.size;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && this.worse(this.ranks[right]!, this.rows[right]!, this.ranks[left]!, this.rows[left]!)) child = right;
      if (!this.worse(this.ranks[child]!, this.rows[child]!, rank, row)) break;
      this.ranks[i] = this.ranks[child]!;
      this.rows[i] = this.rows[child]!;
      i = child;
    }
    this.ranks[i] = rank;
    this.rows[i] = row;
  }

  /** The kept rows, best first. */
  sorted(): Array<{ rank: number; row: number }> {
    const out: Array<{ rank: number; row: number }> = [];
    for (let i = 0; i < this.size; i++) out.push({ rank: this.ranks[i]!, row: this.rows[i]! });
    out.sort((a, b) => (a.rank !== b.rank ? b.rank - a.rank : this.tieBefore(a.row, b.row) ? -1 : 1));
    return out;
  }
}
