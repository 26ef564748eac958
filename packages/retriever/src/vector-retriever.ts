import { MemoryVectorStore } from '@zerda/vector-memory';
import {
  isVectorMetric,
  createError,
  invalidArgument,
  matchesFilter,
  toDocumentChunks,
  type DocumentChunk,
  type EmbedFunction,
  type Embedder,
  type MetadataFilter,
  type RetrieveOptions,
  type Retriever,
  type ScoredChunk,
  type VectorMetric,
  type VectorSearchHit,
  type VectorStore,
  type SnapshotReader,
  type SnapshotWriter,
  readSnapshotJson,
  vectorStoreIdentity,
  writeSnapshotJson,
  type VectorStoreIdentity,
} from '@zerda/types';
import { embedTexts, toEmbedder, type EmbeddingProgress } from './embedder-adapter.js';
import { LangChainVectorStoreAdapter, type LangChainAdapterOptions, type LangChainVectorStoreLike } from './langchain-adapter.js';
import { optionsObject, parseDocIds, parseName, parseRetrieveOptions, rejectUnknownOptions, throwIfAborted } from './retrieve-options.js';
import { WriteQueue } from './write-queue.js';

/** Options of {@link VectorRetriever}. An `embedder`, a `store`, or both are required. */
export interface VectorRetrieverOptions {
  /** Name recorded in `ScoredChunk.retrievers` and used for hybrid weights. Default `'vector'`. */
  name?: string;
  /** Embeds queries (kind `query`) and chunks that have no embedding (kind `document`). */
  embedder?: Embedder | EmbedFunction;
  /** A native VectorStore. Default: a new `MemoryVectorStore` (exact search) with `metric`. */
  store?: VectorStore;
  /** `false` points the retriever at an already populated store: `index`/`add` write nothing. Default true. */
  addToStore?: boolean;
  /** Metric of the default store (not allowed with `store`). Default `'cosine'`. */
  metric?: VectorMetric;
  /** Texts per embedder call. Default 64. */
  batchSize?: number;
  /** Over-fetch factor when the store cannot filter natively: k × overFetch candidates per round, growing by the same factor. Default 4. */
  overFetch?: number;
  /** Largest k requested from a store while over-fetching for a filter. Default 10 000. */
  maxFetch?: number;
}

/** Options of {@link VectorRetriever.index} and {@link VectorRetriever.add}. */
export interface VectorIndexOptions {
  /** Texts per embedder call (overrides the retriever's `batchSize`). */
  batchSize?: number;
  /** Called after each embedded batch. */
  onProgress?: (progress: EmbeddingProgress) => void;
  signal?: AbortSignal;
}

/** Options of {@link VectorRetriever.fromLangChain}. */
export interface FromLangChainOptions extends LangChainAdapterOptions {
  /** Embeds queries (and chunks added through the retriever). Without one, the store's own embeddings are used via `similaritySearchWithScore`. */
  embedder?: Embedder | EmbedFunction;
  name?: string;
  /** Default true: `index`/`add` write into the LangChain store. */
  addToStore?: boolean;
  overFetch?: number;
  maxFetch?: number;
}

const OPTION_KEYS = ['name', 'embedder', 'store', 'addToStore', 'metric', 'batchSize', 'overFetch', 'maxFetch'] as const;

/** What `vector.json` of a retriever snapshot records. */
interface VectorSnapshotRecord {
  format: 'zerda.vector-retriever';
  version: 1;
  name: string;
  addToStore: boolean;
  embedder: { modelId: string; dimensions: number | null } | null;
  store: VectorStoreIdentity & { count: number; inSnapshot: boolean };
}

function describeIdentity(identity: VectorStoreIdentity & { count: number }): string {
  const where = identity.location ? ` ${identity.location}` : '';
  return `${identity.name}${where} (${identity.metric}, ${identity.dimensions ?? 'unknown'} dimensions, ${identity.count} chunks)`;
}

