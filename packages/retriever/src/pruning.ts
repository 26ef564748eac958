import type { TopK } from '@zerda/types';
import { exceptionAt, packedAt, packedFrequency, type MainSegment, type PostingList } from './postings.js';
import { UNCLASSED } from './length-classes.js';
import { SAFETY, bm25Contribution, chunkNorm, contributionBound, type LengthNormalization } from './scoring.js';

/**
 * Exact top-k BM25 search over the segments of {@link Bm25Index}: block-max MaxScore in windows of
 * ordinals, term at a time inside each window.
 *
 * The ordinals of the main segment are visited in windows of {@link WINDOW} chunks. For each window
 * every query term gets a bound: the largest contribution any of its postings there could make, from
 * the per-block maxima of its counts and minima of its chunks' lengths. With θ the score the k-th
 * best chunk so far must be beaten by (once k chunks are held):
 * - a window whose bounds sum below θ cannot hold a top-k chunk and is skipped unread;
 * - otherwise the terms split, in query-term order, into an essential prefix and the longest suffix
 *   whose bounds sum below θ: a chunk matching only suffix terms cannot make the top k. Only the
 *   essential terms' postings in the window are scored (into a window-sized accumulator, the
 *   chunks touched marked in a bitset; the last essential term marks no new chunk that its
 *   contribution plus the suffix bounds cannot lift to θ). The touched chunks that can still reach θ
 *   are listed, then completed suffix term by suffix term: the term's postings in the window are
 *   read in sequence and added to listed chunks — or, when few chunks are left for its postings,
 *   each chunk's posting is found by galloping — and after each term a chunk whose score plus the
 *   bounds still to come falls below θ is dropped.
 *
 * Scoring reads a chunk's length normalisation through its length class (`length-classes.ts`): a
 * 2-byte class per chunk and a small table, instead of an 8-byte norm per chunk that, at a million
 * chunks, was read out of cache at every posting. Which query terms a kept chunk matched is looked
 * up for the k chunks kept ({@link matchMask}), not tracked per posting.
 *
 * Pruning never changes the result, and scores are bit-identical to scoring every posting: every
 * chunk that is kept was scored completely, its contributions added in query-term order (the
 * essential prefix first, then the suffix), exactly as the exhaustive order adds them; bounds are
 * compared with a safety margin for rounding. The delta segment (chunks added since the last
 * compaction) is scored exhaustively, first, which also seeds θ.
 */

/** Chunks per window: big enough to amortise a window's bookkeeping, small enough to stay in cache. */
export const WINDOW_BITS = 12;
export const WINDOW = 1 << WINDOW_BITS;
/** Larger than any offset inside a block (offsets are 16-bit): "read the block to its end". */
const WINDOW_SPAN = 0x10000;
/** A galloping probe costs about this many postings read in sequence. */
const PROBE_COST = 8;

/** A query term resolved against the index, in query-term order (highest weight first). */
export interface QueryTerm {
  term: string;
  /** idf · query count · (k1 + 1). */
  weight: number;
  /** Main-segment blocks of the term (an empty range when it has none). */
  blockStart: number;
  blockEnd: number;
  /** Delta-segment postings, when it has some. */
  list: PostingList | undefined;
  /** Its bit in a chunk's match mask (0 beyond the first 32 terms). */
  bit: number;
}

/** What a search reads: the segments, the chunks' state and the scoring constants. */
export interface SearchInput {
  segment: MainSegment;
  /** Ordinals below this are in the main segment; the delta holds the rest (up to `slots`). */
  mainSlots: number;
  slots: number;
  dead: Uint8Array;
  /** Whether any chunk is tombstoned (else `dead` is not read). */
  checkDead: boolean;
  /** Length class per ordinal, and the length normalisation per class (see `length-classes.ts`). */
  lengthClasses: Uint16Array;
  classNorms: Float64Array;
  /** Lengths per ordinal: the norm of an {@link UNCLASSED} chunk is computed from them. */
  textLengths: Uint32Array;
  titleLengths: Uint32Array;
  /** Term frequency per frequency code (see `frequencyTable`). */
  frequencies: Float64Array;
  titleWeight: number;
  normalization: LengthNormalization;
  /** Exact per-block bounds (`tf / (tf + norm)` maxima) valid for this search, else the parameter-free ones are used. */
  impacts: Float32Array | undefined;
  /** Receives every chunk that could be in the top k; ties are its business. */
  heap: TopK;
  /** Consulted only for chunks the heap would admit. */
  accept: ((ordinal: number) => boolean) | undefined;
  /** `false` scores every posting (the reference pruning is checked against). */
  prune: boolean;
}

