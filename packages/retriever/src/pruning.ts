import type { TopK } from '@zerda/types';
import { exceptionAt, packedFrequency, type MainSegment, type PostingList } from './postings.js';
import { SAFETY, contributionBound, type LengthNormalization } from './scoring.js';

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
 *   essential terms' postings in the window are scored (into a window-sized accumulator); each chunk
 *   they touch is then completed by probing the suffix terms' postings (skipping whole blocks by
 *   their last ordinal, galloping inside one), and given up as soon as its partial score plus the
 *   bounds still to come falls below θ.
 *
 * Pruning never changes the result, and scores are bit-identical to scoring every posting: every
 * chunk that is kept was scored completely, its contributions added in query-term order (the
 * essential prefix first, then the suffix), exactly as the exhaustive order adds them; bounds are
 * compared with a safety margin for rounding. The delta segment (chunks added since the last
 * compaction) is scored exhaustively, first, which also seeds θ.
 */

/** Chunks per window: big enough to amortise a window's bookkeeping, small enough to stay in cache. */
export const WINDOW_BITS = 12;
export const STATS = { windows: 0, skipped: 0, scored: 0, probes: 0, candidates: 0, pruned: 0, queries: 0, essential: 0 };
export const WINDOW = 1 << WINDOW_BITS;

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
  /** Length normalisation per ordinal. */
  norms: Float64Array;
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
  masks = new Int32Array(WINDOW);
  touched = new Int32Array(WINDOW >>> 5);
  order = new Int32Array(WINDOW);
  blocks = new Uint32Array(16);
  positions = new Uint32Array(16);
  blockEnds = new Uint32Array(16);
  weights = new Float64Array(16);
  bits = new Int32Array(16);
  bounds = new Float64Array(17);
  candidateBounds = new Float64Array(16);
  suffix = new Float64Array(17);
  deltaAccumulator = new Float64Array(0);
  deltaMasks = new Uint32Array(0);
  deltaTouched = new Uint32Array(0);

  reserveTerms(count: number): void {
    if (this.blocks.length >= count) return;
    const size = Math.max(count, this.blocks.length * 2);
    this.blocks = new Uint32Array(size);
    this.positions = new Uint32Array(size);
    this.blockEnds = new Uint32Array(size);
    this.weights = new Float64Array(size);
    this.bits = new Int32Array(size);
    this.bounds = new Float64Array(size + 1);
    this.candidateBounds = new Float64Array(size);
    this.suffix = new Float64Array(size + 1);
  }

  reserveDelta(count: number): void {
    if (this.deltaAccumulator.length >= count) return;
    const size = Math.max(count, this.deltaAccumulator.length * 2, 64);
    this.deltaAccumulator = new Float64Array(size);
    this.deltaMasks = new Uint32Array(size);
    this.deltaTouched = new Uint32Array(size);
  }
}

/**
 * Offers every chunk that could be in the top k to `input.heap` (see the module comment) and writes
 * the match mask of each chunk it pushes into `hitMasks[ordinal]` (bit i: the chunk contains
 * `terms[i]`); entries of chunks not pushed are left as they were.
 */
export function searchSegments(input: SearchInput, terms: readonly QueryTerm[], scratch: SearchScratch, hitMasks: Uint32Array): void {
  if (input.slots > input.mainSlots && terms.some((term) => term.list !== undefined)) searchDelta(input, terms, scratch, hitMasks);
  if (input.mainSlots > 0 && terms.some((term) => term.blockEnd > term.blockStart)) searchMain(input, terms, scratch, hitMasks);
}

