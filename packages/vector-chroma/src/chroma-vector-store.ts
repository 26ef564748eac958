import { ChromaClient, type Collection, type Metadata as ChromaRecordMetadata, type Where } from 'chromadb';
import {
  ZerdaError,
  compareSearchHits,
  createError,
  invalidArgument,
  matchesFilter,
  similarityFromOneMinusDistance,
  toDocumentChunks,
  validateEmbedding,
  validateIdList,
  validateSearchOptions,
  type DocumentChunk,
  type Embedding,
  type VectorMetric,
  type VectorSearchHit,
  type VectorSearchOptions,
  type VectorStore,
  type VectorStoreCapabilities,
  checkInteger,
  checkBoolean,
} from '@zerda/types';
import { DOC_ID_KEY, fromChromaRecord, isFlagKey, toChromaMetadata } from './chroma-records.js';
import { translateWhere } from './chroma-filter.js';

/** Options of {@link ChromaVectorStore}. */
export interface ChromaVectorStoreOptions {
  /** A `ChromaClient` (`new ChromaClient({ host, port })`); default: one for `url`. */
  client?: ChromaClient;
  /** The server, e.g. `http://127.0.0.1:8000` (used when no `client` is given). Default `http://localhost:8000`. */
  url?: string;
  /** Collection name: 3–512 of `[a-zA-Z0-9._-]`, starting and ending with a letter or digit. Default `zerda_chunks`. */
  collection?: string;
  /** Distance of the collection's HNSW index (`cosine`, `ip`, `l2`); scores are always similarities. Default `cosine`, or the collection's. */
  metric?: VectorMetric;
  /** Embedding dimension; otherwise read from the collection or set by the first vector. */
  dimensions?: number;
  /** Records per request (capped by the server's maximum batch size). Default 1,000. */
  batchSize?: number;
  /** Return embeddings with hits and `get`. Default true. */
  includeEmbeddings?: boolean;
  /** First over-fetch factor when part of a filter is checked after the query (string ranges). Default 4. */
  overFetch?: number;
  /**
   * HNSW settings for a new collection. Defaults `efSearch` 256, `efConstruction` 100,
   * `maxNeighbors` 24 — those of @zerda/vector-hnswlib (Chroma's index is hnswlib): Chroma's own
   * 100 / 100 / 16 gave recall@10 0.86 at 100k on @zerda/bench's GloVe vectors.
   */
  hnsw?: { efSearch?: number; efConstruction?: number; maxNeighbors?: number };
}

const OPTION_KEYS = new Set(['client', 'url', 'collection', 'metric', 'dimensions', 'batchSize', 'includeEmbeddings', 'overFetch', 'hnsw']);
const METRICS: readonly VectorMetric[] = ['cosine', 'ip', 'l2'];
const COLLECTION_NAME = /^[a-zA-Z0-9](?:[a-zA-Z0-9._-]{1,510})[a-zA-Z0-9]$/;
/** Collection metadata keys recording the layout. */
export const FORMAT_KEY = 'zerda:format';
export const VERSION_KEY = 'zerda:version';
export const FORMAT_VERSION = 1;



function checkStorable(value: string, field: string): void {
  if (/\p{Cs}/u.test(value)) throw invalidArgument(field, 'well-formed Unicode text (Chroma stores UTF-8; a lone surrogate cannot be stored)', value);
}

function checkStorableJson(value: unknown, field: string): void {
  if (typeof value === 'string') checkStorable(value, field);
  else if (Array.isArray(value)) value.forEach((item, i) => checkStorableJson(item, `${field}[${i}]`));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      checkStorable(key, `${field} key`);
      checkStorableJson(item, `${field}.${key}`);
    }
  }
}

function slices<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

function clientFor(url: string): ChromaClient {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidArgument('options.url', 'a URL such as http://127.0.0.1:8000', url);
  }
  const ssl = parsed.protocol === 'https:';
  const port = parsed.port ? Number(parsed.port) : ssl ? 443 : 80;
  return new ChromaClient({ host: parsed.hostname, port, ssl });
}

/**
 * A `VectorStore` on a Chroma collection (a local `chroma run` server or a deployment), through
 * the `chromadb` client. Collections are created with explicit embeddings only (no embedding
 * function, so nothing is downloaded), zerda filters are translated to Chroma `where` clauses
 * with zerda's exact semantics, distances become similarities, and writes are batched within the
 * server's maximum batch size.
 */
