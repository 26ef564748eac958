import {
  AdaptiveLearningSystem,
  ChunkFilter,
  CompositeRanker,
  ContextCache,
  ContextGuard,
  ConversationHistory,
  QueryAnalyzer,
  toReranker,
  checkQueryLength,
  type ConversationHistoryJSON,
} from '@zerda/context-core';
import { SmartContextComposer } from '@zerda/composer';
import { buildFromTuples, buildMultiQueryFromTuples, type BuildMultiQueryOptions, type BuildOptions, type TupleBuildStages } from '@zerda/legacy-compat';
import { charCounter } from '@zerda/text';
import {
  type BudgetAllocator,
  type ChunkFilter as ChunkFilterContract,
  type ChunkRanker,
  type Chunker,
  type ContextStats,
  type ContextEngineConfig,
  type ContextGuard as ContextGuardContract,
  type ContextResult,
  type LengthCounter,
  type Logger,
  type MetadataFilter,
  type QueryAnalyzer as QueryAnalyzerContract,
  type Reranker,
  type TemplateName,
  type ContextTemplate,
  type UsedChunk,
  invalidArgument,
  parseOrThrow,
  resolveConfig,
  toDocumentChunks,
} from '@zerda/types';
import {
  type ContextEngineOptions,
  type IndexDocumentsOptions,
  type IndexOptions,
  type OpenOptions,
  type RunMultiOptions,
  type RunOptions,
  buildMultiQueryOptionsSchema,
  buildOptionsSchema,
  indexOptionsSchema,
  telemetryOptionsSchema,
  validateEngineOptions,
} from './options.js';
import { queryHeader } from './headers.js';
import { EngineTelemetry } from './tracing.js';
import {
  customStrategyNames,
  engineOptionsFor,
  historyDisabled,
  parseDirectory,
  parseOpenOptions,
  readEngineSnapshot,
  saveOptionsSchema,
  templateRecord,
  writeEngineSnapshot,
  type EngineRecord,
  type SaveOptions,
  type SavedSnapshot,
} from './snapshot.js';
import { truncateWithinBudget, withComposerFallbacks, type CompleteComposer } from './composer-fallbacks.js';
import { Conversation, ConversationRegistry, checkConversationId, type ConversationHost } from './conversations.js';
import { EngineCorpus, chunkDocuments } from './indexing.js';
import { allocateShares, budgetedStages, runMultiQuery, runTraced, type MultiQueryResult, type PipelineStages } from './pipeline.js';
import { Scope, conversationKey, type ScopeHost, type ScopeOptions, type ScopeState } from './scope.js';
import { composeWithinBudget } from './within-budget.js';

function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string') throw invalidArgument(field, 'a string', value);
  return value;
}

/**
 * The context engine: one `run()` call turns a query and an indexed corpus into a budgeted,
 * checked context plus diagnostics for every chunk. Every stage is a replaceable strategy.
 *
 * State (cache, conversation history, adaptive statistics, corpus generation) is only mutated in
 * synchronous sections, so concurrent `await engine.run()` calls on one engine are safe. Many users
 * share one engine through conversations (`run(q, { conversation: id })` or
 * `engine.conversation(id).run(q)`): each has its own history and its own cache entries.
 */
export class ContextEngine implements ConversationHost, ScopeHost {
  readonly config: ContextEngineConfig;
  protected readonly analyzer: QueryAnalyzerContract;
  protected chunkFilter: ChunkFilterContract;
  protected ranker: ChunkRanker;
  protected readonly reranker: Reranker | undefined;
  protected composer: CompleteComposer;
  protected readonly guard: ContextGuardContract;
  protected readonly budgetAllocator: BudgetAllocator | undefined;
  protected readonly counter: LengthCounter;
  protected readonly logger: Logger | undefined;
  protected readonly cache: ContextCache<ContextResult> | undefined;
  protected history: ConversationHistory | undefined;
  /** The live conversations (`run(q, { conversation })`), bounded by LRU and TTL. */
  protected readonly conversations: ConversationRegistry;
  protected readonly adaptive: AdaptiveLearningSystem | undefined;
  private readonly template: TemplateName | ContextTemplate;
  private readonly telemetry: EngineTelemetry;
  /** The retriever, the source-quality map, the corpus size and generation, and the queue of writes. */
  private readonly corpus: EngineCorpus;
  /** Custom strategies given to the constructor, by name (a snapshot requires them again on open). */
  private readonly customStrategies: EngineRecord['customStrategies'];

