import type { DocumentChunk } from '@zerda/types';

/** A chunk with its analysed terms, ready to be indexed. */
export interface AnalyzedChunk {
  chunk: DocumentChunk;
  textTerms: readonly string[];
  titleTerms: readonly string[];
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
