import { TopK, type DocumentChunk } from '@zerda/types';

/**
 * The inverted index behind {@link KeywordRetriever}: a term dictionary, postings in typed arrays,
 * per-chunk lengths, and Okapi BM25 scoring that touches only the postings of the query's terms.
 *
 * Layout (Lucene-like, one immutable segment plus a small mutable one):
 * - the main segment is compressed-sparse-row: `mainOffsets[t] .. mainOffsets[t + 1]` index the
 *   chunk ordinals (`mainChunks`, Uint32) and packed frequencies (`mainFrequencies`, Uint32) of term `t`;
 * - chunks added after the last build go to per-term delta lists (typed arrays grown by doubling);
 * - removal only sets a tombstone; document frequencies are the count of live postings, so idf and
 *   avgdl always describe exactly the live corpus;
 * - compaction merges both segments, drops tombstones and unused terms, and renumbers chunks. It
 *   runs automatically when the delta or the tombstones grow past a share of the index.
 *
 * A packed frequency holds the term's count in the text (low 16 bits) and in the title (high 16
 * bits), each saturating at 65535 — far beyond where BM25's saturation stops mattering. Keeping the
 * fields apart (rather than folding the title weight in) keeps every score exact: the same corpus
 * scores bit-identically whether it was built in one go, grown by `add`/`remove`, or reloaded.
 */

/** Okapi BM25 parameters (see the KeywordRetriever options). */
export interface Bm25Parameters {
  k1: number;
  b: number;
  /** A title occurrence counts as `titleWeight` text occurrences, in the term frequency and the length. */
  titleWeight: number;
}

/** A chunk with its analysed terms, ready to be indexed. */
export interface AnalyzedChunk {
  chunk: DocumentChunk;
  textTerms: readonly string[];
  titleTerms: readonly string[];
}

/** A query term with how often it occurs in the query (repeated query terms count repeatedly). */
export interface WeightedTerm {
  term: string;
  weight: number;
}

/** What a search returns per hit. */
export interface IndexHit {
  chunk: DocumentChunk;
  score: number;
}

/** Sizes of the index, for diagnostics and memory planning. */
export interface Bm25IndexStats {
  /** Live chunks. */
  chunks: number;
  /** Terms with at least one posting in the dictionary (including not yet compacted ones). */
  terms: number;
  /** Postings, live and tombstoned. */
  postings: number;
  /** Postings in the delta segment (not yet compacted). */
  deltaPostings: number;
  /** Removed chunks whose postings are still present until the next compaction. */
  tombstones: number;
  /** Bytes held by the typed arrays of the index (postings, lengths, flags); excludes the chunks themselves and the JS maps. */
  typedArrayBytes: number;
}

/** The compacted arrays an index is serialised as. */
export interface Bm25IndexSnapshot {
  terms: string[];
  chunks: DocumentChunk[];
  textLengths: Uint32Array;
  titleLengths: Uint32Array;
  offsets: Uint32Array;
  postingChunks: Uint32Array;
  postingFrequencies: Uint32Array;
}

/** When to compact: delta or tombstones past these shares of the index (and past small floors). */
export interface CompactionPolicy {
  /** Compact when delta postings exceed this share of main postings. */
  deltaRatio: number;
  /** Compact when tombstoned chunks exceed this share of all chunk slots. */
  tombstoneRatio: number;
}

interface BulkBuild {
  forwardTermIds: Uint32Array;
  forwardFrequencies: Uint32Array;
  chunkEnds: Uint32Array;
  documentFrequencies: Uint32Array;
  postings: number;
}

/** A query term resolved against the index. */
interface ResolvedTerm {
  mainStart: number;
  mainEnd: number;
  list: PostingList | undefined;
  /** idf · query count · (k1 + 1): an upper bound of the term's contribution to any chunk. */
  weight: number;
  postings: number;
}

/** Lists shorter than this are scanned without checking whether pruning could skip them. */
const PRUNING_MIN_POSTINGS = 1024;
/** Bounds are compared with this margin, so floating-point rounding can never prune a real top-k chunk. */
const SAFETY = 1 + 1e-9;
const TEXT_MASK = 0xffff;
const TITLE_UNIT = 0x10000;
const SATURATED = 0xffff;
const DELTA_FLOOR = 4096;
const TOMBSTONE_FLOOR = 256;

class PostingList {
  chunks: Uint32Array = new Uint32Array(4);
  frequencies: Uint32Array = new Uint32Array(4);
  length = 0;

  push(ordinal: number, frequency: number): void {
    if (this.length === this.chunks.length) {
      this.chunks = growUint32(this.chunks, this.length * 2);
      this.frequencies = growUint32(this.frequencies, this.length * 2);
    }
    this.chunks[this.length] = ordinal;
    this.frequencies[this.length] = frequency;
    this.length++;
  }
}

type GrowableArray = Uint32Array | Float64Array | Int32Array | Uint8Array;

/** A copy of `array` with room for at least `minimum` elements (doubling), or `array` when it fits. */
function grow<T extends GrowableArray>(array: T, minimum: number): T {
  if (array.length >= minimum) return array;
  const constructor = array.constructor as new (length: number) => T;
  const grown = new constructor(Math.max(minimum, array.length * 2, 8));
  grown.set(array as never);
  return grown;
}

