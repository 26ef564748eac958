/**
 * Postings storage of {@link Bm25Index}: the compressed, block-structured main segment and the
 * growable per-term lists of the delta segment.
 *
 * A posting is a chunk ordinal and a packed frequency: the term's count in the text (low 16 bits)
 * and in the title (high 16 bits), each saturating at 65535. The main segment stores them in three
 * bytes instead of eight, without giving up random access:
 * - postings are cut into blocks of at most {@link BLOCK_SIZE}, and a block ends early rather than
 *   span {@link MAX_BLOCK_SPAN} ordinals, so every ordinal is its block's first ordinal plus a
 *   16-bit offset (`Uint16Array`);
 * - a frequency is a one-byte code `text | title << 5` when text ≤ 31 and title ≤ 7 (nearly every
 *   posting), else code 0 and the exact packed value in a sorted side table (binary search);
 * - each block records its first and last ordinal and bounds on what any of its postings can score:
 *   the largest text and title counts and the smallest text and title lengths of its chunks. Those
 *   are what block-max pruning reads (see `pruning.ts`); they do not depend on BM25's parameters or
 *   the average length, so writes never invalidate them.
 */

/** Text count above the low 16 bits, as packed in a frequency. */
export const TEXT_MASK = 0xffff;
/** One title occurrence in a packed frequency. */
export const TITLE_UNIT = 0x10000;
/** Counts saturate here (far beyond where BM25's saturation stops mattering). */
export const SATURATED = 0xffff;

/** Most postings in one block. */
export const BLOCK_SIZE = 128;
/** A block never spans this many ordinals, so offsets from its first ordinal fit 16 bits. */
export const MAX_BLOCK_SPAN = 0x10000;

const CODE_TEXT_BITS = 5;
const CODE_TEXT_MAX = (1 << CODE_TEXT_BITS) - 1;
const CODE_TITLE_MAX = (1 << (8 - CODE_TEXT_BITS)) - 1;

/** The one-byte code of a packed frequency, or 0 when it needs the exception table. */
export function frequencyCode(packed: number): number {
  const text = packed & TEXT_MASK;
  const title = packed >>> 16;
  return text <= CODE_TEXT_MAX && title <= CODE_TITLE_MAX ? text | (title << CODE_TEXT_BITS) : 0;
}

/** The packed frequency a non-zero code stands for. */
export function codeToPacked(code: number): number {
  return (code & CODE_TEXT_MAX) + (code >>> CODE_TEXT_BITS) * TITLE_UNIT;
}

/**
 * `text + titleWeight · title` per code (index 0 unused): the BM25 term frequency of a posting,
 * computed exactly as from its packed value, so a table lookup replaces the decoding.
 */
export function frequencyTable(titleWeight: number): Float64Array {
  const table = new Float64Array(256);
  for (let code = 1; code < 256; code++) table[code] = (code & CODE_TEXT_MAX) + titleWeight * (code >>> CODE_TEXT_BITS);
  return table;
}

/** The BM25 term frequency of a packed frequency. */
export function packedFrequency(packed: number, titleWeight: number): number {
  return (packed & TEXT_MASK) + titleWeight * (packed >>> 16);
}

