import type { DocumentChunk } from './chunk.js';

/**
 * Every score the pipeline computes for a chunk. All are similarities (higher is better):
 * - `vector`: cosine similarity in [-1, 1] (inner product for `ip` stores; `1 / (1 + euclidean)` in (0, 1] for `l2`).
 * - `keyword`: BM25 score, in [0, ∞).
 * - `metadata`: 1 when the chunk matched a metadata-only retrieval.
 * - `fused`: the hybrid fusion score (RRF: (0, Σ weights / (k + 1)]; weighted: [0, Σ weights]).
 * - `retrieval`: the retrieval score normalised to [0, 1] within the candidate set (ranking input).
 * - `keywordBoost`: share of the query's keywords present in the chunk, [0, 1].
 * - `sourceQuality`: [0, 1], from the source-quality map (0.5 when unknown).
 * - `recency`: [0, 1], exponential decay of the chunk's age (0.5 when it has no timestamp).
 * - `position`: [0, 1], 1 for the first chunk of a document, decreasing with position.
 * - `composite`: the weighted sum the ranker orders by, [0, 1] when weights sum to 1.
 * - `rerank`: the reranker's relevance score, on the reranker's own scale (a cross-encoder's
 *   sigmoid and the AI SDK's reranking models: [0, 1]); set on every chunk when the engine has a
 *   reranker, and then the score the context is ordered by.
 */
export interface ScoreBreakdown {
  vector?: number;
  keyword?: number;
  metadata?: number;
  fused?: number;
  retrieval?: number;
  keywordBoost?: number;
  sourceQuality?: number;
  recency?: number;
  position?: number;
  composite?: number;
  rerank?: number;
  /** Scores added by custom strategies (e.g. a cross-encoder), by name. */
  [custom: string]: number | undefined;
}

/** A chunk with the scores each stage gave it. `score` is the stage's current ordering score. */
export interface ScoredChunk {
  chunk: DocumentChunk;
  /** The score the current list is ordered by (a similarity: higher is better). */
  score: number;
  scores: ScoreBreakdown;
  /** Names of the retrievers that returned this chunk (e.g. `['keyword', 'vector']`). */
  retrievers?: string[];
  /** Which analysed query terms the chunk contains, when a keyword retriever knows (see {@link TermMatches}). */
  termMatches?: TermMatches;
}

/**
 * Which analysed query terms a chunk contains, as the keyword retriever that found it knows from its
 * postings — so that a later stage (the ranker's keyword boost) need not analyse the chunk's text
 * again. Only valid for a consumer whose analyzer has the fingerprint `analyzer` (`Analyzer.fingerprint`
 * of @zerda/text); any other must ignore it.
 */
export interface TermMatches {
  /** The fingerprint of the analyzer that produced the query terms and the chunk's indexed terms. */
  analyzer: string;
  /** Distinct query terms whose presence in this chunk (title or text) is known. */
  checked: readonly string[];
  /** The terms of `checked` the chunk's title or text contains. */
  matched: readonly string[];
}

/** How a source is trusted. `score` in [0, 1]; 0.5 is neutral. */
export interface SourceQuality {
  score: number;
  /** Why the source has this score (shown in diagnostics). */
  label?: string;
}

/** A map from `chunk.source` to its quality. A bare number is shorthand for `{ score }`. */
export type SourceQualityMap = Record<string, SourceQuality | number>;

/**
 * `{ ...base, ...extra }` for score breakdowns — the same keys, order and values — written with
 * `Object.assign`, which V8 (Node 20) runs some 50× faster than an object spread followed by new
 * keys (measured: ~10 µs per call for the ranker's breakdown, on every candidate of every run).
 */
export function mergeScores(base: ScoreBreakdown | undefined, extra: ScoreBreakdown): ScoreBreakdown {
  return Object.assign({}, base, extra);
}
