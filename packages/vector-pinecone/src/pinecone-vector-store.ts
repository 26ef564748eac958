import type { Index, QueryOptions, RecordMetadata } from '@pinecone-database/pinecone';
import {
  ZerdaError,
  compareSearchHits,
  createError,
  invalidArgument,
  matchesFilter,
  similarityFromDistance,
  toDocumentChunks,
  validateEmbedding,
  validateIdList,
  validateSearchOptions,
  type DocumentChunk,
  type Embedding,
  type MetadataFilter,
  type VectorMetric,
  type VectorSearchHit,
  type VectorSearchOptions,
  type VectorStore,
  type VectorStoreCapabilities,
  checkInteger,
  checkBoolean,
} from '@zerda/types';
import { translateFilter, type PineconeFilter } from './pinecone-filter.js';
import { DOC_ID_FIELD, MAX_METADATA_BYTES, fromPineconeRecord, metadataBytes, toPineconeMetadata, type PineconeMetadata } from './pinecone-records.js';

/**
 * The part of the official client's `Index` this store calls (`pinecone.index({ name })` returns
 * one). Any object with these methods and the same request and response shapes works — which is
 * how the tests run without a network.
 */
export type PineconeIndexLike = Pick<Index<RecordMetadata>, 'upsert' | 'query' | 'fetch' | 'deleteMany' | 'deleteAll' | 'describeIndexStats'>;

/** How long to wait for Pinecone to show the store's own writes (it is eventually consistent). */
export interface WaitForWritesOptions {
  /** Give up (with a ZerdaError) after this many milliseconds. Default 30,000. */
  timeoutMs?: number;
  /** Poll `fetch` this often. Default 500. */
  intervalMs?: number;
}

/** Options of {@link PineconeVectorStore}. */
export interface PineconeVectorStoreOptions {
  /** The index to use: `new Pinecone({ apiKey }).index({ name })`, or any {@link PineconeIndexLike}. */
  index: PineconeIndexLike;
  /** The namespace holding this store's records (one per tenant). Default `''`, Pinecone's default namespace. */
  namespace?: string;
  /** The index's metric, as created in Pinecone: `cosine` (cosine), `ip` (dotproduct) or `l2` (euclidean). Default `cosine`. */
  metric?: VectorMetric;
  /** The index's dimension (otherwise the first vector decides; Pinecone rejects other dimensions anyway). */
  dimensions?: number;
  /** Records per upsert request (Pinecone allows 1,000 and 2 MB per request). Default 100. */
  batchSize?: number;
  /** Return embeddings with hits and `get`. Default true. */
  includeEmbeddings?: boolean;
  /** First over-fetch factor when a filter has a part Pinecone cannot express (string ranges). Default 4. */
  overFetch?: number;
  /** After each write, poll until Pinecone shows it (off by default; see the README on freshness). */
  waitForWrites?: boolean | WaitForWritesOptions;
  /** The label used in error messages (default `pinecone index`). */
  label?: string;
}

/** Search knobs besides `k` and `filter`. */
export interface PineconeSearchOptions extends VectorSearchOptions {
  /** Pinecone's `scanFactor` (dedicated read nodes / some index types). Passed through when set. */
  scanFactor?: number;
  /** Pinecone's `maxCandidates`. Passed through when set. */
  maxCandidates?: number;
}

const OPTION_KEYS = new Set(['index', 'namespace', 'metric', 'dimensions', 'batchSize', 'includeEmbeddings', 'overFetch', 'waitForWrites', 'label']);
const METRICS: readonly VectorMetric[] = ['cosine', 'ip', 'l2'];
/** Pinecone's names for the metrics. */
export const PINECONE_METRIC = { cosine: 'cosine', ip: 'dotproduct', l2: 'euclidean' } as const;
/** Pinecone caps `topK` at 1,000 when metadata or values are returned. */
export const MAX_TOP_K = 1000;
/** Pinecone's limits per request. */
export const MAX_UPSERT_RECORDS = 1000;
export const MAX_UPSERT_BYTES = 2 * 1024 * 1024;
/** Ids per fetch (a GET with ids in the URL) and per delete request. */
export const IDS_PER_FETCH = 100;
export const IDS_PER_DELETE = 1000;