/** Internal: whether a value has the shape of a zerda `VectorStore`. */
export function isVectorStore(value: unknown): value is VectorStore {
  if (typeof value !== 'object' || value === null) return false;
  const store = value as VectorStore;
  return typeof store.add === 'function' && typeof store.search === 'function' && typeof store.delete === 'function' && typeof store.count === 'function' && typeof store.capabilities === 'object' && store.capabilities !== null;
}

function positiveInteger(value: unknown, fallback: number, field: string, minimum = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum) throw invalidArgument(field, `an integer >= ${minimum}`, value);
  return value;
}

function parseIndexOptions(value: unknown, fallbackBatchSize: number): { batchSize: number; onProgress: ((progress: EmbeddingProgress) => void) | undefined; signal: AbortSignal | undefined } {
  const record = optionsObject(value, 'options');
  rejectUnknownOptions(record, ['batchSize', 'onProgress', 'signal'], 'options');
  if (record.onProgress !== undefined && typeof record.onProgress !== 'function') throw invalidArgument('options.onProgress', 'a function', record.onProgress);
  const signal = record.signal as AbortSignal | undefined;
  if (signal !== undefined && (typeof signal !== 'object' || signal === null || typeof signal.aborted !== 'boolean')) throw invalidArgument('options.signal', 'an AbortSignal', signal);
  return { batchSize: positiveInteger(record.batchSize, fallbackBatchSize, 'options.batchSize'), onProgress: record.onProgress as ((progress: EmbeddingProgress) => void) | undefined, signal };
}

/**
 * Dense retrieval over any VectorStore, reached three ways:
 * 1. `new VectorRetriever({ embedder })` — chunks are embedded in batches into a default
 *    `MemoryVectorStore` (exact search);
 * 2. `new VectorRetriever({ store, embedder? })` — a native zerda `VectorStore`, written by
 *    `index`/`add`, or used as populated with `addToStore: false`;
 * 3. `VectorRetriever.fromLangChain(store, { embedder? })` — a LangChain.js vector store, its scores
 *    converted to similarities.
 *
 * The query is embedded with kind `query`. Filters go to stores that filter natively; for the others
 * the retriever over-fetches (k × `overFetch`, growing until enough chunks pass or the store is
 * exhausted) and filters with the shared evaluator — either way no returned chunk fails the filter.
 * Scores are the store's similarities (`score` and `scores.vector`): cosine in [-1, 1], inner
 * product as is, or 1 / (1 + euclidean) for l2. An empty or blank query returns [].
 */
export class VectorRetriever implements Retriever {
  readonly name: string;
  readonly embedder: Embedder | undefined;
  readonly addToStore: boolean;
  private currentStore: VectorStore;
  private readonly ownsStore: boolean;
  private readonly metric: VectorMetric;
  private readonly batchSize: number;
  private readonly overFetch: number;
  private readonly maxFetch: number;
  /** Ids added per docId, kept only for stores that cannot delete by docId or clear themselves. */
  private readonly idsByDocId: Map<string, Set<string>> | undefined;
  private readonly docIdById = new Map<string, string>();
  private readonly writes = new WriteQueue();

  constructor(options: VectorRetrieverOptions) {
    const record = optionsObject(options, 'options');
    rejectUnknownOptions(record, OPTION_KEYS, 'options');
    if (record.embedder === undefined && record.store === undefined) {
      throw invalidArgument('options', 'an object with an embedder, a store, or both', options);
    }
    this.name = parseName(record.name, 'vector');
    this.embedder = record.embedder === undefined ? undefined : toEmbedder(record.embedder, 'options.embedder');
    if (record.addToStore !== undefined && typeof record.addToStore !== 'boolean') throw invalidArgument('options.addToStore', 'a boolean', record.addToStore);
    this.addToStore = (record.addToStore as boolean | undefined) ?? true;
    this.batchSize = positiveInteger(record.batchSize, 64, 'options.batchSize');
    this.overFetch = positiveInteger(record.overFetch, 4, 'options.overFetch', 2);
    this.maxFetch = positiveInteger(record.maxFetch, 10_000, 'options.maxFetch');
    if (record.store !== undefined) {
      if (!isVectorStore(record.store)) throw invalidArgument('options.store', 'a VectorStore (add, search, delete, count, capabilities)', record.store);
      if (record.metric !== undefined) throw invalidArgument('options.metric', 'absent when a store is given (the store defines its metric)', record.metric);
      this.currentStore = record.store;
      this.ownsStore = false;
      this.metric = record.store.metric;
    } else {
      if (record.metric !== undefined && !isVectorMetric(record.metric)) throw invalidArgument('options.metric', 'one of "cosine", "ip", "l2"', record.metric);
      this.metric = (record.metric as VectorMetric | undefined) ?? 'cosine';
      this.ownsStore = true;
      this.currentStore = this.createDefaultStore();
    }
    const store = this.currentStore;
    this.idsByDocId = typeof store.deleteByDocIds === 'function' && typeof store.clear === 'function' ? undefined : new Map();
  }

