export { QueryAnalyzer, checkQueryLength, queryLengthProblem, type QueryAnalyzerOptions, type QuerySignals } from './query-analyzer.js';
export { ChunkFilter, contentHash, contentKey, noiseReason } from './chunk-filter.js';
export { MinHasher, bandLayout, jaccard, mayReachJaccard, shingleHashes, shingleSet, sortedJaccard } from './minhash.js';
export { CompositeRanker, sourceQualityOf, type CompositeRankerOptions, type RankOutcome } from './composite-ranker.js';
export { ContextGuard, REDACTION_MARK, endsAtSentenceBoundary, warningToString, type ContextGuardOptions, type GuardCode } from './context-guard.js';
export { INJECTION_PATTERNS, findInjections } from './injection-patterns.js';
export {
  ComplexityBasedAllocation,
  DEFAULT_COMPLEXITY_WEIGHTS,
  EqualBudgetAllocation,
  apportion,
  type ComplexityWeights,
} from './budget-allocation.js';
export { ContextCache, type CacheKeyInput, type CacheStats, type ContextCacheOptions } from './context-cache.js';
export {
  ConversationHistory,
  type AddTurnInput,
  type ConversationHistoryJSON,
  type ConversationHistoryOptions,
  type ConversationTurn,
} from './conversation-history.js';
export {
  AdaptiveLearningSystem,
  type AdaptiveLearningOptions,
  type PerformanceReport,
  type RunObservation,
} from './adaptive-learning.js';
export {
  charCounter,
  loadTokenEncoding,
  tokenCounter,
  toLengthCounter,
  wordCounter,
  type LengthCounterName,
  type TokenCounterOptions,
  type TokenEncoding,
} from './length-counters.js';
export type {
  AdaptiveConfigInput,
  AnalyzerConfigInput,
  BudgetConfigInput,
  CacheConfigInput,
  ConfigSectionInput,
  FilterConfigInput,
  GuardConfigInput,
  MultiTurnConfigInput,
  RankingConfigInput,
} from './config-input.js';
export { functionReranker, rerankCandidates, rerankerName, toReranker } from './rerank.js';
