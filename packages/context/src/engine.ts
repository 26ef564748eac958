import {
  AdaptiveLearningSystem,
  ChunkFilter,
  ComplexityBasedAllocation,
  CompositeRanker,
  ContextCache,
  ContextGuard,
  ConversationHistory,
  EqualBudgetAllocation,
  QueryAnalyzer,
  rerankCandidates,
  rerankerName,
  toReranker,
  checkQueryLength,
  queryLengthProblem,
  warningToString,
  type ConversationHistoryJSON,
} from '@zerda/context-core';
import { SmartContextComposer } from '@zerda/composer';
import { HybridRetriever, KeywordRetriever, StoreTextRetriever, VectorRetriever, WriteQueue } from '@zerda/retriever';
import { charCounter } from '@zerda/text';
import {
  type BudgetAllocator,
  type ChunkFilter as ChunkFilterContract,
  type ChunkRanker,
  type Chunker,
  type ComposeResult,
  type ContextComposer,
  type ContextStats,
  type ContextEngineConfig,
  type ContextGuard as ContextGuardContract,
  type ContextResult,
  type DocumentChunk,
  type EmbedFunction,
  type Embedder,
  type LengthCounter,
  type Logger,
  type MetadataFilter,
  type QueryAnalysis,
  type QueryAnalyzer as QueryAnalyzerContract,
  type Reranker,
  type Retriever,
  type ScoredChunk,
  type SourceQualityMap,
  type StageTimings,
  type TemplateName,
  type ContextTemplate,
  type UsedChunk,
  vectorStoreIdentity,
  invalidArgument,
  matchesFilter,
  parseMetadataFilter,
  parseOrThrow,
  resolveConfig,
  templateNameSchema,
  toDocumentChunk,
  toDocumentChunks,
  ZerdaError,
} from '@zerda/types';
import {
  type BuildMultiQueryOptions,
  type BuildOptions,
  type ContextEngineOptions,
  type IndexDocumentsOptions,
  type IndexOptions,
  type OpenOptions,
  type RunMultiOptions,
  type RunOptions,
  buildMultiQueryOptionsSchema,
  buildOptionsSchema,
  indexOptionsSchema,
  runMultiOptionsSchema,
  runOptionsSchema,
  telemetryOptionsSchema,
  validateEngineOptions,
} from './options.js';
import { queryHeader } from './headers.js';
import { EngineTelemetry, traced, type Trace } from './tracing.js';
import {
  ENGINE_SNAPSHOT_FORMAT,
  ENGINE_SNAPSHOT_VERSION,
  asOpenError,
  checkVectorSource,
  customStrategyNames,
  engineOptionsFor,
  historyDisabled,
  parseDirectory,
  parseOpenOptions,
  readEngineRecord,
  saveOptionsSchema,
  templateRecord,
  writeEngineRecord,
  type BuiltRetrieverRecord,
  type EngineRecord,
  type SaveOptions,
  type SavedSnapshot,
} from './snapshot.js';
import { truncateWithinBudget, withComposerFallbacks, type CompleteComposer } from './composer-fallbacks.js';
import { Conversation, ConversationRegistry, checkConversationId, type ConversationHost } from './conversations.js';
import { Scope, conversationKey, scopedRunOptions, type ScopeHost, type ScopeOptions, type ScopeState } from './scope.js';
import { composeWithinBudget } from './within-budget.js';