/** Postings of chunks added since the last build (delta segment): one growable list per term. */
export class PostingList {
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

type GrowableArray = Uint32Array | Uint16Array | Float64Array | Int32Array | Uint8Array;

/** A copy of `array` with room for at least `minimum` elements (doubling), or `array` when it fits. */
export function grow<T extends GrowableArray>(array: T, minimum: number): T {
  if (array.length >= minimum) return array;
  const constructor = array.constructor as new (length: number) => T;
  const grown = new constructor(Math.max(minimum, array.length * 2, 8));
  grown.set(array as never);
  return grown;
}

export const growUint32 = grow<Uint32Array>;
export const growUint16 = grow<Uint16Array>;
export const growFloat64 = grow<Float64Array>;
export const growInt32 = grow<Int32Array>;
export const growUint8 = grow<Uint8Array>;

/** The compacted, block-structured postings of every term below `termCount` (see the module comment). */
export interface MainSegment {
  termCount: number;
  /** Postings of term t: `offsets[t] .. offsets[t + 1]`. */
  offsets: Uint32Array;
  /** Blocks of term t: `blockOffsets[t] .. blockOffsets[t + 1]`. */
  blockOffsets: Uint32Array;
  /** Postings of block b: `blockStarts[b] .. blockStarts[b + 1]` (one entry more than blocks). */
  blockStarts: Uint32Array;
  /** First ordinal of each block; a posting's ordinal is its block's base plus its offset. */
  blockBases: Uint32Array;
  /** Last ordinal of each block. */
  blockLasts: Uint32Array;
  /** Largest text count and title count in the block. */
  blockMaxText: Uint16Array;
  blockMaxTitle: Uint16Array;
  /** Smallest text length and title length (in terms, saturating at 65535) of the block's chunks. */
  blockMinTextLength: Uint16Array;
  blockMinTitleLength: Uint16Array;
  /** Per posting: ordinal minus its block's base. */
  chunkOffsets: Uint16Array;
  /** Per posting: frequency code (0: see the exceptions). */
  codes: Uint8Array;
  /** Sorted positions of the postings whose frequency has no code, and their packed frequencies. */
  exceptionPositions: Uint32Array;
  exceptionValues: Uint32Array;
}

/** A segment without terms. */
export function emptySegment(): MainSegment {
  return {
    termCount: 0,
    offsets: new Uint32Array(1),
    blockOffsets: new Uint32Array(1),
    blockStarts: new Uint32Array(1),
    blockBases: new Uint32Array(0),
    blockLasts: new Uint32Array(0),
    blockMaxText: new Uint16Array(0),
    blockMaxTitle: new Uint16Array(0),
    blockMinTextLength: new Uint16Array(0),
    blockMinTitleLength: new Uint16Array(0),
    chunkOffsets: new Uint16Array(0),
    codes: new Uint8Array(0),
    exceptionPositions: new Uint32Array(0),
    exceptionValues: new Uint32Array(0),
  };
}

/** The packed frequency of posting `position` whose code is 0. */
export function exceptionAt(segment: MainSegment, position: number): number {
  const positions = segment.exceptionPositions;
  let low = 0;
  let high = positions.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = positions[middle]!;
    if (value < position) low = middle + 1;
    else if (value > position) high = middle - 1;
    else return segment.exceptionValues[middle]!;
  }
  throw new Error(`posting ${position} has frequency code 0 and no exception entry`);
}

/** The packed frequency of posting `position`. */
export function packedAt(segment: MainSegment, position: number): number {
  const code = segment.codes[position]!;
  return code !== 0 ? codeToPacked(code) : exceptionAt(segment, position);
}

/** Frequencies being written as codes: collects the exceptions (in any order) until {@link finish}. */
export class FrequencyWriter {
  readonly codes: Uint8Array;
  private positions: number[] = [];
  private values: number[] = [];

  constructor(postings: number) {
    this.codes = new Uint8Array(postings);
  }

  set(position: number, packed: number): void {
    const code = frequencyCode(packed);
    this.codes[position] = code;
    if (code === 0) {
      this.positions.push(position);
      this.values.push(packed);
    }
  }

  /** The exception table, sorted by position. */
  finish(): { exceptionPositions: Uint32Array; exceptionValues: Uint32Array } {
    const order = this.positions.map((_, index) => index).sort((a, b) => this.positions[a]! - this.positions[b]!);
    return {
      exceptionPositions: Uint32Array.from(order, (index) => this.positions[index]!),
      exceptionValues: Uint32Array.from(order, (index) => this.values[index]!),
    };
  }
}

/**
 * The score bounds of one block while its postings are visited: the largest text and title counts
 * and the smallest (saturated) text and title lengths. The encoder records them; a snapshot's
 * validation recomputes them from the postings it reads and compares with what was recorded.
 */
