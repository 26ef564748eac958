import * as z from 'zod';
import { isEmbedderLike, type EmbeddingProgress, type LangChainVectorStoreLike } from '@zerda/retriever';
import { ZerdaError, invalidArgument, templateNameSchema } from '@zerda/types';
import { isTelemetryApi, type OpenTelemetryApi, type TelemetryOptions, type TracerProviderLike } from './tracing.js';
import type {
  BudgetAllocator,
  ChunkFilter,
  ChunkRanker,
  ContextComposer,
  ContextEngineConfigInput,
  ContextGuard,
  ContextTemplate,
  EmbedFunction,
  Embedder,
  LengthCounter,
  Logger,
  MetadataFilter,
  QueryAnalyzer,
  RerankFunction,
  Reranker,
  Retriever,
  Metadata,
  SourceQualityMap,
  TemplateName,
  VectorStore,
} from '@zerda/types';

/** Everything `new ContextEngine(...)` accepts. Every strategy is optional; defaults come from the core packages. */
export interface ContextEngineOptions {
  config?: ContextEngineConfigInput;
  queryAnalyzer?: QueryAnalyzer;
  /** A retriever you built yourself. When given, `index()` hands chunks to it and builds nothing else. */
  retriever?: Retriever;
  chunkFilter?: ChunkFilter;
  ranker?: ChunkRanker;
  /**
   * Re-scores the best `config.rerank.candidates` ranked chunks (a cross-encoder, a hosted reranking
   * model, an LLM judge, or a plain scoring function) and keeps the best `maxChunks`, in its order.
   * Recorded as the `rerank` factor of every chunk. Default: none.
   */
  reranker?: Reranker | RerankFunction;
  composer?: ContextComposer;
  guard?: ContextGuard;
  /** Allocator for `runMulti`/`buildMultiQueryContext` (default: complexity-weighted, or equal with `useWeighted: false`). */
  budgetAllocator?: BudgetAllocator;
  /** Measures the budget (default: Unicode code points). */
  lengthCounter?: LengthCounter;
  /** Structured log sink (console- or pino-shaped). Silent by default. */
  logger?: Logger;
  /** Query/document embedder used by `index()` when no `vectorDb` is given (same as `index(chunks, { embedder })`). */
  embedder?: Embedder | EmbedFunction;
  /** The context template: a name (overrides `config.composer.template`) or your own function. */
  template?: TemplateName | ContextTemplate;
  /** OpenTelemetry spans for `run`, `index`, `add` and `remove` (on when `@opentelemetry/api` is installed). */
  telemetry?: TelemetryOptions;
}

/**
 * Options of `ContextEngine.open(directory, options)`: the constructor's options (strategies and
 * embedders are code, so they are passed again — every strategy that was custom when the snapshot
 * was saved is required) plus the stores a snapshot records by identity. `config` is merged over the
 * snapshot's configuration; settings that shaped the index (`retrieval.bm25`) must stay the same.
 */
export interface OpenOptions extends ContextEngineOptions {
  /**
   * The vector store the snapshot was saved with: a database or server store holding the data
   * (checked against the snapshot's record: backend, metric, dimension, table/collection, size), or
   * an empty store of a kind that keeps its data in the snapshot (`new HnswVectorStore()`), which is
   * filled from it. Not needed for the default in-memory store.
   */
  vectorDb?: VectorStore;
  /** The LangChain.js store the snapshot was saved with (when `index()` was given one). */
  vectorStoreAdapter?: LangChainVectorStoreLike;
  /** Verify every file's SHA-256 (default true; sizes are always checked). */
  verify?: boolean;
}