const now = (): number => performance.now();
const round = (ms: number): number => Math.round(ms * 1000) / 1000;

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
  protected retriever: Retriever | undefined;
  private readonly injectedRetriever: boolean;
  private readonly defaultEmbedder: Embedder | EmbedFunction | undefined;
  private readonly template: TemplateName | ContextTemplate;
  private sourceQualityMap: SourceQualityMap = {};
  private readonly telemetry: EngineTelemetry;
  /** Bumped on every change to the corpus; part of every cache key. */
  private generation = 0;
  private corpusSize = 0;
  /** Corpus writes (index, add, remove) and snapshots run one at a time, in call order. */
  private readonly writes = new WriteQueue();
  /** How `index()` built the current retriever (undefined: injected, or nothing indexed yet). */
  private builtRetriever: BuiltRetrieverRecord | undefined;
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
    this.retriever = options.retriever;
    this.injectedRetriever = options.retriever !== undefined;
    this.defaultEmbedder = options.embedder;
    this.telemetry = new EngineTelemetry(parseOrThrow(telemetryOptionsSchema, options.telemetry, 'options.telemetry'));
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
    return this.writes.run(() => this.tracedCorpusChange('index', chunks, () => this.indexNow(chunks, options, parsed)));
  }

  private async indexNow(chunks: unknown, options: IndexOptions, parsed: NonNullable<ReturnType<typeof indexOptionsSchema.parse>>): Promise<this> {
    if (!Array.isArray(chunks)) throw invalidArgument('chunks', 'an array of chunks', chunks);
    if (chunks.length === 0) {
      this.log('warn', { event: 'index_empty' }, 'ContextEngine.index: empty chunk list, nothing indexed');
      return this;
    }
    const documentChunks = toDocumentChunks(chunks, 'chunks');
    const sourceQualityMap = (parsed.sourceQualityMap ?? options.sourceQualityMap ?? this.sourceQualityMap) as SourceQualityMap;

    if (this.injectedRetriever && this.retriever) {
      // Defect 2 of the spec: never build (or embed into) retrievers that would be discarded.
      if (typeof this.retriever.index === 'function') await this.retriever.index(documentChunks);
      this.commitCorpus(documentChunks.length, sourceQualityMap);
      return this;
    }

    const { retriever, record } = await this.buildRetriever(documentChunks, options);
    this.retriever = retriever;
    this.builtRetriever = record;
    this.commitCorpus(documentChunks.length, sourceQualityMap);
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
    for (const [field, list] of [['docIds', docIds], ['sources', sources], ['titles', titles], ['metadata', metadata]] as const) {
      if (list && list.length !== texts.length) throw invalidArgument(`options.${field}`, `an array of ${texts.length} entries (one per text)`, list);
    }
    const all: DocumentChunk[] = [];
    for (let i = 0; i < texts.length; i++) {
      const text = requireString(texts[i], `texts[${i}]`);
      const docId = docIds?.[i] ?? `doc_${i}`;
      const source = sources?.[i] ?? docId;
      let produced = await callChunker(chunker, text, docId, source);
      const title = titles?.[i];
      const extra = metadata?.[i];
      for (const chunk of produced) {
        all.push({
          ...chunk,
          source: chunk.source || source,
          ...(title !== undefined && chunk.title === undefined ? { title } : {}),
          ...(extra ? { metadata: { ...extra, ...chunk.metadata } } : {}),
        });
      }
    }
    this.log('info', { event: 'documents_chunked', texts: texts.length, chunks: all.length, chunker: chunker.constructor?.name }, 'ContextEngine.indexDocuments: chunked');
    return this.index(all, indexOptions);
  }

  /** Adds (or updates, by id) chunks without rebuilding the index. */
  async add(chunks: unknown): Promise<this> {
    if (!Array.isArray(chunks)) throw invalidArgument('chunks', 'an array of chunks', chunks);
    const documentChunks = toDocumentChunks(chunks, 'chunks');
    if (documentChunks.length === 0) return this;
    return this.writes.run(() => this.tracedCorpusChange('add', chunks, () => this.addNow(documentChunks)));
  }

  private async addNow(documentChunks: DocumentChunk[]): Promise<this> {
    if (!this.retriever) return this.indexNow(documentChunks, {}, {});
    if (typeof this.retriever.add !== 'function') {
      throw new ZerdaError('ZERDA_UNSUPPORTED', { operation: 'add', component: this.retriever.name ?? 'the retriever' });
    }
    await this.retriever.add(documentChunks);
    this.commitCorpus(this.corpusSize + documentChunks.length, this.sourceQualityMap);
    return this;
  }

  /** Removes every chunk of the given documents. */
  async remove(docIds: unknown): Promise<this> {
    if (!Array.isArray(docIds) || docIds.some((id) => typeof id !== 'string')) throw invalidArgument('docIds', 'an array of document ids (strings)', docIds);
    return this.writes.run(() => this.tracedCorpusChange('remove', docIds, () => this.removeNow(docIds as string[])));
  }

  private async removeNow(docIds: string[]): Promise<this> {
    if (!this.retriever || docIds.length === 0) return this;
    if (typeof this.retriever.remove !== 'function') {
      throw new ZerdaError('ZERDA_UNSUPPORTED', { operation: 'remove', component: this.retriever.name ?? 'the retriever' });
    }
    await this.retriever.remove(docIds);
    const size = typeof this.retriever.size === 'function' ? await this.retriever.size() : this.corpusSize;
    this.commitCorpus(size, this.sourceQualityMap);
    return this;
  }

  /** A corpus change inside the span `zerda.<operation>` (input count; corpus size and generation after). */
  private tracedCorpusChange(operation: 'index' | 'add' | 'remove', input: unknown, task: () => Promise<this>): Promise<this> {
    return traced(
      this.telemetry,
      `zerda.${operation}`,
      { 'zerda.operation': operation, [operation === 'remove' ? 'zerda.documents.count' : 'zerda.chunks.count']: Array.isArray(input) ? input.length : undefined },
      () => task(),
      () => ({ 'zerda.corpus.size': this.corpusSize, 'zerda.corpus.generation': this.generation, 'zerda.retriever': this.retriever?.name }),
    );
  }

  private commitCorpus(size: number, sourceQualityMap: SourceQualityMap): void {
    this.corpusSize = size;
    this.sourceQualityMap = sourceQualityMap;
    this.generation += 1;
    this.log('info', { event: 'indexed', chunks: size, generation: this.generation }, `ContextEngine: indexed ${size} chunks`);
  }

  /** Builds and fills the retrievers for `chunks` (nothing is swapped in here). */
  private async buildRetriever(chunks: DocumentChunk[], options: IndexOptions): Promise<{ retriever: Retriever; record: BuiltRetrieverRecord }> {
    const { retriever, keyword, vector, record } = this.createRetriever(options);
    const indexOptions = { batchSize: options.batchSize, onProgress: options.onProgress };
    if (keyword instanceof KeywordRetriever) await keyword.index(chunks);
    if (vector) await vector.index(chunks, indexOptions);
    return { retriever, record };
  }

  /**
   * Creates (empty) the retrievers `index()` builds for these options — the keyword side, the
   * vector side, fused when both exist — and the record a snapshot keeps of them, so that `open`
   * recreates exactly the same structure.
   */
  private createRetriever(options: Pick<IndexOptions, 'keywordSearch' | 'vectorDb' | 'embedder' | 'vectorStoreAdapter' | 'addToVectorDb'>): {
    retriever: Retriever;
    keyword: KeywordRetriever | StoreTextRetriever;
    vector: VectorRetriever | undefined;
    record: BuiltRetrieverRecord;
  } {
    const retrievalConfig = this.config.retrieval;
    let keyword: KeywordRetriever | StoreTextRetriever;
    if (options.keywordSearch === 'store') {
      // Checked before anything is written: the store must answer text queries itself.
      if (!options.vectorDb) throw invalidArgument('options.keywordSearch', "'store' together with a vectorDb whose capabilities.textSearch is true", options.keywordSearch);
      keyword = new StoreTextRetriever({ store: options.vectorDb });
    } else {
      keyword = new KeywordRetriever({ k1: retrievalConfig.bm25.k1, b: retrievalConfig.bm25.b, titleWeight: retrievalConfig.bm25.titleWeight });
    }
    // The in-memory retrievers are validated and built completely before anything is swapped in.
    const embedder = options.embedder ?? this.defaultEmbedder;
    let vector: VectorRetriever | undefined;
    let source: 'embedder' | 'vectorDb' | 'adapter' | undefined;
    if (options.vectorDb) {
      if (options.embedder) {
        this.log('warn', { event: 'embedder_and_vector_db', store: options.vectorDb.name }, `ContextEngine.index: both embedder and vectorDb given; vectors are stored in ${options.vectorDb.name}, the embedder embeds queries and chunks that carry no embedding`);
      }
      vector = new VectorRetriever({ store: options.vectorDb, embedder, addToStore: options.addToVectorDb ?? true });
      source = 'vectorDb';
    } else if (options.vectorStoreAdapter) {
      vector = VectorRetriever.fromLangChain(options.vectorStoreAdapter as never, { embedder });
      source = 'adapter';
    } else if (embedder) {
      vector = new VectorRetriever({ embedder });
      source = 'embedder';
    }
    const record: BuiltRetrieverRecord = {
      keywordSearch: options.keywordSearch ?? 'memory',
      vector:
        vector && source
          ? {
              source,
              addToVectorDb: options.addToVectorDb ?? true,
              store: source === 'embedder' ? null : vectorStoreIdentity(vector.store),
              inSnapshot: vector.store.capabilities.snapshot === true,
              embedder: vector.embedder ? vector.embedder.modelId : null,
            }
          : null,
    };
    const retriever = vector ? new HybridRetriever({ retrievers: [vector, keyword], config: retrievalConfig }) : keyword;
    return { retriever, keyword, vector, record };
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
    return this.writes.run(() => this.saveNow(target, parsed.history === true));
  }

  private async saveNow(target: string, withHistory: boolean): Promise<SavedSnapshot> {
    const { packageVersion, writeSnapshotDirectory } = await import('@zerda/persistence');
    const version = await packageVersion(new URL('../package.json', import.meta.url));
    const retriever = this.retriever;
    const record: EngineRecord = {
      format: 'zerda.engine',
      version: 1,
      config: this.config,
      sourceQualityMap: this.sourceQualityMap,
      corpusGeneration: this.generation,
      corpusSize: this.corpusSize,
      template: templateRecord(this.template),
      customStrategies: this.customStrategies,
      retriever: !retriever
        ? { kind: 'none' }
        : this.builtRetriever
          ? { kind: 'built', ...this.builtRetriever }
          : { kind: 'injected', name: retriever.name, inSnapshot: typeof retriever.writeSnapshot === 'function' },
      history: withHistory && this.history ? this.history.toJSON() : null,
    };
    const written = await writeSnapshotDirectory(
      target,
      { format: ENGINE_SNAPSHOT_FORMAT, formatVersion: ENGINE_SNAPSHOT_VERSION, producer: `@zerda/context ${version}`, zerdaVersion: version },
      async (writer) => {
        await writeEngineRecord(writer, record);
        if (retriever && typeof retriever.writeSnapshot === 'function') await retriever.writeSnapshot(writer.scope('retriever'));
        return { chunks: record.corpusSize, corpusGeneration: record.corpusGeneration, retriever: record.retriever.kind };
      },
    );
    this.log('info', { event: 'saved', directory: target, generation: written.generation, bytes: written.bytes, chunks: record.corpusSize }, `ContextEngine: saved ${record.corpusSize} chunks to ${target}`);
    return { directory: target, generation: written.generation, bytes: written.bytes, files: written.manifest.files.length + 1, chunks: record.corpusSize, corpusGeneration: record.corpusGeneration };
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
    const { packageVersion, readSnapshotDirectory } = await import('@zerda/persistence');
    const version = await packageVersion(new URL('../package.json', import.meta.url));
    return readSnapshotDirectory(
      source,
      { format: ENGINE_SNAPSHOT_FORMAT, formatVersion: ENGINE_SNAPSHOT_VERSION, producer: `@zerda/context ${version}`, zerdaVersion: version },
      async (reader) => {
        const record = await readEngineRecord(reader);
        const engine = new ContextEngine(engineOptionsFor(record, parsed));
        try {
          if (record.retriever.kind === 'built') {
            checkVectorSource(record.retriever, parsed);
            const { retriever } = engine.createRetriever({
              keywordSearch: record.retriever.keywordSearch,
              ...(parsed.vectorDb ? { vectorDb: parsed.vectorDb } : {}),
              ...(parsed.vectorStoreAdapter ? { vectorStoreAdapter: parsed.vectorStoreAdapter } : {}),
              ...(record.retriever.vector ? { addToVectorDb: record.retriever.vector.addToVectorDb } : {}),
            });
            await retriever.readSnapshot!(reader.scope('retriever'));
            engine.retriever = retriever;
            engine.builtRetriever = { keywordSearch: record.retriever.keywordSearch, vector: record.retriever.vector };
          } else if (record.retriever.kind === 'injected' && record.retriever.inSnapshot) {
            const retriever = engine.retriever!;
            if (typeof retriever.readSnapshot !== 'function') throw invalidArgument('options.retriever', `a retriever that reads the snapshot of "${retriever.name}" (it has readSnapshot)`, retriever);
            await retriever.readSnapshot(reader.scope('retriever'));
          }
        } catch (error) {
          throw asOpenError(error);
        }
        if (record.history) {
          if (!engine.history) throw historyDisabled();
          engine.history = ConversationHistory.fromJSON(record.history, engine.config.multiTurn);
        }
        engine.sourceQualityMap = record.sourceQualityMap;
        engine.corpusSize = record.corpusSize;
        engine.generation = record.corpusGeneration;
        engine.log('info', { event: 'opened', directory: source, chunks: record.corpusSize, generation: record.corpusGeneration }, `ContextEngine: opened ${record.corpusSize} chunks from ${source}`);
        return engine;
      },
      { verify: parsed.verify ?? true },
    );
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
  runMultiInScope(scope: ScopeState, queries: unknown, options: RunMultiOptions): Promise<{ context: string; results: ContextResult[]; allocations: number[] }> {
    return this.multi(scope, queries, options);
  }

  /** @internal `scope.getHistory()`. */
  scopeHistory(scope: ScopeState): ConversationHistory | undefined {
    return scope.conversation === undefined ? undefined : this.historyFor(conversationKey(scope, scope.conversation));
  }

  private tracedRun(scope: ScopeState | undefined, query: unknown, options: RunOptions): Promise<ContextResult> {
    const telemetry = this.telemetry.options;
    return traced(
      this.telemetry,
      'retrieval',
      { 'gen_ai.operation.name': 'retrieval', 'gen_ai.data_source.id': telemetry.dataSourceId, ...(scope?.path ? { 'zerda.scope.id': scope.path.join('/') } : {}) },
      (trace) => this.runPipeline(query, options, trace, scope),
      (result) => runAttributes(result, telemetry.recordQueryText === true, telemetry.recordDocuments === true),
    );
  }

  private async runPipeline(query: unknown, options: RunOptions, trace: Trace | undefined, scope: ScopeState | undefined): Promise<ContextResult> {
    const started = now();
    parseOrThrow(runOptionsSchema, options, 'options');
    const literal = this.checkedQuery(query, 'query');
    if (this.counter.load) await this.counter.load();
    const signal = options.signal;
    signal?.throwIfAborted();
    const callFilter = options.metadataFilters === undefined ? undefined : parseMetadataFilter(options.metadataFilters, 'options.metadataFilters');
    let filter = callFilter;
    let useHistory = options.useHistory ?? true;
    let recordTurn = options.recordTurn ?? true;
    let conversation = options.conversation;
    if (scope) ({ filter, conversation, useHistory, recordTurn } = scopedRunOptions(scope, options, callFilter));
    const registryKey = conversation === undefined ? undefined : conversationKey(scope, conversation);
    const history = scope && registryKey === undefined ? undefined : this.historyFor(registryKey);
    // An anonymous scope shares nothing, not even a cache entry with itself on the next request.
    const cacheable = scope === undefined || scope.path !== undefined;
    const generation = this.generation;
    const timings: StageTimings = { cache: 0, analyze: 0, retrieve: 0, filter: 0, rank: 0, rerank: 0, compose: 0, guard: 0, total: 0 };

    let effectiveQuery = literal;
    if (useHistory && history && history.size > 0 && this.config.multiTurn.enrichTurns > 0) {
      effectiveQuery = history.getEnrichedQuery(literal, this.config.multiTurn.enrichTurns);
      // Enrichment never makes an acceptable query unacceptable: past the limit, the literal query is used.
      if (queryLengthProblem(effectiveQuery, this.config.analyzer.maxQueryLength) !== undefined) effectiveQuery = literal;
    }

    let stage = now();
    const cacheKey = this.cache && cacheable
      ? ContextCache.key({
          effectiveQuery,
          filter,
          maxChunks: options.maxChunks,
          budget: options.overrideBudget,
          generation,
          extra: {
            counter: this.counter.counterName ?? this.counter.name ?? 'counter',
            unit: this.counter.unit ?? null,
            // A conversation's entries are its own: another conversation never hits them (not even
            // learns from `fromCache` that the same question was asked), and the literal query is
            // part of the key so a hit's analysis is always the caller's.
            conversation: registryKey ?? null,
            scope: scope === undefined ? null : scope.path ? [...scope.path] : null,
            literal,
          },
        })
      : undefined;
    const cached = cacheKey !== undefined ? this.cache?.get(cacheKey) : undefined;
    timings.cache = now() - stage;
    if (cached) {
      timings.total = now() - started;
      // Defect 3 of the spec: a hit returns the full original result, flagged, never zeroed counts.
      const hit: ContextResult = { ...cached, query: literal, fromCache: true, timings: { ...cached.timings, cache: round(timings.cache), total: round(timings.total) } };
      this.afterRun(hit, literal, recordTurn ? history : undefined, true, conversation, scope);
      return hit;
    }

    stage = now();
    trace?.stage('analyze');
    const analysis = await this.analyzer.analyze(effectiveQuery, { literalQuery: literal });
    timings.analyze = now() - stage;
    trace?.endStage({ 'zerda.query.length': [...literal].length, 'zerda.query.language': analysis.language, 'zerda.query.intent': analysis.intent, 'zerda.query.complexity': analysis.complexity });
    const budget = Math.min(options.overrideBudget ?? Math.min(analysis.suggestedBudget, this.config.composer.maxContextLength), Number.MAX_SAFE_INTEGER);
    const maxChunks = options.maxChunks ?? analysis.suggestedChunks;

    stage = now();
    const topK = Math.max(this.adaptive ? this.adaptive.recommendedTopK(this.config.retrieval.topK) : this.config.retrieval.topK, maxChunks);
    trace?.stage('retrieve', { 'gen_ai.retrieval.top_k': topK, 'zerda.retriever': this.retriever?.name, 'zerda.filtered': filter !== undefined });
    let candidates: ScoredChunk[] = this.retriever ? await this.retriever.retrieve(effectiveQuery, { topK, filter, analysis, ...(signal ? { signal } : {}) }) : [];
    // Defence in depth: a custom retriever that ignores the filter still cannot leak another tenant's chunk.
    if (filter) candidates = candidates.filter((candidate) => matchesFilter(candidate.chunk, filter));
    timings.retrieve = now() - stage;
    const retrieved = candidates.length;
    trace?.endStage({ 'zerda.candidates.out': retrieved });

    stage = now();
    trace?.stage('filter', { 'zerda.candidates.in': retrieved });
    const filtered = await this.chunkFilter.filter(candidates, { analysis });
    timings.filter = now() - stage;
    trace?.endStage({ 'zerda.candidates.out': filtered.kept.length, 'zerda.candidates.dropped': filtered.dropped.length });

    stage = now();
    trace?.stage('rank', { 'zerda.candidates.in': filtered.kept.length });
    // With a reranker, the ranker hands it a longer list to choose the best maxChunks from.
    const rankLimit = this.reranker ? Math.max(maxChunks, this.config.rerank.candidates) : maxChunks;
    const ranked = await this.ranker.rank(filtered.kept, { analysis, maxChunks: rankLimit, sourceQuality: this.sourceQualityMap });
    timings.rank = now() - stage;
    trace?.endStage({ 'zerda.candidates.out': ranked.length });

    let reranked = ranked;
    if (this.reranker) {
      stage = now();
      trace?.stage('rerank', { 'zerda.candidates.in': ranked.length, 'zerda.reranker': rerankerName(this.reranker), 'zerda.rerank.top_n': maxChunks });
      reranked = await rerankCandidates(this.reranker, effectiveQuery, ranked, { topN: maxChunks, analysis, ...(signal ? { signal } : {}) });
      timings.rerank = now() - stage;
      trace?.endStage({ 'zerda.candidates.out': reranked.length });
    }

    stage = now();
    trace?.stage('compose', { 'zerda.candidates.in': reranked.length, 'zerda.budget.limit': budget, 'zerda.budget.unit': this.counter.unit ?? 'chars' });
    // Small-to-big: a first composition tells which chunks are used, their neighbours join the list.
    let toCompose = reranked;
    if (this.config.composer.neighbors > 0) {
      const first = await this.composer.compose(reranked, { budget, counter: this.counter, analysis, template: this.template });
      toCompose = (await this.withNeighbors(reranked, first, budget, filter)) ?? reranked;
    }
    // Composition and guard together hold the budget: when redaction (or a custom strategy) makes the
    // guarded context longer than the budget, composition runs again with less room.
    const fitted = await composeWithinBudget(
      { composer: this.composer, guard: this.config.guard.enabled ? this.guard : undefined, counter: this.counter, template: this.template, trustComposerStats: this.composer instanceof SmartContextComposer },
      toCompose,
      analysis,
      budget,
    );
    const { composed, guard, used } = fitted;
    timings.compose = now() - stage - fitted.guardMs;
    timings.guard = fitted.guardMs;
    timings.total = now() - started;
    trace?.endStage({ 'zerda.candidates.out': composed.chunks.length, 'zerda.budget.used': used, 'zerda.context.truncated': composed.truncated || fitted.cutAfterGuard, 'zerda.compose.attempts': fitted.attempts });
    // The guard runs inside the fit (once per attempt); its span carries the verdict and its time.
    trace?.stage('guard');
    trace?.endStage({ 'zerda.guard.enabled': this.config.guard.enabled, 'zerda.guard.passed': guard.passed, 'zerda.guard.warnings': guard.warnings.map((warning) => warning.code), 'zerda.guard.ms': round(fitted.guardMs) });
    if (fitted.attempts > 1 || fitted.cutAfterGuard) {
      this.log('debug', { event: 'refit', attempts: fitted.attempts, cut: fitted.cutAfterGuard }, 'ContextEngine.run: the guarded context was over budget and was fitted again');
    }

    const result: ContextResult = {
      context: guard.context,
      query: literal,
      effectiveQuery,
      analysis,
      chunks: composed.chunks,
      dropped: [...filtered.dropped, ...composed.skipped],
      counts: { retrieved, afterFilter: filtered.kept.length, afterRank: ranked.length, afterRerank: reranked.length, used: composed.chunks.length },
      timings: Object.fromEntries(Object.entries(timings).map(([key, value]) => [key, round(value)])) as unknown as StageTimings,
      budget: { limit: budget, used, unit: this.counter.unit ?? 'chars', utilization: budget > 0 ? Math.min(1, used / budget) : 0 },
      template: composed.template,
      truncated: composed.truncated || fitted.cutAfterGuard,
      guardPassed: guard.passed,
      guardWarnings: guard.warnings.map(warningToString),
      warnings: guard.warnings,
      fromCache: false,
      ...(this.reranker ? { reranker: rerankerName(this.reranker) } : {}),
    };
    // Synchronous from here on: cache, history and statistics stay consistent under concurrency.
    if (cacheKey !== undefined && this.cache && generation === this.generation) this.cache.set(cacheKey, result);
    this.afterRun(result, literal, recordTurn ? history : undefined, false, conversation, scope);
    return result;
  }

  /**
   * Small-to-big (`config.composer.neighbors`): when the context leaves budget unused, the ranked
   * list with the neighbouring chunks of every used chunk inserted right after it (same document,
   * matching the run's filter, not already a candidate); undefined when there is nothing to add.
   */
  private async withNeighbors(ranked: ScoredChunk[], composed: ComposeResult, budget: number, filter: MetadataFilter | undefined): Promise<ScoredChunk[] | undefined> {
    const distance = this.config.composer.neighbors;
    const retriever = this.retriever;
    if (distance === 0 || !retriever?.neighbors || composed.chunks.length === 0 || composed.stats.length >= budget) return undefined;
    const known = new Set(ranked.map((candidate) => candidate.chunk.id));
    const found = await retriever.neighbors(composed.chunks.map((used) => used.chunk), distance, filter ? { filter } : {});
    const fresh = found.filter((chunk) => !known.has(chunk.id) && (!filter || matchesFilter(chunk, filter)));
    if (fresh.length === 0) return undefined;
    const byAnchor = new Map<string, DocumentChunk[]>();
    for (const chunk of fresh) {
      const anchor = composed.chunks
        .filter((used) => used.chunk.docId === chunk.docId)
        .reduce((best, used) => (Math.abs(used.chunk.position.index - chunk.position.index) < Math.abs(best.chunk.position.index - chunk.position.index) ? used : best));
      const list = byAnchor.get(anchor.chunk.id) ?? [];
      list.push(chunk);
      byAnchor.set(anchor.chunk.id, list);
    }
    return ranked.flatMap((candidate) => [
      candidate,
      ...(byAnchor.get(candidate.chunk.id) ?? []).map((chunk): ScoredChunk => ({ chunk, score: candidate.score, scores: { neighbor: 1, composite: candidate.score }, retrievers: ['neighbors'] })),
    ]);
  }

  /** The history a run uses: the conversation's (created on first use), or the engine-level one. */
  private historyFor(conversation: string | undefined): ConversationHistory | undefined {
    if (!this.config.multiTurn.enabled) return undefined;
    return conversation === undefined ? this.history : this.conversations.history(conversation);
  }

  private afterRun(result: ContextResult, literal: string, history: ConversationHistory | undefined, fromCache: boolean, conversation: string | undefined, scope: ScopeState | undefined): void {
    history?.addTurn({ query: literal, context: result.context, analysis: result.analysis });
    this.adaptive?.record({
      responseMs: result.timings.total,
      guardPassed: result.guardPassed,
      contextLength: result.budget.used,
      budget: result.budget.limit,
      cacheHit: fromCache,
      emptyContext: result.context.length === 0,
    });
    this.log(
      'info',
      {
        event: 'run',
        // Logs name a scope by its id (never its filter's values) and its conversation.
        ...(scope === undefined ? {} : { scope: scope.path?.join('/') ?? null }),
        ...(conversation === undefined ? {} : { conversation }),
        fromCache,
        retrieved: result.counts.retrieved,
        afterFilter: result.counts.afterFilter,
        afterRank: result.counts.afterRank,
        used: result.counts.used,
        contextLength: result.budget.used,
        ms: result.timings.total,
      },
      'ContextEngine: run',
    );
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
  async runMultiDetailed(queries: unknown, options: RunMultiOptions = {}): Promise<{ context: string; results: ContextResult[]; allocations: number[] }> {
    return this.multi(undefined, queries, options);
  }

  private async multi(scope: ScopeState | undefined, queries: unknown, options: RunMultiOptions): Promise<{ context: string; results: ContextResult[]; allocations: number[] }> {
    parseOrThrow(runMultiOptionsSchema, options, 'options');
    if (!Array.isArray(queries)) throw invalidArgument('queries', 'an array of strings', queries);
    const list = queries.map((query, i) => this.checkedQuery(query, `queries[${i}]`));
    if (list.length === 0) return { context: '', results: [], allocations: [] };
    if (this.counter.load) await this.counter.load();
    const { globalBudget, useWeighted = true, ...runOptions } = options;
    const global = globalBudget ?? this.config.composer.maxContextLength;
    const analyses = await Promise.all(list.map((query) => this.analyzer.analyze(query, { literalQuery: query })));
    const allocations = this.allocate(analyses, global, useWeighted);
    const headers = list.map((query, i) => queryHeader(i, query, analyses[i]!));
    const separator = '\n\n';
    const results = await Promise.all(
      list.map((query, i) => {
        const overhead = this.counter(headers[i]! + '\n') + (i > 0 ? this.counter(separator) : 0);
        const share = Math.max(0, allocations[i]! - overhead);
        return this.tracedRun(scope, query, { ...runOptions, overrideBudget: share, recordTurn: false });
      }),
    );
    const sections = results.map((result, i) => `${headers[i]}\n${result.context}`);
    const joined = sections.join(separator);
    return { context: truncateWithinBudget(this.composer, joined, global, this.counter), results, allocations };
  }

  private allocate(analyses: QueryAnalysis[], budget: number, useWeighted: boolean): number[] {
    const allocator = this.budgetAllocator ?? (useWeighted ? new ComplexityBasedAllocation() : new EqualBudgetAllocation());
    const shares: unknown = allocator.allocate(analyses, budget, { minPerQuery: this.config.budget.minPerQuery });
    if (!Array.isArray(shares) || shares.length !== analyses.length || shares.some((share) => typeof share !== 'number' || !(share >= 0) || share === Number.POSITIVE_INFINITY)) {
      throw invalidArgument('budgetAllocator.allocate(…)', `to return ${analyses.length} finite numbers >= 0 (one share per query)`, shares);
    }
    return (shares as number[]).map((share) => Math.floor(share));
  }

  /** A query string within `analyzer.maxQueryLength`. */
  private checkedQuery(query: unknown, field: string): string {
    const text = requireString(query, field);
    checkQueryLength(text, field, this.config.analyzer.maxQueryLength);
    return text;
  }

  // ---------------------------------------------------------------- legacy tuple API

  /**
   * Legacy: builds a context from `[chunk, score]` tuples you retrieved yourself (no retrieval, no
   * guard): analyse → filter → rank → compose. Returns the context string.
   */
  async build(query: unknown, chunks: unknown, options: BuildOptions = {}): Promise<string> {
    const parsed = parseOrThrow(buildOptionsSchema, options, 'options') ?? {};
    const literal = this.checkedQuery(query, 'query');
    if (!Array.isArray(chunks)) throw invalidArgument('chunks', 'an array of [chunk, score] tuples', chunks);
    const scored: ScoredChunk[] = chunks.map((tuple, i) => tupleToScored(tuple, i));
    if (this.counter.load) await this.counter.load();
    const analysis = await this.analyzer.analyze(literal, { literalQuery: literal });
    const budget = parsed.maxLength ?? Math.min(analysis.suggestedBudget, this.config.composer.maxContextLength);
    const filtered = await this.chunkFilter.filter(scored, { analysis });
    const ranked = await this.ranker.rank(filtered.kept, { analysis, maxChunks: parsed.maxChunks ?? analysis.suggestedChunks, sourceQuality: this.sourceQualityMap });
    // No guard in the legacy build, but the same budget promise: a custom composer is held to it.
    const fitted = await composeWithinBudget({ composer: this.composer, guard: undefined, counter: this.counter, template: this.template, trustComposerStats: this.composer instanceof SmartContextComposer }, ranked, analysis, budget);
    return fitted.guard.context;
  }

  /**
   * Legacy: `build()` per (query, chunks) pair under `--- Query N: text ---` headers. Unlike the
   * spec's version, `globalBudget` is honoured (defect 5): shares are allocated and the result is clamped.
   */
  async buildMultiQueryContext(queries: unknown, allChunks: unknown, options: BuildMultiQueryOptions = {}): Promise<string> {
    const parsed = parseOrThrow(buildMultiQueryOptionsSchema, options, 'options') ?? {};
    if (!Array.isArray(queries)) throw invalidArgument('queries', 'an array of strings', queries);
    if (!Array.isArray(allChunks) || allChunks.length !== queries.length) {
      throw invalidArgument('allChunks', `an array with one tuple list per query (${queries.length})`, allChunks);
    }
    const list = queries.map((query, i) => this.checkedQuery(query, `queries[${i}]`));
    if (list.length === 0) return '';
    if (this.counter.load) await this.counter.load();
    const global = parsed.globalBudget ?? this.config.composer.maxContextLength;
    const analyses = await Promise.all(list.map((query) => this.analyzer.analyze(query, { literalQuery: query })));
    const allocations = this.allocate(analyses, global, parsed.useWeighted ?? true);
    const separator = '\n\n';
    const sections: string[] = [];
    for (let i = 0; i < list.length; i++) {
      const header = queryHeader(i, list[i]!, analyses[i]!);
      const overhead = this.counter(header + '\n') + (i > 0 ? this.counter(separator) : 0);
      const context = await this.build(list[i], allChunks[i], { maxLength: Math.max(0, allocations[i]! - overhead) });
      sections.push(`${header}\n${context}`);
    }
    return truncateWithinBudget(this.composer, sections.join(separator), global, this.counter);
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
    report.corpus = { chunks: this.corpusSize, generation: this.generation };
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
    return this.corpusSize;
  }

  protected log(level: 'debug' | 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string): void {
    const sink = this.logger?.[level];
    if (typeof sink === 'function') sink.call(this.logger, fields, message);
  }
}

/** The attributes of a run's span once it has its result (query text and documents only when opted in). */
function runAttributes(result: ContextResult, recordQueryText: boolean, recordDocuments: boolean): Record<string, string | number | boolean | undefined> {
  return {
    'zerda.cache.hit': result.fromCache,
    'zerda.query.length': [...result.query].length,
    'zerda.query.language': result.analysis.language,
    'zerda.count.retrieved': result.counts.retrieved,
    'zerda.count.after_filter': result.counts.afterFilter,
    'zerda.count.after_rank': result.counts.afterRank,
    'zerda.count.after_rerank': result.counts.afterRerank,
    'zerda.count.used': result.counts.used,
    'zerda.budget.limit': result.budget.limit,
    'zerda.budget.used': result.budget.used,
    'zerda.budget.unit': result.budget.unit,
    'zerda.guard.passed': result.guardPassed,
    'zerda.reranker': result.reranker,
    'gen_ai.retrieval.query.text': recordQueryText ? result.query : undefined,
    'zerda.query.effective_text': recordQueryText && result.effectiveQuery !== result.query ? result.effectiveQuery : undefined,
    'gen_ai.retrieval.documents': recordDocuments ? JSON.stringify(result.chunks.map((used) => ({ id: used.chunk.id, score: used.score }))) : undefined,
  };
}

/**
 * Calls a chunker in the modern form `chunk(text, { docId, source })`; when it rejects that form
 * (a TypeError) or clearly treated the options object as a document id, retries the legacy form
 * `chunk(text, docId)`, as the spec's index_documents does.
 */
async function callChunker(chunker: Chunker, text: string, docId: string, source: string): Promise<DocumentChunk[]> {
  let produced: unknown;
  try {
    produced = await chunker.chunk(text, { docId, source });
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return chunker.chunk(text, docId);
  }
  if (Array.isArray(produced) && produced.some((chunk) => chunk && typeof (chunk as DocumentChunk).docId !== 'string')) {
    return chunker.chunk(text, docId);
  }
  if (!Array.isArray(produced)) throw invalidArgument('chunker.chunk(text, options)', 'to return an array of chunks', produced);
  return produced as DocumentChunk[];
}

/** Converts a legacy `[chunk, score]` tuple (chunk with `docId`/`doc_id` and `text`) to a ScoredChunk. */
export function tupleToScored(tuple: unknown, index: number): ScoredChunk {
  if (!Array.isArray(tuple) || tuple.length !== 2) throw invalidArgument(`chunks[${index}]`, 'a [chunk, score] tuple', tuple);
  const [raw, score] = tuple as [Record<string, unknown>, unknown];
  if (typeof score !== 'number' || !Number.isFinite(score)) throw invalidArgument(`chunks[${index}][1]`, 'a finite number (the score)', score);
  if (raw === null || typeof raw !== 'object') throw invalidArgument(`chunks[${index}][0]`, 'a chunk object', raw);
  const input: Record<string, unknown> = { docId: raw.docId ?? raw.doc_id, text: raw.text };
  for (const key of ['id', 'source', 'title', 'metadata', 'position', 'timestamp', 'embedding'] as const) {
    if (raw[key] !== undefined) input[key] = raw[key];
  }
  const chunk = toDocumentChunk(input, index, `chunks[${index}][0]`);
  return { chunk, score, scores: { vector: score, composite: score } };
}

export type { UsedChunk, MetadataFilter };
