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
/** Why the composer valued a sentence: the signals its sentence model weighed. */
export type SentenceReason =
  /** The chunk's first sentence (leads state the topic and often the answer). */
  | 'lead'
  /** Holds query terms (see `terms`). */
  | 'query-terms'
  /** Next to a sentence that holds query terms. */
  | 'neighbour'
  /** Holds the kind of information the question asks for (`analysis.answerType`): a year, a number, a name … */
  | 'answer-type'
  /** Its chunk's title holds query terms. */
  | 'title';

/** One sentence of a used chunk: whether the context keeps it, and why it was worth keeping (or not). */
export interface SentenceChoice {
  /** UTF-16 offsets of the sentence in the chunk text (end exclusive). */
  start: number;
  end: number;
  /** `whole`: in the context; `prefix`: cut at a word boundary to fill the budget; `none`: left out. */
  kept: 'whole' | 'prefix' | 'none';
  /**
   * The composer's estimate that this sentence holds the answer, in [0, 1] (its sentence model: rank
   * and retrieval confidence of the chunk, position, query terms, neighbours, answer-type cues).
   */
  value: number;
  /** Analysed query terms the sentence contains. */
  terms: string[];
  reasons: SentenceReason[];
}

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
  /**
   * Every sentence of the chunk with what the context keeps of it and why, when the composer chose
   * sentences by value (query-focused compression); absent when the chunk was kept whole without a choice.
   */
  sentences?: SentenceChoice[];
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
