import { TopK, type DocumentChunk } from '@zerda/types';
import {
  PostingList,
  decodeSegment,
  emptySegment,
  encodePackedSegment,
  encodeSegment,
  frequencyTable,
  growFloat64,
  growInt32,
  growUint32,
  growUint8,
  exceptionAt,
  packedFrequency,
  segmentBytes,
  type MainSegment,
} from './postings.js';
import { SearchScratch, matchMasks, searchSegments, type QueryTerm, type SearchInput } from './pruning.js';
import { LengthClasses } from './length-classes.js';
import { ForwardIndex } from './bm25-bulk.js';
import { collectHits, orderQueryTerms, type IndexHit, type IndexSearch, type WeightedTerm } from './bm25-search.js';
import { TermDictionary } from './term-dictionary.js';
import type { AnalyzedChunk, Bm25IndexStats } from './bm25-types.js';
import { compactSegments, compactionDue, countLivePostings, type CompactionPolicy } from './bm25-compaction.js';
import type { Bm25IndexSnapshot, Bm25SegmentSnapshot } from './bm25-snapshot.js';
import { computeBlockImpacts, impactValuesFor, inverseDocumentFrequency, lengthNormalization, termWeight, type Bm25Parameters, type BlockImpacts } from './scoring.js';

export type { Bm25Parameters } from './scoring.js';
export type { CompactionPolicy } from './bm25-compaction.js';
export type { Bm25IndexSnapshot, Bm25SegmentSnapshot } from './bm25-snapshot.js';
export type { AnalyzedChunk, Bm25IndexStats } from './bm25-types.js';
export type { IndexHit, IndexSearch, WeightedTerm } from './bm25-search.js';

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

/** Exact block bounds are computed for an average length this much above the current one, so writes that lengthen it a little keep them valid. */
const IMPACT_HEADROOM = 1.01;

/** See the module comment. Not exported from the package: {@link KeywordRetriever} is the public face. */
export class Bm25Index {
  private readonly dictionary = new TermDictionary();

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
  /** False after loading a segment snapshot until a write needs the per-document lists (built then, see {@link linkDocuments}). */
  private documentsLinked = true;
  private nextSequence = 0;
  private totalTextLength = 0;
  private totalTitleLength = 0;