  /**
   * Wraps a LangChain.js vector store (structurally typed: anything with
   * `similaritySearchVectorWithScore` or `similaritySearchWithScore`). With an `embedder`, queries
   * are embedded here and searched by vector; without one, the store embeds the query text itself.
   * Scores are converted per the store type (see `detectLangChainScoreType`, or pass `scoreType`).
   */
  static fromLangChain(vectorStore: LangChainVectorStoreLike, options: FromLangChainOptions = {}): VectorRetriever {
    const record = optionsObject(options, 'options');
    rejectUnknownOptions(record, ['embedder', 'name', 'addToStore', 'overFetch', 'maxFetch', 'scoreType', 'translateFilter'], 'options');
    const adapterOptions: LangChainAdapterOptions = {};
    if (record.scoreType !== undefined) adapterOptions.scoreType = record.scoreType as LangChainAdapterOptions['scoreType'];
    if (record.translateFilter !== undefined) adapterOptions.translateFilter = record.translateFilter as LangChainAdapterOptions['translateFilter'];
    const adapter = new LangChainVectorStoreAdapter(vectorStore, adapterOptions);
    const retrieverOptions: VectorRetrieverOptions = { store: adapter };
    for (const key of ['embedder', 'name', 'addToStore', 'overFetch', 'maxFetch'] as const) {
      if (record[key] !== undefined) (retrieverOptions as Record<string, unknown>)[key] = record[key];
    }
    return new VectorRetriever(retrieverOptions);
  }

  /** The store searched (the default MemoryVectorStore, the given store, or the LangChain adapter). */
  get store(): VectorStore {
    return this.currentStore;
  }

  /** The `topK` most similar chunks that pass `options.filter`, best first. */
  async retrieve(query: string, options?: RetrieveOptions): Promise<ScoredChunk[]> {
    const { topK, filter, signal } = parseRetrieveOptions(query, options);
    if (topK === 0 || query.trim().length === 0) return [];
    const store = this.currentStore;
    const search = await this.searchFunction(store, query, signal);
    const native = !filter || store.capabilities.nativeFilter;
    let hits: VectorSearchHit[];
    if (native) {
      hits = this.accept(await search(topK, filter), filter, topK);
    } else {
      // Over-fetch and post-filter: grow k until enough hits pass or the store has nothing more.
      let k = Math.min(topK * this.overFetch, this.maxFetch);
      for (;;) {
        throwIfAborted(signal);
        const raw = await search(k, undefined);
        hits = this.accept(raw, filter, topK);
        if (hits.length >= topK || raw.length < k || k >= this.maxFetch) break;
        k = Math.min(k * this.overFetch, this.maxFetch);
      }
    }
    return hits.map((hit) => ({ chunk: hit.chunk, score: hit.score, scores: { vector: hit.score }, retrievers: [this.name] }));
  }

