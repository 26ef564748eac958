import { invalidArgument } from '@zerda/types';

/**
 * A memo that holds at most `capacity` entries, forgetting the least recently used first
 * (approximately: entries live in two generations, see below): the one bounded memo of zerda.
 * Stemming and term normalisation are memoised per distinct word (a corpus has a long tail of
 * words, so the cache must stay bounded or indexing a large corpus would grow memory without
 * limit); the chunk filter and the composer memoise what they derive from a chunk's text.
 *
 * Every operation is O(1). New entries go to a young generation of at most ⌊capacity / 2⌋ entries;
 * when it is full, it becomes the old generation (the previous old one is dropped whole) and a new
 * young one starts. An entry read from the old generation moves back to the young one, so entries
 * in use survive and the rest age out. (A single Map that deletes its first key on every insertion
 * was the earlier design: V8 leaves deleted entries as holes that the next `keys().next()` walks
 * over, so a full cache cost microseconds per insertion, growing with its capacity.)
 * `undefined` is not a storable value: `get` returns it for a missing key.
 */
export class BoundedCache<K, V> {
  #young = new Map<K, V>();
  #old = new Map<K, V>();
  readonly #youngCapacity: number;

  /** @param capacity the most entries kept (a positive integer) */
  constructor(private readonly capacity: number) {
    if (typeof capacity !== 'number' || !Number.isInteger(capacity) || capacity < 1) throw invalidArgument('capacity', 'a positive integer', capacity);
    this.#youngCapacity = Math.max(1, Math.floor(capacity / 2));
  }

  /** The value stored under `key`, or undefined. */
  get(key: K): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old !== undefined) {
      this.#old.delete(key);
      this.#insert(key, old);
    }
    return old;
  }

  /** Stores `value` under `key`, forgetting the least recently used entries when full. */
  set(key: K, value: V): void {
    if (this.#young.has(key)) {
      this.#young.set(key, value);
      return;
    }
    this.#old.delete(key);
    this.#insert(key, value);
  }

  /** How many entries are kept (at most the capacity). */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  #insert(key: K, value: V): void {
    if (this.#young.size >= this.#youngCapacity) {
      // A capacity of 1 keeps no old generation: the one entry is the young one.
      this.#old = this.capacity > 1 ? this.#young : new Map();
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }
}
