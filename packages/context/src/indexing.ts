import { HybridRetriever, KeywordRetriever, StoreTextRetriever, VectorRetriever, WriteQueue } from '@zerda/retriever';
import {
  ZerdaError,
  invalidArgument,
  toDocumentChunks,
  vectorStoreIdentity,
  type Chunker,
  type DocumentChunk,
  type EmbedFunction,
  type Embedder,
  type RetrievalConfig,
  type Retriever,
  type SnapshotReader,
  type SourceQualityMap,
} from '@zerda/types';
import type { IndexDocumentsOptions, IndexOptions, OpenOptions, indexOptionsSchema } from './options.js';
import { asOpenError, checkVectorSource, type BuiltRetrieverRecord, type EngineRecord } from './snapshot.js';
import { traced, type EngineTelemetry } from './tracing.js';

type Log = (level: 'debug' | 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string) => void;

/** What the corpus needs of its engine. */
export interface CorpusSettings {
  retrieval: RetrievalConfig;
  /** The retriever given to the engine's constructor: `index()` fills it instead of building one. */
  injected: Retriever | undefined;
  defaultEmbedder: Embedder | EmbedFunction | undefined;
  telemetry: EngineTelemetry;
  log: Log;
}

/**
 * An engine's corpus: the retriever that answers queries, how it was built (for snapshots), the
 * source-quality map, the corpus size and generation (bumped on every change; part of every cache
 * key). Writes (index, add, remove) and snapshots run one at a time, in call order, through
 * `writes`; each write is traced as `zerda.<operation>`.
 */
export class EngineCorpus {
  retriever: Retriever | undefined;
  /** How `index()` built the current retriever (undefined: injected, or nothing indexed yet). */
  builtRetriever: BuiltRetrieverRecord | undefined;
  sourceQualityMap: SourceQualityMap = {};
  generation = 0;
  size = 0;
  readonly writes = new WriteQueue();

  constructor(private readonly settings: CorpusSettings) {
    this.retriever = settings.injected;
  }

  /** Queues the write `operation` (in call order) and runs it inside its span. */
  write(operation: 'index' | 'add' | 'remove', input: unknown, task: () => Promise<void>): Promise<void> {
    return this.writes.run(() =>
      traced(
        this.settings.telemetry,
        `zerda.${operation}`,
        { 'zerda.operation': operation, [operation === 'remove' ? 'zerda.documents.count' : 'zerda.chunks.count']: Array.isArray(input) ? input.length : undefined },
        () => task(),
        () => ({ 'zerda.corpus.size': this.size, 'zerda.corpus.generation': this.generation, 'zerda.retriever': this.retriever?.name }),
      ),
    );
  }

  /** Replaces the corpus (see `ContextEngine.index`): new retrievers are built before the old ones are let go. */
  async index(chunks: unknown, options: IndexOptions, parsed: NonNullable<ReturnType<typeof indexOptionsSchema.parse>>): Promise<void> {
    if (!Array.isArray(chunks)) throw invalidArgument('chunks', 'an array of chunks', chunks);
    if (chunks.length === 0) {
      this.settings.log('warn', { event: 'index_empty' }, 'ContextEngine.index: empty chunk list, nothing indexed');
      return;
    }
    const documentChunks = toDocumentChunks(chunks, 'chunks');
    const sourceQualityMap = (parsed.sourceQualityMap ?? options.sourceQualityMap ?? this.sourceQualityMap) as SourceQualityMap;
    const injected = this.settings.injected;
    if (injected && this.retriever) {
      // Defect 2 of the spec: never build (or embed into) retrievers that would be discarded.
      if (typeof this.retriever.index === 'function') await this.retriever.index(documentChunks);
      this.commit(documentChunks.length, sourceQualityMap);
      return;
    }
    const created = this.createRetriever(options);
    await fillRetriever(created, documentChunks, options);
    this.retriever = created.retriever;
    this.builtRetriever = created.record;
    this.commit(documentChunks.length, sourceQualityMap);
  }