  /**
   * Replaces the corpus. Chunks without an embedding are embedded in batches (kind `document`);
   * chunks that carry one are stored as they are. The default store is rebuilt and swapped in whole;
   * a given store is cleared (`clear()`, or deleting the ids this retriever added) and refilled — all
   * embeddings are computed and checked first. With `addToStore: false` nothing is written.
   */
  async index(chunks: DocumentChunk[], options?: VectorIndexOptions): Promise<void> {
    const validated = toDocumentChunks(chunks, 'chunks');
    const parsed = parseIndexOptions(options, this.batchSize);
    await this.writes.run(async () => {
      if (!this.addToStore) return;
      if (this.ownsStore) {
        const store = this.createDefaultStore();
        const prepared = await this.prepare(validated, parsed, store);
        await store.add(prepared);
        this.currentStore = store;
        return;
      }
      const store = this.currentStore;
      const prepared = await this.prepare(validated, parsed, store);
      if (typeof store.clear === 'function') {
        await store.clear();
      } else if (this.idsByDocId && this.idsByDocId.size > 0) {
        await store.delete([...this.idsByDocId.values()].flatMap((ids) => [...ids]));
      } else if ((await store.count()) > 0) {
        throw createError('ZERDA_UNSUPPORTED', { operation: 'index (replace the corpus)', component: `store ${store.name}`, reason: 'the store has no clear() and holds chunks this retriever did not add; use add() instead' });
      }
      this.idsByDocId?.clear();
      this.docIdById.clear();
      await store.add(prepared);
      this.track(prepared);
    });
  }

  /**
   * Embeds the chunks that carry no embedding (kind `document`, in batches, with `onProgress`) and
   * returns them with their embeddings, changing nothing: `add`/`index` of the result then only
   * write. HybridRetriever calls it ahead of a write so that reads do not wait for embedding.
   */
  async prepareChunks(chunks: DocumentChunk[], options?: VectorIndexOptions): Promise<DocumentChunk[]> {
    const validated = toDocumentChunks(chunks, 'chunks');
    const parsed = parseIndexOptions(options, this.batchSize);
    if (!this.addToStore) return validated;
    return this.prepare(validated, parsed, this.currentStore);
  }

  /** Adds or replaces (by id) chunks, embedding those without an embedding. */
  async add(chunks: DocumentChunk[], options?: VectorIndexOptions): Promise<void> {
    const validated = toDocumentChunks(chunks, 'chunks');
    const parsed = parseIndexOptions(options, this.batchSize);
    await this.writes.run(async () => {
      if (!this.addToStore) return;
      const store = this.currentStore;
      const prepared = await this.prepare(validated, parsed, store);
      await store.add(prepared);
      this.track(prepared);
    });
  }

  /**
   * Removes every chunk of the given documents from the store — also with `addToStore: false`
   * (through `deleteByDocIds`; stores without it can only forget chunks this retriever added).
   */
  async remove(docIds: string[]): Promise<void> {
    const ids = parseDocIds(docIds, 'docIds');
    await this.writes.run(async () => {
      const store = this.currentStore;
      if (typeof store.deleteByDocIds === 'function') {
        await store.deleteByDocIds(ids);
        this.forget(ids);
        return;
      }
      if (!this.addToStore) {
        throw createError('ZERDA_UNSUPPORTED', { operation: 'remove by docId', component: `store ${store.name}`, reason: 'the store has no deleteByDocIds() and its chunks were not added by this retriever' });
      }
      const chunkIds = ids.flatMap((docId) => [...(this.idsByDocId?.get(docId) ?? [])]);
      await store.delete(chunkIds);
      this.forget(ids);
    });
  }

  /** Number of chunks in the store. */
  async size(): Promise<number> {
    return this.currentStore.count();
  }

  /**
   * Writes the retriever into a snapshot (`ContextEngine.save`): `vector.json` records its name, the
   * embedder's model id and dimension, and the store's identity and size; a store that keeps its data
   * in snapshots (`capabilities.snapshot`: memory, HNSW) writes it under `store/`. A database or
   * server store keeps its data where it is. Queued like a write.
   */
  async writeSnapshot(writer: SnapshotWriter): Promise<void> {
    await this.writes.run(async () => {
      const store = this.currentStore;
      const inSnapshot = store.capabilities.snapshot === true && typeof store.writeSnapshot === 'function';
      const record: VectorSnapshotRecord = {
        format: 'zerda.vector-retriever',
        version: 1,
        name: this.name,
        addToStore: this.addToStore,
        embedder: this.embedder ? { modelId: this.embedder.modelId, dimensions: this.embedder.dimensions ?? store.dimensions ?? null } : null,
        store: { ...vectorStoreIdentity(store), count: await store.count(), inSnapshot },
      };
      await writeSnapshotJson(writer, 'vector.json', record);
      if (inSnapshot) await store.writeSnapshot!(writer.scope('store'));
    });
  }

