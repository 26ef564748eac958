import type { ChromaClient, Collection, Metadata as ChromaRecordMetadata, Where } from 'chromadb';
import { createError, invalidArgument, type DocumentChunk, type MetadataFilter } from '@zerda/types';
import { VectorStoreBase, batches, utf8Storable, type QueryHit, type VectorQuery, type VectorRecord } from '@zerda/vector-kit';
import { translateWhere, type ChromaWhere, type TranslatedWhere } from './chroma-filter.js';
import { resolveChromaOptions, type ChromaVectorStoreOptions, type ResolvedChromaOptions } from './chroma-options.js';
import { DOC_ID_KEY, fromChromaRecord, isFlagKey, toChromaMetadata } from './chroma-records.js';

/** Collection metadata keys recording the layout. */
export const FORMAT_KEY = 'zerda:format';
export const VERSION_KEY = 'zerda:version';
export const FORMAT_VERSION = 1;
/** Document ids per delete-by-`where` request. */
const DOC_IDS_PER_DELETE = 1000;

/** A chunk as Chroma's upsert takes it. */
interface ChromaRecord {
  id: string;
  embedding: number[];
  metadata: ChromaRecordMetadata;
  document: string;
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && (error.name === 'ChromaNotFoundError' || /could not be found|does not exist/i.test(error.message));
}

/**
 * A `VectorStore` on a Chroma collection (a local `chroma run` server or a deployment), through
 * the `chromadb` client. Collections are created with explicit embeddings only (no embedding
 * function, so nothing is downloaded), zerda filters are translated to Chroma `where` clauses
 * with zerda's exact semantics, distances become similarities, and writes are batched within the
 * server's maximum batch size.
 */
export class ChromaVectorStore extends VectorStoreBase<ChromaWhere, ChromaRecord> {
  /** The collection's name. */
  readonly collectionName: string;
  /** The client every request goes through. */
  readonly client: ChromaClient;

  private readonly options: ResolvedChromaOptions;
  private collection: Collection | undefined;
  private serverBatchSize: number | undefined;