  /** Adds (or updates, by id) chunks through the retriever's `add` (indexes them when nothing is indexed yet). */
  async add(documentChunks: DocumentChunk[]): Promise<void> {
    if (!this.retriever) return this.index(documentChunks, {}, {});
    if (typeof this.retriever.add !== 'function') {
      throw new ZerdaError('ZERDA_UNSUPPORTED', { operation: 'add', component: this.retriever.name ?? 'the retriever' });
    }
    await this.retriever.add(documentChunks);
    this.commit(this.size + documentChunks.length, this.sourceQualityMap);
  }

  /** Removes every chunk of the given documents through the retriever's `remove`. */
  async remove(docIds: string[]): Promise<void> {
    if (!this.retriever || docIds.length === 0) return;
    if (typeof this.retriever.remove !== 'function') {
      throw new ZerdaError('ZERDA_UNSUPPORTED', { operation: 'remove', component: this.retriever.name ?? 'the retriever' });
    }
    await this.retriever.remove(docIds);
    const size = typeof this.retriever.size === 'function' ? await this.retriever.size() : this.size;
    this.commit(size, this.sourceQualityMap);
  }

  /** The retrievers `index()` builds for these options, empty. */
  createRetriever(options: RetrieverOptions): CreatedRetriever {
    return createRetriever(options, this.settings.retrieval, this.settings.defaultEmbedder, (fields, message) => this.settings.log('warn', fields, message));
  }

  /** What a snapshot records of the retriever: none, built by `index()` (and how), or injected. */
  retrieverRecord(): EngineRecord['retriever'] {
    const retriever = this.retriever;
    if (!retriever) return { kind: 'none' };
    if (this.builtRetriever) return { kind: 'built', ...this.builtRetriever };
    return { kind: 'injected', name: retriever.name, inSnapshot: typeof retriever.writeSnapshot === 'function' };
  }

  /**
   * Takes the corpus `record` describes: a built retriever is created as `index()` would (with the
   * stores in `options`) and reads its files from the snapshot, an injected one reads them itself.
   */
  async restore(record: EngineRecord, reader: SnapshotReader, options: OpenOptions): Promise<void> {
    try {
      if (record.retriever.kind === 'built') {
        checkVectorSource(record.retriever, options);
        const { retriever } = this.createRetriever({
          keywordSearch: record.retriever.keywordSearch,
          ...(options.vectorDb ? { vectorDb: options.vectorDb } : {}),
          ...(options.vectorStoreAdapter ? { vectorStoreAdapter: options.vectorStoreAdapter } : {}),
          ...(record.retriever.vector ? { addToVectorDb: record.retriever.vector.addToVectorDb } : {}),
        });
        await retriever.readSnapshot!(reader.scope('retriever'));
        this.retriever = retriever;
        this.builtRetriever = { keywordSearch: record.retriever.keywordSearch, vector: record.retriever.vector };
      } else if (record.retriever.kind === 'injected' && record.retriever.inSnapshot) {
        const retriever = this.retriever!;
        if (typeof retriever.readSnapshot !== 'function') throw invalidArgument('options.retriever', `a retriever that reads the snapshot of "${retriever.name}" (it has readSnapshot)`, retriever);
        await retriever.readSnapshot(reader.scope('retriever'));
      }
    } catch (error) {
      throw asOpenError(error);
    }
    this.sourceQualityMap = record.sourceQualityMap;
    this.size = record.corpusSize;
    this.generation = record.corpusGeneration;
  }

  private commit(size: number, sourceQualityMap: SourceQualityMap): void {
    this.size = size;
    this.sourceQualityMap = sourceQualityMap;
    this.generation += 1;
    this.settings.log('info', { event: 'indexed', chunks: size, generation: this.generation }, `ContextEngine: indexed ${size} chunks`);
  }
}