  /**
   * Restores from a snapshot written by {@link writeSnapshot}. The embedder must be the model the
   * snapshot was written with (same model id and dimension; a plain function is taken on trust),
   * and the store must match: a snapshot that holds the vectors restores them into this retriever's
   * store (a new default store, or the given one, which must be empty and able to read them); a
   * snapshot of a database store needs that same store (backend, metric, dimension, location and
   * size). Mismatches fail with `ZERDA_INVALID_ARGUMENT` naming `embedder` or `store`.
   */
  async readSnapshot(reader: SnapshotReader): Promise<void> {
    const record = (await readSnapshotJson(reader, 'vector.json')) as unknown as VectorSnapshotRecord;
    if (record.format !== 'zerda.vector-retriever') throw reader.corrupt('vector.json', 'format', `expected format "zerda.vector-retriever", got ${JSON.stringify(record.format)}`);
    if (record.version !== 1) throw reader.corrupt('vector.json', 'version', `vector retriever snapshot version ${JSON.stringify(record.version)} is not supported (this version reads 1)`);
    if (record.store === null || typeof record.store !== 'object') throw reader.corrupt('vector.json', 'consistency', 'the store identity is missing');
    this.checkEmbedder(record.embedder);
    await this.writes.run(async () => {
      if (record.store.inSnapshot) {
        const store = this.ownsStore ? this.createDefaultStore(this.metric, record.store.dimensions ?? undefined) : this.currentStore;
        if (typeof store.readSnapshot !== 'function' || store.capabilities.snapshot !== true) {
          throw invalidArgument('store', `a store that reads the snapshot's ${record.store.name} vectors (pass an empty store of that kind)`, store);
        }
        if (store.name !== record.store.name) throw createError('ZERDA_INVALID_ARGUMENT', { field: 'store', expected: `an empty ${record.store.name} store (the snapshot holds that store's data)`, received: `a ${store.name} store` });
        await store.readSnapshot(reader.scope('store'));
        this.currentStore = store;
        return;
      }
      const store = this.currentStore;
      // The size is compared where it is known: not for a store populated elsewhere, nor for a
      // LangChain store (the adapter only counts what it added itself).
      const countable = record.addToStore && !(store instanceof LangChainVectorStoreAdapter);
      const actual = { ...vectorStoreIdentity(store), count: countable ? await store.count() : record.store.count };
      const expected = record.store;
      const same =
        actual.name === expected.name &&
        actual.metric === expected.metric &&
        (actual.dimensions === null || expected.dimensions === null || actual.dimensions === expected.dimensions) &&
        actual.location === expected.location &&
        actual.count === expected.count;
      if (!same) throw createError('ZERDA_INVALID_ARGUMENT', { field: 'store', expected: `the store the snapshot was saved with: ${describeIdentity(expected)}`, received: describeIdentity(actual) });
    });
  }

  private checkEmbedder(recorded: VectorSnapshotRecord['embedder']): void {
    if (recorded === null) return;
    if (!this.embedder) throw invalidArgument('embedder', `an embedder for ${recorded.modelId} (the snapshot's vectors were made with it)`, undefined);
    const own = this.embedder;
    const trusted = recorded.modelId.startsWith('function') || own.modelId.startsWith('function');
    const dimensionsDiffer = recorded.dimensions !== null && own.dimensions !== undefined && own.dimensions !== recorded.dimensions;
    if ((!trusted && own.modelId !== recorded.modelId) || dimensionsDiffer) {
      const describe = (modelId: string, dimensions: number | null | undefined) => `${modelId}${dimensions ? ` (${dimensions} dimensions)` : ''}`;
      throw createError('ZERDA_INVALID_ARGUMENT', { field: 'embedder', expected: `the model the snapshot's vectors were made with, ${describe(recorded.modelId, recorded.dimensions)}`, received: describe(own.modelId, own.dimensions) });
    }
  }