/** Reused buffers (searches are synchronous, so one set per index is never shared). */
export class SearchScratch {
  accumulator = new Float64Array(WINDOW);
  touched = new Int32Array(WINDOW >>> 5);
  /** Hit indices in ordinal order, and their sort keys (see `matchMasks`). */
  order = new Int32Array(0);
  orderKeys = new Float64Array(0);
  /** Slots of the window's surviving chunks, in ordinal order, while they are being completed. */
  candidates = new Int32Array(WINDOW);
  blocks = new Uint32Array(16);
  positions = new Uint32Array(16);
  blockEnds = new Uint32Array(16);
  weights = new Float64Array(16);
  bounds = new Float64Array(17);
  suffix = new Float64Array(17);
  /** Postings a term has in a window, on average. */
  windowPostings = new Float64Array(16);
  deltaAccumulator = new Float64Array(0);
  deltaTouched = new Uint32Array(0);
  /** θ: what a chunk must reach to enter the full heap (0 until it is full, or without pruning). */
  threshold = 0;
  /** What {@link touchLengthClasses} read (kept, so that the reads are not optimised away). */
  touchedLines = 0;
  /** The weakest kept score once the heap is full (-Infinity before). */
  weakest = -Infinity;

  reserveTerms(count: number): void {
    if (this.blocks.length >= count) return;
    const size = Math.max(count, this.blocks.length * 2);
    this.blocks = new Uint32Array(size);
    this.positions = new Uint32Array(size);
    this.blockEnds = new Uint32Array(size);
    this.weights = new Float64Array(size);
    this.bounds = new Float64Array(size + 1);
    this.suffix = new Float64Array(size + 1);
    this.windowPostings = new Float64Array(size);
  }

  reserveDelta(count: number): void {
    if (this.deltaAccumulator.length >= count) return;
    const size = Math.max(count, this.deltaAccumulator.length * 2, 64);
    this.deltaAccumulator = new Float64Array(size);
    this.deltaTouched = new Uint32Array(size);
  }
}

/**
 * Offers every chunk that could be in the top k to `input.heap` (see the module comment). Which
 * query terms a kept chunk contains is asked afterwards, of the few chunks kept
 * ({@link matchMask}), so the hot loops carry no per-posting bookkeeping for it.
 */
export function searchSegments(input: SearchInput, terms: readonly QueryTerm[], scratch: SearchScratch): void {
  if (input.slots > input.mainSlots && terms.some((term) => term.list !== undefined)) searchDelta(input, terms, scratch);
  if (input.mainSlots > 0 && terms.some((term) => term.blockEnd > term.blockStart)) searchMain(input, terms, scratch);
}

/**
 * Match masks of the chunks a search kept: `masks[i]` gets bit j set when chunk `ordinals[i]`
 * contains `terms[j]` with a non-zero term frequency (bits only for terms that have one). The chunks
 * are visited in ordinal order, so each term's postings are walked once, forward, by galloping.
 */
export function matchMasks(input: SearchInput, terms: readonly QueryTerm[], ordinals: Int32Array, masks: Uint32Array, scratch: SearchScratch): void {
  const count = ordinals.length;
  masks.fill(0, 0, count);
  if (count === 0) return;
  const order = ordinalOrder(ordinals, scratch);
  const { segment, mainSlots, titleWeight } = input;
  const { blockStarts: starts, blockBases: bases, blockLasts: lasts, chunkOffsets: offsets } = segment;
  for (const term of terms) {
    const bit = term.bit;
    if (bit === 0) continue;
    let block = term.blockStart;
    let position = block < term.blockEnd ? starts[block]! : 0;
    let deltaPosition = 0;
    for (let at = 0; at < count; at++) {
      const index = order[at]!;
      const ordinal = ordinals[index]!;
      let packed = 0;
      if (ordinal < mainSlots) {
        while (block < term.blockEnd && lasts[block]! < ordinal) block++;
        if (block === term.blockEnd || bases[block]! > ordinal) continue;
        if (position < starts[block]!) position = starts[block]!;
        position = gallop(offsets, position, starts[block + 1]!, ordinal - bases[block]!);
        if (position < starts[block + 1]! && offsets[position] === ordinal - bases[block]!) packed = packedAt(segment, position);
      } else if (term.list) {
        const { chunks, length } = term.list;
        deltaPosition = gallop(chunks, deltaPosition, length, ordinal);
        if (deltaPosition < length && chunks[deltaPosition] === ordinal) packed = term.list.frequencies[deltaPosition]!;
      }
      if (packed !== 0 && packedFrequency(packed, titleWeight) > 0) masks[index]! |= bit;
    }
  }
}