const growUint32 = grow<Uint32Array>;
const growFloat64 = grow<Float64Array>;
const growInt32 = grow<Int32Array>;
const growUint8 = grow<Uint8Array>;

/** See the module comment. Not exported from the package: {@link KeywordRetriever} is the public face. */
export class Bm25Index {
  // Term dictionary.
  private dictionary = new Map<string, number>();
  private terms: string[] = [];

  // Main (compacted) segment, CSR over term ids below mainTermCount.
  private mainTermCount = 0;
  private mainOffsets: Uint32Array = new Uint32Array(1);
  private mainChunks: Uint32Array = new Uint32Array(0);
  private mainFrequencies: Uint32Array = new Uint32Array(0);

  // Delta segment: postings of chunks added since the last build or compaction.
  private delta = new Map<number, PostingList>();
  private deltaPostings = 0;

  // Per chunk ordinal.
  private slots = 0;
  private live = 0;
  private tombstones = 0;
  private textLengths: Uint32Array = new Uint32Array(0);
  private titleLengths: Uint32Array = new Uint32Array(0);
  /** Insertion order; an updated chunk keeps its original place. Ties in score go to the smaller value. */
  private sequence: Float64Array = new Float64Array(0);
  private dead: Uint8Array = new Uint8Array(0);
  /** Next ordinal of the same docId (a linked list per document), -1 at the end. */
  private nextInDocument: Int32Array = new Int32Array(0);
  private chunks: Array<DocumentChunk | undefined> = [];
  private ordinalById = new Map<string, number>();
  private firstOrdinalByDocId = new Map<string, number>();
  private nextSequence = 0;
  private totalTextLength = 0;
  private totalTitleLength = 0;

  // Scratch buffers reused by every search and count (searches are synchronous, so never shared).
  private accumulator: Float64Array = new Float64Array(0);
  private touched: Uint32Array = new Uint32Array(0);
  private termCounts: Uint32Array = new Uint32Array(0);
  private candidates: Uint32Array = new Uint32Array(0);
  private filterMemo: Uint8Array = new Uint8Array(0);
  /** Length normalisation per ordinal for the parameters and version below (see lengthNorms). */
  private norms: Float64Array = new Float64Array(0);
  private normsVersion = -1;
  private normsK1 = Number.NaN;
  private normsB = Number.NaN;
  private normsTitleWeight = Number.NaN;
  /** Bumped by every change to the corpus, so derived caches know when they are stale. */
  private version = 0;
  private scratchTermIds: Uint32Array = new Uint32Array(256);
  private scratchFrequencies: Uint32Array = new Uint32Array(256);

  /** State of a bulk build in progress (see {@link startBulk}). */
  private bulk: BulkBuild | undefined;

  constructor(
    private readonly compaction: CompactionPolicy = { deltaRatio: 0.25, tombstoneRatio: 0.25 },
    /** `pruning: false` scores every posting of every term (a reference for tests and measurements). */
    private readonly searchOptions: { pruning: boolean } = { pruning: true },
  ) {}

  /** Number of live chunks. */
  get size(): number {
    return this.live;
  }

  /** Whether a chunk with this id is indexed. */
  has(id: string): boolean {
    return this.ordinalById.has(id);
  }

  /** The live chunks in insertion order (an updated chunk keeps its place). */
  allChunks(): DocumentChunk[] {
    const ordinals: number[] = [];
    for (let ordinal = 0; ordinal < this.slots; ordinal++) if (this.dead[ordinal] === 0) ordinals.push(ordinal);
    ordinals.sort((a, b) => this.sequence[a]! - this.sequence[b]!);
    return ordinals.map((ordinal) => this.chunks[ordinal]!);
  }

  /** Replaces the whole corpus with `entries`, building the main segment directly (no delta). */
  rebuild(entries: readonly AnalyzedChunk[]): void {
    this.startBulk(entries.length);
    for (const entry of entries) this.appendBulk(entry);
    this.finishBulk();
  }

  /**
   * Starts a bulk build: the index is emptied, then {@link appendBulk} takes chunks in order (ids
   * must be unique) and {@link finishBulk} inverts them into the main segment. Streaming the chunks
   * in means their analysed terms need not all be held at once. A forward index (term ids and
   * frequencies per chunk, back to back) is inverted with a counting sort: two passes, no per-term
   * growth, and postings end up in ordinal order.
   */
  startBulk(expectedChunks = 0): void {
    this.reset();
    this.reserveSlots(expectedChunks);
    this.bulk = {
      forwardTermIds: new Uint32Array(1 << 16),
      forwardFrequencies: new Uint32Array(1 << 16),
      chunkEnds: new Uint32Array(Math.max(expectedChunks, 16)),
      documentFrequencies: new Uint32Array(1024),
      postings: 0,
    };
  }

  /** Appends one chunk to the bulk build started with {@link startBulk}. */
  appendBulk(entry: AnalyzedChunk): void {
    const bulk = this.bulk;
    if (!bulk) throw new Error('appendBulk() called outside startBulk()/finishBulk()');
    const distinct = this.countTerms(entry.textTerms, entry.titleTerms);
    const end = bulk.postings + distinct;
    if (end > bulk.forwardTermIds.length) {
      bulk.forwardTermIds = growUint32(bulk.forwardTermIds, end);
      bulk.forwardFrequencies = growUint32(bulk.forwardFrequencies, end);
    }
    bulk.documentFrequencies = growUint32(bulk.documentFrequencies, this.terms.length);
    for (let index = 0; index < distinct; index++) {
      const termId = this.scratchTermIds[index]!;
      bulk.documentFrequencies[termId]!++;
      bulk.forwardTermIds[bulk.postings + index] = termId;
      bulk.forwardFrequencies[bulk.postings + index] = this.scratchFrequencies[index]!;
    }
    bulk.postings = end;
    const ordinal = this.appendSlot(entry, this.nextSequence++);
    bulk.chunkEnds = growUint32(bulk.chunkEnds, ordinal + 1);
    bulk.chunkEnds[ordinal] = end;
  }

