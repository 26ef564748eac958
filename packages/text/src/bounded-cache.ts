import { invalidArgument } from '@zerda/types';

/**
 * A Map that forgets its oldest entry once it holds `capacity` entries: the one bounded memo of
 * zerda. Stemming and term normalisation are memoised per distinct word (a corpus has a long tail
 * of words, so the cache must stay bounded or indexing a large corpus would grow memory without
 * limit); the chunk filter memoises what it derives from a chunk's text.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();

  /** @param capacity the most entries kept (a positive integer) */
  constructor(private readonly capacity: number) {
    if (typeof capacity !== 'number' || !Number.isInteger(capacity) || capacity < 1) throw invalidArgument('capacity', 'a positive integer', capacity);
  }

  /** The value stored under `key`, or undefined. */
  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Stores `value` under `key`, forgetting the oldest entry when full. */
  set(key: K, value: V): void {
    if (this.entries.size >= this.capacity) {
      // Insertion order makes the first key the oldest: dropping it is O(1) and good enough for
      // a word-frequency distribution where frequent words are re-inserted quickly.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
  }

  /** How many entries are kept. */
  get size(): number {
    return this.entries.size;
  }
}
