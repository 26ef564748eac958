import { DEFAULT_ANALYZER_OPTIONS, resolveAnalyzerOptions, type Analyzer, type AnalyzerOptions, type ResolvedAnalyzerOptions } from '@zerda/text';
import {
  validateSearchOptions,
  ZerdaError,
  createError,
  describeValue,
  invalidArgument,
  parseMetadataFilter,
  similarityFromDistance,
  toDocumentChunks,
  validateEmbedding,
  validateIdList,
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
import { compileFilter } from './filter-sql.js';
import { checkIdentifier, quoteIdentifier } from './identifiers.js';
import {
  PostingColumns,
  analyseChunk,
  analyzerFor,
  bm25ScoresSql,
  checkBm25,
  postingsInsertStatement,
  queryTerms,
  type Bm25Options,
  type Bm25Parameters,
} from './keyword-index.js';
import {
  HNSW_MAX_DIMENSIONS,
  METRIC_SQL,
  checkExistingTable,
  commentStatement,
  dropKeywordIndexStatements,
  hnswIndexName,
  hnswIndexStatement,
  inspectTable,
  keywordIndexNames,
  keywordIndexStatements,
  qualifiedName,
  tableStatements,
  textSearchStatements,
  type HnswParameters,
  type TableLayout,
} from './schema.js';
import { isNodePostgresPoolLike, isPGliteLike, toSqlClient, type SqlClient, type SqlConnection } from './sql-client.js';
import { DEFAULT_TEXT_SEARCH_CONFIGURATIONS, chooseTextSearchConfiguration } from './text-search-configuration.js';
import { fromVectorLiteral, toVectorLiteral } from './vector-literal.js';

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
/** Attempts of a write transaction the server rolls back as a deadlock victim or a serialization failure. */
const WRITE_ATTEMPTS = 5;

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

const OPTION_KEYS = new Set([
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
]);
const METRICS: readonly VectorMetric[] = ['cosine', 'ip', 'l2'];
const ITERATIVE_SCAN_MODES: readonly IterativeScanMode[] = ['strict_order', 'relaxed_order', 'off'];
const MATCH_MODES: readonly TextMatchMode[] = ['any', 'all', 'websearch'];
const TEXT_RANKINGS: readonly TextRanking[] = ['bm25', 'ts_rank_cd'];
/** pgvector's own default `hnsw.ef_search`. */
const PGVECTOR_DEFAULT_EF_SEARCH = 40;
/** Rows analysed per transaction when a table gains its keyword index. */
const BACKFILL_BATCH = 500;
/** Postings per INSERT statement. */
const POSTINGS_PER_STATEMENT = 50_000;
const DEFAULT_HNSW: HnswParameters = { m: 16, efConstruction: 64 };
/** pgvector's hard upper bound for `hnsw.ef_search`. */
const MAX_EF_SEARCH = 1000;
/** Words of an `any` text query beyond this are ignored (each becomes two bind parameters per configuration). */
const MAX_QUERY_WORDS = 64;
/** Ids per DELETE/SELECT statement. */
const IDS_PER_STATEMENT = 10_000;
/** PostgreSQL cannot store U+0000 in text, and lone surrogates are not valid UTF-8. */
const UNSTORABLE_CHARACTER = /\u0000|\p{Cs}/u;

const CHUNK_COLUMNS = 'id, doc_id, text, source, title, metadata, position, timestamp_ms';

interface ChunkRow {
  id: string;
  doc_id: string;
  text: string;
  source: string;
  title: string | null;
  metadata: unknown;
  position: unknown;
  timestamp_ms: number | string | null;
  embedding?: string;
}



function checkEnum<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (!allowed.includes(value as T)) throw invalidArgument(field, `one of ${allowed.map((item) => `"${item}"`).join(', ')}`, value);
  return value as T;
}

function checkEfSearch(value: unknown, field: string): EfSearch {
  return value === 'server' ? 'server' : checkInteger(value, field, 1, MAX_EF_SEARCH);
}

function sameAnalyzer(a: ResolvedAnalyzerOptions, b: ResolvedAnalyzerOptions): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Thrown inside a write transaction that finds a keyword index this store did not know about. */
class StaleLayoutError extends Error {}

function checkHnsw(value: unknown, field: string): HnswParameters | false {
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

/** Throws when a string cannot be stored in PostgreSQL text (NUL, lone surrogate). */
function checkStorable(value: string, field: string): void {
  const match = UNSTORABLE_CHARACTER.exec(value);
  if (match) {
    const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    throw invalidArgument(field, `text PostgreSQL can store (no U+0000 and no lone surrogates; found U+${code})`, value);
  }
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

function parseJsonColumn(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

function backendError(operation: string, error: unknown): ZerdaError {
  if (ZerdaError.isInstance(error)) return error;
  return createError('ZERDA_BACKEND_ERROR', { component: 'pgvector', operation, reason: error instanceof Error ? error.message : String(error) }, error);
}

function compareHits(a: VectorSearchHit, b: VectorSearchHit): number {
  return b.score - a.score || (a.chunk.id < b.chunk.id ? -1 : a.chunk.id > b.chunk.id ? 1 : 0);
}

/**
 * Orders strings by code point, as PostgreSQL's "C" collation orders their UTF-8 bytes (JavaScript's
 * `<` compares UTF-16 code units, which puts U+E000–U+FFFF above supplementary characters).
 */
function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x === y) continue;
    // Surrogates (D800–DFFF) encode code points above FFFF: move them above E000–FFFF.
    const shift = (unit: number) => (unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit);
    return shift(x) - shift(y);
  }
  return a.length - b.length;
}

