export { ContextEngine, tupleToScored } from './engine.js';
export { ContextManager, fromLegacyCompression, fromLegacyDeduplication, fromLegacyRanking } from './manager.js';
export type { ContextManagerOptions, LegacyCompressionStrategy, LegacyDeduplicationStrategy, LegacyRankingStrategy, LegacyTuple } from './manager.js';
export type { ContextEngineOptions, IndexDocumentsOptions, IndexOptions, LangChainVectorStoreLike, RunMultiOptions, RunOptions } from './options.js';
export { queryHeader } from './headers.js';