/** Options of `index()`. Precedence: `vectorDb` first, then `vectorStoreAdapter`, then `embedder`. */
export interface IndexOptions {
  /** Embeds chunks into the default in-memory store (and embeds queries). Ignored, with a warning, when `vectorDb` is given. */
  embedder?: Embedder | EmbedFunction;
  /** A LangChain.js-style store to retrieve vectors from (already populated by you). */
  vectorStoreAdapter?: LangChainVectorStoreLike;
  /** A zerda `VectorStore` backend; chunks are added to it unless `addToVectorDb: false`. */
  vectorDb?: VectorStore;
  /** Add the chunks to `vectorDb` (default true). Use false for a store populated elsewhere. */
  addToVectorDb?: boolean;
  /**
   * Where keyword (BM25) retrieval runs: `'memory'` (default), zerda's in-process index; `'store'`,
   * the full-text index of `vectorDb` (LanceDB, pgvector …; its `capabilities.textSearch` must be
   * true), so that vectors and text both live in the database and nothing per chunk stays in memory.
   */
  keywordSearch?: 'memory' | 'store';
  /** Trust per `chunk.source`. */
  sourceQualityMap?: SourceQualityMap;
  /** Embedding batch size (default 64). */
  batchSize?: number;
  /** Called after each embedded batch with `{ embedded, total, batches }`. */
  onProgress?: (progress: EmbeddingProgress) => void;
}

/** Options of `indexDocuments()`. */
export interface IndexDocumentsOptions extends IndexOptions {
  /** Document ids (default `doc_${i}`). */
  docIds?: string[];
  /** Sources (default: the document id). */
  sources?: string[];
  /** Titles, one per text (kept on every chunk of the text: citations and the keyword index use them). */
  titles?: string[];
  /** Metadata, one record per text, merged into every chunk of the text (filterable: `{ lang: 'ar' }` …). */
  metadata?: Metadata[];
}

/** Options of `run()`. */
export interface RunOptions {
  /**
   * The conversation this run belongs to: its history enriches follow-ups and records the turn,
   * its cache entries are its own. Without it, the engine-level history of `setConversation` /
   * `getHistory` is used (single-user use).
   */
  conversation?: string;
  /** Only chunks whose metadata matches this filter are retrieved. */
  metadataFilters?: MetadataFilter;
  /** At most this many chunks in the context (default: the analysis' suggestion). */
  maxChunks?: number;
  /** Budget for this run in the counter's unit (default: the analysis' suggestion, capped by `composer.maxContextLength`). */
  overrideBudget?: number;
  /** Enrich the query with recent conversation turns (default true; needs `multiTurn.enabled`). */
  useHistory?: boolean;
  /** Record this run as a conversation turn (default true). */
  recordTurn?: boolean;
  /** Aborts the run: checked before the run, passed to the retriever and the reranker. */
  signal?: AbortSignal;
}

/** Options of `runMulti()`: a global budget, the allocation mode, and options forwarded to every `run()`. */
export interface RunMultiOptions extends Omit<RunOptions, 'recordTurn' | 'overrideBudget' | 'signal'> {
  /** Budget shared by all queries (default `composer.maxContextLength`). */
  globalBudget?: number;
  /** Complexity-weighted allocation (default) or equal shares. */
  useWeighted?: boolean;
}

const positiveInt = z.number().int().positive();
const abortSignal = z.custom<AbortSignal>((value) => value instanceof AbortSignal, { message: 'an AbortSignal' });

/** The `telemetry` option of the engine (strict: a typo such as `recordQuery` is rejected). */
export const telemetryOptionsSchema = z
  .strictObject({
    enabled: z.boolean().optional(),
    api: z.custom<OpenTelemetryApi>((value) => isTelemetryApi(value), { message: 'the @opentelemetry/api module (with trace.getTracer, trace.setSpan and context.active)' }).optional(),
    tracerProvider: z
      .custom<TracerProviderLike>((value) => value !== null && typeof value === 'object' && typeof (value as { getTracer?: unknown }).getTracer === 'function', { message: 'an OpenTelemetry TracerProvider (with getTracer)' })
      .optional(),
    recordQueryText: z.boolean().optional(),
    recordDocuments: z.boolean().optional(),
    recordErrorDetails: z.boolean().optional(),
    dataSourceId: z.string().min(1).optional(),
  })
  .optional();

