export { KeywordRetriever, type KeywordRetrieverOptions, type KeywordRetrieverLoadOptions, type KeywordRetrieverJSON, type TextAnalyzer } from './keyword-retriever.js';
export type { Bm25Parameters, Bm25IndexStats } from './bm25-index.js';
export { bm25Contribution, chunkNorm, inverseDocumentFrequency, lengthNormalization, termWeight, type LengthNormalization } from './scoring.js';
export { MetadataRetriever, restrict, chunkMatchesFilter, type MetadataRetrieverOptions } from './metadata-retriever.js';
export { VectorRetriever, type VectorRetrieverOptions, type VectorIndexOptions, type FromLangChainOptions } from './vector-retriever.js';
export { StoreTextRetriever, type StoreTextRetrieverOptions } from './store-text-retriever.js';
export {
  LangChainVectorStoreAdapter,
  detectLangChainScoreType,
  langChainScoreToSimilarity,
  langChainDocumentToChunk,
  chunkToLangChainDocument,
  ZERDA_METADATA_KEY,
  type LangChainAdapterOptions,
  type LangChainDocument,
  type LangChainScoreType,
  type LangChainVectorStoreLike,
} from './langchain-adapter.js';
export { HybridRetriever, type HybridRetrieverOptions, type FusionMethod } from './hybrid-retriever.js';
export { maximalMarginalRelevance, type MmrOptions } from './mmr.js';
export { toEmbedder, embedTexts, isEmbedderLike, type EmbeddingProgress, type EmbedTextsOptions } from './embedder-adapter.js';
export {
  ndcgAtK,
  recallAtK,
  reciprocalRankAtK,
  evaluateRun,
  parseQrels,
  answerInContext,
  normalizeForAnswerMatch,
  type AnswerInContextOptions,
  type Judgements,
  type Qrels,
  type Run,
  type EvaluationSummary,
} from './evaluation.js';
export { WriteQueue } from './write-queue.js';
