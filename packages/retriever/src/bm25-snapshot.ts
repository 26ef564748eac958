import type { DocumentChunk } from '@zerda/types';
import { BLOCK_SIZE, BlockBounds, MAX_BLOCK_SPAN, codeToPacked, frequencyCode, type MainSegment } from './postings.js';

/** The compacted arrays a {@link Bm25Index} is serialised as (`snapshot()` / `load()`). */
export interface Bm25IndexSnapshot {
  terms: string[];
  chunks: DocumentChunk[];
  textLengths: Uint32Array;
  titleLengths: Uint32Array;
  offsets: Uint32Array;
  postingChunks: Uint32Array;
  postingFrequencies: Uint32Array;
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

/**
 * A {@link Bm25Index} as its main segment lies in memory (`segmentSnapshot()` / `load()`): the
 * block-encoded postings are adopted as read, so opening a snapshot neither decodes nor re-encodes
 * them. `ordinalById`, when given, is the id → ordinal map the validation built (adopted too).
 */
export interface Bm25SegmentSnapshot {
  terms: string[];
  chunks: DocumentChunk[];
  textLengths: Uint32Array;
  titleLengths: Uint32Array;
  segment: MainSegment;
  ordinalById?: Map<string, number>;
}

/**
 * Checks a segment snapshot read from untrusted bytes, in one pass over the postings: the arrays'
 * lengths agree; term, block and posting offsets are consistent; every block is non-empty, at most
 * {@link BLOCK_SIZE} postings and less than {@link MAX_BLOCK_SPAN} ordinals wide, starts at its base
 * and ends at its recorded last ordinal; ordinals increase strictly within a term and name existing
 * chunks; the exception table lists exactly the postings with code 0 (sorted, with frequencies no
 * code can hold); and each block's recorded bounds (largest counts, smallest lengths) are exactly
 * those of its postings — search prunes by them, so a wrong bound would silently change answers.
 * Terms and chunk ids must be unique. Returns the first problem, or the id → ordinal map.
 */
export function validateSegmentSnapshot(snapshot: Bm25SegmentSnapshot): string | Map<string, number> {
  const count = snapshot.chunks.length;
  const { segment, textLengths, titleLengths } = snapshot;
  const { termCount, offsets, blockOffsets, blockStarts, blockBases, blockLasts, blockMaxText, blockMaxTitle, blockMinTextLength, blockMinTitleLength, chunkOffsets, codes, exceptionPositions, exceptionValues } = segment;
  if (textLengths.length !== count) return `textLengths has ${textLengths.length} entries for ${count} chunks`;
  if (titleLengths.length !== count) return `titleLengths has ${titleLengths.length} entries for ${count} chunks`;
  if (termCount !== snapshot.terms.length) return `the segment has ${termCount} terms, the dictionary ${snapshot.terms.length}`;
  if (offsets.length !== termCount + 1 || blockOffsets.length !== termCount + 1) return `offsets or blockOffsets do not have ${termCount + 1} entries`;
  const blocks = blockBases.length;
  if (blockStarts.length !== blocks + 1) return `blockStarts has ${blockStarts.length} entries for ${blocks} blocks`;
  for (const [name, array] of [['blockLasts', blockLasts], ['blockMaxText', blockMaxText], ['blockMaxTitle', blockMaxTitle], ['blockMinTextLength', blockMinTextLength], ['blockMinTitleLength', blockMinTitleLength]] as const) {
    if (array.length !== blocks) return `${name} has ${array.length} entries for ${blocks} blocks`;
  }
  const postings = chunkOffsets.length;
  if (codes.length !== postings) return `codes has ${codes.length} entries for ${postings} postings`;
  if (exceptionPositions.length !== exceptionValues.length) return 'exceptionPositions and exceptionValues differ in length';
  if (offsets[0] !== 0 || blockOffsets[0] !== 0 || blockStarts[0] !== 0) return 'offsets, blockOffsets and blockStarts must start at 0';
  if (offsets[termCount] !== postings || blockOffsets[termCount] !== blocks || blockStarts[blocks] !== postings) return 'offsets, blockOffsets or blockStarts do not end at the number of postings and blocks';
  let exception = 0;
  const exceptions = exceptionPositions.length;
  const bounds = new BlockBounds();
  for (let term = 0; term < termCount; term++) {
    const firstBlock = blockOffsets[term]!;
    const endBlock = blockOffsets[term + 1]!;
    if (endBlock < firstBlock) return `blockOffsets decrease at term ${term}`;
    if (blockStarts[firstBlock] !== offsets[term] || blockStarts[endBlock] !== offsets[term + 1]) return `the blocks of term ${term} do not cover its postings`;
    let previous = -1;
    for (let block = firstBlock; block < endBlock; block++) {
      const start = blockStarts[block]!;
      const end = blockStarts[block + 1]!;
      if (end <= start || end - start > BLOCK_SIZE) return `block ${block} holds ${end - start} postings`;
      const base = blockBases[block]!;
      if (base <= previous) return `postings of term ${JSON.stringify(snapshot.terms[term])} are not in increasing chunk order`;
      if (chunkOffsets[start] !== 0) return `block ${block} does not start at its base`;
      bounds.reset();
      let offset = -1;
      for (let position = start; position < end; position++) {
        const next = chunkOffsets[position]!;
        if (next <= offset) return `postings of term ${JSON.stringify(snapshot.terms[term])} are not in increasing chunk order`;
        offset = next;
        const ordinal = base + next;
        if (ordinal >= count) return `posting ${position} names chunk ${ordinal} of ${count}`;
        const code = codes[position]!;
        let packed: number;
        if (exception < exceptions && exceptionPositions[exception] === position) {
          if (code !== 0) return `posting ${position} is in the exception table but has frequency code ${code}`;
          packed = exceptionValues[exception++]!;
          if (packed === 0 || frequencyCode(packed) !== 0) return `the exception of posting ${position} holds frequency ${packed}, which needs no exception`;
        } else {
          if (code === 0) return `posting ${position} has frequency code 0 and no exception entry`;
          packed = codeToPacked(code);
        }
        bounds.add(packed, textLengths[ordinal]!, titleLengths[ordinal]!);
      }
      const last = base + offset;
      if (last !== blockLasts[block] || offset >= MAX_BLOCK_SPAN) return `block ${block} ends at chunk ${last}, it records ${blockLasts[block]}`;
      if (bounds.maxText !== blockMaxText[block] || bounds.maxTitle !== blockMaxTitle[block] || bounds.minText !== blockMinTextLength[block] || bounds.minTitle !== blockMinTitleLength[block]) {
        return `the recorded bounds of block ${block} are not those of its postings`;
      }
      previous = last;
    }
  }
  if (exception !== exceptions) return `the exception table lists ${exceptions - exception} postings out of order or past the end`;
  if (new Set(snapshot.terms).size !== snapshot.terms.length) return 'terms are not unique';
  const ordinalById = new Map<string, number>();
  for (let ordinal = 0; ordinal < count; ordinal++) {
    const id = snapshot.chunks[ordinal]!.id;
    if (ordinalById.has(id)) return `chunk id ${JSON.stringify(id)} appears twice`;
    ordinalById.set(id, ordinal);
  }
  return ordinalById;
}