/** The options that decide which retrievers `index()` builds (and `open` recreates). */
export type RetrieverOptions = Pick<IndexOptions, 'keywordSearch' | 'vectorDb' | 'embedder' | 'vectorStoreAdapter' | 'addToVectorDb'>;

/** The retrievers {@link createRetriever} made, empty, and the record a snapshot keeps of them. */
export interface CreatedRetriever {
  retriever: Retriever;
  keyword: KeywordRetriever | StoreTextRetriever;
  vector: VectorRetriever | undefined;
  record: BuiltRetrieverRecord;
}

/**
 * Creates (empty) the retrievers `index()` builds for these options — the keyword side, the
 * vector side, fused when both exist — and the record a snapshot keeps of them, so that `open`
 * recreates exactly the same structure. Vector precedence: `vectorDb`, then `vectorStoreAdapter`,
 * then an embedder (into the in-memory store); `warn` is told when both a `vectorDb` and an
 * `embedder` are given.
 */
export function createRetriever(
  options: RetrieverOptions,
  retrievalConfig: RetrievalConfig,
  defaultEmbedder: Embedder | EmbedFunction | undefined,
  warn: (fields: Record<string, unknown>, message: string) => void,
): CreatedRetriever {
  let keyword: KeywordRetriever | StoreTextRetriever;
  if (options.keywordSearch === 'store') {
    // Checked before anything is written: the store must answer text queries itself.
    if (!options.vectorDb) throw invalidArgument('options.keywordSearch', "'store' together with a vectorDb whose capabilities.textSearch is true", options.keywordSearch);
    keyword = new StoreTextRetriever({ store: options.vectorDb });
  } else {
    keyword = new KeywordRetriever({ k1: retrievalConfig.bm25.k1, b: retrievalConfig.bm25.b, titleWeight: retrievalConfig.bm25.titleWeight });
  }
  // The in-memory retrievers are validated and built completely before anything is swapped in.
  const embedder = options.embedder ?? defaultEmbedder;
  let vector: VectorRetriever | undefined;
  let source: 'embedder' | 'vectorDb' | 'adapter' | undefined;
  if (options.vectorDb) {
    if (options.embedder) {
      warn({ event: 'embedder_and_vector_db', store: options.vectorDb.name }, `ContextEngine.index: both embedder and vectorDb given; vectors are stored in ${options.vectorDb.name}, the embedder embeds queries and chunks that carry no embedding`);
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

/** Fills the retrievers {@link createRetriever} made with `chunks` (nothing is swapped in here). */
export async function fillRetriever(created: CreatedRetriever, chunks: DocumentChunk[], options: IndexOptions): Promise<void> {
  const { keyword, vector } = created;
  if (keyword instanceof KeywordRetriever) await keyword.index(chunks);
  if (vector) await vector.index(chunks, { batchSize: options.batchSize, onProgress: options.onProgress });
}

/**
 * Chunks raw `texts` with `chunker` (the modern or the legacy form): default ids `doc_${i}`, default
 * sources the ids, and each text's title and metadata given to its chunks. `texts` and the per-text
 * option lists are checked here; the chunks themselves are checked by `index()`.
 */
export async function chunkDocuments(texts: unknown[], chunker: Chunker, options: Pick<IndexDocumentsOptions, 'docIds' | 'sources' | 'titles' | 'metadata'>): Promise<DocumentChunk[]> {
  const { docIds, sources, titles, metadata } = options;
  for (const [field, list] of [['docIds', docIds], ['sources', sources], ['titles', titles], ['metadata', metadata]] as const) {
    if (list && list.length !== texts.length) throw invalidArgument(`options.${field}`, `an array of ${texts.length} entries (one per text)`, list);
  }
  const all: DocumentChunk[] = [];
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i];
    if (typeof text !== 'string') throw invalidArgument(`texts[${i}]`, 'a string', text);
    const docId = docIds?.[i] ?? `doc_${i}`;
    const source = sources?.[i] ?? docId;
    const produced = await callChunker(chunker, text, docId, source);
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
  return all;
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