  constructor(options: ChromaVectorStoreOptions = {}) {
    const resolved = resolveChromaOptions(options);
    super({
      name: 'chroma',
      metric: resolved.metric,
      dimensions: resolved.dimensions,
      capabilities: { persistence: true, nativeFilter: true, textSearch: false },
      // Chroma reports 1 − cos, 1 − dot and the squared euclidean distance.
      distance: 'one-minus',
      storable: utf8Storable('Chroma'),
      overFetch: resolved.overFetch,
    });
    this.options = resolved;
    this.client = resolved.client;
    this.collectionName = resolved.collection;
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

  /** Where the data lives (also the identity an engine snapshot records and checks; never credentials). */
  get location(): string {
    return `Chroma collection ${this.collectionName}`;
  }

  private async existingCollection(): Promise<Collection | undefined> {
    try {
      return await this.client.getCollection({ name: this.collectionName });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw this.backendError('getCollection', error);
    }
  }

  /** Finds the collection (creating it when `create`), checks it and learns its dimension. */
  protected override async doPrepare(_dimensions: number | undefined, create: boolean): Promise<boolean> {
    let collection = await this.existingCollection();
    if (!collection) {
      if (!create) return false;
      collection = await this.backend('createCollection', () =>
        this.client.getOrCreateCollection({
          name: this.collectionName,
          embeddingFunction: null,
          metadata: { [FORMAT_KEY]: 'zerda-chroma', [VERSION_KEY]: FORMAT_VERSION },
          configuration: { hnsw: { space: this.metric, ...this.options.hnsw } },
        }),
      );
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
    const sample = await this.backend('get', () => collection.get({ limit: 1, include: ['embeddings'] }));
    const stored = sample.embeddings?.[0]?.length;
    if (stored !== undefined) {
      if (this.dimensionsValue !== undefined && this.dimensionsValue !== stored) {
        throw createError('ZERDA_DIMENSION_MISMATCH', { field: 'options.dimensions', received: String(this.dimensionsValue), expected: String(stored) });
      }
      this.dimensionsValue = stored;
    }
  }

  /** Records per request: `batchSize`, capped by the server's maximum batch size. */
  private async requestBatchSize(): Promise<number> {
    if (this.serverBatchSize === undefined) {
      try {
        this.serverBatchSize = await this.client.getMaxBatchSize();
      } catch {
        this.serverBatchSize = this.options.batchSize;
      }
    }
    return Math.max(1, Math.min(this.options.batchSize, this.serverBatchSize));
  }

  protected override toRecord({ chunk, vector }: VectorRecord): ChromaRecord {
    return { id: chunk.id, embedding: Array.from(vector), metadata: toChromaMetadata(chunk), document: chunk.text };
  }

  /**
   * Upserts in requests within the server's maximum batch size. Each request is atomic in Chroma;
   * if a later one fails, earlier ones stay written (upserting again is idempotent).
   */
  protected async doUpsert(records: ChromaRecord[]): Promise<void> {
    for (const batch of batches(records, await this.requestBatchSize())) {
      const ids = batch.map((record) => record.id);
      const metadatas = batch.map((record) => record.metadata);
      await this.clearStaleKeys(ids, metadatas);
      await this.collection!.upsert({ ids, embeddings: batch.map((record) => record.embedding), metadatas, documents: batch.map((record) => record.document) });
    }
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

  private include(): Array<'documents' | 'metadatas' | 'embeddings' | 'distances'> {
    return this.options.includeEmbeddings ? ['documents', 'metadatas', 'embeddings'] : ['documents', 'metadatas'];
  }

  private toChunk(id: string, document: string | null | undefined, metadata: Record<string, unknown> | null | undefined, embedding: ArrayLike<number> | null | undefined): DocumentChunk {
    return fromChromaRecord(id, document, metadata, this.options.includeEmbeddings ? embedding : undefined, this.location);
  }

  /** The translated `where`: exact except for string ranges, which the kit checks after an over-fetch. */
  protected override translateFilter(filter: MetadataFilter | undefined): { filter: ChromaWhere | undefined; exact: boolean; matchesNothing: boolean } {
    const translated: TranslatedWhere = translateWhere(filter);
    return { filter: translated.where, exact: translated.exact, matchesNothing: translated.matchesNothing };
  }

  /** The `limit` nearest records through Chroma's HNSW index, searched with the translated `where`. */
  protected async doQuery({ vector, limit, filter }: VectorQuery<ChromaWhere>): Promise<QueryHit[]> {
    const result = await this.collection!.query({
      queryEmbeddings: [Array.from(vector)],
      nResults: limit,
      include: [...this.include(), 'distances'],
      ...(filter ? { where: filter as Where } : {}),
    });
    return (result.ids[0] ?? []).map((id, i) => ({
      chunk: this.toChunk(id, result.documents[0]?.[i], result.metadatas[0]?.[i], result.embeddings[0]?.[i]),
      distance: Number(result.distances[0]?.[i]),
    }));
  }

  protected override async doFetch(ids: string[]): Promise<DocumentChunk[]> {
    const found: DocumentChunk[] = [];
    for (const slice of batches(ids, await this.requestBatchSize())) {
      const result = await this.collection!.get({ ids: slice, include: this.include() });
      result.ids.forEach((id, i) => found.push(this.toChunk(id, result.documents[i], result.metadatas[i], result.embeddings[i])));
    }
    return found;
  }

  /** By id in requests within the server's batch size, or a `where` on the document id per 1,000 documents. */
  protected async doDelete(key: 'id' | 'docId', values: string[]): Promise<void> {
    if (key === 'id') {
      for (const slice of batches(values, await this.requestBatchSize())) await this.collection!.delete({ ids: slice });
      return;
    }
    for (const slice of batches(values, DOC_IDS_PER_DELETE)) {
      await this.collection!.delete({ where: (slice.length === 1 ? { [DOC_ID_KEY]: slice[0]! } : { [DOC_ID_KEY]: { $in: slice } }) as Where });
    }
  }

  protected async doCount(): Promise<number> {
    return this.collection!.count();
  }

  /** Removes every chunk; the collection, its configuration and dimension stay. */
  protected override async doClear(): Promise<void> {
    // Every zerda record has a non-empty document id.
    await this.collection!.delete({ where: { [DOC_ID_KEY]: { $ne: '' } } as Where });
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
    this.resetPreparation();
    this.dimensionsValue = this.options.dimensions;
  }

  /** Marks the store closed (the HTTP client holds no connection to release). */
  async close(): Promise<void> {
    this.markClosed();
  }
}
