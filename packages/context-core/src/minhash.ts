/**
 * MinHash signatures over word shingles and locality-sensitive hashing (LSH) by banding: the
 * near-duplicate detector of {@link ChunkFilter}. Everything is deterministic (fixed seeds), so the
 * same candidates always give the same verdicts.
 */

/** 32-bit FNV-1a of a string's UTF-16 code units. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
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
 * The set of hashed word shingles (`size` consecutive words) of a word list. A text shorter than
 * one shingle is a single shingle of all its words, so short near-identical texts still compare.
 * Words are hashed once and a shingle's hash is combined from its words' hashes, so no shingle
 * string is ever built.
 */
export function shingleSet(wordList: readonly string[], size: number): Set<number> {
  const shingles = new Set<number>();
  if (wordList.length === 0) return shingles;
  const hashes = wordList.map(fnv1a);
  const width = Math.min(size, hashes.length);
  for (let i = 0; i + width <= hashes.length; i++) {
    let hash = 0x811c9dc5 ^ width;
    for (let k = 0; k < width; k++) hash = Math.imul(hash ^ (hashes[i + k] as number), 0x01000193);
    shingles.add(mix32(hash));
  }
  return shingles;
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
    // Seeds are the mixed golden-ratio sequence: distinct, well spread, and reproducible.
    this.seeds = new Uint32Array(permutations);
    for (let i = 0; i < permutations; i++) this.seeds[i] = mix32(Math.imul(i + 1, 0x9e3779b9) ^ seed);
  }

  /** The MinHash signature of a shingle set: per hash function, the minimum hash over the set. */
  signature(shingles: ReadonlySet<number>): Uint32Array {
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
