import type { Index, RecordMetadata } from '@pinecone-database/pinecone';
import { checkBoolean, checkInteger, invalidArgument, type VectorMetric, type VectorSearchOptions } from '@zerda/types';
import { checkKnownKeys, checkStoreOptions, dimensionsOption, metricOption, overFetchOption } from '@zerda/vector-kit';

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

const OPTION_KEYS = ['index', 'namespace', 'metric', 'dimensions', 'batchSize', 'includeEmbeddings', 'overFetch', 'waitForWrites', 'label'];
const INDEX_METHODS = ['upsert', 'query', 'fetch', 'deleteMany', 'deleteAll', 'describeIndexStats'];

/** {@link PineconeVectorStoreOptions}, checked, with the defaults filled in. */
export interface ResolvedPineconeOptions {
  index: PineconeIndexLike;
  namespace: string;
  metric: VectorMetric;
  dimensions: number | undefined;
  batchSize: number;
  includeEmbeddings: boolean;
  overFetch: number;
  waitForWrites: Required<WaitForWritesOptions> | undefined;
  label: string;
}

function checkWaitOptions(value: unknown): Required<WaitForWritesOptions> | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { timeoutMs: 30_000, intervalMs: 500 };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidArgument('options.waitForWrites', 'a boolean or { timeoutMs, intervalMs }', value);
  checkKnownKeys(value, ['timeoutMs', 'intervalMs'], 'options.waitForWrites');
  const options = value as WaitForWritesOptions;
  return {
    timeoutMs: options.timeoutMs === undefined ? 30_000 : checkInteger(options.timeoutMs, 'options.waitForWrites.timeoutMs', 1, 3_600_000),
    intervalMs: options.intervalMs === undefined ? 500 : checkInteger(options.intervalMs, 'options.waitForWrites.intervalMs', 1, 60_000),
  };
}

/** Checks the options of a {@link PineconeVectorStore} (a ZerdaError names the first bad field) and fills in the defaults. */
export function resolvePineconeOptions(input: PineconeVectorStoreOptions): ResolvedPineconeOptions {
  const options = checkStoreOptions(input, OPTION_KEYS, 'an options object with an index');
  const index = options.index as unknown as Record<string, unknown> | null;
  if (index === null || typeof index !== 'object' || INDEX_METHODS.some((method) => typeof index[method] !== 'function')) {
    throw invalidArgument('options.index', `a Pinecone Index (pinecone.index({ name })) with ${INDEX_METHODS.join(', ')}`, options.index);
  }
  const namespace = options.namespace ?? '';
  if (typeof namespace !== 'string') throw invalidArgument('options.namespace', 'a string', options.namespace);
  return {
    index: options.index,
    namespace,
    metric: metricOption(options.metric, 'options.metric', '(Pinecone cosine, dotproduct, euclidean)'),
    dimensions: dimensionsOption(options.dimensions, 'options.dimensions', 20_000),
    batchSize: options.batchSize === undefined ? 100 : checkInteger(options.batchSize, 'options.batchSize', 1, MAX_UPSERT_RECORDS),
    includeEmbeddings: options.includeEmbeddings === undefined ? true : checkBoolean(options.includeEmbeddings, 'options.includeEmbeddings'),
    overFetch: overFetchOption(options.overFetch),
    waitForWrites: checkWaitOptions(options.waitForWrites),
    label: options.label ?? 'pinecone index',
  };
}

/** Checks `search`'s Pinecone knobs; undefined ones stay undefined. */
export function checkPineconeSearchOptions(options: PineconeSearchOptions): { scanFactor?: number; maxCandidates?: number } {
  const checked: { scanFactor?: number; maxCandidates?: number } = {};
  if (options.scanFactor !== undefined) {
    if (typeof options.scanFactor !== 'number' || !Number.isFinite(options.scanFactor) || options.scanFactor <= 0) throw invalidArgument('options.scanFactor', 'a positive number', options.scanFactor);
    checked.scanFactor = options.scanFactor;
  }
  if (options.maxCandidates !== undefined) checked.maxCandidates = checkInteger(options.maxCandidates, 'options.maxCandidates', 1, 100_000);
  return checked;
}
