import { resolveAnalyzerOptions, type AnalyzerOptions, type ResolvedAnalyzerOptions } from '@zerda/text';
import { checkBoolean, checkInteger, createError, invalidArgument, type ZerdaError, type DocumentChunk, type VectorMetric, type VectorSearchOptions } from '@zerda/types';
import { checkIdentifier } from './identifiers.js';
import { checkBm25, type Bm25Options, type Bm25Parameters } from './keyword-index.js';
import { HNSW_MAX_DIMENSIONS, type HnswParameters } from './pgvector-schema.js';
import { isPGliteLike, type SqlConnection } from './sql-client.js';
import { DEFAULT_TEXT_SEARCH_CONFIGURATIONS, chooseTextSearchConfiguration } from './text-search-configuration.js';

/** How pgvector 0.8+ continues an HNSW scan when a filter removed too many candidates. */
export type IterativeScanMode = 'strict_order' | 'relaxed_order' | 'off';

/** How `textSearch` combines the words of a query. */
export type TextMatchMode = 'any' | 'all' | 'websearch';

/**
 * How `textSearch` ranks: `bm25` (default), Okapi BM25 over text analysed by `@zerda/text` with
 * statistics kept in the database — the ranking of zerda's in-memory `KeywordRetriever`; or
 * `ts_rank_cd`, PostgreSQL's cover-density rank over a `tsvector` column (no IDF, cheaper writes,
 * and the only one that understands `match: 'websearch'`).
 */
export type TextRanking = 'bm25' | 'ts_rank_cd';

/** `hnsw.ef_search` of a query: a candidate-list length (1–1000), or `'server'` for the server's own setting. */
export type EfSearch = number | 'server';

/** The `hnsw.ef_search` the store sets when none is given: the same default as zerda's other HNSW stores. */
export const DEFAULT_EF_SEARCH = 256;
/** pgvector's hard upper bound for `hnsw.ef_search`. */
export const MAX_EF_SEARCH = 1000;
export const DEFAULT_HNSW: HnswParameters = { m: 16, efConstruction: 64 };

/** Options of {@link PgVectorStore}. Only `connection` is required. */
export interface PgVectorStoreOptions {
  /** A node-postgres `Pool`/`Client`, a PGlite instance, or any {@link SqlClient}. */
  connection: SqlConnection;
  /** Table holding the collection (validated against `/^[a-z_][a-z0-9_]{0,62}$/`). Default `zerda_chunks`. */
  collection?: string;
  /** PostgreSQL schema of the table (same pattern; created when missing). Default `public`. */
  schema?: string;
  /** Distance the HNSW index uses; scores are always similarities. Default `cosine`. */
  metric?: VectorMetric;
  /** Embedding dimension. Optional: an existing table's is read from the catalog, otherwise the first added vector decides. */
  dimensions?: number;
  /** HNSW build parameters, or `false` for no vector index (exact scans). Default `{ m: 16, efConstruction: 64 }`. */
  hnsw?: false | Partial<HnswParameters>;
  /** Do not build the HNSW index in `ensureSchema`; call `createIndex()` after a bulk load (much faster at scale). */
  deferIndex?: boolean;
  /**
   * `hnsw.ef_search` for queries (1–1000), raised to `k` when `k` is larger; set per query in a
   * transaction. Default 256, as zerda's other HNSW stores (zerda's benchmark, 100k GloVe vectors:
   * recall@10 0.93 at 128 and 0.95 from 200, where pgvector's own default of 40 gives 0.82). `'server'` leaves the server's
   * setting (`postgresql.conf`, `ALTER ROLE … SET`) in force and only raises it to `k`.
   */
  efSearch?: EfSearch;
  /** Iterative index scans (pgvector 0.8+) for filtered queries, so a selective filter still fills `k`. Default `strict_order`. */
  iterativeScan?: IterativeScanMode;
  /** Rows per INSERT statement. Default 500. */
  batchSize?: number;
  /** Keep a keyword index and answer `textSearch`. Default true. */
  textSearch?: boolean;
  /** How `textSearch` ranks (see {@link TextRanking}). Default `bm25`. */
  textRanking?: TextRanking;
  /**
   * How the BM25 keyword index analyses text (`@zerda/text` Analyzer options; default: Arabic
   * normalised and light-stemmed, English Porter2, stopwords dropped — `KeywordRetriever`'s
   * defaults). Recorded in the table: a later store must use the same (or omit it).
   */
  analyzer?: AnalyzerOptions;
  /** BM25 parameters of `textSearch` (default: the engine's k1 1.2, b 0.75, titleWeight 1). */
  bm25?: Bm25Options;
  /** Text-search configurations the store may assign (must exist on the server; `ts_rank_cd` ranking analyses with them). Default `['arabic', 'english', 'simple']`. */
  textSearchConfigurations?: readonly string[];
  /** Picks a chunk's configuration (one of `textSearchConfigurations`). Default: by detected language. */
  chooseTextSearchConfiguration?: (chunk: DocumentChunk) => string;
  /** Return embeddings with search hits and `get`. Default true. */
  includeEmbeddings?: boolean;
  /** Run `CREATE EXTENSION IF NOT EXISTS vector` (turn off where an administrator manages extensions). Default true. */
  createExtension?: boolean;
  /** Whether the data survives a restart (reported in `capabilities.persistence`). Default: false for an in-memory PGlite, true otherwise. */
  persistent?: boolean;
  /** `close()` also ends the connection (pool `end()`, PGlite `close()`). Default false: the caller owns it. */
  closeConnection?: boolean;
}

