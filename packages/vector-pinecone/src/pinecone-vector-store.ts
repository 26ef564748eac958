import type { QueryOptions } from '@pinecone-database/pinecone';
import { createError, invalidArgument, validateSearchOptions, type DocumentChunk, type MetadataFilter, type VectorSearchOptions } from '@zerda/types';
import { VectorStoreBase, batches, batchesWithin, utf8Storable, type QueryHit, type VectorQuery, type VectorRecord } from '@zerda/vector-kit';
import { translateFilter, type PineconeFilter, type TranslatedFilter } from './pinecone-filter.js';
import {
  IDS_PER_DELETE,
  IDS_PER_FETCH,
  MAX_TOP_K,
  MAX_UPSERT_BYTES,
  checkPineconeSearchOptions,
  resolvePineconeOptions,
  type PineconeSearchOptions,
  type PineconeVectorStoreOptions,
  type ResolvedPineconeOptions,
} from './pinecone-options.js';
import { DOC_ID_FIELD, MAX_METADATA_BYTES, fromPineconeRecord, metadataBytes, toPineconeMetadata, type PineconeMetadata } from './pinecone-records.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface PreparedRecord {
  id: string;
  values: number[];
  metadata: PineconeMetadata;
  bytes: number;
}

/**
 * A `VectorStore` on a Pinecone index through the official client. One namespace per store (use
 * {@link PineconeVectorStore.withNamespace} for tenants); zerda filters are translated to
 * Pinecone's filter syntax over fields this package writes beside each chunk, so that equality,
 * `$in`, `$nin`, `$exists`, `null`, arrays, numeric ranges and `$not` keep zerda's exact
 * semantics; string ranges (which Pinecone cannot compare) are checked after an over-fetch.
 *
 * Not verified against a live index in this repository (no Pinecone service is reachable from its
 * CI): its tests check every request against the client's documented shapes and run the shared
 * conformance suite against an in-process fake of Pinecone's documented REST semantics.
 */
export class PineconeVectorStore extends VectorStoreBase<PineconeFilter, PreparedRecord> {
  /** The namespace this store reads and writes. */
  readonly namespace: string;

  private readonly options: ResolvedPineconeOptions;
  private readonly input: PineconeVectorStoreOptions;

  constructor(options: PineconeVectorStoreOptions) {
    const resolved = resolvePineconeOptions(options);
    super({
      name: 'pinecone',
      metric: resolved.metric,
      dimensions: resolved.dimensions,
      capabilities: { persistence: true, nativeFilter: true, textSearch: false },
      // Query scores: cosine and dot product as similarities, euclidean as the squared distance.
      distance: 'similarity',
      // Pinecone stores UTF-8: a lone surrogate cannot be stored, so it is refused on add and skipped on reads and deletes.
      storable: utf8Storable('Pinecone'),
      searchOptions: ['scanFactor', 'maxCandidates'],
      maxK: MAX_TOP_K,
      overFetch: resolved.overFetch,
    });
    this.options = resolved;
    this.input = { ...options };
    this.namespace = resolved.namespace;
  }

  /** The same index under another namespace (one store per tenant); every other option is kept. */
  withNamespace(namespace: string): PineconeVectorStore {
    if (typeof namespace !== 'string') throw invalidArgument('namespace', 'a string', namespace);
    return new PineconeVectorStore({ ...this.input, namespace, ...(this.dimensionsValue === undefined ? {} : { dimensions: this.dimensionsValue }) });
  }

  /** Where the data lives (also the identity an engine snapshot records and checks; never credentials). */
  get location(): string {
    return `${this.options.label}, namespace ${JSON.stringify(this.namespace)}`;
  }

  protected override get component(): string {
    return `Pinecone (${this.location})`;
  }

  /** The namespace field of every data-plane request (absent for Pinecone's default namespace). */
  private namespaceField(): { namespace?: string } {
    return this.namespace === '' ? {} : { namespace: this.namespace };
  }

  /**
   * Adds or replaces chunks (each needs an `embedding`). Everything is validated first — chunk
   * shape, unique ids, embeddings, and Pinecone's 40 KB metadata limit per record — then upserted
   * in requests of at most `batchSize` records and 2 MB. Pinecone has no transactions: if a
   * request fails, earlier requests stay written (upserting again is idempotent).
   */
  override async add(chunks: DocumentChunk[]): Promise<void> {
    await super.add(chunks);
    if (this.options.waitForWrites) await this.awaitVisibility(chunks.map((chunk) => chunk.id), true, 'add');
  }

  /** The record of a chunk, refused (naming `chunks[index]`) above Pinecone's metadata limit. */
  protected override toRecord({ chunk, vector }: VectorRecord, index: number): PreparedRecord {
    const metadata = toPineconeMetadata(chunk);
    const bytes = metadataBytes(metadata);
    if (bytes > MAX_METADATA_BYTES) {
      throw invalidArgument(`chunks[${index}]`, `at most ${MAX_METADATA_BYTES} bytes of text and metadata (Pinecone's limit per record; split the chunk or slim its metadata)`, `a chunk whose record metadata takes ${bytes} bytes`);
    }
    return { id: chunk.id, values: Array.from(vector), metadata, bytes: bytes + vector.length * 12 + chunk.id.length + 64 };
  }