  /** Inverts the appended chunks into the main segment and ends the bulk build. */
  finishBulk(): void {
    const bulk = this.bulk;
    if (!bulk) throw new Error('finishBulk() called without startBulk()');
    this.bulk = undefined;
    const termCount = this.terms.length;
    const offsets = new Uint32Array(termCount + 1);
    for (let term = 0; term < termCount; term++) offsets[term + 1] = offsets[term]! + bulk.documentFrequencies[term]!;
    const cursor = offsets.slice(0, termCount);
    const postingChunks = new Uint32Array(bulk.postings);
    const postingFrequencies = new Uint32Array(bulk.postings);
    let position = 0;
    for (let ordinal = 0; ordinal < this.slots; ordinal++) {
      const end = bulk.chunkEnds[ordinal]!;
      for (; position < end; position++) {
        const target = cursor[bulk.forwardTermIds[position]!]!++;
        postingChunks[target] = ordinal;
        postingFrequencies[target] = bulk.forwardFrequencies[position]!;
      }
    }
    this.mainTermCount = termCount;
    this.mainOffsets = offsets;
    this.mainChunks = postingChunks;
    this.mainFrequencies = postingFrequencies;
  }

  /**
   * Adds chunks (a chunk whose id is already indexed is replaced, keeping its place in insertion
   * order). Postings go to the delta segment; compaction follows when the policy says so.
   */
  add(entries: readonly AnalyzedChunk[]): void {
    this.reserveSlots(this.slots + entries.length);
    for (const entry of entries) {
      const previous = this.ordinalById.get(entry.chunk.id);
      let order: number;
      if (previous === undefined) {
        order = this.nextSequence++;
      } else {
        order = this.sequence[previous]!;
        this.kill(previous);
      }
      const distinct = this.countTerms(entry.textTerms, entry.titleTerms);
      const ordinal = this.appendSlot(entry, order);
      for (let index = 0; index < distinct; index++) {
        const termId = this.scratchTermIds[index]!;
        let list = this.delta.get(termId);
        if (!list) {
          list = new PostingList();
          this.delta.set(termId, list);
        }
        list.push(ordinal, this.scratchFrequencies[index]!);
      }
      this.deltaPostings += distinct;
    }
    this.maybeCompact();
  }

  /** Removes every chunk of the given documents. Returns how many chunks were removed. */
  removeDocuments(docIds: readonly string[]): number {
    let removed = 0;
    for (const docId of docIds) {
      let ordinal = this.firstOrdinalByDocId.get(docId);
      if (ordinal === undefined) continue;
      this.firstOrdinalByDocId.delete(docId);
      while (ordinal !== -1 && ordinal !== undefined) {
        // The list may hold ordinals that were since replaced (tombstoned) or moved to another docId.
        if (this.dead[ordinal] === 0 && this.chunks[ordinal]!.docId === docId) {
          this.kill(ordinal);
          removed++;
        }
        ordinal = this.nextInDocument[ordinal];
      }
    }
    this.maybeCompact();
    return removed;
  }

  /** Removes chunks by id (unknown ids are ignored). Returns how many were removed. */
  removeChunks(ids: readonly string[]): number {
    let removed = 0;
    for (const id of ids) {
      const ordinal = this.ordinalById.get(id);
      if (ordinal === undefined) continue;
      this.kill(ordinal);
      removed++;
    }
    this.maybeCompact();
    return removed;
  }