/** Longest conversation id accepted. */
export const MAX_CONVERSATION_ID_LENGTH = 256;
// No NUL: the engine keys a scope's conversations by a NUL-prefixed key, which an unscoped id must never spell.
const conversationIdSchema = z.string().min(1).max(MAX_CONVERSATION_ID_LENGTH).refine((id) => !id.includes('\u0000'), { message: 'a conversation id without NUL characters' });

/** The keys `new ContextEngine(options)` knows; any other key is refused (a typo must not pass silently). */
export const ENGINE_OPTION_KEYS = ['config', 'queryAnalyzer', 'retriever', 'chunkFilter', 'ranker', 'composer', 'guard', 'budgetAllocator', 'lengthCounter', 'logger', 'embedder', 'template', 'reranker', 'telemetry'] as const;

/** The methods each injected strategy must have (optional methods are checked when present). */
const STRATEGY_METHODS: ReadonlyArray<readonly [key: (typeof ENGINE_OPTION_KEYS)[number], required: readonly string[], optional: readonly string[], contract: string]> = [
  ['queryAnalyzer', ['analyze'], [], 'a QueryAnalyzer'],
  ['retriever', ['retrieve'], ['index', 'add', 'remove', 'size', 'prepareChunks'], 'a Retriever'],
  ['chunkFilter', ['filter'], [], 'a ChunkFilter'],
  ['ranker', ['rank'], [], 'a ChunkRanker'],
  ['composer', ['compose'], ['truncate', 'getStats'], 'a ContextComposer'],
  ['guard', ['check'], [], 'a ContextGuard'],
  ['budgetAllocator', ['allocate'], [], 'a BudgetAllocator'],
];

function isObjectLike(value: unknown): value is Record<string, unknown> {
  return (typeof value === 'object' && value !== null && !Array.isArray(value)) || typeof value === 'function';
}

/** Throws a ZerdaError naming `field` unless `options` is a plain options object (or undefined) with only `known` keys. */
export function assertOptionsShape(options: unknown, field: string, known: readonly string[]): asserts options is Record<string, unknown> | undefined {
  if (options === undefined) return;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument(field, 'an options object', options);
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new ZerdaError('ZERDA_INVALID_ARGUMENT', {
        field: `${field}.${key}`,
        expected: `a known option (one of ${known.join(', ')}; unknown keys are rejected so that typos do not pass silently)`,
        received: `unknown key "${key}"`,
      });
    }
  }
}

/**
 * Validates the constructor options of `ContextEngine`: an object with known keys only, every
 * injected strategy an object with the methods its stage calls (`ZERDA_INVALID_ARGUMENT` naming the
 * option and the missing method), the length counter a function, the embedder an Embedder or a
 * function, the logger an object of functions, the template a name or a function. Checked once, up
 * front, so that a wrong strategy fails at construction, not as a TypeError in the middle of `run()`.
 */