export class ChromaVectorStore implements VectorStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'chroma';
  readonly metric: VectorMetric;
  readonly capabilities: VectorStoreCapabilities = Object.freeze({ persistence: true, nativeFilter: true, textSearch: false, embeds: false });
  /** The collection's name. */
  readonly collectionName: string;
  /** The client every request goes through. */
  readonly client: ChromaClient;

  private dimensionsValue: number | undefined;
  private readonly configuredDimensions: number | undefined;
  private readonly batchSize: number;
  private readonly includeEmbeddings: boolean;
  private readonly overFetch: number;
  private readonly hnsw: { ef_search?: number; ef_construction?: number; max_neighbors?: number };
  private collection: Collection | undefined;
  private preparing: Promise<boolean> | undefined;
  private serverBatchSize: number | undefined;
  private writes: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(options: ChromaVectorStoreOptions = {}) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('options', 'an options object', options);
    for (const key of Object.keys(options)) {
      if (!OPTION_KEYS.has(key)) throw invalidArgument(`options.${key}`, `a known option (one of ${[...OPTION_KEYS].join(', ')})`, `unknown key "${key}"`);
    }
    if (options.client !== undefined) {
      if (!(options.client instanceof ChromaClient)) throw invalidArgument('options.client', 'a ChromaClient from the chromadb package', options.client);
      if (options.url !== undefined) throw invalidArgument('options.url', 'absent when options.client is given', options.url);
      this.client = options.client;
    } else {
      this.client = clientFor(options.url ?? 'http://localhost:8000');
    }
    const collection = options.collection ?? 'zerda_chunks';
    if (typeof collection !== 'string' || !COLLECTION_NAME.test(collection) || collection.includes('..')) {
      throw invalidArgument('options.collection', 'a Chroma collection name: 3–512 of [a-zA-Z0-9._-], starting and ending with a letter or digit, no ".."', collection);
    }
    this.collectionName = collection;
    if (options.metric !== undefined && !METRICS.includes(options.metric)) throw invalidArgument('options.metric', 'one of "cosine", "ip", "l2"', options.metric);
    this.metric = options.metric ?? 'cosine';
    this.dimensionsValue = options.dimensions === undefined ? undefined : checkInteger(options.dimensions, 'options.dimensions', 1, 65_536);
    this.configuredDimensions = this.dimensionsValue;
    this.batchSize = options.batchSize === undefined ? 1000 : checkInteger(options.batchSize, 'options.batchSize', 1, 100_000);
    this.includeEmbeddings = options.includeEmbeddings === undefined ? true : checkBoolean(options.includeEmbeddings, 'options.includeEmbeddings');
    this.overFetch = options.overFetch === undefined ? 4 : checkInteger(options.overFetch, 'options.overFetch', 1, 1000);
    const hnsw = options.hnsw ?? {};
    if (hnsw === null || typeof hnsw !== 'object') throw invalidArgument('options.hnsw', 'an object { efSearch, efConstruction, maxNeighbors }', hnsw);
    this.hnsw = {
      ef_search: hnsw.efSearch === undefined ? 256 : checkInteger(hnsw.efSearch, 'options.hnsw.efSearch', 1, 100_000),
      ef_construction: hnsw.efConstruction === undefined ? 100 : checkInteger(hnsw.efConstruction, 'options.hnsw.efConstruction', 1, 100_000),
      max_neighbors: hnsw.maxNeighbors === undefined ? 24 : checkInteger(hnsw.maxNeighbors, 'options.hnsw.maxNeighbors', 2, 1000),
    };
  }

  /**
   * Opens a store on an existing collection, adopting its metric (unless given) and dimension; a
   * collection zerda did not create, or one with another metric, is refused with a ZerdaError.
   * A missing collection is created (when `metric` is known it is used, else cosine).
   */
  static async open(options: ChromaVectorStoreOptions = {}): Promise<ChromaVectorStore> {
    let resolved = options;
    if (options && typeof options === 'object' && options.metric === undefined) {
      const existing = await new ChromaVectorStore(options).existingCollection();
      const space = existing?.configuration?.hnsw?.space;
      if (space === 'cosine' || space === 'ip' || space === 'l2') resolved = { ...options, metric: space };
    }
    const store = new ChromaVectorStore(resolved);
    await store.prepare(store.dimensionsValue, true);
    return store;
  }

  /** The vector dimension: from the options, from the collection, or set by the first added vector. */
  get dimensions(): number | undefined {
    return this.dimensionsValue;
  }

  /** Where the data lives (also the identity an engine snapshot records and checks; never credentials). */
  get location(): string {
    return `Chroma collection ${this.collectionName}`;
  }

  private assertOpen(): void {
    if (this.closed) throw createError('ZERDA_NOT_READY', { component: `Chroma store ${this.collectionName}`, reason: 'it was closed' });
  }

  private backendError(operation: string, error: unknown): ZerdaError {
    if (ZerdaError.isInstance(error)) return error;
    return createError('ZERDA_BACKEND_ERROR', { component: this.location, operation, reason: error instanceof Error ? error.message : String(error) }, error);
  }

  private async existingCollection(): Promise<Collection | undefined> {
    try {
      return await this.client.getCollection({ name: this.collectionName });
    } catch (error) {
      if (error instanceof Error && (error.name === 'ChromaNotFoundError' || /could not be found|does not exist/i.test(error.message))) return undefined;
      throw this.backendError('getCollection', error);
    }
  }

  /** True when the collection exists (creating it when `create`, or when `dimensions` is known). */
  private async prepare(dimensions?: number, create = false): Promise<boolean> {
    if (this.collection) return true;
    while (this.preparing) {
      try {
        const ready = await this.preparing;
        if (ready || (dimensions === undefined && !create)) return ready;
      } catch (error) {
        if (dimensions === undefined && !create) throw error;
      }
    }
    const preparing = this.prepareOnce(dimensions !== undefined || create);
    this.preparing = preparing;
    try {
      return await preparing;
    } finally {
      if (this.preparing === preparing) this.preparing = undefined;
    }
  }

  private async prepareOnce(create: boolean): Promise<boolean> {
    let collection = await this.existingCollection();
    if (!collection) {
      if (!create) return false;
      try {
        collection = await this.client.getOrCreateCollection({
          name: this.collectionName,
          embeddingFunction: null,
          metadata: { [FORMAT_KEY]: 'zerda-chroma', [VERSION_KEY]: FORMAT_VERSION },
          configuration: { hnsw: { space: this.metric, ...this.hnsw } },
        });
      } catch (error) {
        throw this.backendError('createCollection', error);
      }
    }
    await this.checkCollection(collection);
    this.collection = collection;
    return true;
  }

  private async checkCollection(collection: Collection): Promise<void> {
    const metadata = collection.metadata ?? {};
    if (metadata[FORMAT_KEY] !== 'zerda-chroma') {
      throw createError('ZERDA_UNSUPPORTED', {
        operation: `using collection ${this.collectionName}`,
        component: 'ChromaVectorStore',
        reason: `the collection exists but was not created by zerda (no "${FORMAT_KEY}" metadata); choose another options.collection`,
      });
    }
    const version = Number(metadata[VERSION_KEY]);
    if (!(version <= FORMAT_VERSION)) {
      throw createError('ZERDA_STORE_CORRUPT', { path: this.location, reason: `it has layout version ${String(metadata[VERSION_KEY])}; this package reads up to ${FORMAT_VERSION}` });
    }
    const space = collection.configuration?.hnsw?.space ?? 'l2';
    if (space !== this.metric) throw invalidArgument('options.metric', `"${space}", the space collection ${this.collectionName} was created with (or leave it out)`, this.metric);
    // Chroma learns the dimension from the first vector; read it from a stored record.
    let sample;
    try {
      sample = await collection.get({ limit: 1, include: ['embeddings'] });
    } catch (error) {
      throw this.backendError('get', error);
    }
    const stored = sample.embeddings?.[0]?.length;
    if (stored !== undefined) {
      if (this.dimensionsValue !== undefined && this.dimensionsValue !== stored) {
        throw createError('ZERDA_DIMENSION_MISMATCH', { field: 'options.dimensions', received: String(this.dimensionsValue), expected: String(stored) });
      }
      this.dimensionsValue = stored;
    }
  }

  private async requestBatchSize(): Promise<number> {
    if (this.serverBatchSize === undefined) {
      try {
        this.serverBatchSize = await this.client.getMaxBatchSize();
      } catch {
        this.serverBatchSize = this.batchSize;
      }
    }
    return Math.max(1, Math.min(this.batchSize, this.serverBatchSize));
  }

  /**
   * Adds or replaces chunks (each needs an `embedding`). Everything is validated first — chunk
   * shape, unique ids, embeddings, text Chroma can store — then upserted in batches within the
   * server's maximum batch size. Each batch is atomic in Chroma; if a later batch fails, earlier
   * ones stay written (upserting again is idempotent).
   */
  async add(chunks: DocumentChunk[]): Promise<void> {
    this.assertOpen();
    const validated = toDocumentChunks(chunks, 'chunks');
    if (validated.length === 0) return;
    if (this.dimensionsValue === undefined) await this.prepare();
    let dimensions = this.dimensionsValue;
    const embeddings: number[][] = [];
    const metadatas: ChromaRecordMetadata[] = [];
    for (let i = 0; i < validated.length; i++) {
      const chunk = validated[i]!;
      if (chunk.embedding === undefined) {
        throw createError('ZERDA_INVALID_EMBEDDING', { field: `chunks[${i}].embedding`, expected: 'an embedding (this store does not embed text)', received: 'undefined' });
      }
      const vector = validateEmbedding(chunk.embedding, `chunks[${i}].embedding`, dimensions);
      dimensions ??= vector.length;
      for (const field of ['id', 'docId', 'text', 'source'] as const) checkStorable(chunk[field], `chunks[${i}].${field}`);
      if (chunk.title !== undefined) checkStorable(chunk.title, `chunks[${i}].title`);
      checkStorableJson(chunk.metadata, `chunks[${i}].metadata`);
      embeddings.push(Array.from(vector));
      metadatas.push(toChromaMetadata(chunk));
    }
    await this.prepare(dimensions);
    this.dimensionsValue ??= dimensions;
    if (this.dimensionsValue !== dimensions) {
      throw createError('ZERDA_DIMENSION_MISMATCH', { field: 'chunks[0].embedding', received: String(dimensions), expected: String(this.dimensionsValue) });
    }
    const size = await this.requestBatchSize();
    await this.serialize(async () => {
      for (let start = 0; start < validated.length; start += size) {
        const end = start + size;
        const ids = validated.slice(start, end).map((chunk) => chunk.id);
        const batchMetadata = metadatas.slice(start, end);
        try {
          await this.clearStaleKeys(ids, batchMetadata);
          await this.collection!.upsert({ ids, embeddings: embeddings.slice(start, end), metadatas: batchMetadata, documents: validated.slice(start, end).map((chunk) => chunk.text) });
        } catch (error) {
          throw this.backendError('upsert', error);
        }
      }
    });
  }

  /**
   * Chroma's upsert merges metadata into an existing record's and cannot delete keys; zerda
   * replaces the chunk. Flag keys the old record has and the new one lacks are therefore sent as
   * `false`, which every translated filter reads as absent (see `chroma-records.ts`).
   */
  private async clearStaleKeys(ids: string[], metadatas: ChromaRecordMetadata[]): Promise<void> {
    const existing = await this.collection!.get({ ids, include: ['metadatas'] });
    if (existing.ids.length === 0) return;
    const position = new Map(ids.map((id, i) => [id, i]));
    existing.ids.forEach((id, i) => {
      const target = metadatas[position.get(id)!]!;
      for (const [key, value] of Object.entries(existing.metadatas[i] ?? {})) if (value === true && isFlagKey(key) && !(key in target)) target[key] = false;
    });
  }

  /** Runs writes one after another, so that the read-then-upsert of a replacement cannot interleave. */
  private serialize<T>(write: () => Promise<T>): Promise<T> {
    const run = this.writes.then(write, write);
    this.writes = run.catch(() => undefined);
    return run;
  }

  /** The backend's distance → zerda similarity (its convention: 1 − cos, 1 − dot, squared l2). */
  private toSimilarity(distance: number): number {
    return similarityFromOneMinusDistance(this.metric, distance);
  }

  private include(): Array<'documents' | 'metadatas' | 'embeddings' | 'distances'> {
    return this.includeEmbeddings ? ['documents', 'metadatas', 'embeddings'] : ['documents', 'metadatas'];
  }

  /**
   * The `k` chunks most similar to `vector`, best first, each matching `filter` (Chroma's HNSW
   * index, searched with the translated `where`). A filter with a string range is sent without
   * that part and checked afterwards, fetching more until `k` matches are found.
   */
  async search(vector: Embedding, options: VectorSearchOptions): Promise<VectorSearchHit[]> {
    this.assertOpen();
    const { k, filter } = validateSearchOptions(options);
    const query = validateEmbedding(vector, 'vector', this.dimensionsValue);
    if (!(await this.prepare())) return [];
    if (k === 0) return [];
    const translated = translateWhere(filter);
    if (translated.matchesNothing) return [];
    const values = Array.from(query);
    const run = async (limit: number): Promise<VectorSearchHit[]> => {
      let result;
      try {
        result = await this.collection!.query({
          queryEmbeddings: [values],
          nResults: limit,
          include: [...this.include(), 'distances'],
          ...(translated.where ? { where: translated.where as Where } : {}),
        });
      } catch (error) {
        throw this.backendError('query', error);
      }
      const ids = result.ids[0] ?? [];
      return ids.map((id, i) => ({
        chunk: fromChromaRecord(id, result.documents[0]?.[i], result.metadatas[0]?.[i], this.includeEmbeddings ? result.embeddings[0]?.[i] : undefined, this.location),
        score: this.toSimilarity(Number(result.distances[0]?.[i])),
      }));
    };
    if (translated.exact) return (await run(k)).sort(compareSearchHits).slice(0, k);
    const total = await this.count();
    let limit = Math.min(Math.max(total, 1), k * this.overFetch);
    for (;;) {
      const candidates = await run(limit);
      const matching = candidates.filter((hit) => matchesFilter(hit.chunk, filter)).sort(compareSearchHits);
      if (matching.length >= k || candidates.length < limit || limit >= total) return matching.slice(0, k);
      limit = Math.min(total, limit * 4);
    }
  }

  /** Fetches chunks by id, in the order asked (with embeddings unless `includeEmbeddings: false`); missing ids are skipped. */
  async get(ids: string[]): Promise<DocumentChunk[]> {
    this.assertOpen();
    const wanted = validateIdList(ids, 'ids');
    const unique = [...new Set(wanted)].filter((id) => !/\p{Cs}/u.test(id));
    if (unique.length === 0 || !(await this.prepare())) return [];
    const found = new Map<string, DocumentChunk>();
    for (const slice of slices(unique, await this.requestBatchSize())) {
      let result;
      try {
        result = await this.collection!.get({ ids: slice, include: this.include() });
      } catch (error) {
        throw this.backendError('get', error);
      }
      result.ids.forEach((id, i) => {
        found.set(id, fromChromaRecord(id, result.documents[i], result.metadatas[i], this.includeEmbeddings ? result.embeddings[i] : undefined, this.location));
      });
    }
    return wanted.flatMap((id) => {
      const chunk = found.get(id);
      return chunk ? [chunk] : [];
    });
  }

  /** Deletes chunks by id (unknown ids are ignored), in batches. */
  async delete(ids: string[]): Promise<void> {
    this.assertOpen();
    const unique = [...new Set(validateIdList(ids, 'ids'))].filter((id) => !/\p{Cs}/u.test(id));
    if (unique.length === 0 || !(await this.prepare())) return;
    for (const slice of slices(unique, await this.requestBatchSize())) {
      try {
        await this.collection!.delete({ ids: slice });
      } catch (error) {
        throw this.backendError('delete', error);
      }
    }
  }

  /** Deletes every chunk of the given documents (a `where` on the document id). */
  async deleteByDocIds(docIds: string[]): Promise<void> {
    this.assertOpen();
    const unique = [...new Set(validateIdList(docIds, 'docIds'))].filter((id) => !/\p{Cs}/u.test(id));
    if (unique.length === 0 || !(await this.prepare())) return;
    for (const slice of slices(unique, 1000)) {
      try {
        await this.collection!.delete({ where: (slice.length === 1 ? { [DOC_ID_KEY]: slice[0]! } : { [DOC_ID_KEY]: { $in: slice } }) as Where });
      } catch (error) {
        throw this.backendError('deleteByDocIds', error);
      }
    }
  }

  /** Number of records in the collection (0 before it exists). */
  async count(): Promise<number> {
    this.assertOpen();
    if (!(await this.prepare())) return 0;
    try {
      return await this.collection!.count();
    } catch (error) {
      throw this.backendError('count', error);
    }
  }

  /** Removes every chunk; the collection, its configuration and dimension stay. */
  async clear(): Promise<void> {
    this.assertOpen();
    if (!(await this.prepare())) return;
    try {
      // Every zerda record has a non-empty document id.
      await this.collection!.delete({ where: { [DOC_ID_KEY]: { $ne: '' } } as Where });
    } catch (error) {
      throw this.backendError('clear', error);
    }
  }

  /** Deletes the collection. A dimension fixed in the options is kept; otherwise the next `add` decides again. */
  async drop(): Promise<void> {
    this.assertOpen();
    try {
      await this.client.deleteCollection({ name: this.collectionName });
    } catch (error) {
      if (!(error instanceof Error && error.name === 'ChromaNotFoundError')) throw this.backendError('deleteCollection', error);
    }
    this.collection = undefined;
    this.dimensionsValue = this.configuredDimensions;
  }

  /** Marks the store closed (the HTTP client holds no connection to release). */
  async close(): Promise<void> {
    this.closed = true;
  }
}