  /**
   * Scores the live chunks containing at least one query term with Okapi BM25 and returns the best
   * `k` (ties to the earlier inserted). `accept` is consulted only for chunks that could enter the
   * top k, so a selective filter costs little.
   *
   * Term at a time, rarest (highest-weight) terms first, with MaxScore-style pruning that never
   * changes the result: each term's contribution is below its weight idf·q·(k1 + 1), so once the
   * k-th best score so far exceeds the summed weights of the terms still to go, no chunk that has
   * not been seen can enter the top k. The remaining (long, common-term) postings lists are then
   * only probed, by galloping search, for the chunks that can still make it.
   */
  search(query: readonly WeightedTerm[], k: number, parameters: Bm25Parameters, accept?: (chunk: DocumentChunk) => boolean): IndexHit[] {
    if (this.live === 0 || k <= 0 || query.length === 0) return [];
    const { k1, titleWeight } = parameters;
    const averageLength = (this.totalTextLength + titleWeight * this.totalTitleLength) / this.live;
    if (!(averageLength > 0)) return [];
    const terms: ResolvedTerm[] = [];
    for (const { term, weight } of query) {
      const termId = this.dictionary.get(term);
      if (termId === undefined || !(weight > 0)) continue;
      const mainStart = termId < this.mainTermCount ? this.mainOffsets[termId]! : 0;
      const mainEnd = termId < this.mainTermCount ? this.mainOffsets[termId + 1]! : 0;
      const list = this.delta.get(termId);
      const documentFrequency = this.liveCount(mainStart, mainEnd, list);
      if (documentFrequency === 0) continue;
      const idf = Math.log(1 + (this.live - documentFrequency + 0.5) / (documentFrequency + 0.5));
      terms.push({ mainStart, mainEnd, list, weight: idf * weight * (k1 + 1), postings: mainEnd - mainStart + (list?.length ?? 0) });
    }
    if (terms.length === 0) return [];
    // Stable: equal weights keep query order, so the summation order (and the scores, to the last
    // bit) is the same however the index was built.
    terms.sort((a, b) => b.weight - a.weight);
    const remaining = new Float64Array(terms.length + 1);
    for (let index = terms.length - 1; index >= 0; index--) remaining[index] = remaining[index + 1]! + terms[index]!.weight;
    const norms = this.lengthNorms(parameters, averageLength);
    this.accumulator = growFloat64(this.accumulator, this.slots);
    this.touched = growUint32(this.touched, this.slots);
    if (accept) this.filterMemo = growUint8(this.filterMemo, this.slots);
    const accumulator = this.accumulator;
    const touched = this.touched;
    const memo = accept ? this.filterMemo : undefined;
    const passes = (ordinal: number): boolean => {
      if (!accept || !memo) return true;
      let state = memo[ordinal]!;
      if (state === 0) memo[ordinal] = state = accept(this.chunks[ordinal]!) ? 1 : 2;
      return state === 1;
    };
    let touchedCount = 0;
    try {
      let essential = 0;
      for (; essential < terms.length; essential++) {
        const term = terms[essential]!;
        // Checking costs a pass over the chunks seen so far: worth it only before a long list.
        if (this.searchOptions.pruning && touchedCount >= k && term.postings >= PRUNING_MIN_POSTINGS && term.postings * 4 >= touchedCount) {
          const threshold = this.kthScore(k, touchedCount, passes);
          if (threshold !== undefined && remaining[essential]! * SAFETY < threshold) break;
        }
        touchedCount = this.accumulateTerm(term, parameters, norms, touchedCount);
      }
      let candidates = touched.subarray(0, touchedCount);
      if (essential < terms.length) {
        const threshold = this.kthScore(k, touchedCount, passes) ?? 0;
        const bound = remaining[essential]! * SAFETY;
        // Only chunks whose partial score plus everything still to come reaches the threshold matter.
        this.candidates = growUint32(this.candidates, touchedCount);
        let kept = 0;
        for (let index = 0; index < touchedCount; index++) {
          const ordinal = touched[index]!;
          if (accumulator[ordinal]! + bound >= threshold) this.candidates[kept++] = ordinal;
        }
        candidates = this.candidates.subarray(0, kept).sort();
        for (let index = essential; index < terms.length; index++) this.probeTerm(terms[index]!, parameters, norms, candidates);
      }
      const heap = this.topK(Math.min(k, candidates.length));
      for (let index = 0; index < candidates.length; index++) {
        const ordinal = candidates[index]!;
        const score = accumulator[ordinal]!;
        if (!heap.admits(score, ordinal) || !passes(ordinal)) continue;
        heap.push(score, ordinal);
      }
      return heap.sorted().map(({ rank, item }) => ({ chunk: this.chunks[item]!, score: rank }));
    } finally {
      // Leave the scratch buffers clean (also when `accept` threw).
      for (let index = 0; index < touchedCount; index++) {
        const ordinal = touched[index]!;
        accumulator[ordinal] = 0;
        if (memo) memo[ordinal] = 0;
      }
    }
  }

  /** Adds one term's contribution for every live chunk in its postings; returns the new touched count. */
  private accumulateTerm(term: ResolvedTerm, parameters: Bm25Parameters, norms: Float64Array, touchedCount: number): number {
    const { titleWeight } = parameters;
    const accumulator = this.accumulator;
    const touched = this.touched;
    const dead = this.dead;
    const checkDead = this.tombstones > 0;
    const termWeight = term.weight;
    for (let segment = 0; segment < 2; segment++) {
      const chunkIds = segment === 0 ? this.mainChunks : term.list?.chunks;
      const frequencies = segment === 0 ? this.mainFrequencies : term.list?.frequencies;
      const start = segment === 0 ? term.mainStart : 0;
      const end = segment === 0 ? term.mainEnd : (term.list?.length ?? 0);
      if (!chunkIds || !frequencies) continue;
      for (let index = start; index < end; index++) {
        const ordinal = chunkIds[index]!;
        if (checkDead && dead[ordinal] !== 0) continue;
        const packed = frequencies[index]!;
        const frequency = (packed & TEXT_MASK) + titleWeight * (packed >>> 16);
        if (!(frequency > 0)) continue;
        const contribution = (termWeight * frequency) / (frequency + norms[ordinal]!);
        if (accumulator[ordinal] === 0) touched[touchedCount++] = ordinal;
        accumulator[ordinal]! += contribution;
      }
    }
    return touchedCount;
  }

