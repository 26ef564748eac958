import type { QueryAnalysis } from './analysis.js';
import type { ScoredChunk } from './scored.js';
import type { TemplateName } from './config.js';

export type GuardSeverity = 'info' | 'warning' | 'error';

/** One finding of the guard. `code` is stable (e.g. `empty_context`, `prompt_injection`). */
export interface GuardWarning {
  code: string;
  severity: GuardSeverity;
  message: string;
  /** Ids of the chunks the finding is about, when it is about chunks. */
  chunkIds?: string[];
}

/** A chunk as it ended up in the context. */
export interface UsedChunk extends ScoredChunk {
  /** The text of this chunk that is in the context (all of it, or what compression/truncation kept). */
  keptText: string;
  /** Share of the chunk's characters kept, in (0, 1]. */
  keptRatio: number;
  /** How the chunk was fitted. */
  fit: 'whole' | 'compressed' | 'truncated';
  /** 1-based rank after ranking (and reranking, when the engine has a reranker). */
  rank: number;
  /** 1-based citation number in the context, when the template numbers passages. */
  citation?: number;
}

/** Why a candidate was dropped before composition. */
export interface DroppedChunk {
  chunkId: string;
  reason: 'exact_duplicate' | 'near_duplicate' | 'noise' | 'too_short' | 'too_long' | 'low_score' | 'filter' | 'per_document_cap' | 'budget' | string;
  /** Id of the chunk it duplicates, for duplicates. */
  duplicateOf?: string;
  detail?: string;
}

/** Counts after each stage. */
export interface StageCounts {
  retrieved: number;
  afterFilter: number;
  afterRank: number;
  /** After the reranker (equal to `afterRank` when the engine has none). */
  afterRerank: number;
  used: number;
}

/** Milliseconds spent in each stage (`total` covers the whole run). */
export interface StageTimings {
  cache: number;
  analyze: number;
  retrieve: number;
  filter: number;
  rank: number;
  /** 0 when the engine has no reranker. */
  rerank: number;
  compose: number;
  guard: number;
  total: number;
}

/** What `run()` returns: the context plus everything needed to understand it. */
export interface ContextResult {
  context: string;
  /** The literal query passed to `run()`. */
  query: string;
  /** The query that was analysed and retrieved with (may include conversation history). */
  effectiveQuery: string;
  analysis: QueryAnalysis;
  chunks: UsedChunk[];
  dropped: DroppedChunk[];
  counts: StageCounts;
  timings: StageTimings;
  budget: { limit: number; used: number; unit: string; utilization: number };
  template: TemplateName | string;
  truncated: boolean;
  guardPassed: boolean;
  /** The guard's findings as plain strings (e.g. `'context is empty ⚠'`). */
  guardWarnings: string[];
  warnings: GuardWarning[];
  fromCache: boolean;
  /** The name of the reranker that ordered the chunks, when the engine has one. */
  reranker?: string;
}
