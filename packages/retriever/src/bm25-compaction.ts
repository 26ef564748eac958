import type { DocumentChunk } from '@zerda/types';
import { encodePackedSegment, forEachMainPosting, packedAt, type MainSegment, type PostingList } from './postings.js';

/**
 * Compaction of a {@link Bm25Index}: the delta segment is merged into the main one, tombstoned
 * chunks are dropped and the live ones renumbered in insertion order (so an index grown by writes
 * ends up laid out exactly like one built in one go), and terms left without postings are dropped
 * once they are a tenth of the dictionary.
 */

/** When to compact: delta or tombstones past these shares of the index (and past small floors). */
export interface CompactionPolicy {
  /** Compact when delta postings exceed this share of main postings. */
  deltaRatio: number;
  /** Compact when tombstoned chunks exceed this share of all chunk slots. */
  tombstoneRatio: number;
}

const DELTA_FLOOR = 4096;
const TOMBSTONE_FLOOR = 256;

/** Whether `policy` asks for a compaction of an index with these counts. */
export function compactionDue(policy: CompactionPolicy, counts: { mainPostings: number; deltaPostings: number; tombstones: number; slots: number }): boolean {
  const deltaDue = counts.deltaPostings > DELTA_FLOOR && counts.deltaPostings > counts.mainPostings * policy.deltaRatio;
  const tombstonesDue = counts.tombstones > TOMBSTONE_FLOOR && counts.tombstones > counts.slots * policy.tombstoneRatio;
  return deltaDue || tombstonesDue;
}

/** The state of an index that compaction reads (`ordinalById` is updated in place). */
export interface CompactionInput {
  slots: number;
  dead: Uint8Array;
  sequence: Float64Array;
  terms: string[];
  main: MainSegment;
  delta: ReadonlyMap<number, PostingList>;
  textLengths: Uint32Array;
  titleLengths: Uint32Array;
  chunks: ReadonlyArray<DocumentChunk | undefined>;
  /** Chunk id → ordinal: the keys stay, the values become the new ordinals. */
  ordinalById: Map<string, number>;
  tombstones: number;
}

/** The compacted index: every live chunk at its new ordinal (`liveOrdinals[new] = old`). */
export interface Compacted {
  liveOrdinals: number[];
  /** The same array as the input's when no term was dropped. */
  terms: string[];
  main: MainSegment;
  textLengths: Uint32Array;
  titleLengths: Uint32Array;
  sequence: Float64Array;
  chunks: DocumentChunk[];
}

/** Compacts the index `input` describes (see the module comment); the input's arrays are not changed. */
export function compactSegments(input: CompactionInput): Compacted {
  // New ordinals follow insertion order, so an index grown incrementally ends up laid out exactly
  // like one built from scratch.
  const liveOrdinals: number[] = [];
  for (let ordinal = 0; ordinal < input.slots; ordinal++) if (input.dead[ordinal] === 0) liveOrdinals.push(ordinal);
  let sorted = true;
  for (let index = 1; index < liveOrdinals.length; index++) {
    if (input.sequence[liveOrdinals[index - 1]!]! > input.sequence[liveOrdinals[index]!]!) {
      sorted = false;
      break;
    }
  }
  if (!sorted) liveOrdinals.sort((a, b) => input.sequence[a]! - input.sequence[b]!);
  const renumber = new Int32Array(input.slots).fill(-1);
  for (let index = 0; index < liveOrdinals.length; index++) renumber[liveOrdinals[index]!] = index;

  // Live postings per term decide which terms survive and where their postings go.
  const termCount = input.terms.length;
  const liveCounts = new Uint32Array(termCount);
  let totalPostings = 0;
  for (let termId = 0; termId < termCount; termId++) {
    const count = countLivePostings(input.main, input.dead, input.tombstones, termId, input.delta.get(termId));
    liveCounts[termId] = count;
    totalPostings += count;
  }
  // Terms left without postings are dropped (renumbering the dictionary) once they are a tenth of
  // it; until then they stay, harmless, so that a compaction usually keeps every term id.
  let liveTerms = 0;
  for (let termId = 0; termId < termCount; termId++) if (liveCounts[termId]! > 0) liveTerms++;
  const dropTerms = termCount - liveTerms > termCount * 0.1;
  const newTermIds = new Int32Array(termCount);
  let newTerms: string[] = input.terms;
  if (dropTerms) {
    newTerms = [];
    for (let termId = 0; termId < termCount; termId++) {
      newTermIds[termId] = liveCounts[termId]! > 0 ? newTerms.push(input.terms[termId]!) - 1 : -1;
    }
  } else {
    for (let termId = 0; termId < termCount; termId++) newTermIds[termId] = termId;
  }
  const offsets = new Uint32Array(newTerms.length + 1);
  const postingChunks = new Uint32Array(totalPostings);
  const postingFrequencies = new Uint32Array(totalPostings);
  let position = 0;
  const main = input.main;
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
    const list = input.delta.get(termId);
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
    textLengths[index] = input.textLengths[ordinal]!;
    titleLengths[index] = input.titleLengths[ordinal]!;
    sequence[index] = index;
    const chunk = input.chunks[ordinal]!;
    chunks[index] = chunk;
    input.ordinalById.set(chunk.id, index);
  }
  return {
    liveOrdinals,
    terms: newTerms,
    main: encodePackedSegment(newTerms.length, offsets, postingChunks, postingFrequencies, textLengths, titleLengths),
    textLengths,
    titleLengths,
    sequence,
    chunks: chunks as DocumentChunk[],
  };
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

/** Counts a term's live postings in both segments (all of them when there are no tombstones). */
export function countLivePostings(main: MainSegment, dead: Uint8Array, tombstones: number, termId: number, list: PostingList | undefined): number {
  let count = 0;
  if (termId < main.termCount) {
    if (tombstones === 0) count = main.offsets[termId + 1]! - main.offsets[termId]!;
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