  /** Requests within `batchSize` records and Pinecone's 2 MB (less room for the envelope and number formatting). */
  protected override batchRecords(records: PreparedRecord[]): PreparedRecord[][] {
    return batchesWithin(records, this.options.batchSize, MAX_UPSERT_BYTES - 64 * 1024, (record) => record.bytes);
  }

  protected async doUpsert(records: PreparedRecord[]): Promise<void> {
    await this.options.index.upsert({ records: records.map(({ id, values, metadata }) => ({ id, values, metadata })), ...this.namespaceField() });
  }

  private async awaitVisibility(ids: string[], present: boolean, operation: string): Promise<void> {
    const { timeoutMs, intervalMs } = this.options.waitForWrites!;
    const deadline = Date.now() + timeoutMs;
    const unique = [...new Set(ids)];
    for (;;) {
      const found = await this.backend('fetch', () => this.doFetch(unique));
      if (present ? found.length === unique.length : found.length === 0) return;
      if (Date.now() >= deadline) {
        throw createError('ZERDA_BACKEND_ERROR', { component: this.component, operation, reason: `the write was not visible after ${timeoutMs} ms (Pinecone is eventually consistent; raise waitForWrites.timeoutMs)` });
      }
      await sleep(intervalMs);
    }
  }

  protected override translateFilter(filter: MetadataFilter | undefined): TranslatedFilter {
    return translateFilter(filter);
  }

  protected override checkSearchOptions(options: VectorSearchOptions): void {
    checkPineconeSearchOptions(options);
  }

  /**
   * The `limit` nearest records for the translated filter (`k` is capped at 1,000, Pinecone's
   * `topK` limit when metadata is returned; the kit over-fetches for string ranges).
   */
  protected async doQuery({ vector, limit, filter, options }: VectorQuery<PineconeFilter>): Promise<QueryHit[]> {
    const request: QueryOptions = { vector: Array.from(vector), topK: limit, includeMetadata: true, includeValues: this.options.includeEmbeddings, ...this.namespaceField() };
    if (filter) request.filter = filter;
    Object.assign(request, checkPineconeSearchOptions(options as PineconeSearchOptions));
    const response = await this.options.index.query(request);
    return (response.matches ?? []).map((match) => ({
      chunk: fromPineconeRecord(match.id, match.metadata, this.options.includeEmbeddings ? match.values : undefined, this.location),
      distance: Number(match.score),
    }));
  }

  protected override async doFetch(ids: string[]): Promise<DocumentChunk[]> {
    const found: DocumentChunk[] = [];
    for (const slice of batches(ids, IDS_PER_FETCH)) {
      const response = await this.options.index.fetch({ ids: slice, ...this.namespaceField() });
      for (const [id, record] of Object.entries(response.records ?? {})) {
        found.push(fromPineconeRecord(id, record.metadata, this.options.includeEmbeddings ? record.values : undefined, this.location));
      }
    }
    return found;
  }

  /** Deletes chunks by id (unknown ids are ignored), 1,000 ids per request; with `waitForWrites`, until Pinecone shows them gone. */
  override async delete(ids: string[]): Promise<void> {
    await super.delete(ids);
    if (this.options.waitForWrites) await this.awaitVisibility(ids, false, 'delete');
  }

  /** By id, or one delete-by-metadata request per 1,000 document ids. */
  protected async doDelete(key: 'id' | 'docId', values: string[]): Promise<void> {
    for (const slice of batches(values, IDS_PER_DELETE)) {
      await this.options.index.deleteMany(key === 'id' ? { ids: slice, ...this.namespaceField() } : { filter: { [DOC_ID_FIELD]: { $in: slice } }, ...this.namespaceField() });
    }
  }

  /**
   * Records in the namespace, from `describeIndexStats` (Pinecone updates these counts
   * asynchronously: right after a write they may lag).
   */
  protected async doCount(): Promise<number> {
    const stats = await this.options.index.describeIndexStats();
    const namespaces = stats.namespaces ?? {};
    // Newer API versions report the default namespace as "__default__".
    const summary = namespaces[this.namespace] ?? (this.namespace === '' ? namespaces['__default__'] : undefined);
    return summary?.recordCount ?? 0;
  }

  /** Deletes every record of the namespace (other namespaces are untouched). */
  protected override async doClear(): Promise<void> {
    try {
      await this.options.index.deleteAll(this.namespaceField());
    } catch (error) {
      // Deleting an empty or never-written namespace is not an error for zerda.
      if (/not found|404/i.test(error instanceof Error ? error.message : String(error))) return;
      throw error;
    }
  }

  /** Checks a filter without sending anything: the Pinecone filter it becomes, and whether results are post-checked. */
  explainFilter(filter: MetadataFilter | undefined): ReturnType<typeof translateFilter> {
    return translateFilter(filter === undefined ? undefined : validateSearchOptions({ k: 0, filter }).filter);
  }
}