/** Backend knobs `search` understands besides `k` and `filter`. */
export interface PgVectorSearchOptions extends VectorSearchOptions {
  /** `hnsw.ef_search` for this query (1–1000, or `'server'`); overrides the store's `efSearch`. */
  efSearch?: EfSearch;
  /** Bypass the HNSW index and scan exactly (ground truth for recall, or small filtered sets). */
  exact?: boolean;
  /** Overrides `options.iterativeScan` for this query. */
  iterativeScan?: IterativeScanMode;
  /** Only these chunks are candidates (unknown ids are ignored; scored exactly); the filter still applies. */
  ids?: readonly string[] | ReadonlySet<string>;
}

/** Options of {@link PgVectorStore.textSearch}. */
export interface PgVectorTextSearchOptions extends VectorSearchOptions {
  /** `any` (default): chunks containing any query word, ranked; `all`: every word; `websearch`: Google-like syntax (`"phrase"`, `-word`, `or`; `ts_rank_cd` ranking only). */
  match?: TextMatchMode;
  /** BM25 parameters for this query (overrides the store's `bm25`; `bm25` ranking only). */
  bm25?: Bm25Options;
}

/** Options of {@link PgVectorStore.createIndex}. */
export interface CreateIndexOptions extends Partial<HnswParameters> {
  /** `maintenance_work_mem` for the build (e.g. `'2GB'`): the graph builds much faster when it fits. */
  maintenanceWorkMem?: string;
  /** `max_parallel_maintenance_workers` for the build. */
  parallelWorkers?: number;
}

/** Every option of {@link PgVectorStoreOptions}, checked, with its default filled in. */
export interface ResolvedPgVectorOptions {
  collection: string;
  schema: string;
  dimensions: number | undefined;
  hnsw: HnswParameters | false;
  deferIndex: boolean;
  efSearch: EfSearch;
  iterativeScan: IterativeScanMode;
  batchSize: number;
  textSearch: boolean;
  textRanking: TextRanking;
  analyzer: ResolvedAnalyzerOptions | undefined;
  bm25: Bm25Parameters;
  textSearchConfigurations: readonly string[];
  chooseTextSearchConfiguration: (chunk: DocumentChunk) => string;
  includeEmbeddings: boolean;
  createExtension: boolean;
  persistent: boolean;
  closeConnection: boolean;
}

/** Every key of {@link PgVectorStoreOptions}. */
export const OPTION_KEYS = [
  'connection',
  'collection',
  'schema',
  'metric',
  'dimensions',
  'hnsw',
  'deferIndex',
  'efSearch',
  'iterativeScan',
  'batchSize',
  'textSearch',
  'textRanking',
  'analyzer',
  'bm25',
  'textSearchConfigurations',
  'chooseTextSearchConfiguration',
  'includeEmbeddings',
  'createExtension',
  'persistent',
  'closeConnection',
];
export const ITERATIVE_SCAN_MODES: readonly IterativeScanMode[] = ['strict_order', 'relaxed_order', 'off'];
export const MATCH_MODES: readonly TextMatchMode[] = ['any', 'all', 'websearch'];
const TEXT_RANKINGS: readonly TextRanking[] = ['bm25', 'ts_rank_cd'];

export function checkEnum<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (!allowed.includes(value as T)) throw invalidArgument(field, `one of ${allowed.map((item) => `"${item}"`).join(', ')}`, value);
  return value as T;
}

export function checkEfSearch(value: unknown, field: string): EfSearch {
  return value === 'server' ? 'server' : checkInteger(value, field, 1, MAX_EF_SEARCH);
}

