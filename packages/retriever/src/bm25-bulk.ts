import { FrequencyWriter, growUint32 } from './postings.js';

/**
 * The forward index of a bulk build of {@link Bm25Index}: each chunk's (term id, packed frequency)
 * pairs back to back, with the document frequency of every term. {@link invert} turns it into
 * postings with a counting sort: two passes, no per-term growth, and postings end up in ordinal
 * order. Streaming the chunks in means their analysed terms need not all be held at once.
 */
export class ForwardIndex {
  private termIds: Uint32Array = new Uint32Array(1 << 16);
  private frequencies: Uint32Array = new Uint32Array(1 << 16);
  private chunkEnds: Uint32Array;
  private documentFrequencies: Uint32Array = new Uint32Array(1024);
  private postings = 0;

  constructor(expectedChunks: number) {
    this.chunkEnds = new Uint32Array(Math.max(expectedChunks, 16));
  }

  /** Appends chunk `ordinal` (the next one) with its `distinct` terms, out of `termCount` known terms. */
  append(ordinal: number, termIds: Uint32Array, frequencies: Uint32Array, distinct: number, termCount: number): void {
    const end = this.postings + distinct;
    if (end > this.termIds.length) {
      this.termIds = growUint32(this.termIds, end);
      this.frequencies = growUint32(this.frequencies, end);
    }
    this.documentFrequencies = growUint32(this.documentFrequencies, termCount);
    for (let index = 0; index < distinct; index++) {
      const termId = termIds[index]!;
      this.documentFrequencies[termId]!++;
      this.termIds[this.postings + index] = termId;
      this.frequencies[this.postings + index] = frequencies[index]!;
    }
    this.postings = end;
    this.chunkEnds = growUint32(this.chunkEnds, ordinal + 1);
    this.chunkEnds[ordinal] = end;
  }

  /**
   * The postings of the `chunkCount` appended chunks, by term (`offsets`), in ordinal order. The
   * forward index is released first, before the caller makes its encoded copy.
   */
  invert(termCount: number, chunkCount: number): { offsets: Uint32Array; postingChunks: Uint32Array; frequencies: FrequencyWriter } {
    const offsets = new Uint32Array(termCount + 1);
    for (let term = 0; term < termCount; term++) offsets[term + 1] = offsets[term]! + this.documentFrequencies[term]!;
    const cursor = offsets.slice(0, termCount);
    const postingChunks = new Uint32Array(this.postings);
    const frequencies = new FrequencyWriter(this.postings);
    let position = 0;
    for (let ordinal = 0; ordinal < chunkCount; ordinal++) {
      const end = this.chunkEnds[ordinal]!;
      for (; position < end; position++) {
        const target = cursor[this.termIds[position]!]!++;
        postingChunks[target] = ordinal;
        frequencies.set(target, this.frequencies[position]!);
      }
    }
    this.termIds = this.frequencies = new Uint32Array(0);
    return { offsets, postingChunks, frequencies };
  }
}