export class BlockBounds {
  maxText = 0;
  maxTitle = 0;
  minText = SATURATED;
  minTitle = SATURATED;

  /** Starts a new block. */
  reset(): void {
    this.maxText = 0;
    this.maxTitle = 0;
    this.minText = SATURATED;
    this.minTitle = SATURATED;
  }

  /** Takes in one posting: its packed frequency and its chunk's lengths. */
  add(packed: number, textLength: number, titleLength: number): void {
    const text = packed & TEXT_MASK;
    const title = packed >>> 16;
    if (text > this.maxText) this.maxText = text;
    if (title > this.maxTitle) this.maxTitle = title;
    const shortText = Math.min(textLength, SATURATED);
    const shortTitle = Math.min(titleLength, SATURATED);
    if (shortText < this.minText) this.minText = shortText;
    if (shortTitle < this.minTitle) this.minTitle = shortTitle;
  }
}

/**
 * Cuts the postings of every term into blocks and stores ordinals as 16-bit offsets. `postingChunks`
 * must be strictly increasing within each term; it is not kept (the caller may drop it).
 */
export function encodeSegment(
  termCount: number,
  offsets: Uint32Array,
  postingChunks: Uint32Array,
  frequencies: { codes: Uint8Array; exceptionPositions: Uint32Array; exceptionValues: Uint32Array },
  textLengths: Uint32Array,
  titleLengths: Uint32Array,
): MainSegment {
  const postings = postingChunks.length;
  const chunkOffsets = new Uint16Array(postings);
  const blockOffsets = new Uint32Array(termCount + 1);
  const estimate = Math.ceil(postings / BLOCK_SIZE) + termCount + 1;
  let blockStarts: Uint32Array = new Uint32Array(estimate + 1);
  let blockBases: Uint32Array = new Uint32Array(estimate);
  let blockLasts: Uint32Array = new Uint32Array(estimate);
  let blockMaxText: Uint16Array = new Uint16Array(estimate);
  let blockMaxTitle: Uint16Array = new Uint16Array(estimate);
  let blockMinTextLength: Uint16Array = new Uint16Array(estimate);
  let blockMinTitleLength: Uint16Array = new Uint16Array(estimate);
  const segment: MainSegment = { termCount, offsets, blockOffsets, blockStarts, blockBases, blockLasts, blockMaxText, blockMaxTitle, blockMinTextLength, blockMinTitleLength, chunkOffsets, codes: frequencies.codes, exceptionPositions: frequencies.exceptionPositions, exceptionValues: frequencies.exceptionValues };
  let blocks = 0;
  const bounds = new BlockBounds();
  for (let term = 0; term < termCount; term++) {
    blockOffsets[term] = blocks;
    const end = offsets[term + 1]!;
    let position = offsets[term]!;
    while (position < end) {
      if (blocks + 1 >= blockBases.length) {
        const size = blockBases.length * 2;
        blockStarts = growUint32(blockStarts, size + 1);
        blockBases = growUint32(blockBases, size);
        blockLasts = growUint32(blockLasts, size);
        blockMaxText = growUint16(blockMaxText, size);
        blockMaxTitle = growUint16(blockMaxTitle, size);
        blockMinTextLength = growUint16(blockMinTextLength, size);
        blockMinTitleLength = growUint16(blockMinTitleLength, size);
      }
      const base = postingChunks[position]!;
      const limit = Math.min(end, position + BLOCK_SIZE);
      bounds.reset();
      blockStarts[blocks] = position;
      let last = base;
      for (; position < limit; position++) {
        const ordinal = postingChunks[position]!;
        if (ordinal - base >= MAX_BLOCK_SPAN) break;
        chunkOffsets[position] = ordinal - base;
        last = ordinal;
        const code = frequencies.codes[position]!;
        bounds.add(code !== 0 ? codeToPacked(code) : exceptionAt(segment, position), textLengths[ordinal]!, titleLengths[ordinal]!);
      }
      blockBases[blocks] = base;
      blockLasts[blocks] = last;
      blockMaxText[blocks] = bounds.maxText;
      blockMaxTitle[blocks] = bounds.maxTitle;
      blockMinTextLength[blocks] = bounds.minText;
      blockMinTitleLength[blocks] = bounds.minTitle;
      blocks++;
    }
  }
  blockOffsets[termCount] = blocks;
  blockStarts[blocks] = postings;
  segment.blockStarts = blockStarts.slice(0, blocks + 1);
  segment.blockBases = blockBases.slice(0, blocks);
  segment.blockLasts = blockLasts.slice(0, blocks);
  segment.blockMaxText = blockMaxText.slice(0, blocks);
  segment.blockMaxTitle = blockMaxTitle.slice(0, blocks);
  segment.blockMinTextLength = blockMinTextLength.slice(0, blocks);
  segment.blockMinTitleLength = blockMinTitleLength.slice(0, blocks);
  return segment;
}

