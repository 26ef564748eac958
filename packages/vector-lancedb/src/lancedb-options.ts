import type * as lancedb from '@lancedb/lancedb';
import { Analyzer, type AnalyzerOptions } from '@zerda/text';
import { checkBoolean, checkInteger, invalidArgument, type VectorMetric, type VectorSearchOptions } from '@zerda/types';
import { checkStoreOptions, dimensionsOption, metricOption, overFetchOption } from '@zerda/vector-kit';

/** Options of {@link LanceDbVectorStore}. Give `uri` or `connection`. */
export interface LanceDbVectorStoreOptions {
  /** Where the database lives: a local directory, `s3://…`, `gs://…`, `az://…` or `memory://`. */
  uri?: string;
  /** An open LanceDB connection to use instead of `uri` (the caller keeps ownership of it). */
  connection?: lancedb.Connection;
  /** Storage options for `uri` (object-store credentials, region …), passed to `lancedb.connect`. */
  storageOptions?: Record<string, string>;
  /** Table holding the collection: letters, digits, `_`, `-`, `.`, at most 128, not starting with `.` or `-`. Default `zerda_chunks`. */
  table?: string;
  /** Distance to search with; scores are always similarities. Default `cosine`, or the existing table's. */
  metric?: VectorMetric;
  /** Embedding dimension; otherwise read from an existing table or set by the first added vector. */
  dimensions?: number;
  /** Keep an analysed full-text column with an inverted index and answer `textSearch`. Default true. */
  textSearch?: boolean;
  /** How text is analysed for full-text search (`@zerda/text` Analyzer options; Arabic normalised and stemmed by default). */
  analyzer?: AnalyzerOptions;
  /** Return embeddings with hits and `get`. Default true. */
  includeEmbeddings?: boolean;
  /** First over-fetch factor when a filter must be checked after the search (see README). Default 4. */
  overFetch?: number;
}

/** Backend knobs `search` understands besides `k` and `filter`. */
export interface LanceDbSearchOptions extends VectorSearchOptions {
  /**
   * IVF partitions to probe when a vector index exists. Default: 15% of the partitions of an index
   * this store built (at least 20), else LanceDB's 20.
   */
  nprobes?: number;
  /** Re-rank `k * refineFactor` index candidates with exact distances. */
  refineFactor?: number;
  /** HNSW candidate list size when an HNSW-based vector index exists. */
  ef?: number;
  /** Ignore any vector index and scan exactly. */
  exact?: boolean;
}

/** Options of {@link LanceDbVectorStore.createVectorIndex}. */
export interface LanceDbVectorIndexOptions {
  /**
   * `ivfFlat` (default: full vectors per partition, exact within the probed partitions), `ivfPq`
   * (compressed, smallest, lossy: re-rank with `refineFactor`), `hnswSq` or `hnswPq`.
   */
  type?: 'ivfPq' | 'ivfFlat' | 'hnswSq' | 'hnswPq';
  /** IVF partitions. LanceDB 0.31 derives its default from a target partition size (thousands of rows per partition), so a 100k-row table gets few partitions and its default 20 probes scan most of it; set about sqrt(rows) for a real speed-up. */
  numPartitions?: number;
  /** PQ sub-vectors (`ivfPq`, `hnswPq`). */
  numSubVectors?: number;
}

/** {@link LanceDbVectorStoreOptions}, checked, with the defaults filled in. */
export interface ResolvedLanceDbOptions {
  uri: string | undefined;
  connection: lancedb.Connection | undefined;
  storageOptions: Record<string, string> | undefined;
  table: string;
  metric: VectorMetric;
  dimensions: number | undefined;
  /** The text analyser, or undefined without text search. */
  analyzer: Analyzer | undefined;
  includeEmbeddings: boolean;
  overFetch: number;
}

/** The search knobs, checked. */
export interface CheckedSearchKnobs {
  nprobes: number | undefined;
  refineFactor: number | undefined;
  ef: number | undefined;
  exact: boolean;
}

const OPTION_KEYS = ['uri', 'connection', 'storageOptions', 'table', 'metric', 'dimensions', 'textSearch', 'analyzer', 'includeEmbeddings', 'overFetch'];
const TABLE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