/** Scores the delta segment exhaustively, term at a time. */
function searchDelta(input: SearchInput, terms: readonly QueryTerm[], scratch: SearchScratch, hitMasks: Uint32Array): void {
  const { mainSlots, dead, checkDead, norms, titleWeight, heap, accept } = input;
  scratch.reserveDelta(input.slots - mainSlots);
  const accumulator = scratch.deltaAccumulator;
  const masks = scratch.deltaMasks;
  const touched = scratch.deltaTouched;
  let touchedCount = 0;
  for (const term of terms) {
    const list = term.list;
    if (!list) continue;
    const { chunks, frequencies, length } = list;
    const weight = term.weight;
    const bit = term.bit;
    for (let index = 0; index < length; index++) {
      const ordinal = chunks[index]!;
      if (checkDead && dead[ordinal] !== 0) continue;
      const frequency = packedFrequency(frequencies[index]!, titleWeight);
      if (!(frequency > 0)) continue;
      const slot = ordinal - mainSlots;
      if (accumulator[slot] === 0) touched[touchedCount++] = slot;
      accumulator[slot]! += (weight * frequency) / (frequency + norms[ordinal]!);
      masks[slot]! |= bit;
    }
  }
  try {
    for (let index = 0; index < touchedCount; index++) {
      const slot = touched[index]!;
      const ordinal = mainSlots + slot;
      const score = accumulator[slot]!;
      if (!heap.admits(score, ordinal) || (accept && !accept(ordinal))) continue;
      heap.push(score, ordinal);
      hitMasks[ordinal] = masks[slot]!;
    }
  } finally {
    // Leave the scratch clean, also when `accept` threw.
    for (let index = 0; index < touchedCount; index++) {
      const slot = touched[index]!;
      accumulator[slot] = 0;
      masks[slot] = 0;
    }
  }
}