  /**
   * Adds one term's contribution to the given chunks only (ascending ordinals, all live), finding
   * each in the term's ordinal-sorted postings by galloping search.
   */
  private probeTerm(term: ResolvedTerm, parameters: Bm25Parameters, norms: Float64Array, candidates: Uint32Array): void {
    const { titleWeight } = parameters;
    const accumulator = this.accumulator;
    for (let segment = 0; segment < 2; segment++) {
      const chunkIds = segment === 0 ? this.mainChunks : term.list?.chunks;
      const frequencies = segment === 0 ? this.mainFrequencies : term.list?.frequencies;
      const end = segment === 0 ? term.mainEnd : (term.list?.length ?? 0);
      let position = segment === 0 ? term.mainStart : 0;
      if (!chunkIds || !frequencies) continue;
      for (let index = 0; index < candidates.length && position < end; index++) {
        const ordinal = candidates[index]!;
        if (chunkIds[position]! < ordinal) {
          // Gallop to a range holding the first posting >= ordinal, then binary-search it.
          let low = position;
          let step = 1;
          let high = position + 1;
          while (high < end && chunkIds[high]! < ordinal) {
            low = high;
            step *= 2;
            high = position + step;
          }
          if (high > end) high = end;
          while (low + 1 < high) {
            const middle = (low + high) >>> 1;
            if (chunkIds[middle]! < ordinal) low = middle;
            else high = middle;
          }
          position = high;
          if (position >= end) break;
        }
        if (chunkIds[position] !== ordinal) continue;
        const packed = frequencies[position]!;
        position++;
        const frequency = (packed & TEXT_MASK) + titleWeight * (packed >>> 16);
        if (!(frequency > 0)) continue;
        accumulator[ordinal]! += (term.weight * frequency) / (frequency + norms[ordinal]!);
      }
    }
  }

  /** The k-th best score among the touched chunks that pass the filter, or undefined when fewer than k pass. */
  private kthScore(k: number, touchedCount: number, passes: (ordinal: number) => boolean): number | undefined {
    const heap = this.topK(k);
    for (let index = 0; index < touchedCount; index++) {
      const ordinal = this.touched[index]!;
      const score = this.accumulator[ordinal]!;
      if (!heap.admits(score, ordinal) || !passes(ordinal)) continue;
      heap.push(score, ordinal);
    }
    return heap.length === k ? heap.weakestRank() : undefined;
  }

  /** A top-k of chunk ordinals; equal scores go to the earlier inserted chunk. */
  private topK(capacity: number): TopK {
    const sequence = this.sequence;
    return new TopK(capacity, (a, b) => sequence[a]! < sequence[b]!);
  }

  /**
   * `k1·(1 − b + b·len/avglen)` per chunk ordinal, recomputed only after a write or a parameter
   * change, so scoring a posting reads one array instead of two.
   */
  private lengthNorms(parameters: Bm25Parameters, averageLength: number): Float64Array {
    const { k1, b, titleWeight } = parameters;
    if (this.normsVersion === this.version && this.normsK1 === k1 && this.normsB === b && this.normsTitleWeight === titleWeight && this.norms.length >= this.slots) return this.norms;
    this.norms = growFloat64(this.norms, this.slots);
    const lengthFree = k1 * (1 - b);
    const lengthScale = (k1 * b) / averageLength;
    for (let ordinal = 0; ordinal < this.slots; ordinal++) {
      this.norms[ordinal] = lengthFree + lengthScale * (this.textLengths[ordinal]! + titleWeight * this.titleLengths[ordinal]!);
    }
    this.normsVersion = this.version;
    this.normsK1 = k1;
    this.normsB = b;
    this.normsTitleWeight = titleWeight;
    return this.norms;
  }