/** Encodes CSR postings with packed Uint32 frequencies (snapshots, compaction). */
export function encodePackedSegment(termCount: number, offsets: Uint32Array, postingChunks: Uint32Array, postingFrequencies: Uint32Array, textLengths: Uint32Array, titleLengths: Uint32Array): MainSegment {
  const writer = new FrequencyWriter(postingFrequencies.length);
  for (let position = 0; position < postingFrequencies.length; position++) writer.set(position, postingFrequencies[position]!);
  return encodeSegment(termCount, offsets, postingChunks, { codes: writer.codes, ...writer.finish() }, textLengths, titleLengths);
}

/** Calls `visit(ordinal, position)` for every posting of `term`, in ordinal order. */
export function forEachMainPosting(segment: MainSegment, term: number, visit: (ordinal: number, position: number) => void): void {
  if (term >= segment.termCount) return;
  const { blockStarts, blockBases, chunkOffsets } = segment;
  for (let block = segment.blockOffsets[term]!; block < segment.blockOffsets[term + 1]!; block++) {
    const base = blockBases[block]!;
    for (let position = blockStarts[block]!; position < blockStarts[block + 1]!; position++) visit(base + chunkOffsets[position]!, position);
  }
}

/** The postings back as CSR arrays with packed Uint32 frequencies (copies). */
export function decodeSegment(segment: MainSegment): { offsets: Uint32Array; postingChunks: Uint32Array; postingFrequencies: Uint32Array } {
  const postings = segment.chunkOffsets.length;
  const postingChunks = new Uint32Array(postings);
  const postingFrequencies = new Uint32Array(postings);
  const { blockStarts, blockBases, chunkOffsets, codes } = segment;
  const blocks = blockBases.length;
  for (let block = 0; block < blocks; block++) {
    const base = blockBases[block]!;
    for (let position = blockStarts[block]!; position < blockStarts[block + 1]!; position++) {
      postingChunks[position] = base + chunkOffsets[position]!;
      const code = codes[position]!;
      postingFrequencies[position] = code !== 0 ? codeToPacked(code) : 0;
    }
  }
  const { exceptionPositions, exceptionValues } = segment;
  for (let index = 0; index < exceptionPositions.length; index++) postingFrequencies[exceptionPositions[index]!] = exceptionValues[index]!;
  return { offsets: segment.offsets.slice(0, segment.termCount + 1), postingChunks, postingFrequencies };
}

/** Bytes held by a segment's typed arrays. */
export function segmentBytes(segment: MainSegment): number {
  let bytes = 0;
  for (const array of [segment.offsets, segment.blockOffsets, segment.blockStarts, segment.blockBases, segment.blockLasts, segment.blockMaxText, segment.blockMaxTitle, segment.blockMinTextLength, segment.blockMinTitleLength, segment.chunkOffsets, segment.codes, segment.exceptionPositions, segment.exceptionValues]) bytes += array.byteLength;
  return bytes;
}
