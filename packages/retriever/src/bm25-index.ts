import { TopK, type DocumentChunk } from '@zerda/types';
import {
  FrequencyWriter,
  PostingList,
  SATURATED,
  TEXT_MASK,
  TITLE_UNIT,
  decodeSegment,
  emptySegment,
  encodePackedSegment,
  encodeSegment,
  forEachMainPosting,
  frequencyTable,
  growFloat64,
  growInt32,
  growUint32,
  growUint8,
  exceptionAt,
  packedAt,
  packedFrequency,
  segmentBytes,
  type MainSegment,
} from './postings.js';
import { SearchScratch, matchMasks, searchSegments, type QueryTerm, type SearchInput } from './pruning.js';
import { LengthClasses } from './length-classes.js';
import { computeBlockImpacts, inverseDocumentFrequency, lengthNormalization, type Bm25Parameters, type BlockImpacts } from './scoring.js';

export type { Bm25Parameters } from './scoring.js';

/**
 * The inverted index behind {@link KeywordRetriever}: a term dictionary, postings, per-chunk
 * lengths, and exact top-k Okapi BM25 search that touches only the postings of the query's terms.
 *
 * Layout (Lucene-like, one immutable segment plus a small mutable one):
 * - the main segment holds every term's postings in ordinal order, in blocks of up to 128 with
 *   per-block score bounds, at three bytes per posting (`postings.ts`);
 * - chunks added after the last build go to per-term delta lists (typed arrays grown by doubling);
 * - removal only sets a tombstone; document frequencies are the count of live postings, so idf and
 *   avgdl always describe exactly the live corpus;
 * - compaction merges both segments, drops tombstones and unused terms, and renumbers chunks. It
 *   runs automatically when the delta or the tombstones grow past a share of the index.
 *
 * Search is block-max MaxScore (`pruning.ts`), scoring as `scoring.ts` says. Keeping a posting's
 * text and title counts apart (rather than folding the title weight in) keeps every score exact: the
 * same corpus scores bit-identically whether it was built in one go, grown by `add`/`remove`, or
 * reloaded.
 */

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
  /** The query terms (of {@link IndexSearch.checked}) the chunk's text or title contains, in query-term order. */
  matched: readonly string[];
}

/** A search's hits, best first, and which query terms their `matched` lists are exact for. */
export interface IndexSearch<H = IndexHit> {
  hits: H[];
  /**
   * Distinct query terms whose presence is known for every hit: all of them, except beyond the 32
   * highest-weighted terms the index knows (only those are tracked). A term the index does not know
   * is in no chunk.
   */
  checked: readonly string[];
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
  /** Bytes held by the typed arrays of the index (postings, blocks, lengths, flags); excludes the chunks themselves and the JS maps. */
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

/** Most query terms whose matches are tracked per hit (one bit each). */
const TRACKED_TERMS = 32;
/** Exact block bounds are computed for an average length this much above the current one, so writes that lengthen it a little keep them valid. */
const IMPACT_HEADROOM = 1.01;
const DELTA_FLOOR = 4096;
const TOMBSTONE_FLOOR = 256;

/** See the module comment. Not exported from the package: {@link KeywordRetriever} is the public face. */
export class Bm25Index {
  // Term dictionary.
  private dictionary = new Map<string, number>();
  private terms: string[] = [];

  /** Main (compacted) segment over term ids below its termCount and ordinals below mainSlots. */
  private main: MainSegment = emptySegment();
  private mainSlots = 0;

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