/** Indices of `ordinals` in ascending ordinal order (in the scratch's buffer). */
function ordinalOrder(ordinals: Int32Array, scratch: SearchScratch): Int32Array {
  const count = ordinals.length;
  if (scratch.order.length < count) {
    scratch.order = new Int32Array(Math.max(count, scratch.order.length * 2));
    scratch.orderKeys = new Float64Array(scratch.order.length);
  }
  const order = scratch.order;
  if (count < 0x100000) {
    // One native numeric sort of (ordinal, index) packed into doubles (exact: ordinal < 2^32, index < 2^20).
    const keys = scratch.orderKeys.subarray(0, count);
    for (let index = 0; index < count; index++) keys[index] = ordinals[index]! * 0x100000 + index;
    keys.sort();
    for (let at = 0; at < count; at++) order[at] = keys[at]! % 0x100000;
  } else {
    for (let index = 0; index < count; index++) order[index] = index;
    order.subarray(0, count).sort((a, b) => ordinals[a]! - ordinals[b]!);
  }
  return order;
}

/**
 * The first position in `[position, end)` whose value is >= `target` (`end` when none), for values
 * ascending from `position`: galloping from there, then a binary search.
 */
function gallop(values: Uint16Array | Uint32Array, position: number, end: number, target: number): number {
  if (position >= end || values[position]! >= target) return position;
  let lower = position;
  let step = 1;
  let upper = position + 1;
  while (upper < end && values[upper]! < target) {
    lower = upper;
    step *= 2;
    upper = position + step;
  }
  if (upper > end) upper = end;
  while (lower + 1 < upper) {
    const middle = (lower + upper) >>> 1;
    if (values[middle]! < target) lower = middle;
    else upper = middle;
  }
  return upper;
}

/**
 * The length normalisation of chunk `ordinal`: its class's, or — for an unclassed chunk — computed
 * by the same expression from its lengths.
 */
function normOf(input: SearchInput, ordinal: number): number {
  const lengthClass = input.lengthClasses[ordinal]!;
  if (lengthClass !== UNCLASSED) return input.classNorms[lengthClass]!;
  return chunkNorm(input.normalization, input.textLengths[ordinal]!, input.titleLengths[ordinal]!, input.titleWeight);
}

/** Scores the delta segment exhaustively, term at a time. */
function searchDelta(input: SearchInput, terms: readonly QueryTerm[], scratch: SearchScratch): void {
  const { mainSlots, dead, checkDead, titleWeight, heap, accept } = input;
  scratch.reserveDelta(input.slots - mainSlots);
  const accumulator = scratch.deltaAccumulator;
  const touched = scratch.deltaTouched;
  let touchedCount = 0;
  for (const term of terms) {
    const list = term.list;
    if (!list) continue;
    const { chunks, frequencies, length } = list;
    const weight = term.weight;
    for (let index = 0; index < length; index++) {
      const ordinal = chunks[index]!;
      if (checkDead && dead[ordinal] !== 0) continue;
      const frequency = packedFrequency(frequencies[index]!, titleWeight);
      if (!(frequency > 0)) continue;
      const slot = ordinal - mainSlots;
      if (accumulator[slot] === 0) touched[touchedCount++] = slot;
      accumulator[slot]! += bm25Contribution(weight, frequency, normOf(input, ordinal));
    }
  }
  try {
    for (let index = 0; index < touchedCount; index++) {
      const slot = touched[index]!;
      const ordinal = mainSlots + slot;
      const score = accumulator[slot]!;
      if (!heap.admits(score, ordinal) || (accept && !accept(ordinal))) continue;
      heap.push(score, ordinal);
    }
  } finally {
    // Leave the scratch clean, also when `accept` threw.
    for (let index = 0; index < touchedCount; index++) accumulator[touched[index]!] = 0;
  }
}