function checkWaitOptions(value: unknown): Required<WaitForWritesOptions> | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { timeoutMs: 30_000, intervalMs: 500 };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidArgument('options.waitForWrites', 'a boolean or { timeoutMs, intervalMs }', value);
  const options = value as WaitForWritesOptions;
  for (const key of Object.keys(options)) if (key !== 'timeoutMs' && key !== 'intervalMs') throw invalidArgument(`options.waitForWrites.${key}`, 'a known option (timeoutMs or intervalMs)', `unknown key "${key}"`);
  return {
    timeoutMs: options.timeoutMs === undefined ? 30_000 : checkInteger(options.timeoutMs, 'options.waitForWrites.timeoutMs', 1, 3_600_000),
    intervalMs: options.intervalMs === undefined ? 500 : checkInteger(options.intervalMs, 'options.waitForWrites.intervalMs', 1, 60_000),
  };
}

function slices<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

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
export class PineconeVectorStore implements VectorStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'pinecone';
  readonly metric: VectorMetric;
  readonly capabilities: VectorStoreCapabilities = Object.freeze({ persistence: true, nativeFilter: true, textSearch: false, embeds: false });
  /** The namespace this store reads and writes. */
  readonly namespace: string;

  private readonly index: PineconeIndexLike;
  private dimensionsValue: number | undefined;
  private readonly batchSize: number;
  private readonly includeEmbeddings: boolean;
  private readonly overFetch: number;
  private readonly waitForWrites: Required<WaitForWritesOptions> | undefined;
  private readonly label: string;
  private readonly options: PineconeVectorStoreOptions;

  constructor(options: PineconeVectorStoreOptions) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('options', 'an options object with an index', options);
    for (const key of Object.keys(options)) {
      if (!OPTION_KEYS.has(key)) throw invalidArgument(`options.${key}`, `a known option (one of ${[...OPTION_KEYS].join(', ')})`, `unknown key "${key}"`);
    }
    const index = options.index as unknown as Record<string, unknown> | null;
    const methods = ['upsert', 'query', 'fetch', 'deleteMany', 'deleteAll', 'describeIndexStats'];
    if (index === null || typeof index !== 'object' || methods.some((method) => typeof index[method] !== 'function')) {
      throw invalidArgument('options.index', `a Pinecone Index (pinecone.index({ name })) with ${methods.join(', ')}`, options.index);
    }
    this.options = { ...options };
    this.namespace = options.namespace ?? '';
    if (typeof this.namespace !== 'string') throw invalidArgument('options.namespace', 'a string', options.namespace);
    this.index = options.index;
    if (options.metric !== undefined && !METRICS.includes(options.metric)) throw invalidArgument('options.metric', 'one of "cosine", "ip", "l2" (Pinecone cosine, dotproduct, euclidean)', options.metric);
    this.metric = options.metric ?? 'cosine';
    this.dimensionsValue = options.dimensions === undefined ? undefined : checkInteger(options.dimensions, 'options.dimensions', 1, 20_000);
    this.batchSize = options.batchSize === undefined ? 100 : checkInteger(options.batchSize, 'options.batchSize', 1, MAX_UPSERT_RECORDS);
    this.includeEmbeddings = options.includeEmbeddings === undefined ? true : checkBoolean(options.includeEmbeddings, 'options.includeEmbeddings');
    this.overFetch = options.overFetch === undefined ? 4 : checkInteger(options.overFetch, 'options.overFetch', 1, 1000);
    this.waitForWrites = checkWaitOptions(options.waitForWrites);
    this.label = options.label ?? 'pinecone index';
  }

  /** The same index under another namespace (one store per tenant); every other option is kept. */
  withNamespace(namespace: string): PineconeVectorStore {
    if (typeof namespace !== 'string') throw invalidArgument('namespace', 'a string', namespace);
    return new PineconeVectorStore({ ...this.options, namespace, ...(this.dimensionsValue === undefined ? {} : { dimensions: this.dimensionsValue }) });
  }

  /** The vector dimension: from the options or set by the first added vector. */
  get dimensions(): number | undefined {
    return this.dimensionsValue;
  }

  /** Where the data lives (also the identity an engine snapshot records and checks; never credentials). */
  get location(): string {
    return `${this.label}, namespace ${JSON.stringify(this.namespace)}`;
  }

  private backendError(operation: string, error: unknown): ZerdaError {
    if (ZerdaError.isInstance(error)) return error;
    return createError('ZERDA_BACKEND_ERROR', { component: `Pinecone (${this.location})`, operation, reason: error instanceof Error ? error.message : String(error) }, error);
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
  async add(chunks: DocumentChunk[]): Promise<void> {
    const validated = toDocumentChunks(chunks, 'chunks');
    if (validated.length === 0) return;
    let dimensions = this.dimensionsValue;
    const records: PreparedRecord[] = [];
    for (let i = 0; i < validated.length; i++) {
      const chunk = validated[i]!;
      if (chunk.embedding === undefined) {
        throw createError('ZERDA_INVALID_EMBEDDING', { field: `chunks[${i}].embedding`, expected: 'an embedding (this store does not embed text)', received: 'undefined' });
      }
      const vector = validateEmbedding(chunk.embedding, `chunks[${i}].embedding`, dimensions);
      dimensions ??= vector.length;
      const metadata = toPineconeMetadata(chunk);
      const bytes = metadataBytes(metadata);
      if (bytes > MAX_METADATA_BYTES) {
        throw invalidArgument(`chunks[${i}]`, `at most ${MAX_METADATA_BYTES} bytes of text and metadata (Pinecone's limit per record; split the chunk or slim its metadata)`, `a chunk whose record metadata takes ${bytes} bytes`);
      }
      records.push({ id: chunk.id, values: Array.from(vector), metadata, bytes: bytes + vector.length * 12 + chunk.id.length + 64 });
    }
    this.dimensionsValue = dimensions;
    for (const batch of this.upsertBatches(records)) {
      try {
        await this.index.upsert({ records: batch.map(({ id, values, metadata }) => ({ id, values, metadata })), ...this.namespaceField() });
      } catch (error) {
        throw this.backendError('upsert', error);
      }
    }
    if (this.waitForWrites) await this.awaitVisibility(records.map((record) => record.id), true, 'add');
  }

  /** Groups records into requests within `batchSize` records and Pinecone's 2 MB request limit. */
  private upsertBatches(records: PreparedRecord[]): PreparedRecord[][] {
    const batches: PreparedRecord[][] = [];
    let current: PreparedRecord[] = [];
    let bytes = 0;
    // Leave room for the request envelope and JSON number formatting differences.
    const budget = MAX_UPSERT_BYTES - 64 * 1024;
    for (const record of records) {
      if (current.length > 0 && (current.length >= this.batchSize || bytes + record.bytes > budget)) {
        batches.push(current);
        current = [];
        bytes = 0;
      }
      current.push(record);
      bytes += record.bytes;
    }
    if (current.length > 0) batches.push(current);
    return batches;
  }

  private async awaitVisibility(ids: string[], present: boolean, operation: string): Promise<void> {
    const { timeoutMs, intervalMs } = this.waitForWrites!;
    const deadline = Date.now() + timeoutMs;
    const unique = [...new Set(ids)];
    for (;;) {
      const found = await this.fetchRecords(unique);
      if (present ? found.size === unique.length : found.size === 0) return;
      if (Date.now() >= deadline) {
        throw createError('ZERDA_BACKEND_ERROR', { component: `Pinecone (${this.location})`, operation, reason: `the write was not visible after ${timeoutMs} ms (Pinecone is eventually consistent; raise waitForWrites.timeoutMs)` });
      }
      await sleep(intervalMs);
    }
  }

  private toSimilarity(score: number): number {
    switch (this.metric) {
      case 'cosine':
        return Math.max(-1, Math.min(1, score));
      case 'ip':
        return score;
      case 'l2':
        // Pinecone's euclidean score is the squared distance (lower is closer).
        return similarityFromDistance('l2', score, { squared: true });
    }
  }

  /**
   * The `k` chunks most similar to `vector`, best first, each matching `filter`. `k` is capped at
   * 1,000 (Pinecone's `topK` limit when metadata is returned). A filter with a string range is
   * sent without that part and checked afterwards, with `topK` growing until `k` matches are found.
   */
  async search(vector: Embedding, options: PineconeSearchOptions): Promise<VectorSearchHit[]> {
    const { k, filter } = validateSearchOptions(options, ['scanFactor', 'maxCandidates']);
    const scanFactor = options.scanFactor === undefined ? undefined : checkPositiveNumber(options.scanFactor, 'options.scanFactor');
    const maxCandidates = options.maxCandidates === undefined ? undefined : checkInteger(options.maxCandidates, 'options.maxCandidates', 1, 100_000);
    const query = validateEmbedding(vector, 'vector', this.dimensionsValue);
    if (k === 0) return [];
    const translated = translateFilter(filter);
    if (translated.matchesNothing) return [];
    const wanted = Math.min(k, MAX_TOP_K);
    const values = Array.from(query);
    const run = async (topK: number): Promise<VectorSearchHit[]> => {
      const request: QueryOptions = { vector: values, topK, includeMetadata: true, includeValues: this.includeEmbeddings, ...this.namespaceField() };
      if (translated.filter) request.filter = translated.filter;
      if (scanFactor !== undefined) request.scanFactor = scanFactor;
      if (maxCandidates !== undefined) request.maxCandidates = maxCandidates;
      let response;
      try {
        response = await this.index.query(request);
      } catch (error) {
        throw this.backendError('query', error);
      }
      return (response.matches ?? []).map((match) => ({
        chunk: fromPineconeRecord(match.id, match.metadata, this.includeEmbeddings ? match.values : undefined, this.location),
        score: this.toSimilarity(Number(match.score)),
      }));
    };
    if (translated.exact) return (await run(wanted)).sort(compareSearchHits).slice(0, wanted);
    let topK = Math.min(MAX_TOP_K, wanted * this.overFetch);
    for (;;) {
      const candidates = await run(topK);
      const matching = candidates.filter((hit) => matchesFilter(hit.chunk, filter)).sort(compareSearchHits);
      if (matching.length >= wanted || candidates.length < topK || topK >= MAX_TOP_K) return matching.slice(0, wanted);
      topK = Math.min(MAX_TOP_K, topK * 4);
    }
  }

  private async fetchRecords(ids: string[]): Promise<Map<string, DocumentChunk>> {
    const found = new Map<string, DocumentChunk>();
    for (const slice of slices(ids, IDS_PER_FETCH)) {
      let response;
      try {
        response = await this.index.fetch({ ids: slice, ...this.namespaceField() });
      } catch (error) {
        throw this.backendError('fetch', error);
      }
      for (const [id, record] of Object.entries(response.records ?? {})) {
        found.set(id, fromPineconeRecord(id, record.metadata, this.includeEmbeddings ? record.values : undefined, this.location));
      }
    }
    return found;
  }

  /** Fetches chunks by id, in the order asked; missing ids are skipped. */
  async get(ids: string[]): Promise<DocumentChunk[]> {
    const wanted = validateIdList(ids, 'ids');
    if (wanted.length === 0) return [];
    const found = await this.fetchRecords([...new Set(wanted)]);
    return wanted.flatMap((id) => {
      const chunk = found.get(id);
      return chunk ? [chunk] : [];
    });
  }

  /** Deletes chunks by id (unknown ids are ignored), 1,000 ids per request. */
  async delete(ids: string[]): Promise<void> {
    const unique = [...new Set(validateIdList(ids, 'ids'))];
    if (unique.length === 0) return;
    for (const slice of slices(unique, IDS_PER_DELETE)) {
      try {
        await this.index.deleteMany({ ids: slice, ...this.namespaceField() });
      } catch (error) {
        throw this.backendError('delete', error);
      }
    }
    if (this.waitForWrites) await this.awaitVisibility(unique, false, 'delete');
  }

  /** Deletes every chunk of the given documents with one delete-by-metadata request per 1,000 document ids. */
  async deleteByDocIds(docIds: string[]): Promise<void> {
    const unique = [...new Set(validateIdList(docIds, 'docIds'))];
    for (const slice of slices(unique, IDS_PER_DELETE)) {
      const filter: PineconeFilter = { [DOC_ID_FIELD]: { $in: slice } };
      try {
        await this.index.deleteMany({ filter, ...this.namespaceField() });
      } catch (error) {
        throw this.backendError('deleteByDocIds', error);
      }
    }
  }

  /**
   * Records in the namespace, from `describeIndexStats` (Pinecone updates these counts
   * asynchronously: right after a write they may lag).
   */
  async count(): Promise<number> {
    let stats;
    try {
      stats = await this.index.describeIndexStats();
    } catch (error) {
      throw this.backendError('describeIndexStats', error);
    }
    const namespaces = stats.namespaces ?? {};
    // Newer API versions report the default namespace as "__default__".
    const summary = namespaces[this.namespace] ?? (this.namespace === '' ? namespaces['__default__'] : undefined);
    return summary?.recordCount ?? 0;
  }

  /** Deletes every record of the namespace (other namespaces are untouched). */
  async clear(): Promise<void> {
    try {
      await this.index.deleteAll(this.namespaceField());
    } catch (error) {
      // Deleting an empty or never-written namespace is not an error for zerda.
      if (/not found|404/i.test(error instanceof Error ? error.message : String(error))) return;
      throw this.backendError('clear', error);
    }
  }

  /** Checks a filter without sending anything: the Pinecone filter it becomes, and whether results are post-checked. */
  explainFilter(filter: MetadataFilter | undefined): ReturnType<typeof translateFilter> {
    return translateFilter(filter === undefined ? undefined : validateSearchOptions({ k: 0, filter }).filter);
  }
}

function checkPositiveNumber(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw invalidArgument(field, 'a positive number', value);
  return value;
}
