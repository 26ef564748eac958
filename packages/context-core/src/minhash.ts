/**
 * MinHash signatures over word shingles and locality-sensitive hashing (LSH) by banding: the
 * near-duplicate detector of {@link ChunkFilter}. Everything is deterministic (fixed seeds), so the
 * same candidates always give the same verdicts.
 */

import { fnv1a, wordHashes } from '@zerda/text';
import { checkInteger, invalidArgument } from '@zerda/types';

function checkSortedHashes(value: unknown, field: string): void {
  if (!(value instanceof Uint32Array)) throw invalidArgument(field, 'a Uint32Array from shingleHashes', value);
}

/** MurmurHash3's finaliser: a bijective 32-bit mix with full avalanche. */
function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The hashed word shingles (`size` consecutive words) of a word list, sorted ascending without
 * repeats. A text shorter than one shingle is a single shingle of all its words, so short
 * near-identical texts still compare. Words are hashed once and a shingle's hash is combined from
 * its words' hashes, so no shingle string is ever built.
 */
export function shingleHashes(wordList: readonly string[], size: number): Uint32Array {
  if (!Array.isArray(wordList)) throw invalidArgument('wordList', 'an array of words', wordList);
  checkInteger(size, 'size', 1, 64);
  return shinglesOf(wordList.map(fnv1a), size);
}

/** {@link shingleHashes} of `words(text)`, from the words' hashes (`wordHashes`): no word string is created. */
export function textShingleHashes(text: string, size: number): Uint32Array {
  checkInteger(size, 'size', 1, 64);
  return shinglesOf(wordHashes(text), size);
}

/** The sorted, repeat-free shingle hashes of a text whose words hash to `hashes`. */
function shinglesOf(hashes: ArrayLike<number>, size: number): Uint32Array {
  if (hashes.length === 0) return new Uint32Array(0);
  const width = Math.min(size, hashes.length);
  const shingles = new Uint32Array(hashes.length - width + 1);
  for (let i = 0; i + width <= hashes.length; i++) {
    let hash = 0x811c9dc5 ^ width;
    for (let k = 0; k < width; k++) hash = Math.imul(hash ^ (hashes[i + k] as number), 0x01000193);
    shingles[i] = mix32(hash);
  }
  shingles.sort();
  let unique = 0;
  for (let i = 0; i < shingles.length; i++) if (i === 0 || shingles[i] !== shingles[unique - 1]) shingles[unique++] = shingles[i] as number;
  return shingles.subarray(0, unique);
}

/** The set of hashed word shingles of a word list ({@link shingleHashes} as a Set). */
export function shingleSet(wordList: readonly string[], size: number): Set<number> {
  return new Set(shingleHashes(wordList, size));
}

/** Exact Jaccard similarity of two sorted, repeat-free arrays (from {@link shingleHashes}): one merge pass. */
export function sortedJaccard(a: Uint32Array, b: Uint32Array): number {
  checkSortedHashes(a, 'a');
  checkSortedHashes(b, 'b');
  if (a.length === 0 && b.length === 0) return 1;
  let shared = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return shared / (a.length + b.length - shared);
}

/**
 * Whether two sorted, repeat-free arrays can reach Jaccard `threshold`, by the prefix-filtering
 * principle of set-similarity joins: Jaccard >= t needs an overlap of at least
 * α = ⌈t · (|a| + |b|) / (1 + t)⌉, and two sets sharing α elements share one among the first
 * |a| − α + 1 of `a` and the first |b| − α + 1 of `b` (in any common order; here ascending hash).
 * `false` proves the pair is below the threshold; `true` means "compute it". Costs a merge of the
 * two prefixes (a fifth of each set at t = 0.8) instead of the whole sets.
 */
export function mayReachJaccard(a: Uint32Array, b: Uint32Array, threshold: number): boolean {
  checkSortedHashes(a, 'a');
  checkSortedHashes(b, 'b');
  if (typeof threshold !== 'number' || !(threshold <= 1)) throw invalidArgument('threshold', 'a number <= 1', threshold);
  if (threshold <= 0 || a.length === 0 || b.length === 0) return true;
  // A hair below the exact bound, so rounding can only keep a pair, never lose one.
  const overlap = Math.ceil((threshold * (a.length + b.length)) / (1 + threshold) - 1e-9);
  if (overlap > Math.min(a.length, b.length)) return false;
  const endA = a.length - overlap + 1;
  const endB = b.length - overlap + 1;
  let i = 0;
  let j = 0;
  while (i < endA && j < endB) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) return true;
    if (x < y) i++;
    else j++;
  }
  return false;
}

/** Exact Jaccard similarity of two sets. */
export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const item of small) if (large.has(item)) shared++;
  return shared / (a.size + b.size - shared);
}

/** A family of `permutations` seeded hash functions h_i(x) = mix32(x XOR seed_i). */
export class MinHasher {
  private readonly seeds: Uint32Array;

  constructor(readonly permutations: number, seed = 0x5eed1234) {
    checkInteger(permutations, 'permutations', 1, 1024);
    if (typeof seed !== 'number' || !Number.isFinite(seed)) throw invalidArgument('seed', 'a finite number', seed);
    // Seeds are the mixed golden-ratio sequence: distinct, well spread, and reproducible.
    this.seeds = new Uint32Array(permutations);
    for (let i = 0; i < permutations; i++) this.seeds[i] = mix32(Math.imul(i + 1, 0x9e3779b9) ^ seed);
  }

  /** The MinHash signature of a shingle set: per hash function, the minimum hash over the set. */
  signature(shingles: Iterable<number>): Uint32Array {
    if (shingles === null || typeof (shingles as Iterable<number> | undefined)?.[Symbol.iterator] !== 'function') throw invalidArgument('shingles', 'an iterable of shingle hashes', shingles);
    const signature = new Uint32Array(this.permutations).fill(0xffffffff);
    for (const shingle of shingles) {
      for (let i = 0; i < this.permutations; i++) {
        const h = mix32(shingle ^ (this.seeds[i] as number));
        if (h < (signature[i] as number)) signature[i] = h;
      }
    }
    return signature;
  }
}

/**
 * Chooses the LSH band layout (bands × rows ≤ permutations) for a Jaccard threshold: the most
 * selective layout (most rows per band, so fewest false candidates) whose probability of making a
 * pair at exactly the threshold a candidate, 1 − (1 − t^r)^b, is still at least `recall`. Candidates
 * are verified exactly afterwards, so false positives cost time, false negatives cost quality.
 */
export function bandLayout(permutations: number, threshold: number, recall = 0.995): { bands: number; rows: number } {
  let best = { bands: permutations, rows: 1 };
  for (let rows = 1; rows <= permutations; rows++) {
    const bands = Math.floor(permutations / rows);
    if (bands < 1) break;
    const probability = 1 - Math.pow(1 - Math.pow(threshold, rows), bands);
    if (probability >= recall) best = { bands, rows };
  }
  return best;
}

/**
 * One bucket key per band: the band number in the high bits and a 32-bit hash of the band's rows in
 * the low bits (a safe integer). Two signatures that agree on a whole band always share its key; a
 * rare hash collision only adds a candidate, which exact verification then rejects.
 */
export function bandKeys(signature: Uint32Array, layout: { bands: number; rows: number }): number[] {
  const keys: number[] = [];
  for (let band = 0; band < layout.bands; band++) {
    let hash = 0x811c9dc5;
    for (let row = 0; row < layout.rows; row++) hash = Math.imul(hash ^ (signature[band * layout.rows + row] as number), 0x01000193);
    keys.push(band * 0x1_0000_0000 + mix32(hash));
  }
  return keys;
}