/** Block-max MaxScore over the main segment, window by window (see the module comment). */
function searchMain(input: SearchInput, terms: readonly QueryTerm[], scratch: SearchScratch): void {
  const { segment, mainSlots, heap, prune } = input;
  const count = terms.length;
  scratch.reserveTerms(count);
  const { blocks, positions, weights, blockEnds, windowPostings } = scratch;
  for (let index = 0; index < count; index++) {
    const term = terms[index]!;
    blocks[index] = term.blockStart;
    blockEnds[index] = term.blockEnd;
    positions[index] = term.blockStart < term.blockEnd ? segment.blockStarts[term.blockStart]! : 0;
    weights[index] = term.weight;
    const postings = term.blockStart < term.blockEnd ? segment.blockStarts[term.blockEnd]! - segment.blockStarts[term.blockStart]! : 0;
    windowPostings[index] = (postings * WINDOW) / mainSlots;
  }
  const full = heap.length === heap.capacity;
  scratch.threshold = prune && full ? heap.weakestRank()! : 0;
  scratch.weakest = full ? heap.weakestRank()! : -Infinity;
  for (let low = 0; low < mainSlots; low += WINDOW) {
    const high = Math.min(low + WINDOW, mainSlots);
    const essential = scratch.threshold > 0 ? essentialTerms(input, scratch, count, low, high) : count;
    if (essential < 0) continue;
    scratch.touchedLines ^= touchLengthClasses(input.lengthClasses, low, high);
    for (let index = 0; index < essential; index++) scoreTerm(input, scratch, index, low, high, index === essential - 1 && essential < count ? MARK_ABOVE : MARK);
    offerWindow(input, scratch, essential, count, low, high);
  }
}

/**
 * Reads one length class per cache line of the window, in sequence, before the window is scored:
 * the scoring loop reads classes at its postings' ordinals, scattered and dependent on the postings
 * it has just read, and missed the cache at nearly every line of a large index's classes; a plain
 * ascending sweep lets the hardware stream the window's 8 KB in (19% less per query at a million
 * chunks, measured interleaved). Returns what it read.
 */
function touchLengthClasses(lengthClasses: Uint16Array, low: number, high: number): number {
  let value = 0;
  for (let ordinal = low; ordinal < high; ordinal += 32) value ^= lengthClasses[ordinal]!;
  return value;
}

/**
 * Bounds each term's contribution in the window `[low, high)` from its blocks there, and returns how
 * many terms (a prefix) are essential, or -1 when the whole window cannot beat θ.
 */
function essentialTerms(input: SearchInput, scratch: SearchScratch, count: number, low: number, high: number): number {
  const { segment, impacts, titleWeight, normalization } = input;
  const { blockBases: bases, blockLasts: lasts, blockMaxText, blockMaxTitle, blockMinTextLength, blockMinTitleLength } = segment;
  const { blocks, blockEnds, weights, bounds, suffix, threshold } = scratch;
  for (let index = 0; index < count; index++) {
    const blockEnd = blockEnds[index]!;
    const weight = weights[index]!;
    let block = blocks[index]!;
    while (block < blockEnd && lasts[block]! < low) block++;
    blocks[index] = block;
    let bound = 0;
    for (let at = block; at < blockEnd && bases[at]! < high; at++) {
      const value = impacts ? weight * impacts[at]! : contributionBound(weight, blockMaxText[at]!, blockMaxTitle[at]!, blockMinTextLength[at]!, blockMinTitleLength[at]!, titleWeight, normalization);
      if (value > bound) bound = value;
    }
    bounds[index] = bound;
  }
  suffix[count] = 0;
  for (let index = count - 1; index >= 0; index--) suffix[index] = suffix[index + 1]! + bounds[index]!;
  if (suffix[0]! * SAFETY < threshold) return -1;
  let essential = count;
  while (essential > 0 && suffix[essential - 1]! * SAFETY < threshold) essential--;
  return essential;
}

/** How {@link scoreTerm} treats the window's chunks. */
const MARK = 0;
/** As MARK, but a chunk not yet marked is left out when this term's contribution plus the bounds of the terms after it cannot reach θ (the last essential term: nothing else adds to it before it is checked). */
const MARK_ABOVE = 1;
/** Adds to the chunks already marked only. */
const ADD_MARKED = 2;