/** Block-max MaxScore over the main segment, window by window. No closures: this is the hot loop. */
function searchMain(input: SearchInput, terms: readonly QueryTerm[], scratch: SearchScratch, hitMasks: Uint32Array): void {
  const { segment, mainSlots, dead, checkDead, norms, frequencies, titleWeight, normalization, heap, accept, prune, impacts } = input;
  const { blockStarts: starts, blockBases: bases, blockLasts: lasts, chunkOffsets: offsets, codes } = segment;
  const { blockMaxText, blockMaxTitle, blockMinTextLength, blockMinTitleLength } = segment;
  const count = terms.length;
  scratch.reserveTerms(count);
  const { accumulator, masks, touched, order, blocks, positions, bounds, suffix, weights, blockEnds, bits, candidateBounds } = scratch;
  for (let index = 0; index < count; index++) {
    const term = terms[index]!;
    blocks[index] = term.blockStart;
    blockEnds[index] = term.blockEnd;
    positions[index] = term.blockStart < term.blockEnd ? starts[term.blockStart]! : 0;
    weights[index] = term.weight;
    bits[index] = term.bit;
  }
  const capacity = heap.capacity;
  let threshold = prune && heap.length === capacity ? heap.weakestRank()! : 0;
  // The weakest kept score once the heap is full: anything strictly below it is rejected here, without a call.
  let weakest = heap.length === capacity ? heap.weakestRank()! : -Infinity;

  for (let low = 0; low < mainSlots; low += WINDOW) {
    const high = Math.min(low + WINDOW, mainSlots);
    let essential = count;
    if (threshold > 0) {
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
      if (suffix[0]! * SAFETY < threshold) continue;
      while (essential > 0 && suffix[essential - 1]! * SAFETY < threshold) essential--;
    }

    // Essential terms: score every posting in the window, term at a time. When every term is
    // essential no chunk needs completing, so the touched chunks are listed in first-touch order
    // (the highest-weighted term's first: strong chunks fill the heap early, fewer replacements).
    const listed = essential === count;
    let orderCount = 0;
    for (let index = 0; index < essential; index++) {
      const blockEnd = blockEnds[index]!;
      const weight = weights[index]!;
      const bit = bits[index]!;
      let block = blocks[index]!;
      while (block < blockEnd && lasts[block]! < low) block++;
      let position = positions[index]!;
      for (; block < blockEnd; block++) {
        const base = bases[block]!;
        if (base >= high) break;
        const end = starts[block + 1]!;
        if (position < starts[block]!) position = starts[block]!;
        for (; position < end; position++) {
          const ordinal = base + offsets[position]!;
          if (ordinal >= high) break;
          if (ordinal < low || (checkDead && dead[ordinal] !== 0)) continue;
          const code = codes[position]!;
          const frequency = code !== 0 ? frequencies[code]! : packedFrequency(exceptionAt(segment, position), titleWeight);
          if (!(frequency > 0)) continue;
          const slot = ordinal - low;
          if (listed && accumulator[slot] === 0) order[orderCount++] = slot;
          accumulator[slot]! += (weight * frequency) / (frequency + norms[ordinal]!);
          masks[slot]! |= bit;
          if (!listed) touched[slot >>> 5]! |= 1 << (slot & 31);
        }
        if (position < end) break;
      }
      blocks[index] = block;
      positions[index] = position;
    }

    let failure: unknown;
    for (let index = 0; index < orderCount; index++) {
      const slot = order[index]!;
      const score = accumulator[slot]!;
      const mask = masks[slot]!;
      accumulator[slot] = 0;
      masks[slot] = 0;
      if (failure !== undefined || score < weakest || !heap.admits(score, low + slot)) continue;
      const ordinal = low + slot;
      if (accept) {
        let accepted: boolean;
        try {
          accepted = accept(ordinal);
        } catch (error) {
          failure = error;
          continue;
        }
        if (!accepted) continue;
      }
      heap.push(score, ordinal);
      hitMasks[ordinal] = mask;
      if (heap.length === capacity) {
        weakest = heap.weakestRank()!;
        if (prune) threshold = weakest;
      }
    }

    // Otherwise every touched chunk in ordinal order: complete it with the other terms, offer it to the heap.
    const words = listed ? 0 : (high - low + 31) >>> 5;
    for (let word = 0; word < words; word++) {
      let wordBits = touched[word]!;
      if (wordBits === 0) continue;
      touched[word] = 0;
      while (wordBits !== 0) {
        const lowest = wordBits & -wordBits;
        wordBits ^= lowest;
        const slot = (word << 5) | (31 - Math.clz32(lowest));
        let score = accumulator[slot]!;
        let mask = masks[slot]!;
        accumulator[slot] = 0;
        masks[slot] = 0;
        if (failure !== undefined) continue;
        const ordinal = low + slot;
        if (essential < count) {
          if ((score + suffix[essential]!) * SAFETY < threshold) continue;
          // Tighter: the bounds of the blocks that could hold this ordinal (0 where a term has a gap).
          let remaining = 0;
          for (let index = essential; index < count; index++) {
            const blockEnd = blockEnds[index]!;
            let block = blocks[index]!;
            while (block < blockEnd && lasts[block]! < ordinal) block++;
            blocks[index] = block;
            const bound = block < blockEnd && bases[block]! <= ordinal ? (impacts ? weights[index]! * impacts[block]! : bounds[index]!) : 0;
            candidateBounds[index] = bound;
            remaining += bound;
          }
          let complete = (score + remaining) * SAFETY >= threshold;
          for (let index = essential; complete && index < count; index++) {
            const bound = candidateBounds[index]!;
            if (bound === 0) continue;
            remaining -= bound;
            const block = blocks[index]!;
            const base = bases[block]!;
            const target = ordinal - base;
            const end = starts[block + 1]!;
            let position = positions[index]!;
            if (position < starts[block]!) position = starts[block]!;
            if (offsets[position]! < target) {
              // Gallop to a range holding the first offset >= target, then binary-search it.
              let lower = position;
              let step = 1;
              let upper = position + 1;
              while (upper < end && offsets[upper]! < target) {
                lower = upper;
                step *= 2;
                upper = position + step;
              }
              if (upper > end) upper = end;
              while (lower + 1 < upper) {
                const middle = (lower + upper) >>> 1;
                if (offsets[middle]! < target) lower = middle;
                else upper = middle;
              }
              position = upper;
            }
            positions[index] = position;
            if (position < end && offsets[position] === target) {
              const code = codes[position]!;
              const frequency = code !== 0 ? frequencies[code]! : packedFrequency(exceptionAt(segment, position), titleWeight);
              if (frequency > 0) {
                score += (weights[index]! * frequency) / (frequency + norms[ordinal]!);
                mask |= bits[index]!;
              }
            }
            if ((score + remaining) * SAFETY < threshold) complete = false;
          }
          if (!complete) continue;
        }
        if (score < weakest || !heap.admits(score, ordinal)) continue;
        if (accept) {
          let accepted: boolean;
          try {
            accepted = accept(ordinal);
          } catch (error) {
            // Finish clearing the window's buffers before rethrowing.
            failure = error;
            continue;
          }
          if (!accepted) continue;
        }
        heap.push(score, ordinal);
        hitMasks[ordinal] = mask;
        if (heap.length === capacity) {
          weakest = heap.weakestRank()!;
          if (prune) threshold = weakest;
        }
      }
    }
    if (failure !== undefined) throw failure;
  }
}