  constructor(options: ContextEngineOptions = {}) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('options', 'an options object', options);
    validateEngineOptions(options);
    this.config = resolveConfig(options.config ?? {});
    const config = this.config;
    this.analyzer = options.queryAnalyzer ?? new QueryAnalyzer(config.analyzer);
    this.chunkFilter = options.chunkFilter ?? new ChunkFilter(config.filter);
    this.ranker = options.ranker ?? new CompositeRanker(config.ranking);
    this.template = options.template ?? config.composer.template;
    const templateName = typeof this.template === 'function' ? 'default' : this.template;
    this.composer = withComposerFallbacks(options.composer ?? new SmartContextComposer(config.composer), templateName, config.composer.separator);
    this.guard = options.guard ?? new ContextGuard(config.guard);
    this.budgetAllocator = options.budgetAllocator;
    this.reranker = options.reranker === undefined ? undefined : toReranker(options.reranker, 'options.reranker');
    if (options.lengthCounter?.load !== undefined && typeof options.lengthCounter.load !== 'function') {
      throw invalidArgument('options.lengthCounter.load', 'a function () => Promise<void> or nothing', options.lengthCounter.load);
    }
    this.counter = options.lengthCounter ?? charCounter;
    this.logger = options.logger;
    this.cache = config.cache.enabled ? new ContextCache<ContextResult>(config.cache) : undefined;
    this.history = config.multiTurn.enabled ? new ConversationHistory(config.multiTurn) : undefined;
    this.conversations = new ConversationRegistry(config.multiTurn, Date.now, ({ reason }) => this.log('debug', { event: 'conversation_forgotten', reason }, `ContextEngine: a conversation was ${reason}`));
    this.adaptive = config.adaptive.enabled ? new AdaptiveLearningSystem(config.adaptive) : undefined;
    this.telemetry = new EngineTelemetry(parseOrThrow(telemetryOptionsSchema, options.telemetry, 'options.telemetry'));
    const log = (level: 'debug' | 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string): void => this.log(level, fields, message);
    this.corpus = new EngineCorpus({ retrieval: config.retrieval, injected: options.retriever, defaultEmbedder: options.embedder, telemetry: this.telemetry, log });
    this.customStrategies = customStrategyNames(options);
    this.log('info', { event: 'ready', template: typeof this.template === 'function' ? `custom:${this.template.name || 'template'}` : this.template }, 'ContextEngine: ready');
  }

  // ---------------------------------------------------------------- indexing

  /**
   * Replaces the corpus with `chunks` and returns the engine (chainable: `(await engine.index(c)).run(q)`).
   *
   * With an injected retriever, the chunks go to its `index()` and nothing else is built or embedded.
   * Otherwise the engine builds a BM25 keyword index and, when a vector source is given, a vector
   * retriever, fused by a HybridRetriever. Vector precedence: `vectorDb` (chunks added to it unless
   * `addToVectorDb: false`), then `vectorStoreAdapter`, then `embedder` (into the in-memory store).
   * Passing both a `vectorDb` and an `embedder` uses the `vectorDb` for storage and the embedder for
   * chunks without embeddings and for queries, and logs which one stores the vectors.
   *
   * All new indexes are built before the old ones are replaced: a failure leaves the previous corpus
   * intact. An empty list logs a warning and changes nothing.
   */
  async index(chunks: unknown, options: IndexOptions = {}): Promise<this> {
    const parsed = parseOrThrow(indexOptionsSchema, options, 'options') ?? {};
    // The write takes its place in the queue now, in call order (a save issued next waits for it);
    // its span covers the write itself.
    await this.corpus.write('index', chunks, () => this.corpus.index(chunks, options, parsed));
    return this;
  }

  /**
   * Chunks raw texts with any zerda chunker (or one with the legacy `chunk(text, docId)` form) and
   * indexes the result. Default ids are `doc_${i}`, default sources the ids.
   */
  async indexDocuments(texts: unknown, chunker: Chunker, options: IndexDocumentsOptions = {}): Promise<this> {
    parseOrThrow(indexOptionsSchema, options, 'options');
    if (!Array.isArray(texts)) throw invalidArgument('texts', 'an array of strings', texts);
    if (!chunker || typeof chunker.chunk !== 'function') throw invalidArgument('chunker', 'an object with a chunk(text, options) method', chunker);
    if (texts.length === 0) {
      this.log('warn', { event: 'index_empty' }, 'ContextEngine.indexDocuments: empty text list, nothing indexed');
      return this;
    }
    const { docIds, sources, titles, metadata, ...indexOptions } = options;
    const all = await chunkDocuments(texts, chunker, { docIds, sources, titles, metadata });
    this.log('info', { event: 'documents_chunked', texts: texts.length, chunks: all.length, chunker: chunker.constructor?.name }, 'ContextEngine.indexDocuments: chunked');
    return this.index(all, indexOptions);
  }

  /** Adds (or updates, by id) chunks without rebuilding the index. */
  async add(chunks: unknown): Promise<this> {
    if (!Array.isArray(chunks)) throw invalidArgument('chunks', 'an array of chunks', chunks);
    const documentChunks = toDocumentChunks(chunks, 'chunks');
    if (documentChunks.length > 0) await this.corpus.write('add', chunks, () => this.corpus.add(documentChunks));
    return this;
  }

  /** Removes every chunk of the given documents. */
  async remove(docIds: unknown): Promise<this> {
    if (!Array.isArray(docIds) || docIds.some((id) => typeof id !== 'string')) throw invalidArgument('docIds', 'an array of document ids (strings)', docIds);
    await this.corpus.write('remove', docIds, () => this.corpus.remove(docIds as string[]));
    return this;
  }

  // ---------------------------------------------------------------- snapshots

  /**
   * Saves everything needed to answer exactly as now into `directory` (created if missing): the
   * resolved configuration, the keyword index and its chunks, the vector store when it lives in
   * this process (memory, HNSW; a database store is recorded by identity), the source-quality map,
   * the corpus generation and, with `{ history: true }`, the conversation history. Binary files
   * (little-endian typed arrays, a column-wise chunk table) with a manifest of sizes and SHA-256s.
   *
   * Crash-safe: a new generation is written beside the previous snapshot, flushed, and `CURRENT` is
   * switched atomically, so a crash at any moment leaves the previous snapshot openable; what a
   * killed save leaves behind is removed by the next save. A save after `add`/`remove` writes the
   * new state whole. It runs between corpus writes (`index`/`add`/`remove` issued meanwhile wait;
   * `run()` calls go on), so it holds one corpus generation; a second save to the same directory
   * waits its turn (another process saving there makes it fail with `ZERDA_STORE_IO`). Node only.
   */
  async save(directory: unknown, options: SaveOptions = {}): Promise<SavedSnapshot> {
    const target = parseDirectory(directory);
    const parsed = parseOrThrow(saveOptionsSchema, options, 'options') ?? {};
    // The turn among corpus writes is taken now, in call order: the snapshot holds every write
    // issued before this call and none issued after it.
    return this.corpus.writes.run(() => this.saveNow(target, parsed.history === true));
  }

  private async saveNow(target: string, withHistory: boolean): Promise<SavedSnapshot> {
    const corpus = this.corpus;
    const record: EngineRecord = {
      format: 'zerda.engine',
      version: 1,
      config: this.config,
      sourceQualityMap: corpus.sourceQualityMap,
      corpusGeneration: corpus.generation,
      corpusSize: corpus.size,
      template: templateRecord(this.template),
      customStrategies: this.customStrategies,
      retriever: corpus.retrieverRecord(),
      history: withHistory && this.history ? this.history.toJSON() : null,
    };
    const saved = await writeEngineSnapshot(target, record, corpus.retriever);
    this.log('info', { event: 'saved', directory: target, generation: saved.generation, bytes: saved.bytes, chunks: record.corpusSize }, `ContextEngine: saved ${record.corpusSize} chunks to ${target}`);
    return saved;
  }

  /**
   * Opens a snapshot written by {@link ContextEngine.save}: an engine that answers every query
   * exactly as the saved one did. Strategies and embedders are code, so they are passed again in
   * `options` as to the constructor (every strategy that was custom when saving is required; the
   * embedder must be the model the vectors were made with — same model id and dimension); a
   * database vector store is passed as `options.vectorDb` and checked against what the snapshot
   * recorded, and a store that keeps its data in the snapshot (HNSW) is passed empty and filled.
   * `options.config` overrides the saved configuration (index settings must stay the same).
   *
   * Every file is verified (size and SHA-256) before it is used: a truncated, damaged or edited
   * snapshot fails with `ZERDA_CORRUPT_SNAPSHOT` naming the file and the failed check, and nothing
   * is repaired. A snapshot of another format version fails saying which version is needed; a
   * mismatched option fails with `ZERDA_INVALID_ARGUMENT` naming it. Node only.
   */
  static async open(directory: unknown, options: OpenOptions = {}): Promise<ContextEngine> {
    const source = parseDirectory(directory);
    const parsed = parseOpenOptions(options);
    return readEngineSnapshot(source, parsed, async (record, reader) => {
      const engine = new ContextEngine(engineOptionsFor(record, parsed));
      await engine.corpus.restore(record, reader, parsed);
      if (record.history) {
        if (!engine.history) throw historyDisabled();
        engine.history = ConversationHistory.fromJSON(record.history, engine.config.multiTurn);
      }
      engine.log('info', { event: 'opened', directory: source, chunks: record.corpusSize, generation: record.corpusGeneration }, `ContextEngine: opened ${record.corpusSize} chunks from ${source}`);
      return engine;
    });
  }

  // ---------------------------------------------------------------- running

  /**
   * Runs the whole pipeline for one query. See the package README for every stage. With
   * `options.conversation`, the conversation's own history enriches the query and records the
   * turn, and the cache entry is that conversation's; without it, the engine-level history is used. With
   * OpenTelemetry, one `retrieval` span with a child per stage (`zerda.analyze` … `zerda.guard`).
   */
  async run(query: unknown, options: RunOptions = {}): Promise<ContextResult> {
    return this.tracedRun(undefined, query, options);
  }

  /**
   * A view of this engine for one tenant, user or conversation: its `filter` is ANDed with every
   * call's (a call can only narrow it), its cache entries and history are keyed by its `id` and
   * `conversation`, and nothing of it reaches another scope. See {@link ScopeOptions}; the README's
   * "Many users, one engine" section shows a scope per request for each framework bridge.
   */
  scope(options: ScopeOptions): Scope {
    return new Scope(this, options);
  }

  /** @internal `scope.run`: a run confined to `scope`. */
  runInScope(scope: ScopeState, query: unknown, options: RunOptions): Promise<ContextResult> {
    return this.tracedRun(scope, query, options);
  }

  /** @internal `scope.runMulti`. */
  runMultiInScope(scope: ScopeState, queries: unknown, options: RunMultiOptions): Promise<MultiQueryResult> {
    return this.multi(scope, queries, options);
  }

  /** @internal `scope.getHistory()`. */
  scopeHistory(scope: ScopeState): ConversationHistory | undefined {
    return scope.conversation === undefined ? undefined : this.historyFor(conversationKey(scope, scope.conversation));
  }

  private tracedRun(scope: ScopeState | undefined, query: unknown, options: RunOptions): Promise<ContextResult> {
    return runTraced(this.pipelineStages(), this.telemetry, scope, query, options);
  }

  /** The engine as the pipeline sees it (see {@link PipelineStages}): what may change during a run is read at use. */
  private pipelineStages(): PipelineStages {
    const engine = this;
    return {
      config: this.config,
      analyzer: this.analyzer,
      chunkFilter: this.chunkFilter,
      ranker: this.ranker,
      reranker: this.reranker,
      composer: this.composer,
      guard: this.guard,
      counter: this.counter,
      template: this.template,
      cache: this.cache,
      adaptive: this.adaptive,
      budgetAllocator: this.budgetAllocator,
      get retriever() {
        return engine.corpus.retriever;
      },
      get sourceQuality() {
        return engine.corpus.sourceQualityMap;
      },
      get generation() {
        return engine.corpus.generation;
      },
      checkedQuery: (query, field) => this.checkedQuery(query, field),
      historyFor: (registryKey) => this.historyFor(registryKey),
      log: (level, fields, message) => this.log(level, fields, message),
    };
  }

  /** The history a run uses: the conversation's (created on first use), or the engine-level one. */
  private historyFor(conversation: string | undefined): ConversationHistory | undefined {
    if (!this.config.multiTurn.enabled) return undefined;
    return conversation === undefined ? this.history : this.conversations.history(conversation);
  }

  /**
   * Runs several queries under one global budget: allocates a share per query (complexity-weighted
   * by default, equal with `useWeighted: false`, or the injected allocator), runs each without
   * recording conversation turns, and joins the contexts under `--- Query N: text ---` headers
   * (`--- السؤال N: text ---` for Arabic queries). The result never exceeds the global budget.
   */
  async runMulti(queries: unknown, options: RunMultiOptions = {}): Promise<string> {
    const results = await this.runMultiDetailed(queries, options);
    return results.context;
  }

  /** `runMulti` with every per-query result. */
  async runMultiDetailed(queries: unknown, options: RunMultiOptions = {}): Promise<MultiQueryResult> {
    return this.multi(undefined, queries, options);
  }

  private multi(scope: ScopeState | undefined, queries: unknown, options: RunMultiOptions): Promise<MultiQueryResult> {
    return runMultiQuery(this.pipelineStages(), this.telemetry, scope, queries, options);
  }

  /** A query string within `analyzer.maxQueryLength`. */
  private checkedQuery(query: unknown, field: string): string {
    const text = requireString(query, field);
    checkQueryLength(text, field, this.config.analyzer.maxQueryLength);
    return text;
  }

  // ---------------------------------------------------------------- legacy tuple API (@zerda/legacy-compat)

  /** Legacy: `buildFromTuples` of `@zerda/legacy-compat` on this engine — `[chunk, score]` tuples → filter → rank → compose. */
  async build(query: unknown, chunks: unknown, options: BuildOptions = {}): Promise<string> {
    return buildFromTuples(this, query, chunks, options);
  }

  /** Legacy: `buildMultiQueryFromTuples` of `@zerda/legacy-compat` on this engine (honours `globalBudget`). */
  async buildMultiQueryContext(queries: unknown, allChunks: unknown, options: BuildMultiQueryOptions = {}): Promise<string> {
    return buildMultiQueryFromTuples(this, queries, allChunks, options);
  }

  /** The stages the legacy tuple build of `@zerda/legacy-compat` runs on (see {@link TupleBuildStages}). */
  tupleBuildStages(): TupleBuildStages {
    const engine = this;
    return {
      buildOptions: (options) => parseOrThrow(buildOptionsSchema, options, 'options') ?? {},
      multiQueryOptions: (options) => parseOrThrow(buildMultiQueryOptionsSchema, options, 'options') ?? {},
      checkedQuery: (query, field) => this.checkedQuery(query, field),
      counter: this.counter,
      analyze: (query) => this.analyzer.analyze(query, { literalQuery: query }),
      chunkFilter: this.chunkFilter,
      ranker: this.ranker,
      get sourceQuality() {
        return engine.corpus.sourceQualityMap;
      },
      maxContextLength: this.config.composer.maxContextLength,
      // No guard in the legacy build, but the same budget promise: a custom composer is held to it.
      compose: async (ranked, analysis, budget) => (await composeWithinBudget(budgetedStages(this.pipelineStages(), false), ranked, analysis, budget)).guard.context,
      allocate: (analyses, budget, useWeighted) => allocateShares(this.budgetAllocator, analyses, budget, useWeighted, this.config.budget.minPerQuery),
      header: queryHeader,
      truncate: (text, budget) => truncateWithinBudget(this.composer, text, budget, this.counter),
    };
  }

  /**
   * Cuts a context to `targetLength` (counter units) at a word boundary, through the composer's own
   * truncation, or the shared `truncateAtWordBoundary` when the composer has none (or overshoots).
   */
  compressContext(context: unknown, targetLength: unknown): string {
    const text = requireString(context, 'context');
    if (typeof targetLength !== 'number' || !Number.isInteger(targetLength) || targetLength < 0) {
      throw invalidArgument('targetLength', 'a non-negative integer', targetLength);
    }
    return truncateWithinBudget(this.composer, text, targetLength, this.counter);
  }

  /**
   * Statistics of a context string (length in the counter's unit and in characters, language mix …),
   * from the composer's `getStats`, or measured from the context alone when the composer has none.
   */
  getContextStats(context: unknown): ContextStats {
    return this.composer.getStats(requireString(context, 'context'), { counter: this.counter });
  }

  // ---------------------------------------------------------------- diagnostics & state

  /** The adaptive report (queries, response times, guard failure rate, budget use) plus cache statistics. */
  getPerformanceReport(): Record<string, unknown> {
    const report: Record<string, unknown> = this.adaptive ? { ...this.adaptive.getPerformanceReport() } : { totalQueries: 0 };
    if (this.cache) report.cache = this.cache.stats;
    report.corpus = { chunks: this.corpus.size, generation: this.corpus.generation };
    return report;
  }

  /** Resumes a saved conversation (a ConversationHistory, or what its `toJSON()` returned). */
  setConversation(history: ConversationHistory | unknown): this {
    this.history = history instanceof ConversationHistory ? history : ConversationHistory.fromJSON(history as Parameters<typeof ConversationHistory.fromJSON>[0], this.config.multiTurn);
    return this;
  }

  /** The engine-level history (single-user use; conversations have their own, see {@link conversation}). */
  getHistory(): ConversationHistory | undefined {
    return this.history;
  }

  /**
   * A handle on conversation `id`: `conversation(id).run(q)` is `run(q, { conversation: id })`.
   * Live conversations are bounded (`multiTurn.maxConversations`, least recently used forgotten first,
   * and idle ones forgotten after `multiTurn.conversationTtlMs`).
   */
  conversation(id: string): Conversation {
    return new Conversation(this, checkConversationId(id, 'id'));
  }

  /** The live history of conversation `id`, created when missing; undefined when multi-turn is disabled. */
  conversationHistory(id: string): ConversationHistory | undefined {
    return this.historyFor(checkConversationId(id, 'id'));
  }

  /** Replaces the history of conversation `id` (a ConversationHistory, or what its `toJSON()` returned). */
  restoreConversation(id: string, history: ConversationHistory | ConversationHistoryJSON | string): void {
    checkConversationId(id, 'id');
    const restored = history instanceof ConversationHistory ? history : ConversationHistory.fromJSON(history, this.config.multiTurn);
    this.conversations.set(id, restored);
  }

  /** Forgets conversation `id`; true when it was live. */
  endConversation(id: string): boolean {
    return this.conversations.delete(checkConversationId(id, 'id'));
  }

  /** Number of live conversations. */
  get conversationCount(): number {
    return this.conversations.size;
  }

  clearCache(): void {
    this.cache?.clear();
    this.log('info', { event: 'cache_cleared' }, 'ContextEngine: cache cleared');
  }

  /** Number of chunks indexed. */
  get size(): number {
    return this.corpus.size;
  }

  protected log(level: 'debug' | 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string): void {
    const sink = this.logger?.[level];
    if (typeof sink === 'function') sink.call(this.logger, fields, message);
  }
}

export type { UsedChunk, MetadataFilter };
