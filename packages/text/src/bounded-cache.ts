/**
 * A Map that forgets its oldest entry once it holds `capacity` entries. Stemming and term
 * normalisation are memoised per distinct word; a corpus has a long tail of words, so the cache
 * must stay bounded or indexing a large corpus would grow memory without limit.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    if (this.entries.size >= this.capacity) {
      // Insertion order makes the first key the oldest: dropping it is O(1) and good enough for
      // a word-frequency distribution where frequent words are re-inserted quickly.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
  }

  get size(): number {
    return this.entries.size;
  }
}
