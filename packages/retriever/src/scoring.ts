/**
 * Okapi BM25 as {@link Bm25Index} computes it. Every score goes through the expressions below, in
 * the same order, so that pruned and exhaustive search — and an index built in one go, grown by
 * writes or reloaded — give bit-identical scores:
 * - idf = ln(1 + (N − df + 0.5) / (df + 0.5));
 * - a query term's weight w = idf · (count in the query) · (k1 + 1);
 * - a posting's contribution (w · tf) / (tf + norm), with tf = text count + titleWeight · title count
 *   and norm = k1·(1 − b) + (k1·b / avglen) · (text length + titleWeight · title length);
 * - a chunk's score sums the contributions of its terms in query-term order (highest weight first).
 */

/** Okapi BM25 parameters (see the KeywordRetriever options). */
export interface Bm25Parameters {
  k1: number;
  b: number;
  /** A title occurrence counts as `titleWeight` text occurrences, in the term frequency and the length. */
  titleWeight: number;
}

/** Bounds are compared with this margin, so floating-point rounding can never prune a real top-k chunk. */
export const SAFETY = 1 + 1e-9;

/** The idf of a term in `documentFrequency` of `live` chunks (always positive). */
export function inverseDocumentFrequency(live: number, documentFrequency: number): number {
  return Math.log(1 + (live - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/**
 * A posting's contribution to its chunk's score: (w · tf) / (tf + norm), with `weight` w = idf ·
 * query count · (k1 + 1), `frequency` tf = text count + titleWeight · title count and `norm` the
 * chunk's {@link chunkNorm}. The one definition of BM25's per-posting term: every scorer, the
 * pruned loops of `pruning.ts` included, calls it — TurboFan inlines it into those loops
 * (`--trace-turbo-inlining`), and an interleaved before/after benchmark at 100k chunks measured no
 * cost — and a backend's copy (pgvector's SQL) is tested against it.
 */
export function bm25Contribution(weight: number, frequency: number, norm: number): number {
  return (weight * frequency) / (frequency + norm);
}

/** A query term's weight w = idf · (count in the query) · (k1 + 1). */
export function termWeight(idf: number, queryCount: number, k1: number): number {
  return idf * queryCount * (k1 + 1);
}

/** A chunk's length normalisation: lengthFree + lengthScale · (text length + titleWeight · title length). */
export function chunkNorm(normalization: LengthNormalization, textLength: number, titleLength: number, titleWeight: number): number {
  return normalization.lengthFree + normalization.lengthScale * (textLength + titleWeight * titleLength);
}

/** The two constants of the length normalisation: norm = lengthFree + lengthScale · length. */
export interface LengthNormalization {
  lengthFree: number;
  lengthScale: number;
}

export function lengthNormalization(parameters: Bm25Parameters, averageLength: number): LengthNormalization {
  return { lengthFree: parameters.k1 * (1 - parameters.b), lengthScale: (parameters.k1 * parameters.b) / averageLength };
}

/** Fills `norms[0 .. count)` with each chunk's length normalisation. */
export function fillNorms(norms: Float64Array, count: number, textLengths: Uint32Array, titleLengths: Uint32Array, titleWeight: number, normalization: LengthNormalization): void {
  for (let ordinal = 0; ordinal < count; ordinal++) norms[ordinal] = chunkNorm(normalization, textLengths[ordinal]!, titleLengths[ordinal]!, titleWeight);
}

/**
 * An upper bound of the contribution of any posting with a text count ≤ `maxText`, a title count ≤
 * `maxTitle`, in a chunk whose text and title lengths are ≥ `minTextLength` and `minTitleLength`:
 * the contribution grows with tf and shrinks with the length, so it is the contribution of that
 * extreme (possibly non-existent) posting.
 */
export function contributionBound(weight: number, maxText: number, maxTitle: number, minTextLength: number, minTitleLength: number, titleWeight: number, normalization: LengthNormalization): number {
  const frequency = maxText + titleWeight * maxTitle;
  if (!(frequency > 0)) return 0;
  return bm25Contribution(weight, frequency, chunkNorm(normalization, minTextLength, minTitleLength, titleWeight));
}

/**
 * Exact per-block bounds, for one set of parameters: for each block of a main segment, the largest
 * `tf / (tf + norm)` of its postings with the length normalisation of `averageLength` (rounded up
 * to float32). A term's contribution in the block is at most its weight times that — and stays so
 * while the live average length is at most `averageLength` (a larger average shrinks every norm),
 * so the bounds survive writes that do not lengthen the average.
 */
export interface BlockImpacts {
  parameters: Readonly<Bm25Parameters>;
  averageLength: number;
  values: Float32Array;
}

/** The exact block bounds of `impacts` when they hold for these parameters and this average length. */
export function impactValuesFor(impacts: BlockImpacts | undefined, parameters: Bm25Parameters, averageLength: number): Float32Array | undefined {
  if (!impacts || averageLength > impacts.averageLength) return undefined;
  const reference = impacts.parameters;
  return reference.k1 === parameters.k1 && reference.b === parameters.b && reference.titleWeight === parameters.titleWeight ? impacts.values : undefined;
}

const ROUNDING = new Float32Array(1);
const ROUNDING_BITS = new Uint32Array(ROUNDING.buffer);

/** The smallest float32 >= `value` (value >= 0). */
export function float32AtLeast(value: number): number {
  ROUNDING[0] = value;
  if (ROUNDING[0]! < value) ROUNDING_BITS[0]!++;
  return ROUNDING[0]!;
}

/**
 * Computes {@link BlockImpacts} for `blocks` blocks, given per block its posting range and base
 * ordinal, and per posting its ordinal offset and term frequency (`frequencyOf(position)`).
 */
export function computeBlockImpacts(
  blocks: { starts: Uint32Array; bases: Uint32Array; offsets: Uint16Array; count: number },
  frequencyOf: (position: number) => number,
  textLengths: Uint32Array,
  titleLengths: Uint32Array,
  parameters: Bm25Parameters,
  averageLength: number,
): BlockImpacts {
  const normalization = lengthNormalization(parameters, averageLength);
  const { titleWeight } = parameters;
  const values = new Float32Array(blocks.count);
  const { starts, bases, offsets } = blocks;
  for (let block = 0; block < blocks.count; block++) {
    const base = bases[block]!;
    let best = 0;
    for (let position = starts[block]!; position < starts[block + 1]!; position++) {
      const frequency = frequencyOf(position);
      if (!(frequency > 0)) continue;
      const ordinal = base + offsets[position]!;
      // The contribution of a posting of weight 1.
      const share = bm25Contribution(1, frequency, chunkNorm(normalization, textLengths[ordinal]!, titleLengths[ordinal]!, titleWeight));
      if (share > best) best = share;
    }
    values[block] = float32AtLeast(best);
  }
  return { parameters: { ...parameters }, averageLength, values };
}