/** Adds term `index`'s contribution to the chunks of the window it occurs in (see the modes above). */
function scoreTerm(input: SearchInput, scratch: SearchScratch, index: number, low: number, high: number, mode: number): void {
  const { segment, dead, checkDead, frequencies, titleWeight, lengthClasses, classNorms } = input;
  const { blockStarts: starts, blockBases: bases, blockLasts: lasts, chunkOffsets: offsets, codes } = segment;
  const { accumulator, touched, blocks, positions } = scratch;
  const blockEnd = scratch.blockEnds[index]!;
  const weight = scratch.weights[index]!;
  let block = blocks[index]!;
  while (block < blockEnd && lasts[block]! < low) block++;
  let position = positions[index]!;
  if (block < blockEnd) {
    if (position < starts[block]!) position = starts[block]!;
    // Only the first block can start below the window (its last ordinal is inside or beyond).
    const base = bases[block]!;
    if (base < low) {
      const target = low - base;
      while (offsets[position]! < target) position++;
    }
  }
  for (; block < blockEnd; block++) {
    const base = bases[block]!;
    if (base >= high) break;
    const end = starts[block + 1]!;
    if (position < starts[block]!) position = starts[block]!;
    // A block that ends inside the window is read to its end; one that goes on, to the window's end.
    const limit = lasts[block]! < high ? WINDOW_SPAN : high - base;
    if (mode === ADD_MARKED) {
      // Marked chunks are live, so no tombstone check.
      for (; position < end; position++) {
        const offset = offsets[position]!;
        if (offset >= limit) break;
        const slot = base + offset - low;
        if ((touched[slot >>> 5]! & (1 << (slot & 31))) === 0) continue;
        const code = codes[position]!;
        const frequency = code !== 0 ? frequencies[code]! : packedFrequency(exceptionAt(segment, position), titleWeight);
        if (!(frequency > 0)) continue;
        const lengthClass = lengthClasses[base + offset]!;
        const norm = lengthClass !== UNCLASSED ? classNorms[lengthClass]! : normOf(input, base + offset);
        accumulator[slot]! += bm25Contribution(weight, frequency, norm);
      }
    } else {
      const rest = mode === MARK_ABOVE ? scratch.suffix[index + 1]! : Infinity;
      const threshold = scratch.threshold;
      for (; position < end; position++) {
        const offset = offsets[position]!;
        if (offset >= limit) break;
        const ordinal = base + offset;
        if (checkDead && dead[ordinal] !== 0) continue;
        const code = codes[position]!;
        const frequency = code !== 0 ? frequencies[code]! : packedFrequency(exceptionAt(segment, position), titleWeight);
        if (!(frequency > 0)) continue;
        const slot = ordinal - low;
        const lengthClass = lengthClasses[ordinal]!;
        const norm = lengthClass !== UNCLASSED ? classNorms[lengthClass]! : normOf(input, ordinal);
        const contribution = bm25Contribution(weight, frequency, norm);
        const word = slot >>> 5;
        const bit = 1 << (slot & 31);
        if ((touched[word]! & bit) === 0) {
          if ((contribution + rest) * SAFETY < threshold) continue;
          touched[word]! |= bit;
        }
        accumulator[slot]! += contribution;
      }
    }
    if (position < end) break;
  }
  blocks[index] = block;
  positions[index] = position;
}

/**
 * Completes the chunks the essential terms touched in the window with the other terms, term at a
 * time in query-term order (so every score adds its terms in the exhaustive order), dropping a chunk
 * as soon as its score plus the window bounds of the terms still to come cannot reach θ. A term is
 * read sequentially over the window, or — when few chunks are left for its postings there — probed
 * per chunk by galloping. Returns how many chunks survive, listed in ordinal order in
 * `scratch.candidates` (still marked; every other chunk of the window is cleared).
 */
function completeWindow(input: SearchInput, scratch: SearchScratch, essential: number, count: number, low: number, high: number): number {
  const { accumulator, touched, candidates, suffix, windowPostings } = scratch;
  const threshold = scratch.threshold;
  // List the touched chunks that can still reach θ; clear the others.
  let alive = 0;
  const first = suffix[essential]!;
  const words = (high - low + 31) >>> 5;
  for (let word = 0; word < words; word++) {
    let wordBits = touched[word]!;
    if (wordBits === 0) continue;
    let kept = wordBits;
    while (wordBits !== 0) {
      const lowest = wordBits & -wordBits;
      wordBits ^= lowest;
      const slot = (word << 5) | (31 - Math.clz32(lowest));
      if ((accumulator[slot]! + first) * SAFETY < threshold) {
        accumulator[slot] = 0;
        kept ^= lowest;
      } else {
        candidates[alive++] = slot;
      }
    }
    touched[word] = kept;
  }
  for (let index = essential; index < count && alive > 0; index++) {
    const rest = suffix[index + 1]!;
    if (alive * PROBE_COST < windowPostings[index]!) {
      alive = probeTerm(input, scratch, index, low, alive, rest);
      continue;
    }
    scoreTerm(input, scratch, index, low, high, ADD_MARKED);
    // Keep the chunks that can still reach θ.
    let kept = 0;
    for (let at = 0; at < alive; at++) {
      const slot = candidates[at]!;
      if ((accumulator[slot]! + rest) * SAFETY < threshold) {
        accumulator[slot] = 0;
        touched[slot >>> 5]! &= ~(1 << (slot & 31));
      } else {
        candidates[kept++] = slot;
      }
    }
    alive = kept;
  }
  return alive;
}