  // Scratch state reused by every search and write (both are synchronous, so never shared).
  private readonly scratch = new SearchScratch();
  private heap: TopK | undefined;
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
  private bulk: ForwardIndex | undefined;

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
   * must be unique) and {@link finishBulk} inverts them into the main segment (see `bm25-bulk.ts`).
   */
  startBulk(expectedChunks = 0): void {
    this.reset();
    this.reserveSlots(expectedChunks);
    this.bulk = new ForwardIndex(expectedChunks);
  }

  /** Appends one chunk to the bulk build started with {@link startBulk}. */
  appendBulk(entry: AnalyzedChunk): void {
    const bulk = this.bulk;
    if (!bulk) throw new Error('appendBulk() called outside startBulk()/finishBulk()');
    const dictionary = this.dictionary;
    const distinct = dictionary.count(entry.textTerms, entry.titleTerms);
    const ordinal = this.appendSlot(entry, this.nextSequence++);
    bulk.append(ordinal, dictionary.termIds, dictionary.frequencies, distinct, dictionary.terms.length);
  }

  /** Inverts the appended chunks into the main segment and ends the bulk build. */
  finishBulk(): void {
    const bulk = this.bulk;
    if (!bulk) throw new Error('finishBulk() called without startBulk()');
    this.bulk = undefined;
    const termCount = this.dictionary.terms.length;
    const { offsets, postingChunks, frequencies } = bulk.invert(termCount, this.slots);
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
    this.linkDocuments();
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
      const distinct = this.dictionary.count(entry.textTerms, entry.titleTerms);
      const ordinal = this.appendSlot(entry, order);
      for (let index = 0; index < distinct; index++) {
        const termId = this.dictionary.termIds[index]!;
        let list = this.delta.get(termId);
        if (!list) {
          list = new PostingList();
          this.delta.set(termId, list);
        }
        list.push(ordinal, this.dictionary.frequencies[index]!);
      }
      this.deltaPostings += distinct;
    }
    this.maybeCompact();
  }

  /** Removes every chunk of the given documents. Returns how many chunks were removed. */
  removeDocuments(docIds: readonly string[]): number {
    this.linkDocuments();
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
        weight: termWeight(idf, weight, k1),
        blockStart: inMain ? this.main.blockOffsets[termId]! : 0,
        blockEnd: inMain ? this.main.blockOffsets[termId + 1]! : 0,
        list,
        bit: 0,
      });
    }
    if (terms.length === 0 || !(averageLength > 0)) return { hits: [], checked: query.map(({ term }) => term) };
    orderQueryTerms(terms);
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
      impacts: impactValuesFor(this.impacts, parameters, averageLength),
      accept: accept ? (ordinal) => accept(chunks[ordinal]!) : undefined,
      prune: this.searchOptions.pruning,
    };
    searchSegments(input, terms, this.scratch);
    const { ranks, items } = heap.sortedArrays();
    const masks = (this.scratchMasks = growUint32(this.scratchMasks, items.length));
    matchMasks(input, terms, items, masks, this.scratch);
    return collectHits(terms, absent, ranks, items, masks, (ordinal, score, matched, checked) => makeHit(chunks[ordinal]!, score, matched, checked));
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

  /** Merges the delta into the main segment, drops tombstones and unused terms, renumbers chunks (see `bm25-compaction.ts`). */
  compact(): void {
    if (this.deltaPostings === 0 && this.tombstones === 0) return;
    const compacted = compactSegments({
      slots: this.slots,
      dead: this.dead,
      sequence: this.sequence,
      terms: this.dictionary.terms,
      main: this.main,
      delta: this.delta,
      textLengths: this.textLengths,
      titleLengths: this.titleLengths,
      chunks: this.chunks,
      ordinalById: this.ordinalById,
      tombstones: this.tombstones,
    });
    const count = compacted.chunks.length;
    if (compacted.terms !== this.dictionary.terms) this.dictionary.replace(compacted.terms);
    this.main = compacted.main;
    this.lengthClasses.renumber(compacted.liveOrdinals);
    this.mainSlots = count;
    this.delta = new Map();
    this.deltaPostings = 0;
    this.textLengths = compacted.textLengths;
    this.titleLengths = compacted.titleLengths;
    this.sequence = compacted.sequence;
    this.dead = new Uint8Array(count);
    this.nextInDocument = new Int32Array(count);
    this.chunks = compacted.chunks;
    this.firstOrdinalByDocId = new Map();
    for (let index = 0; index < count; index++) this.linkDocument(compacted.chunks[index]!.docId, index);
    this.documentsLinked = true;
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
      terms: this.dictionary.terms.slice(),
      chunks: this.chunks.slice(0, this.slots) as DocumentChunk[],
      textLengths: this.textLengths.subarray(0, this.slots),
      titleLengths: this.titleLengths.subarray(0, this.slots),
      offsets,
      postingChunks,
      postingFrequencies,
    };
  }

  /**
   * The compacted main segment as it lies in memory (compacts first), for a snapshot that is
   * opened by adopting its arrays ({@link load} of a {@link Bm25SegmentSnapshot}). Views of the live
   * index: valid until the next write (callers hold the write queue).
   */
  segmentSnapshot(): Bm25SegmentSnapshot {
    this.compact();
    const main = this.main;
    const termCount = main.termCount;
    return {
      terms: this.dictionary.terms.slice(0, termCount),
      chunks: this.chunks.slice(0, this.slots) as DocumentChunk[],
      textLengths: this.textLengths.subarray(0, this.slots),
      titleLengths: this.titleLengths.subarray(0, this.slots),
      segment: { ...main, offsets: main.offsets.subarray(0, termCount + 1), blockOffsets: main.blockOffsets.subarray(0, termCount + 1) },
    };
  }

  /**
   * Replaces the state with a compacted snapshot. The snapshot must be consistent (see
   * {@link validateSnapshot} / `validateSegmentSnapshot`); its arrays are adopted or encoded, not
   * copied. A segment snapshot is adopted as it is: no postings are decoded or encoded, and the
   * per-document lists that only writes need are built by the first write.
   */
  load(snapshot: Bm25IndexSnapshot | Bm25SegmentSnapshot): void {
    if ('segment' in snapshot) return this.loadSegment(snapshot);
    const { terms, chunks, textLengths, titleLengths } = snapshot;
    this.loadSegment({ terms, chunks, textLengths, titleLengths, segment: encodePackedSegment(terms.length, snapshot.offsets, snapshot.postingChunks, snapshot.postingFrequencies, textLengths, titleLengths) });
  }

  private loadSegment(snapshot: Bm25SegmentSnapshot): void {
    const count = snapshot.chunks.length;
    const { textLengths, titleLengths } = snapshot;
    this.reset();
    this.dictionary.replace(snapshot.terms);
    this.reserveSlots(count);
    this.textLengths.set(textLengths);
    this.titleLengths.set(titleLengths);
    this.chunks = snapshot.chunks.slice();
    const sequence = this.sequence;
    let totalText = 0;
    let totalTitle = 0;
    for (let ordinal = 0; ordinal < count; ordinal++) {
      sequence[ordinal] = ordinal;
      this.lengthClasses.set(ordinal, textLengths[ordinal]!, titleLengths[ordinal]!);
      totalText += textLengths[ordinal]!;
      totalTitle += titleLengths[ordinal]!;
    }
    this.totalTextLength = totalText;
    this.totalTitleLength = totalTitle;
    if (snapshot.ordinalById) this.ordinalById = snapshot.ordinalById;
    else for (let ordinal = 0; ordinal < count; ordinal++) this.ordinalById.set(snapshot.chunks[ordinal]!.id, ordinal);
    this.documentsLinked = count === 0;
    this.slots = count;
    this.live = count;
    this.nextSequence = count;
    this.main = snapshot.segment;
    this.mainSlots = count;
    this.refreshImpacts();
  }

  /** Builds the per-document lists of the loaded chunks, if a segment snapshot left them for later. */
  private linkDocuments(): void {
    if (this.documentsLinked) return;
    this.documentsLinked = true;
    for (let ordinal = 0; ordinal < this.slots; ordinal++) if (this.dead[ordinal] === 0) this.linkDocument(this.chunks[ordinal]!.docId, ordinal);
  }

  /** Sizes, for diagnostics and memory planning. */
  stats(): Bm25IndexStats {
    let deltaBytes = 0;
    for (const list of this.delta.values()) deltaBytes += list.chunks.byteLength + list.frequencies.byteLength;
    const scratch = this.scratch;
    const arrays = [this.textLengths, this.titleLengths, this.sequence, this.dead, this.nextInDocument, this.scratchMasks, scratch.accumulator, scratch.touched, scratch.deltaAccumulator, scratch.deltaTouched];
    let typedArrayBytes = segmentBytes(this.main) + deltaBytes + this.lengthClasses.bytes() + this.dictionary.bytes() + (this.impacts?.values.byteLength ?? 0);
    for (const array of arrays) typedArrayBytes += array.byteLength;
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
    this.dictionary.replace([]);
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
    this.documentsLinked = true;
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
      count = countLivePostings(this.main, this.dead, this.tombstones, termId, list);
      this.liveCounts.set(termId, count);
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
    const counts = { mainPostings: this.main.chunkOffsets.length, deltaPostings: this.deltaPostings, tombstones: this.tombstones, slots: this.slots };
    if (compactionDue(this.compaction, counts)) this.compact();
  }
}