  private createDefaultStore(metric: VectorMetric = this.metric, dimensions: number | undefined = this.embedder?.dimensions): MemoryVectorStore {
    return new MemoryVectorStore(typeof dimensions === 'number' ? { metric, dimensions } : { metric });
  }

  /** How this retriever searches `store` for `query`: by vector when it has an embedder, else by text through a LangChain store. */
  private async searchFunction(store: VectorStore, query: string, signal: AbortSignal | undefined): Promise<(k: number, filter: MetadataFilter | undefined) => Promise<VectorSearchHit[]>> {
    const adapter = store instanceof LangChainVectorStoreAdapter ? store : undefined;
    if (this.embedder && (!adapter || adapter.searchesByVector)) {
      const [vector] = await embedTexts(this.embedder, [query], { kind: 'query', signal, dimensions: store.dimensions, fieldOf: () => 'query embedding' });
      return (k, filter) => store.search(vector!, filter ? { k, filter } : { k });
    }
    if (adapter?.searchesByText) return (k, filter) => adapter.searchQuery(query, filter ? { k, filter } : { k });
    throw createError('ZERDA_NOT_READY', { component: `VectorRetriever "${this.name}"`, reason: 'it needs an embedder to embed queries (options.embedder)' });
  }

  /** Hits that pass the filter, de-duplicated by chunk id (first wins), sorted, at most `topK`. */
  private accept(hits: VectorSearchHit[], filter: MetadataFilter | undefined, topK: number): VectorSearchHit[] {
    const seen = new Set<string>();
    const kept: VectorSearchHit[] = [];
    for (const hit of hits) {
      if (seen.has(hit.chunk.id) || (filter && !matchesFilter(hit.chunk, filter))) continue;
      seen.add(hit.chunk.id);
      kept.push(hit);
    }
    kept.sort((a, b) => b.score - a.score);
    return kept.slice(0, topK);
  }

  /** Embeds the chunks that need it (all checked before anything is written). */
  private async prepare(chunks: DocumentChunk[], options: { batchSize: number; onProgress: ((progress: EmbeddingProgress) => void) | undefined; signal: AbortSignal | undefined }, store: VectorStore): Promise<DocumentChunk[]> {
    const missing: number[] = [];
    chunks.forEach((chunk, index) => {
      if (chunk.embedding === undefined) missing.push(index);
    });
    if (missing.length === 0 || (!this.embedder && store.capabilities.embeds)) return chunks;
    if (!this.embedder) {
      const index = missing[0]!;
      throw invalidArgument(`chunks[${index}].embedding`, 'an embedding (this VectorRetriever has no embedder and its store does not embed)', undefined);
    }
    const known = store.dimensions ?? chunks.find((chunk) => chunk.embedding !== undefined)?.embedding?.length;
    const vectors = await embedTexts(this.embedder, missing.map((index) => chunks[index]!.text), {
      kind: 'document',
      batchSize: options.batchSize,
      onProgress: options.onProgress,
      signal: options.signal,
      dimensions: known,
      fieldOf: (position) => `chunks[${missing[position]}].embedding`,
    });
    const prepared = chunks.slice();
    missing.forEach((index, position) => {
      prepared[index] = { ...chunks[index]!, embedding: vectors[position]! };
    });
    return prepared;
  }

  private forget(docIds: string[]): void {
    for (const docId of docIds) {
      for (const id of this.idsByDocId?.get(docId) ?? []) this.docIdById.delete(id);
      this.idsByDocId?.delete(docId);
    }
  }

  private track(chunks: DocumentChunk[]): void {
    if (!this.idsByDocId) return;
    for (const chunk of chunks) {
      // A re-added id may have moved to another document.
      const previous = this.docIdById.get(chunk.id);
      if (previous !== undefined && previous !== chunk.docId) this.idsByDocId.get(previous)?.delete(chunk.id);
      this.docIdById.set(chunk.id, chunk.docId);
      let ids = this.idsByDocId.get(chunk.docId);
      if (!ids) this.idsByDocId.set(chunk.docId, (ids = new Set()));
      ids.add(chunk.id);
    }
  }
}
