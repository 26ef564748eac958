import { invalidArgument } from '@zerda/types';

/** Optional bounds of a {@link BoundedCache} besides its number of entries. */
export interface BoundedCacheOptions<K, V> {
  /**
   * The most total weight kept (default: no bound but the capacity). Weigh in the size of what an
   * entry keeps alive — a memo keyed by whole texts must be bounded in characters, not only in
   * entries, or 1,000 entries of 1 MB texts hold a gigabyte.
   */
  maxWeight?: number;
  /** The heaviest entry stored (default: half of `maxWeight`); a heavier one is not stored, and is computed again each time. */
  maxEntryWeight?: number;
  /** The weight of an entry (default: the length of a string key, else 1). Must give the same weight for the same entry every time. */
  weigh?: (key: K, value: V) => number;
}

const defaultWeight = (key: unknown): number => (typeof key === 'string' ? key.length : 1);

function positive(value: unknown, field: string, integer: boolean): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw invalidArgument(field, integer ? 'a positive integer' : 'a positive number', value);
  }
  return value;
}

/**
 * A memo that holds at most `capacity` entries (and, when asked, at most `maxWeight` of weight),
 * forgetting the least recently used first (approximately: entries live in two generations, see
 * below): the one bounded memo of zerda. Stemming and term normalisation are memoised per distinct
 * word (a corpus has a long tail of words, so the cache must stay bounded or indexing a large
 * corpus would grow memory without limit); the chunk filter and the composer memoise what they
 * derive from a chunk's text, bounded by the characters they keep alive.
 *
 * Every operation is O(1). New entries go to a young generation of at most ⌊capacity / 2⌋ entries
 * and half the weight; when it is full, it becomes the old generation (the previous old one is
 * dropped whole) and a new young one starts. An entry read from the old generation moves back to
 * the young one, so entries in use survive and the rest age out. (A single Map that deletes its
 * first key on every insertion was the earlier design: V8 leaves deleted entries as holes that the
 * next `keys().next()` walks over, so a full cache cost microseconds per insertion, growing with
 * its capacity.) `undefined` is not a storable value: `get` returns it for a missing key.
 */
export class BoundedCache<K, V> {
  #young = new Map<K, V>();
  #old = new Map<K, V>();
  #youngWeight = 0;
  #oldWeight = 0;
  readonly #youngCapacity: number;
  readonly #youngMaxWeight: number;
  readonly #maxEntryWeight: number;
  readonly #weigh: (key: K, value: V) => number;

  /** @param capacity the most entries kept (a positive integer) */
  constructor(
    private readonly capacity: number,
    options: BoundedCacheOptions<K, V> = {},
  ) {
    positive(capacity, 'capacity', true);
    if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an options object', options);
    const maxWeight = options.maxWeight === undefined ? Number.POSITIVE_INFINITY : positive(options.maxWeight, 'options.maxWeight', false);
    if (options.weigh !== undefined && typeof options.weigh !== 'function') throw invalidArgument('options.weigh', 'a function (key, value) => number', options.weigh);
    this.#youngCapacity = Math.max(1, Math.floor(capacity / 2));
    this.#youngMaxWeight = maxWeight / 2;
    this.#maxEntryWeight = options.maxEntryWeight === undefined ? maxWeight / 2 : Math.min(maxWeight / 2, positive(options.maxEntryWeight, 'options.maxEntryWeight', false));
    this.#weigh = options.weigh ?? defaultWeight;
  }

  /** The value stored under `key`, or undefined. */
  get(key: K): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old !== undefined) {
      this.#old.delete(key);
      const weight = this.#weigh(key, old);
      this.#oldWeight -= weight;
      this.#insert(key, old, weight);
    }
    return old;
  }

  /** Stores `value` under `key` (unless it weighs more than the heaviest entry allowed), forgetting the least recently used entries when full. */
  set(key: K, value: V): void {
    const weight = this.#weigh(key, value);
    const previous = this.#young.get(key);
    if (previous !== undefined) {
      this.#young.delete(key);
      this.#youngWeight -= this.#weigh(key, previous);
    } else {
      const old = this.#old.get(key);
      if (old !== undefined) {
        this.#old.delete(key);
        this.#oldWeight -= this.#weigh(key, old);
      }
    }
    if (!(weight <= this.#maxEntryWeight)) return;
    this.#insert(key, value, weight);
  }

  /** How many entries are kept (at most the capacity). */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  /** The total weight kept (at most `maxWeight`). */
  get weight(): number {
    return this.#youngWeight + this.#oldWeight;
  }

  #insert(key: K, value: V, weight: number): void {
    if (this.#young.size >= this.#youngCapacity || this.#youngWeight + weight > this.#youngMaxWeight) {
      // A capacity of 1 keeps no old generation: the one entry is the young one.
      if (this.capacity > 1) {
        this.#old = this.#young;
        this.#oldWeight = this.#youngWeight;
      } else {
        this.#old = new Map();
        this.#oldWeight = 0;
      }
      this.#young = new Map();
      this.#youngWeight = 0;
    }
    this.#young.set(key, value);
    this.#youngWeight += weight;
  }
}