  /** Merges the delta into the main segment, drops tombstones and unused terms, renumbers chunks. */
  compact(): void {
    if (this.deltaPostings === 0 && this.tombstones === 0) return;
    // New ordinals follow insertion order, so an index grown incrementally ends up laid out exactly
    // like one built from scratch.
    const liveOrdinals: number[] = [];
    for (let ordinal = 0; ordinal < this.slots; ordinal++) if (this.dead[ordinal] === 0) liveOrdinals.push(ordinal);
    let sorted = true;
    for (let index = 1; index < liveOrdinals.length; index++) {
      if (this.sequence[liveOrdinals[index - 1]!]! > this.sequence[liveOrdinals[index]!]!) {
        sorted = false;
        break;
      }
    }
    if (!sorted) liveOrdinals.sort((a, b) => this.sequence[a]! - this.sequence[b]!);
    const renumber = new Int32Array(this.slots).fill(-1);
    for (let index = 0; index < liveOrdinals.length; index++) renumber[liveOrdinals[index]!] = index;

    // Live postings per term decide which terms survive and where their postings go.
    const termCount = this.terms.length;
    const liveCounts = new Uint32Array(termCount);
    let totalPostings = 0;
    for (let termId = 0; termId < termCount; termId++) {
      const mainStart = termId < this.mainTermCount ? this.mainOffsets[termId]! : 0;
      const mainEnd = termId < this.mainTermCount ? this.mainOffsets[termId + 1]! : 0;
      const count = this.liveCount(mainStart, mainEnd, this.delta.get(termId));
      liveCounts[termId] = count;
      totalPostings += count;
    }
    // Terms left without postings are dropped (renumbering the dictionary) once they are a tenth of
    // it; until then they stay, harmless, so that a compaction usually keeps every term id.
    let liveTerms = 0;
    for (let termId = 0; termId < termCount; termId++) if (liveCounts[termId]! > 0) liveTerms++;
    const dropTerms = termCount - liveTerms > termCount * 0.1;
    const newTermIds = new Int32Array(termCount);
    let newTerms: string[] = this.terms;
    if (dropTerms) {
      newTerms = [];
      for (let termId = 0; termId < termCount; termId++) {
        newTermIds[termId] = liveCounts[termId]! > 0 ? newTerms.push(this.terms[termId]!) - 1 : -1;
      }
    } else {
      for (let termId = 0; termId < termCount; termId++) newTermIds[termId] = termId;
    }
    const offsets = new Uint32Array(newTerms.length + 1);
    const postingChunks = new Uint32Array(totalPostings);
    const postingFrequencies = new Uint32Array(totalPostings);
    let position = 0;
    const mainChunks = this.mainChunks;
    const mainFrequencies = this.mainFrequencies;
    for (let termId = 0; termId < termCount; termId++) {
      const newTermId = newTermIds[termId]!;
      if (newTermId < 0) continue;
      const start = position;
      const mainStart = termId < this.mainTermCount ? this.mainOffsets[termId]! : 0;
      const mainEnd = termId < this.mainTermCount ? this.mainOffsets[termId + 1]! : 0;
      for (let index = mainStart; index < mainEnd; index++) {
        const target = renumber[mainChunks[index]!]!;
        if (target < 0) continue;
        postingChunks[position] = target;
        postingFrequencies[position++] = mainFrequencies[index]!;
      }
      const list = this.delta.get(termId);
      if (list) {
        for (let index = 0; index < list.length; index++) {
          const target = renumber[list.chunks[index]!]!;
          if (target < 0) continue;
          postingChunks[position] = target;
          postingFrequencies[position++] = list.frequencies[index]!;
        }
      }
      // Updates can move a chunk's ordinal; keep each postings list in ordinal order for locality.
      sortPostingRange(postingChunks, postingFrequencies, start, position);
      offsets[newTermId + 1] = position;
    }

    // Per-chunk state, renumbered in place: the id map keeps its keys (only values change), so a
    // large index does not rebuild its maps on every compaction.
    const count = liveOrdinals.length;
    const textLengths = new Uint32Array(count);
    const titleLengths = new Uint32Array(count);
    const sequence = new Float64Array(count);
    const chunks: Array<DocumentChunk | undefined> = new Array(count);
    for (let index = 0; index < count; index++) {
      const ordinal = liveOrdinals[index]!;
      textLengths[index] = this.textLengths[ordinal]!;
      titleLengths[index] = this.titleLengths[ordinal]!;
      sequence[index] = index;
      const chunk = this.chunks[ordinal]!;
      chunks[index] = chunk;
      this.ordinalById.set(chunk.id, index);
    }
    if (dropTerms) {
      this.terms = newTerms;
      this.dictionary = new Map();
      for (let termId = 0; termId < newTerms.length; termId++) this.dictionary.set(newTerms[termId]!, termId);
    }
    this.mainTermCount = newTerms.length;
    this.mainOffsets = offsets;
    this.mainChunks = postingChunks;
    this.mainFrequencies = postingFrequencies;
    this.delta = new Map();
    this.deltaPostings = 0;
    this.textLengths = textLengths;
    this.titleLengths = titleLengths;
    this.sequence = sequence;
    this.dead = new Uint8Array(count);
    this.nextInDocument = new Int32Array(count);
    this.chunks = chunks;
    this.firstOrdinalByDocId = new Map();
    for (let index = 0; index < count; index++) this.linkDocument(chunks[index]!.docId, index);
    this.slots = count;
    this.live = count;
    this.tombstones = 0;
    this.nextSequence = count;
    this.version++;
  }

  /**
   * The compacted arrays (compacts first): with {@link load}, the one pair through which the index
   * is serialised (JSON in `KeywordRetriever.toJSON`, binary in keyword-snapshot.ts). The typed
   * arrays are views of the live index, not copies — a million-chunk snapshot is written without
   * holding the index twice — so they are valid until the next write (callers hold the write queue).
   */
  snapshot(): Bm25IndexSnapshot {
    this.compact();
    return {
      terms: this.terms.slice(),
      chunks: this.chunks.slice(0, this.slots) as DocumentChunk[],
      textLengths: this.textLengths.subarray(0, this.slots),
      titleLengths: this.titleLengths.subarray(0, this.slots),
      offsets: this.mainOffsets.subarray(0, this.mainTermCount + 1),
      postingChunks: this.mainChunks,
      postingFrequencies: this.mainFrequencies,
    };
  }

  /**
   * Replaces the state with a compacted snapshot. The snapshot must be consistent (see
   * {@link validateSnapshot}); it is adopted, not copied.
   */
  load(snapshot: Bm25IndexSnapshot): void {
    const count = snapshot.chunks.length;
    this.reset();
    this.terms = snapshot.terms;
    for (let termId = 0; termId < snapshot.terms.length; termId++) this.dictionary.set(snapshot.terms[termId]!, termId);
    this.mainTermCount = snapshot.terms.length;
    this.mainOffsets = snapshot.offsets;
    this.mainChunks = snapshot.postingChunks;
    this.mainFrequencies = snapshot.postingFrequencies;
    this.reserveSlots(count);
    this.textLengths.set(snapshot.textLengths);
    this.titleLengths.set(snapshot.titleLengths);
    for (let ordinal = 0; ordinal < count; ordinal++) {
      const chunk = snapshot.chunks[ordinal]!;
      this.chunks[ordinal] = chunk;
      this.sequence[ordinal] = ordinal;
      this.dead[ordinal] = 0;
      this.ordinalById.set(chunk.id, ordinal);
      this.linkDocument(chunk.docId, ordinal);
      this.totalTextLength += snapshot.textLengths[ordinal]!;
      this.totalTitleLength += snapshot.titleLengths[ordinal]!;
    }
    this.slots = count;
    this.live = count;
    this.nextSequence = count;
  }