export function validateEngineOptions(options: unknown): ContextEngineOptions {
  assertOptionsShape(options, 'options', ENGINE_OPTION_KEYS);
  const record = (options ?? {}) as Record<string, unknown>;
  for (const [key, required, optional, contract] of STRATEGY_METHODS) {
    const strategy = record[key];
    if (strategy === undefined) continue;
    const field = `options.${key}`;
    if (!isObjectLike(strategy)) throw invalidArgument(field, `${contract} (an object with ${required.map((method) => `${method}()`).join(', ')})`, strategy);
    for (const method of required) {
      if (typeof strategy[method] !== 'function') {
        throw new ZerdaError('ZERDA_INVALID_ARGUMENT', {
          field: `${field}.${method}`,
          expected: `a function: ${contract} must have ${method}()`,
          received: strategy[method] === undefined ? `no ${method} method` : `${typeof strategy[method]} instead of a function`,
        });
      }
    }
    for (const method of optional) {
      if (strategy[method] !== undefined && typeof strategy[method] !== 'function') {
        throw invalidArgument(`${field}.${method}`, `a function when present (${contract}'s optional ${method}())`, strategy[method]);
      }
    }
  }
  const retriever = record.retriever as Record<string, unknown> | undefined;
  if (retriever !== undefined && retriever.name !== undefined && typeof retriever.name !== 'string') {
    throw invalidArgument('options.retriever.name', 'a string (the retriever name)', retriever.name);
  }
  if (record.lengthCounter !== undefined && typeof record.lengthCounter !== 'function') {
    throw invalidArgument('options.lengthCounter', 'a function (text: string) => number', record.lengthCounter);
  }
  if (record.embedder !== undefined && !isEmbedderLike(record.embedder)) {
    throw invalidArgument('options.embedder', 'an Embedder (an object with embed(texts)) or a function (texts) => embeddings', record.embedder);
  }
  if (record.logger !== undefined) {
    const logger = record.logger;
    if (!isObjectLike(logger)) throw invalidArgument('options.logger', 'a logger object (console- or pino-shaped)', logger);
    for (const level of ['debug', 'info', 'warn', 'error']) {
      if (logger[level] !== undefined && typeof logger[level] !== 'function') throw invalidArgument(`options.logger.${level}`, 'a function when present', logger[level]);
    }
  }
  const template = record.template;
  if (template !== undefined && typeof template !== 'function' && !templateNameSchema.safeParse(template).success) {
    throw invalidArgument('options.template', `a template function or one of ${templateNameSchema.options.join(', ')}`, template);
  }
  return record as ContextEngineOptions;
}

export const runOptionsSchema = z
  .strictObject({
    conversation: conversationIdSchema.optional(),
    metadataFilters: z.unknown().optional(),
    maxChunks: positiveInt.optional(),
    overrideBudget: z.number().int().nonnegative().optional(),
    useHistory: z.boolean().optional(),
    recordTurn: z.boolean().optional(),
    signal: abortSignal.optional(),
  })
  .optional();

export const runMultiOptionsSchema = z
  .strictObject({
    conversation: conversationIdSchema.optional(),
    metadataFilters: z.unknown().optional(),
    maxChunks: positiveInt.optional(),
    useHistory: z.boolean().optional(),
    globalBudget: z.number().int().nonnegative().optional(),
    useWeighted: z.boolean().optional(),
  })
  .optional();

export const indexOptionsSchema = z
  .strictObject({
    embedder: z.unknown().optional(),
    vectorStoreAdapter: z.unknown().optional(),
    vectorDb: z.unknown().optional(),
    addToVectorDb: z.boolean().optional(),
    keywordSearch: z.enum(['memory', 'store']).optional(),
    sourceQualityMap: z.record(z.string(), z.union([z.number().min(0).max(1), z.strictObject({ score: z.number().min(0).max(1), label: z.string().optional() })])).optional(),
    batchSize: positiveInt.optional(),
    onProgress: z.function().optional(),
    docIds: z.array(z.string().min(1)).optional(),
    sources: z.array(z.string()).optional(),
    titles: z.array(z.string()).optional(),
    metadata: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .optional();

/** Options of the legacy `build()` (`BuildOptions` of `@zerda/legacy-compat`). */
export const buildOptionsSchema = z
  .strictObject({
    maxChunks: positiveInt.optional(),
    maxLength: z.number().int().nonnegative().optional(),
  })
  .optional();

/** Options of the legacy `buildMultiQueryContext()` (`BuildMultiQueryOptions` of `@zerda/legacy-compat`). */
export const buildMultiQueryOptionsSchema = z
  .strictObject({
    globalBudget: z.number().int().nonnegative().optional(),
    useWeighted: z.boolean().optional(),
  })
  .optional();