export function checkHnsw(value: unknown, field: string): HnswParameters | false {
  if (value === false) return false;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidArgument(field, 'false or an object { m, efConstruction }', value);
  for (const key of Object.keys(value)) {
    if (key !== 'm' && key !== 'efConstruction') throw invalidArgument(`${field}.${key}`, 'a known option (m or efConstruction)', `unknown key "${key}"`);
  }
  const input = value as Partial<HnswParameters>;
  const m = input.m === undefined ? DEFAULT_HNSW.m : checkInteger(input.m, `${field}.m`, 2, 100);
  const efConstruction = input.efConstruction === undefined ? Math.max(DEFAULT_HNSW.efConstruction, 2 * m) : checkInteger(input.efConstruction, `${field}.efConstruction`, 4, 1000);
  // pgvector refuses an index whose candidate list is shorter than twice its fan-out.
  if (efConstruction < 2 * m) throw invalidArgument(`${field}.efConstruction`, `at least 2 * m (${2 * m})`, efConstruction);
  return { m, efConstruction };
}

function checkConfigurations(value: unknown): readonly string[] {
  if (!Array.isArray(value) || value.length === 0) throw invalidArgument('options.textSearchConfigurations', 'a non-empty array of text-search configuration names', value);
  return value.map((name, i) => checkIdentifier(name, `options.textSearchConfigurations[${i}]`));
}

function checkChooser(value: unknown): (chunk: DocumentChunk) => string {
  if (value === undefined) return chooseTextSearchConfiguration;
  if (typeof value !== 'function') throw invalidArgument('options.chooseTextSearchConfiguration', 'a function (chunk) => configuration name', value);
  return value as (chunk: DocumentChunk) => string;
}

/** Whether the data survives a restart: as told, else false for an in-memory PGlite only. */
function checkPersistent(options: PgVectorStoreOptions): boolean {
  if (options.persistent !== undefined) return checkBoolean(options.persistent, 'options.persistent');
  if (!isPGliteLike(options.connection)) return true;
  const dataDir = options.connection.dataDir;
  return typeof dataDir === 'string' && dataDir.length > 0 && !dataDir.startsWith('memory://');
}

/**
 * Checks the pgvector-specific options, in the order they are documented, and fills in their
 * defaults (`dimensions` comes checked; a ZerdaError names the first bad field).
 */
export function resolvePgVectorOptions(options: PgVectorStoreOptions, dimensions: number | undefined): ResolvedPgVectorOptions {
  const flag = (key: 'deferIndex' | 'textSearch' | 'includeEmbeddings' | 'createExtension' | 'closeConnection', fallback: boolean) =>
    options[key] === undefined ? fallback : checkBoolean(options[key], `options.${key}`);
  const resolved: ResolvedPgVectorOptions = {
    collection: checkIdentifier(options.collection ?? 'zerda_chunks', 'options.collection'),
    schema: checkIdentifier(options.schema ?? 'public', 'options.schema'),
    dimensions,
    hnsw: options.hnsw === undefined ? { ...DEFAULT_HNSW } : checkHnsw(options.hnsw, 'options.hnsw'),
    deferIndex: flag('deferIndex', false),
    efSearch: options.efSearch === undefined ? DEFAULT_EF_SEARCH : checkEfSearch(options.efSearch, 'options.efSearch'),
    iterativeScan: options.iterativeScan === undefined ? 'strict_order' : checkEnum(options.iterativeScan, ITERATIVE_SCAN_MODES, 'options.iterativeScan'),
    batchSize: options.batchSize === undefined ? 500 : checkInteger(options.batchSize, 'options.batchSize', 1, 100_000),
    textSearch: flag('textSearch', true),
    textRanking: options.textRanking === undefined ? 'bm25' : checkEnum(options.textRanking, TEXT_RANKINGS, 'options.textRanking'),
    analyzer: options.analyzer === undefined ? undefined : resolveAnalyzerOptions(options.analyzer),
    bm25: checkBm25(options.bm25, 'options.bm25'),
    textSearchConfigurations: checkConfigurations(options.textSearchConfigurations ?? DEFAULT_TEXT_SEARCH_CONFIGURATIONS),
    chooseTextSearchConfiguration: checkChooser(options.chooseTextSearchConfiguration),
    includeEmbeddings: flag('includeEmbeddings', true),
    createExtension: flag('createExtension', true),
    closeConnection: flag('closeConnection', false),
    persistent: checkPersistent(options),
  };
  if (resolved.hnsw && dimensions !== undefined && dimensions > HNSW_MAX_DIMENSIONS) throw tooManyDimensionsForHnsw(dimensions, 'options.dimensions');
  return resolved;
}

/** The error for an HNSW index on more dimensions than pgvector indexes. */
export function tooManyDimensionsForHnsw(dimensions: number, field: string): ZerdaError {
  return createError('ZERDA_UNSUPPORTED', {
    operation: `an HNSW index on ${dimensions}-dimensional vectors (${field})`,
    component: 'pgvector',
    reason: `pgvector indexes vector columns of at most ${HNSW_MAX_DIMENSIONS} dimensions; pass hnsw: false for exact search or reduce the dimension`,
  });
}