  /** Sizes, for diagnostics and memory planning. */
  stats(): Bm25IndexStats {
    let deltaBytes = 0;
    for (const list of this.delta.values()) deltaBytes += list.chunks.byteLength + list.frequencies.byteLength;
    const typedArrayBytes =
      this.mainOffsets.byteLength +
      this.mainChunks.byteLength +
      this.mainFrequencies.byteLength +
      deltaBytes +
      this.textLengths.byteLength +
      this.titleLengths.byteLength +
      this.sequence.byteLength +
      this.dead.byteLength +
      this.nextInDocument.byteLength +
      this.accumulator.byteLength +
      this.touched.byteLength +
      this.termCounts.byteLength +
      this.scratchTermIds.byteLength +
      this.scratchFrequencies.byteLength;
    return {
      chunks: this.live,
      terms: this.dictionary.size,
      postings: this.mainChunks.length + this.deltaPostings,
      deltaPostings: this.deltaPostings,
      tombstones: this.tombstones,
      typedArrayBytes,
    };
  }

  private reset(): void {
    this.version++;
    this.dictionary = new Map();
    this.terms = [];
    this.mainTermCount = 0;
    this.mainOffsets = new Uint32Array(1);
    this.mainChunks = new Uint32Array(0);
    this.mainFrequencies = new Uint32Array(0);
    this.delta = new Map();
    this.deltaPostings = 0;
    this.slots = 0;
    this.live = 0;
    this.tombstones = 0;
    this.textLengths = new Uint32Array(0);
    this.titleLengths = new Uint32Array(0);
    this.sequence = new Float64Array(0);
    this.dead = new Uint8Array(0);
    this.nextInDocument = new Int32Array(0);
    this.chunks = [];
    this.ordinalById = new Map();
    this.firstOrdinalByDocId = new Map();
    this.nextSequence = 0;
    this.totalTextLength = 0;
    this.totalTitleLength = 0;
    this.accumulator = new Float64Array(0);
    this.touched = new Uint32Array(0);
  }

  /** Live postings of one term (all of them when nothing was removed). */
  private liveCount(mainStart: number, mainEnd: number, list: PostingList | undefined): number {
    const total = mainEnd - mainStart + (list?.length ?? 0);
    if (this.tombstones === 0) return total;
    let count = 0;
    const dead = this.dead;
    const mainChunks = this.mainChunks;
    for (let index = mainStart; index < mainEnd; index++) if (dead[mainChunks[index]!] === 0) count++;
    if (list) {
      const chunks = list.chunks;
      for (let index = 0; index < list.length; index++) if (dead[chunks[index]!] === 0) count++;
    }
    return count;
  }

  private reserveSlots(minimum: number): void {
    this.textLengths = growUint32(this.textLengths, minimum);
    this.titleLengths = growUint32(this.titleLengths, minimum);
    this.sequence = growFloat64(this.sequence, minimum);
    this.dead = growUint8(this.dead, minimum);
    this.nextInDocument = growInt32(this.nextInDocument, minimum);
  }

  private appendSlot(entry: AnalyzedChunk, order: number): number {
    const ordinal = this.slots++;
    if (ordinal >= this.textLengths.length) this.reserveSlots(this.slots);
    const { chunk } = entry;
    this.textLengths[ordinal] = entry.textTerms.length;
    this.titleLengths[ordinal] = entry.titleTerms.length;
    this.sequence[ordinal] = order;
    this.dead[ordinal] = 0;
    this.chunks[ordinal] = chunk;
    this.ordinalById.set(chunk.id, ordinal);
    this.linkDocument(chunk.docId, ordinal);
    this.totalTextLength += entry.textTerms.length;
    this.totalTitleLength += entry.titleTerms.length;
    this.live++;
    this.version++;
    return ordinal;
  }

  private linkDocument(docId: string, ordinal: number): void {
    this.nextInDocument[ordinal] = this.firstOrdinalByDocId.get(docId) ?? -1;
    this.firstOrdinalByDocId.set(docId, ordinal);
  }

  private kill(ordinal: number): void {
    const chunk = this.chunks[ordinal]!;
    this.dead[ordinal] = 1;
    this.live--;
    this.version++;
    this.tombstones++;
    this.totalTextLength -= this.textLengths[ordinal]!;
    this.totalTitleLength -= this.titleLengths[ordinal]!;
    if (this.ordinalById.get(chunk.id) === ordinal) this.ordinalById.delete(chunk.id);
    // Release the chunk now; its postings stay until compaction but are skipped as dead.
    this.chunks[ordinal] = undefined;
  }

  private maybeCompact(): void {
    const mainPostings = this.mainChunks.length;
    const deltaDue = this.deltaPostings > DELTA_FLOOR && this.deltaPostings > mainPostings * this.compaction.deltaRatio;
    const tombstonesDue = this.tombstones > TOMBSTONE_FLOOR && this.tombstones > this.slots * this.compaction.tombstoneRatio;
    if (deltaDue || tombstonesDue) this.compact();
  }