  // Scratch state reused by every search and write (both are synchronous, so never shared).
  private readonly scratch = new SearchScratch();
  private heap: TopK | undefined;
  private termCounts: Uint32Array = new Uint32Array(0);
  private scratchTermIds: Uint32Array = new Uint32Array(256);
  private scratchFrequencies: Uint32Array = new Uint32Array(256);
  /** Match masks of a search's hits (see `matchMasks`). */
  private scratchMasks: Uint32Array = new Uint32Array(0);
  /** Length class per ordinal and the length normalisation per class (see `length-classes.ts`). */
  private readonly lengthClasses: LengthClasses;
  private codeFrequencies: Float64Array = frequencyTable(1);
  private codeTitleWeight = 1;
  /** Live document frequencies of terms, valid for `liveCountsVersion` (only read while tombstones exist). */
  private liveCounts = new Map<number, number>();
  private liveCountsVersion = -1;
  /** Exact block bounds of the main segment for `searchOptions.parameters` (see `BlockImpacts`). */
  private impacts: BlockImpacts | undefined;
  /** Bumped by every change to the corpus, so derived caches know when they are stale. */
  private version = 0;

  /** State of a bulk build in progress (see {@link startBulk}). */
  private bulk: BulkBuild | undefined;

  constructor(
    private readonly compaction: CompactionPolicy = { deltaRatio: 0.25, tombstoneRatio: 0.25 },
    /**
     * `pruning: false` scores every posting of every term (a reference for tests and measurements).
     * `parameters`: the BM25 parameters searches will use, when known — the main segment then keeps
     * exact per-block bounds for them (tighter than the parameter-free ones, so pruning skips more).
     * `lengthClasses`: most length classes (tests of chunks past it; see `length-classes.ts`).
     */
    private readonly searchOptions: { pruning: boolean; parameters?: Bm25Parameters; lengthClasses?: number } = { pruning: true },
  ) {
    this.lengthClasses = new LengthClasses(searchOptions.lengthClasses);
  }

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
    const frequencies = new FrequencyWriter(bulk.postings);
    let position = 0;
    for (let ordinal = 0; ordinal < this.slots; ordinal++) {
      const end = bulk.chunkEnds[ordinal]!;
      for (; position < end; position++) {
        const target = cursor[bulk.forwardTermIds[position]!]!++;
        postingChunks[target] = ordinal;
        frequencies.set(target, bulk.forwardFrequencies[position]!);
      }
    }
    // The forward index is no longer needed: let it go before the encoded copy is made.
    bulk.forwardTermIds = bulk.forwardFrequencies = new Uint32Array(0);
    this.main = encodeSegment(termCount, offsets, postingChunks, { codes: frequencies.codes, ...frequencies.finish() }, this.textLengths, this.titleLengths);
    this.mainSlots = this.slots;
    this.refreshImpacts();
  }