function versionAtLeast(version: string | undefined, major: number, minor: number): boolean {
  if (!version) return false;
  const [a = 0, b = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  return a > major || (a === major && b >= minor);
}

/**
 * A `VectorStore` in PostgreSQL with pgvector: one table per collection, an HNSW index, GIN
 * indexes for metadata and full text. The same SQL runs on a server through node-postgres and in
 * process on PGlite.
 *
 * Guarantees (the `VectorStore` v1 contract, checked by `@zerda/vector-conformance`):
 * - `add` validates every chunk and embedding before any SQL runs, then upserts in batches inside
 *   one transaction: a failure leaves the previous state intact; re-adding an id replaces it.
 * - `search` returns at most `k` hits ordered by similarity (cosine `1 - distance`, inner product,
 *   `1 / (1 + euclidean)`), each matching the filter. Filters compile to SQL over JSONB with the
 *   exact semantics of `matchesFilter`, and every filter key and value is a bind parameter.
 * - Table, schema and column names are validated; the table records its layout version and metric
 *   in its comment, and an existing table with another dimension or metric is refused clearly.
 */
export class PgVectorStore implements VectorStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'pgvector';
  readonly metric: VectorMetric;
  readonly capabilities: VectorStoreCapabilities;
  /** The PostgreSQL schema holding the table. */
  readonly schema: string;
  /** The table holding the collection. */
  readonly collection: string;
  /** The {@link SqlClient} every statement goes through. */
  readonly client: SqlClient;

  private readonly connection: SqlConnection;
  private dimensionsValue: number | undefined;
  private readonly configuredDimensions: number | undefined;
  private readonly hnsw: HnswParameters | false;
  private readonly deferIndex: boolean;
  private readonly efSearch: EfSearch;
  private readonly iterativeScan: IterativeScanMode;
  private readonly batchSize: number;
  private readonly textSearchEnabled: boolean;
  private readonly textRanking: TextRanking;
  private readonly requestedAnalyzer: ResolvedAnalyzerOptions | undefined;
  private readonly bm25: Bm25Parameters;
  /** The table's BM25 keyword index (its analyzer), once known; false: the table has none. */
  private keywordIndex: ResolvedAnalyzerOptions | false = false;
  private analyzer: Analyzer | undefined;
  private readonly textSearchConfigurations: readonly string[];
  private readonly chooseConfiguration: (chunk: DocumentChunk) => string;
  private readonly includeEmbeddings: boolean;
  private readonly createExtension: boolean;
  private readonly closeConnection: boolean;
  /** Set once the table is known to exist with a checked layout. */
  private tableReady = false;
  private extensionReady: Promise<string | undefined> | undefined;
  private preparing: Promise<boolean> | undefined;
  private pgvectorVersion: string | undefined;
  private closed = false;

  constructor(options: PgVectorStoreOptions) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('options', 'an options object with a connection', options);
    for (const key of Object.keys(options)) {
      if (!OPTION_KEYS.has(key)) throw invalidArgument(`options.${key}`, `a known option (one of ${[...OPTION_KEYS].join(', ')})`, `unknown key "${key}"`);
    }
    this.connection = options.connection;
    this.client = toSqlClient(options.connection, 'options.connection');
    this.collection = checkIdentifier(options.collection ?? 'zerda_chunks', 'options.collection');
    this.schema = checkIdentifier(options.schema ?? 'public', 'options.schema');
    this.metric = options.metric === undefined ? 'cosine' : checkEnum(options.metric, METRICS, 'options.metric');
    this.dimensionsValue = options.dimensions === undefined ? undefined : checkInteger(options.dimensions, 'options.dimensions', 1, 16_000);
    this.configuredDimensions = this.dimensionsValue;
    this.hnsw = options.hnsw === undefined ? { ...DEFAULT_HNSW } : checkHnsw(options.hnsw, 'options.hnsw');
    this.deferIndex = options.deferIndex === undefined ? false : checkBoolean(options.deferIndex, 'options.deferIndex');
    this.efSearch = options.efSearch === undefined ? DEFAULT_EF_SEARCH : checkEfSearch(options.efSearch, 'options.efSearch');
    this.iterativeScan = options.iterativeScan === undefined ? 'strict_order' : checkEnum(options.iterativeScan, ITERATIVE_SCAN_MODES, 'options.iterativeScan');
    this.batchSize = options.batchSize === undefined ? 500 : checkInteger(options.batchSize, 'options.batchSize', 1, 100_000);
    this.textSearchEnabled = options.textSearch === undefined ? true : checkBoolean(options.textSearch, 'options.textSearch');
    this.textRanking = options.textRanking === undefined ? 'bm25' : checkEnum(options.textRanking, TEXT_RANKINGS, 'options.textRanking');
    this.requestedAnalyzer = options.analyzer === undefined ? undefined : resolveAnalyzerOptions(options.analyzer);
    this.bm25 = checkBm25(options.bm25, 'options.bm25');
    const configurations = options.textSearchConfigurations ?? DEFAULT_TEXT_SEARCH_CONFIGURATIONS;
    if (!Array.isArray(configurations) || configurations.length === 0) {
      throw invalidArgument('options.textSearchConfigurations', 'a non-empty array of text-search configuration names', configurations);
    }
    this.textSearchConfigurations = configurations.map((name, i) => checkIdentifier(name, `options.textSearchConfigurations[${i}]`));
    if (options.chooseTextSearchConfiguration !== undefined && typeof options.chooseTextSearchConfiguration !== 'function') {
      throw invalidArgument('options.chooseTextSearchConfiguration', 'a function (chunk) => configuration name', options.chooseTextSearchConfiguration);
    }
    this.chooseConfiguration = options.chooseTextSearchConfiguration ?? chooseTextSearchConfiguration;
    this.includeEmbeddings = options.includeEmbeddings === undefined ? true : checkBoolean(options.includeEmbeddings, 'options.includeEmbeddings');
    this.createExtension = options.createExtension === undefined ? true : checkBoolean(options.createExtension, 'options.createExtension');
    this.closeConnection = options.closeConnection === undefined ? false : checkBoolean(options.closeConnection, 'options.closeConnection');
    let persistent = true;
    if (options.persistent !== undefined) persistent = checkBoolean(options.persistent, 'options.persistent');
    else if (isPGliteLike(options.connection)) {
      const dataDir = options.connection.dataDir;
      persistent = typeof dataDir === 'string' && dataDir.length > 0 && !dataDir.startsWith('memory://');
    }
    if (this.hnsw && this.dimensionsValue !== undefined && this.dimensionsValue > HNSW_MAX_DIMENSIONS) throw this.tooManyDimensionsForHnsw(this.dimensionsValue, 'options.dimensions');
    this.capabilities = Object.freeze({ persistence: persistent, nativeFilter: true, textSearch: this.textSearchEnabled, embeds: false });
  }

  /**
   * Constructs a store and runs {@link PgVectorStore.ensureSchema}, so an existing collection's
   * dimension is known right away (and a new one is created when `dimensions` is given).
   */
  static async open(options: PgVectorStoreOptions): Promise<PgVectorStore> {
    const store = new PgVectorStore(options);
    await store.ensureSchema();
    return store;
  }

  /** The vector dimension: from the options, from an existing table, or set by the first added vector. */
  get dimensions(): number | undefined {
    return this.dimensionsValue;
  }

  /** `"schema"."table"`, quoted, for users who want to run their own SQL against the collection. */
  get qualifiedTableName(): string {
    return qualifiedName({ schema: this.schema, table: this.collection });
  }

  /** Where the data lives, for engine snapshots' identity check: the quoted `"schema"."table"` (never the connection). */
  get location(): string {
    return this.qualifiedTableName;
  }

  private tooManyDimensionsForHnsw(dimensions: number, field: string): ZerdaError {
    return createError('ZERDA_UNSUPPORTED', {
      operation: `an HNSW index on ${dimensions}-dimensional vectors (${field})`,
      component: 'pgvector',
      reason: `pgvector indexes vector columns of at most ${HNSW_MAX_DIMENSIONS} dimensions; pass hnsw: false for exact search or reduce the dimension`,
    });
  }

  private assertOpen(): void {
    if (this.closed) throw createError('ZERDA_NOT_READY', { component: `pgvector store ${this.schema}.${this.collection}`, reason: 'it was closed' });
  }

  private layout(dimensions: number, keywordIndex: ResolvedAnalyzerOptions | false = this.keywordIndex): TableLayout {
    return {
      schema: this.schema,
      table: this.collection,
      metric: this.metric,
      dimensions,
      hnsw: this.hnsw,
      fullText: this.textSearchEnabled && this.textRanking === 'ts_rank_cd',
      keywordIndex,
    };
  }

  /** The quoted names of the keyword index's tables. */
  private get keywordTables(): { postings: string; statistics: string; postingsName: string } {
    const names = keywordIndexNames(this.collection);
    return {
      postings: qualifiedName({ schema: this.schema, table: names.postings }),
      statistics: qualifiedName({ schema: this.schema, table: names.statistics }),
      postingsName: `${this.schema}.${names.postings}`,
    };
  }

  /** Takes the table's keyword index (and its analyzer) as this store's. */
  private useKeywordIndex(options: ResolvedAnalyzerOptions | false): void {
    this.keywordIndex = options;
    this.analyzer = options ? analyzerFor(options) : undefined;
  }

  /** Runs `fn` in a transaction when the client supports one (writes are then all-or-nothing). */
  private inTransaction<T>(fn: (client: SqlClient) => Promise<T>): Promise<T> {
    return this.client.transaction ? this.client.transaction(fn) : fn(this.client);
  }

  /**
   * A write transaction, run again when PostgreSQL rolled it back as a deadlock victim (40P01) or
   * for a serialization failure (40001): rows are locked in one global order, but the server's own
   * index maintenance takes locks too, and its deadlock detector may still pick one of 32
   * concurrent writers. The rolled-back attempt left nothing behind, so running it again is safe.
   */
  private async inWriteTransaction<T>(fn: (client: SqlClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.inTransaction(fn);
      } catch (error) {
        const code = (error as { code?: unknown } | null)?.code;
        if (!this.client.transaction || attempt >= WRITE_ATTEMPTS || (code !== '40P01' && code !== '40001')) throw error;
        await new Promise((resolve) => setTimeout(resolve, attempt * (5 + Math.random() * 20)));
      }
    }
  }

  /**
   * Creates what the collection needs, idempotently: the `vector` extension, the schema, the table
   * (`id` primary key, `doc_id`, `text`, `source`, `title`, `metadata` JSONB, `position` JSONB,
   * `timestamp_ms`, `language` regconfig, `embedding vector(d)`, generated `tsv`), a B-tree on
   * `doc_id`, a GIN index on metadata (`jsonb_path_ops`), the text index — the BM25 keyword
   * index (postings and statistics tables kept by triggers) or, with `textRanking: 'ts_rank_cd'`,
   * a GIN index on `tsv` — and the HNSW index (unless `deferIndex`). An existing table is checked
   * instead: its dimension (read from the catalog), metric, layout version and analyzer must match,
   * otherwise a ZerdaError says what differs; a text index it lacks is added (rows already there
   * are analysed then, in batches). Without a known dimension the table is created by the first
   * `add`. Safe to call concurrently, from several processes too (a transaction-scoped advisory
   * lock serialises creation).
   */
  async ensureSchema(): Promise<void> {
    this.assertOpen();
    await this.prepare(this.dimensionsValue);
  }

  /** True when the table exists (creating it when `dimensions` is known). */
  private async prepare(dimensions?: number): Promise<boolean> {
    if (this.tableReady) return true;
    while (this.preparing) {
      // Join a preparation in flight; only a caller that can create the table retries after a "no table".
      try {
        const ready = await this.preparing;
        if (ready || dimensions === undefined) return ready;
      } catch (error) {
        if (dimensions === undefined) throw error;
      }
    }
    const preparing = this.prepareOnce(dimensions);
    this.preparing = preparing;
    try {
      return await preparing;
    } finally {
      if (this.preparing === preparing) this.preparing = undefined;
    }
  }

  private async prepareOnce(dimensions: number | undefined): Promise<boolean> {
    try {
      this.extensionReady ??= this.prepareExtension().catch((error: unknown) => {
        this.extensionReady = undefined;
        throw error;
      });
      this.pgvectorVersion = await this.extensionReady;
      const ready = await this.inTransaction(async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`zerda:${this.schema}.${this.collection}`]);
        const wantKeywordIndex = this.textSearchEnabled && this.textRanking === 'bm25';
        const existing = await inspectTable(client, this.schema, this.collection);
        if (existing) {
          const name = `${this.schema}.${this.collection}`;
          const tableDimensions = checkExistingTable(existing, name, { metric: this.metric, dimensions: this.dimensionsValue });
          if (this.hnsw && tableDimensions > HNSW_MAX_DIMENSIONS) throw this.tooManyDimensionsForHnsw(tableDimensions, 'the existing table');
          await this.checkTextSearchConfigurations(client);
          let keywordIndex: ResolvedAnalyzerOptions | false = false;
          if (existing.hasKeywordIndex) {
            keywordIndex = existing.comment!.analyzer ?? { ...DEFAULT_ANALYZER_OPTIONS };
            if (this.requestedAnalyzer && !sameAnalyzer(this.requestedAnalyzer, keywordIndex)) {
              throw createError('ZERDA_INVALID_CONFIG', {
                field: 'options.analyzer',
                expected: `the analyzer table ${name} was indexed with (${JSON.stringify(keywordIndex)}), or no analyzer option`,
                received: JSON.stringify(this.requestedAnalyzer),
              });
            }
          } else if (wantKeywordIndex) {
            keywordIndex = this.requestedAnalyzer ?? { ...DEFAULT_ANALYZER_OPTIONS };
            const upgraded = this.layout(tableDimensions, keywordIndex);
            for (const statement of keywordIndexStatements(upgraded)) await client.query(statement);
            await client.query(commentStatement(upgraded));
          }
          const layout = this.layout(tableDimensions, keywordIndex);
          if (layout.fullText && !existing.hasTextSearchColumn) {
            for (const statement of textSearchStatements(layout)) await client.query(statement);
          }
          if (this.hnsw && !this.deferIndex && !existing.hasHnswIndex) await client.query(hnswIndexStatement(layout, this.hnsw));
          this.dimensionsValue = tableDimensions;
          this.useKeywordIndex(keywordIndex);
          return true;
        }
        if (dimensions === undefined) return false;
        if (this.hnsw && dimensions > HNSW_MAX_DIMENSIONS) throw this.tooManyDimensionsForHnsw(dimensions, 'the first vector');
        await this.checkTextSearchConfigurations(client);
        if (this.schema !== 'public') await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(this.schema)}`);
        const layout = this.layout(dimensions, wantKeywordIndex ? (this.requestedAnalyzer ?? { ...DEFAULT_ANALYZER_OPTIONS }) : false);
        for (const statement of tableStatements(layout)) await client.query(statement);
        if (this.hnsw && !this.deferIndex) await client.query(hnswIndexStatement(layout, this.hnsw));
        this.dimensionsValue = dimensions;
        this.useKeywordIndex(layout.keywordIndex);
        return true;
      });
      if (ready && this.keywordIndex) await this.analyseUnanalysedRows();
      if (ready) this.tableReady = true;
      return ready;
    } catch (error) {
      throw backendError('ensureSchema', error);
    }
  }

  /**
   * Analyses the rows that have no keyword-index entry yet (a table that gained its keyword index,
   * or rows written by a process that did not know of it), in batches of one transaction each, so
   * the work survives an interruption and resumes at the next open. Rows another writer holds
   * locked are skipped: that writer indexes them itself.
   */
  private async analyseUnanalysedRows(): Promise<void> {
    const { postings } = this.keywordTables;
    const table = this.qualifiedTableName;
    for (;;) {
      const analysed = await this.inTransaction(async (client) => {
        const { rows } = await client.query<{ id: string; text: string; title: string | null }>(
          `SELECT id, text, title FROM ${table} WHERE text_length IS NULL ORDER BY id LIMIT ${BACKFILL_BATCH} FOR UPDATE SKIP LOCKED`,
        );
        if (rows.length === 0) return 0;
        const columns = new PostingColumns();
        const textLengths: number[] = [];
        const titleLengths: number[] = [];
        for (const row of rows) {
          const analysis = analyseChunk(this.analyzer!, row.text, row.title ?? undefined);
          columns.push(row.id, analysis);
          textLengths.push(analysis.textLength);
          titleLengths.push(analysis.titleLength);
        }
        const ids = rows.map((row) => row.id);
        await client.query(
          `UPDATE ${table} AS t SET text_length = u.text_length, title_length = u.title_length
             FROM unnest($1::text[], $2::int4[], $3::int4[]) AS u(id, text_length, title_length) WHERE t.id = u.id`,
          [ids, textLengths, titleLengths],
        );
        await client.query(`DELETE FROM ${postings} WHERE chunk_id = ANY($1::text[])`, [ids]);
        for (const slice of columns.slices(POSTINGS_PER_STATEMENT)) await client.query(postingsInsertStatement(postings), slice);
        return rows.length;
      });
      if (analysed < BACKFILL_BATCH) return;
    }
  }

  private async prepareExtension(): Promise<string | undefined> {
    const version = await this.inTransaction(async (client) => {
      if (this.createExtension) {
        // Two processes creating the extension at once would collide on the catalog's unique index.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['zerda:create-extension-vector']);
        await client.query('CREATE EXTENSION IF NOT EXISTS vector');
      }
      const { rows } = await client.query<{ extversion: string }>("SELECT extversion FROM pg_extension WHERE extname = 'vector'");
      return rows[0]?.extversion;
    });
    if (version === undefined) {
      throw createError('ZERDA_NOT_READY', {
        component: 'pgvector',
        reason: 'the vector extension is not installed in this database (run CREATE EXTENSION vector as a privileged user, or leave options.createExtension on)',
      });
    }
    return version;
  }

  private async checkTextSearchConfigurations(client: SqlClient): Promise<void> {
    const { rows } = await client.query<{ cfgname: string }>('SELECT cfgname FROM pg_ts_config WHERE cfgname = ANY($1::text[])', [[...this.textSearchConfigurations]]);
    const present = new Set(rows.map((row) => row.cfgname));
    const missing = this.textSearchConfigurations.filter((name) => !present.has(name));
    if (missing.length > 0) {
      throw createError('ZERDA_UNSUPPORTED', {
        operation: `text search with configuration(s) ${missing.join(', ')}`,
        component: 'this PostgreSQL server',
        reason: 'pass options.textSearchConfigurations (and chooseTextSearchConfiguration) with configurations listed in pg_ts_config',
      });
    }
  }

  /**
   * Builds the HNSW index (idempotent): after a bulk load with `deferIndex`, or with other
   * parameters after `dropIndex()`. `maintenanceWorkMem` and `parallelWorkers` apply to this build only.
   */
  async createIndex(options: CreateIndexOptions = {}): Promise<void> {
    this.assertOpen();
    if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an options object', options);
    const parameters = checkHnsw({ m: options.m ?? (this.hnsw || DEFAULT_HNSW).m, efConstruction: options.efConstruction ?? (this.hnsw || DEFAULT_HNSW).efConstruction }, 'options') as HnswParameters;
    if (options.maintenanceWorkMem !== undefined && (typeof options.maintenanceWorkMem !== 'string' || !/^\d+\s*(kB|MB|GB|TB)?$/.test(options.maintenanceWorkMem))) {
      throw invalidArgument('options.maintenanceWorkMem', "a PostgreSQL memory size such as '512MB' or '2GB'", options.maintenanceWorkMem);
    }
    const workers = options.parallelWorkers === undefined ? undefined : checkInteger(options.parallelWorkers, 'options.parallelWorkers', 0, 64);
    if (!(await this.prepare(this.dimensionsValue))) {
      throw createError('ZERDA_NOT_READY', { component: `pgvector collection ${this.schema}.${this.collection}`, reason: 'the table does not exist yet (add chunks or pass options.dimensions first)' });
    }
    if (this.dimensionsValue! > HNSW_MAX_DIMENSIONS) throw this.tooManyDimensionsForHnsw(this.dimensionsValue!, 'createIndex');
    try {
      await this.inTransaction(async (client) => {
        if (options.maintenanceWorkMem !== undefined) await client.query("SELECT set_config('maintenance_work_mem', $1, true)", [options.maintenanceWorkMem]);
        if (workers !== undefined) await client.query("SELECT set_config('max_parallel_maintenance_workers', $1, true)", [String(workers)]);
        await client.query(hnswIndexStatement(this.layout(this.dimensionsValue!), parameters));
      });
    } catch (error) {
      throw backendError('createIndex', error);
    }
  }

  /** Drops the HNSW index (searches then scan exactly until `createIndex()`). */
  async dropIndex(): Promise<void> {
    this.assertOpen();
    try {
      await this.client.query(`DROP INDEX IF EXISTS ${quoteIdentifier(this.schema)}.${quoteIdentifier(hnswIndexName(this.collection))}`);
    } catch (error) {
      throw backendError('dropIndex', error);
    }
  }

  /**
   * Adds or replaces chunks (each needs an `embedding`). The whole call is validated first —
   * chunk shape, unique ids, every embedding's values and dimension, text PostgreSQL can store —
   * then written as multi-row `INSERT … ON CONFLICT (id) DO UPDATE` statements of `batchSize`
   * rows inside one transaction, so a failure in any batch rolls back all of them. With the BM25
   * keyword index, each batch's postings are replaced in the same transaction (after the upsert
   * has locked the rows, so concurrent writers of one id apply whole, one after the other) and
   * triggers keep the collection statistics exact.
   */
  async add(chunks: DocumentChunk[]): Promise<void> {
    this.assertOpen();
    try {
      await this.addOnce(chunks);
    } catch (error) {
      if (!(error instanceof StaleLayoutError)) throw error;
      // Another process gave the table its keyword index after this store opened it: learn it, write again.
      this.tableReady = false;
      await this.prepare(this.dimensionsValue);
      await this.addOnce(chunks);
    }
  }

  private async addOnce(chunks: DocumentChunk[]): Promise<void> {
    const validated = toDocumentChunks(chunks, 'chunks');
    if (validated.length === 0) return;
    for (let i = 0; i < validated.length; i++) {
      if (validated[i]!.embedding === undefined) {
        throw createError('ZERDA_INVALID_EMBEDDING', { field: `chunks[${i}].embedding`, expected: 'an embedding (this store does not embed text)', received: 'undefined' });
      }
    }
    // An existing table fixes the dimension; learn it before judging the vectors.
    if (this.dimensionsValue === undefined) await this.prepare();
    let dimensions = this.dimensionsValue;
    const vectors: string[] = [];
    const languages: string[] = [];
    for (let i = 0; i < validated.length; i++) {
      const chunk = validated[i]!;
      const vector = validateEmbedding(chunk.embedding, `chunks[${i}].embedding`, dimensions);
      dimensions ??= vector.length;
      vectors.push(toVectorLiteral(vector));
      checkStorable(chunk.id, `chunks[${i}].id`);
      checkStorable(chunk.docId, `chunks[${i}].docId`);
      checkStorable(chunk.text, `chunks[${i}].text`);
      checkStorable(chunk.source, `chunks[${i}].source`);
      if (chunk.title !== undefined) checkStorable(chunk.title, `chunks[${i}].title`);
      checkStorableJson(chunk.metadata, `chunks[${i}].metadata`);
      // Chosen even without text search, so that turning it on later analyses every row correctly.
      languages.push(this.configurationFor(chunk, i));
    }
    if (this.hnsw && dimensions! > HNSW_MAX_DIMENSIONS) throw this.tooManyDimensionsForHnsw(dimensions!, 'chunks[0].embedding');
    await this.prepare(dimensions);
    if (this.dimensionsValue !== dimensions) {
      // Another process created the table with another dimension between our check and now.
      throw createError('ZERDA_DIMENSION_MISMATCH', { field: 'chunks[0].embedding', received: String(dimensions), expected: String(this.dimensionsValue) });
    }
    // Rows are written (and locked) in one global order — the ids' "C" collation order — so two
    // concurrent adds sharing ids wait for each other instead of deadlocking; deletes lock rows in
    // that order too. The order of chunks within one call carries no meaning (ids are unique).
    const order = validated.map((_, index) => index).sort((a, b) => compareCodePoints(validated[a]!.id, validated[b]!.id));
    const keyword = this.keywordIndex !== false;
    const lengthColumns = keyword ? ', text_length, title_length' : '';
    const statement = `INSERT INTO ${this.qualifiedTableName} AS t (id, doc_id, text, source, title, metadata, position, timestamp_ms, language, embedding${lengthColumns})
      SELECT u.id, u.doc_id, u.text, u.source, u.title, u.metadata::jsonb, u.position::jsonb, u.timestamp_ms, u.language::regconfig, u.embedding::vector${keyword ? ', u.text_length, u.title_length' : ''}
        FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::float8[], $9::text[], $10::text[]${keyword ? ', $11::int4[], $12::int4[]' : ''})
          AS u(id, doc_id, text, source, title, metadata, position, timestamp_ms, language, embedding${lengthColumns})
      ON CONFLICT (id) DO UPDATE SET doc_id = EXCLUDED.doc_id, text = EXCLUDED.text, source = EXCLUDED.source, title = EXCLUDED.title,
        metadata = EXCLUDED.metadata, position = EXCLUDED.position, timestamp_ms = EXCLUDED.timestamp_ms,
        language = EXCLUDED.language, embedding = EXCLUDED.embedding${keyword ? ', text_length = EXCLUDED.text_length, title_length = EXCLUDED.title_length' : ''}`;
    const { postings, postingsName } = this.keywordTables;
    try {
      await this.inWriteTransaction(async (client) => {
        if (!keyword) {
          // A store that opened the table before another process added the keyword index must not write unindexed rows.
          const { rows } = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [postingsName]);
          if (rows[0]?.present) throw new StaleLayoutError();
        }
        for (let start = 0; start < order.length; start += this.batchSize) {
          const positions = order.slice(start, start + this.batchSize);
          const batch = positions.map((position) => validated[position]!);
          const ids = batch.map((chunk) => chunk.id);
          const parameters: unknown[] = [
            ids,
            batch.map((chunk) => chunk.docId),
            batch.map((chunk) => chunk.text),
            batch.map((chunk) => chunk.source),
            batch.map((chunk) => chunk.title ?? null),
            batch.map((chunk) => JSON.stringify(chunk.metadata)),
            batch.map((chunk) => JSON.stringify(chunk.position)),
            batch.map((chunk) => chunk.timestamp ?? null),
            positions.map((position) => languages[position]!),
            positions.map((position) => vectors[position]!),
          ];
          if (!keyword) {
            await client.query(statement, parameters);
            continue;
          }
          // Analysed here, batch by batch, so the analyses of a large add are never all held at once.
          const batchAnalyses = batch.map((chunk) => analyseChunk(this.analyzer!, chunk.text, chunk.title));
          parameters.push(batchAnalyses.map((analysis) => analysis.textLength), batchAnalyses.map((analysis) => analysis.titleLength));
          await client.query(statement, parameters);
          // The upsert holds these rows' locks until commit: nobody else rewrites their postings meanwhile.
          // (INSERT … SELECT FROM unnest keeps the array order, so the locks are taken in id order.)
          await client.query(`DELETE FROM ${postings} WHERE chunk_id = ANY($1::text[])`, [ids]);
          const columns = new PostingColumns();
          batchAnalyses.forEach((analysis, index) => columns.push(ids[index]!, analysis));
          for (const slice of columns.slices(POSTINGS_PER_STATEMENT)) await client.query(postingsInsertStatement(postings), slice);
        }
      });
    } catch (error) {
      if (error instanceof StaleLayoutError) throw error;
      throw backendError('add', error);
    }
  }

  private configurationFor(chunk: DocumentChunk, index: number): string {
    const configuration = this.chooseConfiguration(chunk);
    if (!this.textSearchConfigurations.includes(configuration)) {
      throw invalidArgument(
        `chooseTextSearchConfiguration(chunks[${index}])`,
        `one of options.textSearchConfigurations (${this.textSearchConfigurations.join(', ')})`,
        configuration,
      );
    }
    return configuration;
  }

  private checkedFilter(value: unknown, field: string): MetadataFilter | undefined {
    if (value === undefined) return undefined;
    const filter = parseMetadataFilter(value, field);
    const visit = (node: unknown, path: string): void => {
      if (typeof node === 'string') {
        if (UNSTORABLE_CHARACTER.test(node)) throw createError('ZERDA_INVALID_FILTER', { field: path, expected: 'text PostgreSQL can represent (no U+0000 and no lone surrogates)', received: describeValue(node) });
      } else if (Array.isArray(node)) node.forEach((item, i) => visit(item, `${path}[${i}]`));
      else if (node !== null && typeof node === 'object') {
        for (const [key, item] of Object.entries(node)) {
          visit(key, `${path} key`);
          visit(item, `${path}.${key}`);
        }
      }
    };
    visit(filter, field);
    return filter;
  }

  private checkK(options: unknown, extraKeys: readonly string[]): number {
    return validateSearchOptions(options, extraKeys).k;
  }

  /**
   * k-nearest chunks by the configured distance, as similarities, best first. Runs
   * `ORDER BY embedding <op> $1 LIMIT k` so the HNSW index answers it; `hnsw.ef_search` is set for
   * the query (to `efSearch`, default 256, and at least `k` up to 1000; `'server'` keeps the
   * server's setting, raised to `k`) and filtered queries use iterative index scans on pgvector
   * 0.8+. `exact: true`, or `k` above 1000, scans without the index.
   */
  async search(vector: Embedding, options: PgVectorSearchOptions): Promise<VectorSearchHit[]> {
    this.assertOpen();
    const k = this.checkK(options, ['efSearch', 'exact', 'iterativeScan', 'ids']);
    const filter = this.checkedFilter(options.filter, 'options.filter');
    const efSearch = options.efSearch === undefined ? this.efSearch : checkEfSearch(options.efSearch, 'options.efSearch');
    const exactOption = options.exact === undefined ? false : checkBoolean(options.exact, 'options.exact');
    const iterativeScan = options.iterativeScan === undefined ? this.iterativeScan : checkEnum(options.iterativeScan, ITERATIVE_SCAN_MODES, 'options.iterativeScan');
    let restrictTo: string[] | undefined;
    if (options.ids !== undefined) {
      const ids = options.ids;
      if (!(Array.isArray(ids) || ids instanceof Set)) throw invalidArgument('options.ids', 'an array or Set of chunk ids', ids);
      restrictTo = [...new Set(validateIdList([...ids], 'options.ids'))];
    }
    let query = validateEmbedding(vector, 'vector', this.dimensionsValue);
    if (restrictTo?.length === 0) return [];
    if (!(await this.prepare())) return [];
    // The table may have told us the dimension only now.
    query = validateEmbedding(query, 'vector', this.dimensionsValue);
    if (k === 0) return [];

    // A restricted candidate set is scored exactly: an index scan would find ef_search neighbours and then drop most of them.
    const exact = exactOption || restrictTo !== undefined || k > MAX_EF_SEARCH;
    const { operator } = METRIC_SQL[this.metric];
    const parameters: unknown[] = [toVectorLiteral(query)];
    let where = compileFilter(filter, parameters, { metadata: 'metadata', docId: 'doc_id', source: 'source' });
    if (restrictTo) where = `id = ANY($${parameters.push(restrictTo)}::text[]) AND ${where}`;
    const distance = `(embedding ${operator} $1::vector)`;
    // Exact scans order zero vectors (NaN cosine distance) as similarity 0, like the other stores; the index skips them.
    const order = exact ? (this.metric === 'cosine' ? `(CASE WHEN ${distance} = 'NaN'::float8 THEN 1 ELSE ${distance} END), id` : `${distance}, id`) : distance;
    const text = `SELECT ${CHUNK_COLUMNS}${this.includeEmbeddings ? ', embedding::text AS embedding' : ''}, ${distance} AS distance
      FROM ${this.qualifiedTableName} WHERE ${where} ORDER BY ${order} LIMIT $${parameters.push(k)}`;

    // Each setting is [name, value] or [name, value, "at least the current value"].
    const settings: Array<[string, string, boolean?]> = [];
    if (exact) settings.push(['enable_indexscan', 'off']);
    else if (this.hnsw) {
      const atLeastK = Math.min(k, MAX_EF_SEARCH);
      if (efSearch !== 'server') settings.push(['hnsw.ef_search', String(Math.max(efSearch, atLeastK))]);
      // The server's own setting: only a k above pgvector's default needs raising it (never lowering it).
      else if (k > PGVECTOR_DEFAULT_EF_SEARCH) settings.push(['hnsw.ef_search', String(atLeastK), true]);
      if (filter && iterativeScan !== 'off' && versionAtLeast(this.pgvectorVersion, 0, 8)) settings.push(['hnsw.iterative_scan', iterativeScan]);
    }
    let rows: Array<ChunkRow & { distance: number | string | null }>;
    try {
      if (settings.length > 0 && this.client.transaction) {
        rows = await this.client.transaction(async (client) => {
          for (const [name, value, atLeast] of settings) {
            if (atLeast) {
              await client.query(`SELECT set_config($1, greatest(coalesce(current_setting($1, true), '${PGVECTOR_DEFAULT_EF_SEARCH}')::int, $2::int)::text, true)`, [name, value]);
            } else {
              await client.query('SELECT set_config($1, $2, true)', [name, value]);
            }
          }
          return (await client.query<ChunkRow & { distance: number | string | null }>(text, parameters)).rows;
        });
      } else {
        rows = (await this.client.query<ChunkRow & { distance: number | string | null }>(text, parameters)).rows;
      }
    } catch (error) {
      throw backendError('search', error);
    }
    return rows.map((row) => ({ chunk: this.toChunk(row), score: this.toSimilarity(row.distance) })).sort(compareHits);
  }

  private toSimilarity(raw: number | string | null): number {
    const distance = Number(raw);
    if (this.metric === 'cosine') {
      // A zero vector has no direction: pgvector reports NaN, zerda scores it 0.
      if (!Number.isFinite(distance)) return 0;
      return Math.max(-1, Math.min(1, similarityFromDistance('cosine', distance)));
    }
    return similarityFromDistance(this.metric, distance);
  }

  private toChunk(row: ChunkRow): DocumentChunk {
    const chunk: DocumentChunk = {
      id: row.id,
      docId: row.doc_id,
      text: row.text,
      source: row.source,
      metadata: (parseJsonColumn(row.metadata) ?? {}) as DocumentChunk['metadata'],
      position: parseJsonColumn(row.position) as DocumentChunk['position'],
    };
    if (row.title !== null && row.title !== undefined) chunk.title = row.title;
    if (row.timestamp_ms !== null && row.timestamp_ms !== undefined) chunk.timestamp = Number(row.timestamp_ms);
    if (row.embedding !== undefined) chunk.embedding = fromVectorLiteral(row.embedding, `embedding of chunk ${JSON.stringify(row.id)}`);
    return chunk;
  }

  /**
   * Keyword search inside PostgreSQL, best first, scores >= 0. With `textRanking: 'bm25'` (the
   * default) the query is analysed by `@zerda/text` exactly as the rows were, and chunks holding
   * any query term (`match: 'all'`: every term) are scored with Okapi BM25 from the postings and
   * collection statistics of one snapshot — the scores `KeywordRetriever` gives the same chunks
   * (ties: the smaller id first). With `ts_rank_cd`, each row was analysed with its own
   * configuration (`arabic`, `english` or `simple`), the query is analysed with each configuration
   * and matched against the rows of that configuration (GIN-indexed), and scores are `ts_rank_cd`
   * cover-density ranks (title words weigh more).
   */
  async textSearch(query: string, options: PgVectorTextSearchOptions): Promise<VectorSearchHit[]> {
    this.assertOpen();
    if (typeof query !== 'string') throw invalidArgument('query', 'a string', query);
    const k = this.checkK(options, ['match', 'bm25']);
    const filter = this.checkedFilter(options.filter, 'options.filter');
    const match = options.match === undefined ? 'any' : checkEnum(options.match, MATCH_MODES, 'options.match');
    if (!this.textSearchEnabled) {
      throw createError('ZERDA_UNSUPPORTED', { operation: 'textSearch', component: 'this pgvector store', reason: 'it was created with textSearch: false' });
    }
    if (this.textRanking === 'bm25') {
      if (match === 'websearch') {
        throw createError('ZERDA_UNSUPPORTED', { operation: "textSearch with match: 'websearch'", component: 'BM25 ranking', reason: "web-search syntax needs PostgreSQL's tsquery: open the store with textRanking: 'ts_rank_cd'" });
      }
      const bm25 = checkBm25(options.bm25, 'options.bm25', this.bm25);
      return this.bm25Search(query, k, filter, match === 'all', bm25);
    }
    if (options.bm25 !== undefined) throw invalidArgument('options.bm25', "no value (BM25 parameters apply with textRanking: 'bm25')", options.bm25);
    if (UNSTORABLE_CHARACTER.test(query)) query = query.replace(new RegExp(UNSTORABLE_CHARACTER.source, 'gu'), ' ');
    const words = [...new Set(query.split(/\s+/u).filter((word) => word.length > 0))].slice(0, MAX_QUERY_WORDS);
    if (k === 0 || words.length === 0) return [];
    if (!(await this.prepare())) return [];

    const parameters: unknown[] = [];
    const bind = (value: unknown): string => `$${parameters.push(value)}`;
    const queryParameter = match === 'any' ? '' : bind(query);
    const wordParameters = match === 'any' ? words.map((word) => bind(word)) : [];
    const branches = this.textSearchConfigurations.map((name) => {
      const configuration = `${bind(name)}::regconfig`;
      const tsquery =
        match === 'any'
          ? `(${wordParameters.map((word) => `plainto_tsquery(${configuration}, ${word})`).join(' || ')})`
          : `${match === 'all' ? 'plainto_tsquery' : 'websearch_to_tsquery'}(${configuration}, ${queryParameter})`;
      return { configuration, tsquery };
    });
    const matches = branches.map(({ configuration, tsquery }) => `(language = ${configuration} AND tsv @@ ${tsquery})`).join(' OR ');
    const rankQuery = `CASE language ${branches.map(({ configuration, tsquery }) => `WHEN ${configuration} THEN ${tsquery}`).join(' ')} END`;
    const where = compileFilter(filter, parameters, { metadata: 'metadata', docId: 'doc_id', source: 'source' });
    const text = `SELECT ${CHUNK_COLUMNS}${this.includeEmbeddings ? ', embedding::text AS embedding' : ''}, ts_rank_cd(tsv, ${rankQuery}) AS rank
      FROM ${this.qualifiedTableName} WHERE (${matches}) AND ${where} ORDER BY rank DESC, id LIMIT ${bind(k)}`;
    try {
      const { rows } = await this.client.query<ChunkRow & { rank: number | string }>(text, parameters);
      return rows.map((row) => ({ chunk: this.toChunk(row), score: Math.max(0, Number(row.rank)) }));
    } catch (error) {
      throw backendError('textSearch', error);
    }
  }

  private async bm25Search(query: string, k: number, filter: MetadataFilter | undefined, requireAll: boolean, bm25: Bm25Parameters): Promise<VectorSearchHit[]> {
    if (k === 0 || query.trim() === '') return [];
    if (!(await this.prepare())) return [];
    const { terms, weights } = queryTerms(this.analyzer!, query);
    if (terms.length === 0) return [];
    const parameters: unknown[] = [];
    const bind = (value: unknown): string => `$${parameters.push(value)}`;
    const { postings, statistics } = this.keywordTables;
    const scores = bm25ScoresSql({
      postings,
      statistics,
      terms: bind(terms),
      weights: bind(weights),
      k1: bind(bm25.k1),
      b: bind(bm25.b),
      titleWeight: bind(bm25.titleWeight),
      ...(requireAll ? { requireAll: bind(terms.length) } : {}),
    });
    const columns = `${CHUNK_COLUMNS.split(', ').map((column) => `t.${column}`).join(', ')}${this.includeEmbeddings ? ', t.embedding::text AS embedding' : ''}`;
    const where = compileFilter(filter, parameters, { metadata: 't.metadata', docId: 't.doc_id', source: 't.source' });
    // Unfiltered, only the best k are joined to their rows; filtered, every scored chunk is checked first.
    const text = filter
      ? `SELECT ${columns}, s.score FROM (${scores}) s JOIN ${this.qualifiedTableName} t ON t.id = s.chunk_id
          WHERE ${where} ORDER BY s.score DESC, t.id COLLATE "C" LIMIT ${bind(k)}`
      : `SELECT ${columns}, s.score FROM (SELECT chunk_id, score FROM (${scores}) x ORDER BY score DESC, chunk_id COLLATE "C" LIMIT ${bind(k)}) s
          JOIN ${this.qualifiedTableName} t ON t.id = s.chunk_id ORDER BY s.score DESC, t.id COLLATE "C"`;
    try {
      const { rows } = await this.client.query<ChunkRow & { score: number | string }>(text, parameters);
      return rows.map((row) => ({ chunk: this.toChunk(row), score: Math.max(0, Number(row.score)) }));
    } catch (error) {
      throw backendError('textSearch', error);
    }
  }

  /** Runs `DELETE … WHERE column = ANY($1)` in slices of ids, in one transaction. */
  private async deleteWhere(column: 'id' | 'doc_id', values: string[], operation: string): Promise<void> {
    const unique = [...new Set(values)].sort(compareCodePoints);
    if (unique.length === 0) return;
    if (!(await this.prepare())) return;
    try {
      await this.inWriteTransaction(async (client) => {
        for (let start = 0; start < unique.length; start += IDS_PER_STATEMENT) {
          const values = unique.slice(start, start + IDS_PER_STATEMENT);
          // Lock the rows in the global id order first (as add() does), then delete them.
          await client.query(`SELECT 1 FROM ${this.qualifiedTableName} WHERE ${column} = ANY($1::text[]) ORDER BY id COLLATE "C" FOR UPDATE`, [values]);
          await client.query(`DELETE FROM ${this.qualifiedTableName} WHERE ${column} = ANY($1::text[])`, [values]);
        }
      });
    } catch (error) {
      throw backendError(operation, error);
    }
  }

  /** Deletes chunks by id; unknown ids are ignored. */
  async delete(ids: string[]): Promise<void> {
    this.assertOpen();
    await this.deleteWhere('id', validateIdList(ids, 'ids'), 'delete');
  }

  /** Deletes every chunk of the given documents (uses the `doc_id` index). */
  async deleteByDocIds(docIds: string[]): Promise<void> {
    this.assertOpen();
    await this.deleteWhere('doc_id', validateIdList(docIds, 'docIds'), 'deleteByDocIds');
  }

  /** Number of stored chunks (0 before the table exists). */
  async count(): Promise<number> {
    this.assertOpen();
    if (!(await this.prepare())) return 0;
    try {
      const { rows } = await this.client.query<{ count: number | string | bigint }>(`SELECT count(*) AS count FROM ${this.qualifiedTableName}`);
      return Number(rows[0]?.count ?? 0);
    } catch (error) {
      throw backendError('count', error);
    }
  }

  /** Fetches chunks by id, in the order asked (with embeddings unless `includeEmbeddings: false`); missing ids are skipped. */
  async get(ids: string[]): Promise<DocumentChunk[]> {
    this.assertOpen();
    const wanted = validateIdList(ids, 'ids');
    if (wanted.length === 0 || !(await this.prepare())) return [];
    const unique = [...new Set(wanted)];
    const found = new Map<string, ChunkRow>();
    try {
      for (let start = 0; start < unique.length; start += IDS_PER_STATEMENT) {
        const { rows } = await this.client.query<ChunkRow>(
          `SELECT ${CHUNK_COLUMNS}${this.includeEmbeddings ? ', embedding::text AS embedding' : ''} FROM ${this.qualifiedTableName} WHERE id = ANY($1::text[])`,
          [unique.slice(start, start + IDS_PER_STATEMENT)],
        );
        for (const row of rows) found.set(row.id, row);
      }
    } catch (error) {
      throw backendError('get', error);
    }
    const out: DocumentChunk[] = [];
    for (const id of wanted) {
      const row = found.get(id);
      if (row) out.push(this.toChunk(row));
    }
    return out;
  }

  /** Removes every chunk (TRUNCATE, which empties the keyword index too); the table, its indexes and its dimension stay. */
  async clear(): Promise<void> {
    this.assertOpen();
    if (!(await this.prepare())) return;
    try {
      await this.client.query(`TRUNCATE ${this.qualifiedTableName}`);
    } catch (error) {
      throw backendError('clear', error);
    }
  }

  /** Drops the collection's table, its indexes and its keyword index. A dimension fixed in the options is kept; otherwise the next `add` decides again. */
  async drop(): Promise<void> {
    this.assertOpen();
    try {
      await this.inTransaction(async (client) => {
        await client.query(`DROP TABLE IF EXISTS ${this.qualifiedTableName}`);
        for (const statement of dropKeywordIndexStatements({ schema: this.schema, table: this.collection })) await client.query(statement);
      });
    } catch (error) {
      throw backendError('drop', error);
    }
    this.tableReady = false;
    this.useKeywordIndex(false);
    this.dimensionsValue = this.configuredDimensions;
  }

  /**
   * Releases the store. With `closeConnection` (set by {@link createPGliteStore} and
   * {@link createNodePostgresStore}) the connection is ended too; otherwise it stays the caller's.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.closeConnection) return;
    const connection = this.connection as unknown as { end?: () => Promise<void>; close?: () => Promise<void> };
    try {
      if (isPGliteLike(this.connection) && typeof connection.close === 'function') await connection.close();
      else if ((isNodePostgresPoolLike(this.connection) || typeof connection.end === 'function') && typeof connection.end === 'function') await connection.end();
      else if (typeof connection.close === 'function') await connection.close();
    } catch (error) {
      throw backendError('close', error);
    }
  }
}