  /**
   * Counts a chunk's terms into `scratchTermIds` / `scratchFrequencies` (packed: text count in the
   * low 16 bits, title count in the high 16), in first-seen order, and returns how many distinct
   * terms it has. New terms enter the dictionary (harmless if the write is abandoned: a term without
   * live postings is invisible and dropped at the next compaction).
   */
  private countTerms(textTerms: readonly string[], titleTerms: readonly string[]): number {
    const capacity = textTerms.length + titleTerms.length;
    if (this.scratchTermIds.length < capacity) {
      this.scratchTermIds = new Uint32Array(Math.max(capacity, this.scratchTermIds.length * 2));
      this.scratchFrequencies = new Uint32Array(this.scratchTermIds.length);
    }
    const ids = this.scratchTermIds;
    let distinct = 0;
    for (let field = 0; field < 2; field++) {
      const terms = field === 0 ? textTerms : titleTerms;
      for (let index = 0; index < terms.length; index++) {
        const term = terms[index]!;
        let termId = this.dictionary.get(term);
        if (termId === undefined) {
          termId = this.terms.length;
          this.dictionary.set(term, termId);
          this.terms.push(term);
          if (termId >= this.termCounts.length) this.termCounts = growUint32(this.termCounts, termId + 1);
        }
        const packed = this.termCounts[termId]!;
        if (packed === 0) ids[distinct++] = termId;
        if (field === 0) {
          if ((packed & TEXT_MASK) < SATURATED) this.termCounts[termId] = packed + 1;
        } else if (packed >>> 16 < SATURATED) {
          this.termCounts[termId] = packed + TITLE_UNIT;
        }
      }
    }
    const frequencies = this.scratchFrequencies;
    for (let index = 0; index < distinct; index++) {
      frequencies[index] = this.termCounts[ids[index]!]!;
      this.termCounts[ids[index]!] = 0;
    }
    return distinct;
  }
}

/** Sorts `chunks[start, end)` ascending, moving `frequencies` along (insertion sort when nearly sorted). */
function sortPostingRange(chunks: Uint32Array, frequencies: Uint32Array, start: number, end: number): void {
  let sorted = true;
  for (let index = start + 1; index < end; index++) {
    if (chunks[index - 1]! > chunks[index]!) {
      sorted = false;
      break;
    }
  }
  if (sorted) return;
  const pairs: Array<[number, number]> = [];
  for (let index = start; index < end; index++) pairs.push([chunks[index]!, frequencies[index]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  for (let index = 0; index < pairs.length; index++) {
    chunks[start + index] = pairs[index]![0];
    frequencies[start + index] = pairs[index]![1];
  }
}

/**
 * Checks a snapshot read from untrusted JSON: lengths agree, offsets are non-decreasing and end at
 * the posting count, every posting names an existing chunk and a non-zero frequency, terms are
 * unique. Returns a description of the first problem, or undefined when the snapshot is sound.
 */
export function validateSnapshot(snapshot: Bm25IndexSnapshot): string | undefined {
  const count = snapshot.chunks.length;
  if (snapshot.textLengths.length !== count) return `textLengths has ${snapshot.textLengths.length} entries for ${count} chunks`;
  if (snapshot.titleLengths.length !== count) return `titleLengths has ${snapshot.titleLengths.length} entries for ${count} chunks`;
  if (snapshot.offsets.length !== snapshot.terms.length + 1) return `offsets has ${snapshot.offsets.length} entries for ${snapshot.terms.length} terms`;
  if (snapshot.postingChunks.length !== snapshot.postingFrequencies.length) return 'postingChunks and postingFrequencies differ in length';
  if (snapshot.offsets[0] !== 0) return 'offsets must start at 0';
  for (let term = 0; term < snapshot.terms.length; term++) {
    if (snapshot.offsets[term + 1]! < snapshot.offsets[term]!) return `offsets decrease at term ${term}`;
  }
  if (snapshot.offsets[snapshot.terms.length] !== snapshot.postingChunks.length) return 'offsets do not end at the number of postings';
  // One pass over the postings (a million-chunk index has ~10^8): each names an existing chunk with a
  // non-zero frequency, and — search relies on it — each term's postings are in strictly increasing
  // chunk order.
  const postingChunks = snapshot.postingChunks;
  const postingFrequencies = snapshot.postingFrequencies;
  for (let term = 0; term < snapshot.terms.length; term++) {
    let previous = -1;
    for (let index = snapshot.offsets[term]!, end = snapshot.offsets[term + 1]!; index < end; index++) {
      const chunk = postingChunks[index]!;
      if (chunk >= count) return `posting ${index} names chunk ${chunk} of ${count}`;
      if (postingFrequencies[index] === 0) return `posting ${index} has a zero frequency`;
      if (chunk <= previous) return `postings of term ${JSON.stringify(snapshot.terms[term])} are not in increasing chunk order`;
      previous = chunk;
    }
  }
  if (new Set(snapshot.terms).size !== snapshot.terms.length) return 'terms are not unique';
  const ids = new Set<string>();
  for (const chunk of snapshot.chunks) {
    if (ids.has(chunk.id)) return `chunk id ${JSON.stringify(chunk.id)} appears twice`;
    ids.add(chunk.id);
  }
  return undefined;
}
