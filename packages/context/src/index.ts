/**
 * zerda — context engineering for retrieval-augmented generation.
 *
 * One import gives the engine and every public name of the core packages: @zerda/types,
 * @zerda/text, @zerda/retriever, @zerda/context-core, @zerda/composer, @zerda/legacy-compat and
 * @zerda/vector-memory. Optional backends (HNSW, pgvector …), chunkers and embedders are separate
 * packages, so that importing the engine never installs them.
 */
export * from '@zerda/types';
export * from '@zerda/text';
export * from '@zerda/retriever';
export * from '@zerda/context-core';
export * from '@zerda/composer';
export * from '@zerda/legacy-compat';
export * from '@zerda/vector-memory';
// The strategy classes share their short names with the contracts of @zerda/types; the classes
// win here, and the contracts stay available as QueryAnalyzerStrategy, ChunkFilterStrategy … .
export { QueryAnalyzer, ChunkFilter, ContextGuard, charCounter, wordCounter } from '@zerda/context-core';
export { truncateAtWordBoundary } from '@zerda/text';
export { cosineSimilarity } from '@zerda/types';

export { ContextEngine } from './engine.js';
export { ContextManager, asLegacyCompressionComposer } from './manager.js';
export type { ContextManagerOptions } from './manager.js';
export type { ContextEngineOptions, IndexDocumentsOptions, IndexOptions, OpenOptions, RunMultiOptions, RunOptions } from './options.js';
export type { SaveOptions, SavedSnapshot } from './snapshot.js';
export { queryHeader } from './headers.js';
export { citationsOf, explainResult, summarizeResult, type Citation, type ContextSummary } from './diagnostics.js';
export type { TelemetryOptions, OpenTelemetryApi, TracerProviderLike, TracerLike, SpanLike } from './tracing.js';
export { BRIDGE_RUN_DEFAULTS, assertContextRunner, emptyContextMessage, runForRequest, scopedRunner, type ContextRunner } from './runner.js';
export { Scope, MAX_SCOPE_ID_LENGTH, type ScopeOptions } from './scope.js';
export {
  explainPromptPlan,
  planPrompt,
  promptLength,
  type PlanPromptOptions,
  type PlannedPrompt,
  type PromptContentPart,
  type PromptMemoryItem,
  type PromptMessage,
  type PromptParts,
  type PromptPlanDecision,
  type PromptToolOutput,
} from './prompt-parts.js';
export { estimatedTokenCounter, type EstimatedTokenCounterOptions } from './token-estimate.js';