function checkConnection(options: LanceDbVectorStoreOptions): Pick<ResolvedLanceDbOptions, 'uri' | 'connection'> {
  if (options.connection === undefined) {
    if (typeof options.uri !== 'string' || options.uri.length === 0) throw invalidArgument('options.uri', 'a non-empty string (a directory, an object-store URI or memory://), or pass options.connection', options.uri);
    return { uri: options.uri, connection: undefined };
  }
  const connection = options.connection as unknown as { openTable?: unknown; createEmptyTable?: unknown };
  if (connection === null || typeof connection !== 'object' || typeof connection.openTable !== 'function' || typeof connection.createEmptyTable !== 'function') {
    throw invalidArgument('options.connection', 'a LanceDB Connection (from lancedb.connect)', options.connection);
  }
  if (options.uri !== undefined) throw invalidArgument('options.uri', 'absent when options.connection is given', options.uri);
  return { uri: undefined, connection: options.connection };
}

function checkStorageOptions(storage: unknown): Record<string, string> | undefined {
  if (storage === undefined) return undefined;
  if (storage === null || typeof storage !== 'object' || Array.isArray(storage) || Object.values(storage).some((value) => typeof value !== 'string')) {
    throw invalidArgument('options.storageOptions', 'an object of string values', storage);
  }
  return { ...(storage as Record<string, string>) };
}

/** Checks the options of a {@link LanceDbVectorStore} (a ZerdaError names the first bad field) and fills in the defaults. */
export function resolveLanceDbOptions(input: LanceDbVectorStoreOptions): ResolvedLanceDbOptions {
  const options = checkStoreOptions(input, OPTION_KEYS, 'an options object with uri or connection');
  const { uri, connection } = checkConnection(options);
  const storageOptions = checkStorageOptions(options.storageOptions);
  const table = options.table ?? 'zerda_chunks';
  if (typeof table !== 'string' || !TABLE_NAME.test(table)) {
    throw invalidArgument('options.table', 'a table name of letters, digits, "_", "-" and "." (at most 128, not starting with "." or "-")', table);
  }
  const metric = metricOption(options.metric);
  const dimensions = dimensionsOption(options.dimensions);
  const textSearch = options.textSearch === undefined ? true : checkBoolean(options.textSearch, 'options.textSearch');
  return {
    uri,
    connection,
    storageOptions,
    table,
    metric,
    dimensions,
    analyzer: textSearch ? new Analyzer(options.analyzer) : undefined,
    includeEmbeddings: options.includeEmbeddings === undefined ? true : checkBoolean(options.includeEmbeddings, 'options.includeEmbeddings'),
    overFetch: overFetchOption(options.overFetch),
  };
}

/** Checks `search`'s LanceDB knobs (`nprobes`, `refineFactor`, `ef`, `exact`). */
export function checkSearchKnobs(options: LanceDbSearchOptions): CheckedSearchKnobs {
  return {
    nprobes: options.nprobes === undefined ? undefined : checkInteger(options.nprobes, 'options.nprobes', 1, 100_000),
    refineFactor: options.refineFactor === undefined ? undefined : checkInteger(options.refineFactor, 'options.refineFactor', 1, 1000),
    ef: options.ef === undefined ? undefined : checkInteger(options.ef, 'options.ef', 1, 100_000),
    exact: options.exact === undefined ? false : checkBoolean(options.exact, 'options.exact'),
  };
}

/** Checks the options of `createVectorIndex`. */
export function checkVectorIndexOptions(options: LanceDbVectorIndexOptions): Required<Pick<LanceDbVectorIndexOptions, 'type'>> & Pick<LanceDbVectorIndexOptions, 'numPartitions' | 'numSubVectors'> {
  if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an options object', options);
  const type = options.type ?? 'ivfFlat';
  if (!['ivfPq', 'ivfFlat', 'hnswSq', 'hnswPq'].includes(type)) throw invalidArgument('options.type', 'one of "ivfPq", "ivfFlat", "hnswSq", "hnswPq"', type);
  return {
    type,
    ...(options.numPartitions === undefined ? {} : { numPartitions: checkInteger(options.numPartitions, 'options.numPartitions', 1, 1_000_000) }),
    ...(options.numSubVectors === undefined ? {} : { numSubVectors: checkInteger(options.numSubVectors, 'options.numSubVectors', 1, 65_536) }),
  };
}