/**
 * Adds term `index`'s contribution to each of the first `alive` listed chunks, finding its posting by
 * galloping, and keeps listed (and marked) only those that can still reach θ with `rest` to come.
 * Returns how many are kept.
 */
function probeTerm(input: SearchInput, scratch: SearchScratch, index: number, low: number, alive: number, rest: number): number {
  const { segment, frequencies, titleWeight } = input;
  const { blockStarts: starts, blockBases: bases, blockLasts: lasts, chunkOffsets: offsets, codes } = segment;
  const { accumulator, candidates, touched, threshold } = scratch;
  const blockEnd = scratch.blockEnds[index]!;
  const weight = scratch.weights[index]!;
  let block = scratch.blocks[index]!;
  let position = scratch.positions[index]!;
  let kept = 0;
  for (let at = 0; at < alive; at++) {
    const slot = candidates[at]!;
    const ordinal = low + slot;
    while (block < blockEnd && lasts[block]! < ordinal) block++;
    if (block < blockEnd && bases[block]! <= ordinal) {
      const base = bases[block]!;
      const target = ordinal - base;
      const end = starts[block + 1]!;
      if (position < starts[block]!) position = starts[block]!;
      position = gallop(offsets, position, end, target);
      if (position < end && offsets[position] === target) {
        const code = codes[position]!;
        const frequency = code !== 0 ? frequencies[code]! : packedFrequency(exceptionAt(segment, position), titleWeight);
        if (frequency > 0) accumulator[slot]! += bm25Contribution(weight, frequency, normOf(input, ordinal));
      }
    }
    if ((accumulator[slot]! + rest) * SAFETY < threshold) {
      accumulator[slot] = 0;
      touched[slot >>> 5]! &= ~(1 << (slot & 31));
    } else {
      candidates[kept++] = slot;
    }
  }
  scratch.blocks[index] = block;
  scratch.positions[index] = position;
  return kept;
}

/**
 * Offers every chunk still marked in the window to the heap, in ordinal order (completing them first
 * when some terms are not essential). Clears the window's buffers, also when `accept` throws
 * (rethrown at the end).
 */
function offerWindow(input: SearchInput, scratch: SearchScratch, essential: number, count: number, low: number, high: number): void {
  const { accumulator, touched, candidates } = scratch;
  let listed = -1;
  if (essential < count) listed = completeWindow(input, scratch, essential, count, low, high);
  let failure: unknown;
  if (listed >= 0) {
    for (let at = 0; at < listed; at++) {
      const slot = candidates[at]!;
      const score = accumulator[slot]!;
      accumulator[slot] = 0;
      touched[slot >>> 5] = 0;
      if (failure === undefined) failure = offer(input, scratch, score, low + slot);
    }
  } else {
    const words = (high - low + 31) >>> 5;
    for (let word = 0; word < words; word++) {
      let wordBits = touched[word]!;
      if (wordBits === 0) continue;
      touched[word] = 0;
      while (wordBits !== 0) {
        const lowest = wordBits & -wordBits;
        wordBits ^= lowest;
        const slot = (word << 5) | (31 - Math.clz32(lowest));
        const score = accumulator[slot]!;
        accumulator[slot] = 0;
        if (failure === undefined) failure = offer(input, scratch, score, low + slot);
      }
    }
  }
  if (failure !== undefined) throw failure;
}

/** Offers one complete chunk to the heap, raising θ once it is full; returns what `accept` threw, if it did. */
function offer(input: SearchInput, scratch: SearchScratch, score: number, ordinal: number): unknown {
  if (score < scratch.weakest) return undefined;
  const { heap, accept } = input;
  if (!heap.admits(score, ordinal)) return undefined;
  if (accept) {
    try {
      if (!accept(ordinal)) return undefined;
    } catch (error) {
      return error;
    }
  }
  heap.push(score, ordinal);
  if (heap.length === heap.capacity) {
    scratch.weakest = heap.weakestRank()!;
    if (input.prune) scratch.threshold = scratch.weakest;
  }
  return undefined;
}