  /** Recomputes the exact block bounds after the main segment changed. */
  private refreshImpacts(): void {
    this.impacts = undefined;
    const parameters = this.searchOptions.parameters;
    if (!parameters || this.live === 0) return;
    const { titleWeight } = parameters;
    const averageLength = (this.totalTextLength + titleWeight * this.totalTitleLength) / this.live;
    if (!(averageLength > 0)) return;
    const main = this.main;
    const table = frequencyTable(titleWeight);
    const frequencyOf = (position: number): number => {
      const code = main.codes[position]!;
      return code !== 0 ? table[code]! : packedFrequency(exceptionAt(main, position), titleWeight);
    };
    const blocks = { starts: main.blockStarts, bases: main.blockBases, offsets: main.chunkOffsets, count: main.blockBases.length };
    this.impacts = computeBlockImpacts(blocks, frequencyOf, this.textLengths, this.titleLengths, parameters, averageLength * IMPACT_HEADROOM);
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
   * The best `k` live chunks containing at least one query term, by Okapi BM25 (ties to the earlier
   * inserted), with the query terms each contains. `accept` is consulted only for chunks that could
   * enter the top k, so a selective filter costs little. Exact: see `pruning.ts`.
   */
  search(query: readonly WeightedTerm[], k: number, parameters: Bm25Parameters, accept?: (chunk: DocumentChunk) => boolean): IndexSearch;
  /** {@link search} building each hit with `makeHit` (the caller's result object, without an {@link IndexHit} in between). */
  search<H>(query: readonly WeightedTerm[], k: number, parameters: Bm25Parameters, accept: ((chunk: DocumentChunk) => boolean) | undefined, makeHit: (chunk: DocumentChunk, score: number, matched: readonly string[], checked: readonly string[]) => H): IndexSearch<H>;
  search<H>(
    query: readonly WeightedTerm[],
    k: number,
    parameters: Bm25Parameters,
    accept?: (chunk: DocumentChunk) => boolean,
    makeHit: (chunk: DocumentChunk, score: number, matched: readonly string[], checked: readonly string[]) => H = (chunk, score, matched) => ({ chunk, score, matched }) as H,
  ): IndexSearch<H> {
    if (this.live === 0 || k <= 0 || query.length === 0) return { hits: [], checked: query.map(({ term }) => term) };
    const { k1, titleWeight } = parameters;
    const averageLength = (this.totalTextLength + titleWeight * this.totalTitleLength) / this.live;
    const terms: QueryTerm[] = [];
    const absent: string[] = [];
    for (const { term, weight } of query) {
      const termId = this.dictionary.get(term);
      if (termId === undefined || !(weight > 0)) {
        if (termId === undefined) absent.push(term);
        continue;
      }
      const inMain = termId < this.main.termCount;
      const list = this.delta.get(termId);
      const documentFrequency = this.liveCount(termId, list);
      if (documentFrequency === 0) {
        absent.push(term);
        continue;
      }
      const idf = inverseDocumentFrequency(this.live, documentFrequency);
      terms.push({
        term,
        weight: idf * weight * (k1 + 1),
        blockStart: inMain ? this.main.blockOffsets[termId]! : 0,
        blockEnd: inMain ? this.main.blockOffsets[termId + 1]! : 0,
        list,
        bit: 0,
      });
    }
    if (terms.length === 0 || !(averageLength > 0)) return { hits: [], checked: query.map(({ term }) => term) };
    // Stable: equal weights keep query order, so the summation order (and the scores, to the last
    // bit) is the same however the index was built.
    terms.sort((a, b) => b.weight - a.weight);
    for (let index = 0; index < terms.length && index < TRACKED_TERMS; index++) terms[index]!.bit = 1 << index;
    const normalization = lengthNormalization(parameters, averageLength);
    if (this.codeTitleWeight !== titleWeight) {
      this.codeFrequencies = frequencyTable(titleWeight);
      this.codeTitleWeight = titleWeight;
    }
    const heap = this.topK(Math.min(k, this.live));
    const chunks = this.chunks;
    const input: SearchInput = {
      segment: this.main,
      mainSlots: this.mainSlots,
      slots: this.slots,
      dead: this.dead,
      checkDead: this.tombstones > 0,
      lengthClasses: this.lengthClasses.ids,
      classNorms: this.lengthClasses.normsFor(titleWeight, normalization),
      textLengths: this.textLengths,
      titleLengths: this.titleLengths,
      frequencies: this.codeFrequencies,
      titleWeight,
      normalization,
      heap,
      impacts: this.impactsFor(parameters, averageLength),
      accept: accept ? (ordinal) => accept(chunks[ordinal]!) : undefined,
      prune: this.searchOptions.pruning,
    };
    searchSegments(input, terms, this.scratch);
    const checked: string[] = absent;
    for (let index = 0; index < terms.length && index < TRACKED_TERMS; index++) checked.push(terms[index]!.term);
    Object.freeze(checked);
    const byMask = new Map<number, readonly string[]>();
    const { ranks, items } = heap.sortedArrays();
    const masks = (this.scratchMasks = growUint32(this.scratchMasks, items.length));
    matchMasks(input, terms, items, masks, this.scratch);
    const hits: H[] = new Array(items.length);
    for (let rank = 0; rank < items.length; rank++) {
      const ordinal = items[rank]!;
      const mask = masks[rank]!;
      let matched = byMask.get(mask);
      if (!matched) {
        const list: string[] = [];
        for (let index = 0; index < terms.length && index < TRACKED_TERMS; index++) if ((mask & (1 << index)) !== 0) list.push(terms[index]!.term);
        matched = Object.freeze(list);
        byMask.set(mask, matched);
      }
      hits[rank] = makeHit(chunks[ordinal]!, ranks[rank]!, matched, checked);
    }
    return { hits, checked };
  }

  /** The exact block bounds when they hold for these parameters and this average length. */
  private impactsFor(parameters: Bm25Parameters, averageLength: number): Float32Array | undefined {
    const impacts = this.impacts;
    if (!impacts || averageLength > impacts.averageLength) return undefined;
    const reference = impacts.parameters;
    return reference.k1 === parameters.k1 && reference.b === parameters.b && reference.titleWeight === parameters.titleWeight ? impacts.values : undefined;
  }

  /** An empty top-k of chunk ordinals (reused while the capacity stays); equal scores go to the earlier inserted chunk. */
  private topK(capacity: number): TopK {
    let heap = this.heap;
    if (heap?.capacity !== capacity) {
      heap = new TopK(capacity, (a, b) => this.sequence[a]! < this.sequence[b]!);
      this.heap = heap;
    }
    heap.clear();
    return heap;
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
      const count = this.countLive(termId, this.delta.get(termId));
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
    const main = this.main;
    for (let termId = 0; termId < termCount; termId++) {
      const newTermId = newTermIds[termId]!;
      if (newTermId < 0) continue;
      const start = position;
      forEachMainPosting(main, termId, (ordinal, at) => {
        const target = renumber[ordinal]!;
        if (target < 0) return;
        postingChunks[position] = target;
        postingFrequencies[position++] = packedAt(main, at);
      });
      const list = this.delta.get(termId);
      if (list) {
        for (let index = 0; index < list.length; index++) {
          const target = renumber[list.chunks[index]!]!;
          if (target < 0) continue;
          postingChunks[position] = target;
          postingFrequencies[position++] = list.frequencies[index]!;
        }
      }
      // Updates can move a chunk's ordinal; keep each postings list in ordinal order.
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
    this.main = encodePackedSegment(newTerms.length, offsets, postingChunks, postingFrequencies, textLengths, titleLengths);
    this.lengthClasses.renumber(liveOrdinals);
    this.mainSlots = count;
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
    this.refreshImpacts();
  }

  /**
   * The compacted arrays (compacts first): with {@link load}, the one pair through which the index
   * is serialised (JSON in `KeywordRetriever.toJSON`, binary in keyword-snapshot.ts). The postings
   * are decoded from the block segment into fresh arrays in the plain layout (offsets, ordinals,
   * packed frequencies; `load` encodes them into blocks again), so a snapshot's format does not
   * depend on the in-memory encoding; the length arrays are views of the live index. Valid until
   * the next write (callers hold the write queue).
   */
  snapshot(): Bm25IndexSnapshot {
    this.compact();
    const { offsets, postingChunks, postingFrequencies } = decodeSegment(this.main);
    return {
      terms: this.terms.slice(),
      chunks: this.chunks.slice(0, this.slots) as DocumentChunk[],
      textLengths: this.textLengths.subarray(0, this.slots),
      titleLengths: this.titleLengths.subarray(0, this.slots),
      offsets,
      postingChunks,
      postingFrequencies,
    };
  }

  /**
   * Replaces the state with a compacted snapshot. The snapshot must be consistent (see
   * {@link validateSnapshot}); its arrays are adopted or encoded, not copied.
   */
  load(snapshot: Bm25IndexSnapshot): void {
    const count = snapshot.chunks.length;
    this.reset();
    this.terms = snapshot.terms;
    for (let termId = 0; termId < snapshot.terms.length; termId++) this.dictionary.set(snapshot.terms[termId]!, termId);
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
      this.lengthClasses.set(ordinal, snapshot.textLengths[ordinal]!, snapshot.titleLengths[ordinal]!);
      this.totalTextLength += snapshot.textLengths[ordinal]!;
      this.totalTitleLength += snapshot.titleLengths[ordinal]!;
    }
    this.slots = count;
    this.live = count;
    this.nextSequence = count;
    this.main = encodePackedSegment(snapshot.terms.length, snapshot.offsets, snapshot.postingChunks, snapshot.postingFrequencies, snapshot.textLengths, snapshot.titleLengths);
    this.mainSlots = count;
    this.refreshImpacts();
  }

  /** Sizes, for diagnostics and memory planning. */
  stats(): Bm25IndexStats {
    let deltaBytes = 0;
    for (const list of this.delta.values()) deltaBytes += list.chunks.byteLength + list.frequencies.byteLength;
    const scratch = this.scratch;
    const typedArrayBytes =
      segmentBytes(this.main) +
      deltaBytes +
      this.textLengths.byteLength +
      this.titleLengths.byteLength +
      this.sequence.byteLength +
      this.dead.byteLength +
      this.nextInDocument.byteLength +
      this.lengthClasses.bytes() +
      this.termCounts.byteLength +
      this.scratchTermIds.byteLength +
      this.scratchFrequencies.byteLength +
      this.scratchMasks.byteLength +
      (this.impacts?.values.byteLength ?? 0) +
      scratch.accumulator.byteLength +
      scratch.touched.byteLength +
      scratch.deltaAccumulator.byteLength +
      scratch.deltaTouched.byteLength;
    return {
      chunks: this.live,
      terms: this.dictionary.size,
      postings: this.main.chunkOffsets.length + this.deltaPostings,
      deltaPostings: this.deltaPostings,
      tombstones: this.tombstones,
      typedArrayBytes,
    };
  }

  private reset(): void {
    this.version++;
    this.dictionary = new Map();
    this.terms = [];
    this.main = emptySegment();
    this.mainSlots = 0;
    this.impacts = undefined;
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
    this.lengthClasses.clear();
  }

  /** Live postings of one term (all of them when nothing was removed), cached per version. */
  private liveCount(termId: number, list: PostingList | undefined): number {
    if (this.tombstones === 0) {
      const main = this.main;
      const inMain = termId < main.termCount ? main.offsets[termId + 1]! - main.offsets[termId]! : 0;
      return inMain + (list?.length ?? 0);
    }
    if (this.liveCountsVersion !== this.version) {
      this.liveCounts.clear();
      this.liveCountsVersion = this.version;
    }
    let count = this.liveCounts.get(termId);
    if (count === undefined) {
      count = this.countLive(termId, list);
      this.liveCounts.set(termId, count);
    }
    return count;
  }

  /** Counts a term's live postings in both segments. */
  private countLive(termId: number, list: PostingList | undefined): number {
    const main = this.main;
    const dead = this.dead;
    let count = 0;
    if (termId < main.termCount) {
      if (this.tombstones === 0) count = main.offsets[termId + 1]! - main.offsets[termId]!;
      else
        forEachMainPosting(main, termId, (ordinal) => {
          if (dead[ordinal] === 0) count++;
        });
    }
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
    this.lengthClasses.reserve(minimum);
  }

  private appendSlot(entry: AnalyzedChunk, order: number): number {
    const ordinal = this.slots++;
    if (ordinal >= this.textLengths.length) this.reserveSlots(this.slots);
    const { chunk } = entry;
    this.textLengths[ordinal] = entry.textTerms.length;
    this.titleLengths[ordinal] = entry.titleTerms.length;
    this.lengthClasses.set(ordinal, entry.textTerms.length, entry.titleTerms.length);
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
    const mainPostings = this.main.chunkOffsets.length;
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
