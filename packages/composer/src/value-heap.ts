/**
 * A binary max-heap of (priority, item) pairs with stale-entry skipping: an item pushed again with a
 * newer version makes its older entries stale, and `pop` passes over them. The value-based fit
 * re-prices an item whenever a choice changes its cost, so one selection costs O(n log n).
 */
export class ValueHeap {
  #priorities: number[] = [];
  #items: number[] = [];
  #versions: number[] = [];
  readonly #current: number[] = [];
  /** False until the first pop: pushes before it only append, and the first pop orders them all at once (Floyd, O(n)). */
  #ordered = false;

  /** Pushes `item` with `priority`; earlier entries of the same item become stale. */
  push(item: number, priority: number): void {
    const version = (this.#current[item] ?? 0) + 1;
    this.#current[item] = version;
    this.#priorities.push(priority);
    this.#items.push(item);
    this.#versions.push(version);
    if (this.#ordered) this.#up(this.#items.length - 1);
  }

  /** Makes every entry of `item` stale (it will not be popped again unless pushed anew). */
  remove(item: number): void {
    this.#current[item] = (this.#current[item] ?? 0) + 1;
  }

  /** The live item of highest priority (ties: the smaller item), removed; undefined when empty. */
  pop(): { item: number; priority: number } | undefined {
    if (!this.#ordered) {
      this.#ordered = true;
      for (let index = (this.#items.length >> 1) - 1; index >= 0; index--) this.#down(index);
    }
    while (this.#items.length > 0) {
      const item = this.#items[0]!;
      const priority = this.#priorities[0]!;
      const version = this.#versions[0]!;
      this.#removeRoot();
      if (this.#current[item] === version) {
        this.#current[item] = version + 1;
        return { item, priority };
      }
    }
    return undefined;
  }

  #before(a: number, b: number): boolean {
    const pa = this.#priorities[a]!;
    const pb = this.#priorities[b]!;
    return pa > pb || (pa === pb && this.#items[a]! < this.#items[b]!);
  }

  #swap(a: number, b: number): void {
    const priorities = this.#priorities;
    const items = this.#items;
    const versions = this.#versions;
    const priority = priorities[a]!;
    priorities[a] = priorities[b]!;
    priorities[b] = priority;
    const item = items[a]!;
    items[a] = items[b]!;
    items[b] = item;
    const version = versions[a]!;
    versions[a] = versions[b]!;
    versions[b] = version;
  }

  #up(index: number): void {
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.#before(index, parent)) return;
      this.#swap(index, parent);
      index = parent;
    }
  }

  #removeRoot(): void {
    const last = this.#items.length - 1;
    this.#swap(0, last);
    this.#priorities.pop();
    this.#items.pop();
    this.#versions.pop();
    this.#down(0);
  }

  #down(index: number): void {
    const length = this.#items.length;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let best = index;
      if (left < length && this.#before(left, best)) best = left;
      if (right < length && this.#before(right, best)) best = right;
      if (best === index) return;
      this.#swap(index, best);
      index = best;
    }
  }
}
