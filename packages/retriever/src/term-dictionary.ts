import { SATURATED, TEXT_MASK, TITLE_UNIT, growUint32 } from './postings.js';

/**
 * The term dictionary of a {@link Bm25Index}: term → id (ids are dense, in first-seen order) and
 * the per-chunk term counting that turns a chunk's analysed terms into (term id, packed frequency)
 * pairs. The counting scratch is reused by every write (writes are synchronous, so never shared).
 */
export class TermDictionary {
  private ids = new Map<string, number>();
  /** Every term, by id. */
  terms: string[] = [];
  private termCounts: Uint32Array = new Uint32Array(0);
  /** After {@link count}: the ids of the chunk's distinct terms, in first-seen order. */
  termIds: Uint32Array = new Uint32Array(256);
  /** After {@link count}: their packed frequencies (text count in the low 16 bits, title count in the high 16). */
  frequencies: Uint32Array = new Uint32Array(256);

  /** Number of terms. */
  get size(): number {
    return this.ids.size;
  }

  /** The id of `term`, if it is known. */
  get(term: string): number | undefined {
    return this.ids.get(term);
  }

  /** Replaces the dictionary with `terms` (each term's id is its position). */
  replace(terms: string[]): void {
    this.terms = terms;
    this.ids = new Map();
    for (let termId = 0; termId < terms.length; termId++) this.ids.set(terms[termId]!, termId);
    // Every known term needs its counting slot: without it, a later chunk made only of known terms
    // (after a restore, whose dictionary arrives whole) would count none of them and index nothing.
    if (this.termCounts.length < terms.length) this.termCounts = growUint32(this.termCounts, terms.length);
  }

  /**
   * Counts a chunk's terms into {@link termIds} / {@link frequencies} (packed: text count in the
   * low 16 bits, title count in the high 16), in first-seen order, and returns how many distinct
   * terms it has. New terms enter the dictionary (harmless if the write is abandoned: a term without
   * live postings is invisible and dropped at the next compaction).
   */
  count(textTerms: readonly string[], titleTerms: readonly string[]): number {
    const capacity = textTerms.length + titleTerms.length;
    if (this.termIds.length < capacity) {
      this.termIds = new Uint32Array(Math.max(capacity, this.termIds.length * 2));
      this.frequencies = new Uint32Array(this.termIds.length);
    }
    const ids = this.termIds;
    let distinct = 0;
    for (let field = 0; field < 2; field++) {
      const terms = field === 0 ? textTerms : titleTerms;
      for (let index = 0; index < terms.length; index++) {
        const term = terms[index]!;
        let termId = this.ids.get(term);
        if (termId === undefined) {
          termId = this.terms.length;
          this.ids.set(term, termId);
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
    const frequencies = this.frequencies;
    for (let index = 0; index < distinct; index++) {
      frequencies[index] = this.termCounts[ids[index]!]!;
      this.termCounts[ids[index]!] = 0;
    }
    return distinct;
  }

  /** Bytes of its typed arrays. */
  bytes(): number {
    return this.termCounts.byteLength + this.termIds.byteLength + this.frequencies.byteLength;
  }
}
