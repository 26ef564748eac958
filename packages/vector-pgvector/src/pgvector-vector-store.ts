import { analyzerFor, checkBm25 } from './keyword-index.js';
import {
  ZerdaError,
  checkBoolean,
  checkInteger,
  compareSearchHits,
  createError,
  invalidArgument,
  toDocumentChunks,
  validateEmbedding,
  validateIdList,
  validateSearchOptions,
  type DocumentChunk,
  type Embedding,
  type VectorMetric,
  type VectorSearchHit,
  type VectorStore,
  type VectorStoreCapabilities,
} from '@zerda/types';
import type { Analyzer, ResolvedAnalyzerOptions } from '@zerda/text';
import { quoteIdentifier } from './identifiers.js';
import {
  DEFAULT_HNSW,
  ITERATIVE_SCAN_MODES,
  MATCH_MODES,
  checkEfSearch,
  checkEnum,
  checkHnsw,
  resolvePgVectorOptions,
  tooManyDimensionsForHnsw,
  type CreateIndexOptions,
  type PgVectorSearchOptions,
  type PgVectorStoreOptions,
  type PgVectorTextSearchOptions,
  type ResolvedPgVectorOptions,
} from './pgvector-options.js';
import { checkStorableChunk, checkedFilter, chunkColumns, toChunk, type ChunkRow, type PgTable } from './pgvector-records.js';
import { HNSW_MAX_DIMENSIONS, dropKeywordIndexStatements, hnswIndexName, hnswIndexStatement, keywordTables, qualifiedName, type HnswParameters } from './pgvector-schema.js';
import { prepareExtension, setUpTable, tableLayout, type SetupSettings } from './pgvector-setup.js';
import { bm25Search, textQueryWords, tsRankSearch } from './pgvector-text-search.js';
import { nearestRows, similarityOf } from './pgvector-vector-query.js';
import { IDS_PER_STATEMENT, StaleLayoutError, analyseUnanalysedRows, deleteRows, inTransaction, writeChunks, type ChunkWrite } from './pgvector-writes.js';
import { isNodePostgresPoolLike, isPGliteLike, toSqlClient, type SqlClient, type SqlConnection } from './sql-client.js';
import { toVectorLiteral } from './vector-literal.js';

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

function backendError(operation: string, error: unknown): ZerdaError {
  if (ZerdaError.isInstance(error)) return error;
  return createError('ZERDA_BACKEND_ERROR', { component: 'pgvector', operation, reason: error instanceof Error ? error.message : String(error) }, error);
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
  private readonly options: ResolvedPgVectorOptions;
  private dimensionsValue: number | undefined;
  /** The table's BM25 keyword index (its analyzer), once known; false: the table has none. */
  private keywordIndex: ResolvedAnalyzerOptions | false = false;
  private analyzer: Analyzer | undefined;
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
    this.metric = options.metric === undefined ? 'cosine' : checkEnum(options.metric, METRICS, 'options.metric');
    this.dimensionsValue = options.dimensions === undefined ? undefined : checkInteger(options.dimensions, 'options.dimensions', 1, 16_000);
    this.options = resolvePgVectorOptions(options, this.dimensionsValue);
    this.collection = this.options.collection;
    this.schema = this.options.schema;
    this.capabilities = Object.freeze({ persistence: this.options.persistent, nativeFilter: true, textSearch: this.options.textSearch, embeds: false });
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

  private assertOpen(): void {
    if (this.closed) throw createError('ZERDA_NOT_READY', { component: `pgvector store ${this.schema}.${this.collection}`, reason: 'it was closed' });
  }

  private get settings(): SetupSettings {
    return { ...this.options, metric: this.metric };
  }

  /** The table as the SQL helpers see it. */
  private get target(): PgTable & { keywordTables: ReturnType<typeof keywordTables> } {
    return { client: this.client, table: this.qualifiedTableName, includeEmbeddings: this.options.includeEmbeddings, keywordTables: keywordTables(this.schema, this.collection) };
  }

  /** Takes the table's keyword index (and its analyzer) as this store's. */
  private useKeywordIndex(options: ResolvedAnalyzerOptions | false): void {
    this.keywordIndex = options;
    this.analyzer = options ? analyzerFor(options) : undefined;
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
      this.extensionReady ??= prepareExtension(this.client, this.options.createExtension).catch((error: unknown) => {
        this.extensionReady = undefined;
        throw error;
      });
      this.pgvectorVersion = await this.extensionReady;
      const ready = await setUpTable(this.client, this.settings, this.dimensionsValue, dimensions);
      if (!ready) return false;
      this.dimensionsValue = ready.dimensions;
      this.useKeywordIndex(ready.keywordIndex);
      if (this.analyzer) await analyseUnanalysedRows(this.target, this.analyzer);
      this.tableReady = true;
      return true;
    } catch (error) {
      throw backendError('ensureSchema', error);
    }
  }

  /**
   * Builds the HNSW index (idempotent): after a bulk load with `deferIndex`, or with other
   * parameters after `dropIndex()`. `maintenanceWorkMem` and `parallelWorkers` apply to this build only.
   */
  async createIndex(options: CreateIndexOptions = {}): Promise<void> {
    this.assertOpen();
    if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an options object', options);
    const configured = this.options.hnsw || DEFAULT_HNSW;
    const parameters = checkHnsw({ m: options.m ?? configured.m, efConstruction: options.efConstruction ?? configured.efConstruction }, 'options') as HnswParameters;
    if (options.maintenanceWorkMem !== undefined && (typeof options.maintenanceWorkMem !== 'string' || !/^\d+\s*(kB|MB|GB|TB)?$/.test(options.maintenanceWorkMem))) {
      throw invalidArgument('options.maintenanceWorkMem', "a PostgreSQL memory size such as '512MB' or '2GB'", options.maintenanceWorkMem);
    }
    const workers = options.parallelWorkers === undefined ? undefined : checkInteger(options.parallelWorkers, 'options.parallelWorkers', 0, 64);
    if (!(await this.prepare(this.dimensionsValue))) {
      throw createError('ZERDA_NOT_READY', { component: `pgvector collection ${this.schema}.${this.collection}`, reason: 'the table does not exist yet (add chunks or pass options.dimensions first)' });
    }
    const dimensions = this.dimensionsValue!;
    if (dimensions > HNSW_MAX_DIMENSIONS) throw tooManyDimensionsForHnsw(dimensions, 'createIndex');
    try {
      await inTransaction(this.client, async (client) => {
        if (options.maintenanceWorkMem !== undefined) await client.query("SELECT set_config('maintenance_work_mem', $1, true)", [options.maintenanceWorkMem]);
        if (workers !== undefined) await client.query("SELECT set_config('max_parallel_maintenance_workers', $1, true)", [String(workers)]);
        await client.query(hnswIndexStatement(tableLayout(this.settings, dimensions, this.keywordIndex), parameters));
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
    const writes: ChunkWrite[] = validated.map((chunk, i) => {
      const vector = validateEmbedding(chunk.embedding, `chunks[${i}].embedding`, dimensions);
      dimensions ??= vector.length;
      checkStorableChunk(chunk, i);
      // Chosen even without text search, so that turning it on later analyses every row correctly.
      return { chunk, vector: toVectorLiteral(vector), language: this.configurationFor(chunk, i) };
    });
    if (this.options.hnsw && dimensions! > HNSW_MAX_DIMENSIONS) throw tooManyDimensionsForHnsw(dimensions!, 'chunks[0].embedding');
    await this.prepare(dimensions);
    if (this.dimensionsValue !== dimensions) {
      // Another process created the table with another dimension between our check and now.
      throw createError('ZERDA_DIMENSION_MISMATCH', { field: 'chunks[0].embedding', received: String(dimensions), expected: String(this.dimensionsValue) });
    }
    try {
      await writeChunks({ ...this.target, analyzer: this.analyzer, batchSize: this.options.batchSize }, writes);
    } catch (error) {
      if (error instanceof StaleLayoutError) throw error;
      throw backendError('add', error);
    }
  }

  private configurationFor(chunk: DocumentChunk, index: number): string {
    const configuration = this.options.chooseTextSearchConfiguration(chunk);
    const { textSearchConfigurations } = this.options;
    if (!textSearchConfigurations.includes(configuration)) {
      throw invalidArgument(`chooseTextSearchConfiguration(chunks[${index}])`, `one of options.textSearchConfigurations (${textSearchConfigurations.join(', ')})`, configuration);
    }
    return configuration;
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
    const { k } = validateSearchOptions(options, ['efSearch', 'exact', 'iterativeScan', 'ids']);
    const filter = checkedFilter(options.filter, 'options.filter');
    const efSearch = options.efSearch === undefined ? this.options.efSearch : checkEfSearch(options.efSearch, 'options.efSearch');
    const exact = options.exact === undefined ? false : checkBoolean(options.exact, 'options.exact');
    const iterativeScan = options.iterativeScan === undefined ? this.options.iterativeScan : checkEnum(options.iterativeScan, ITERATIVE_SCAN_MODES, 'options.iterativeScan');
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
    let rows;
    try {
      const target = { ...this.target, metric: this.metric, hnsw: this.options.hnsw !== false, pgvectorVersion: this.pgvectorVersion };
      rows = await nearestRows(target, { vector: query, k, filter, restrictTo, exact, efSearch, iterativeScan });
    } catch (error) {
      throw backendError('search', error);
    }
    return rows.map((row) => ({ chunk: toChunk(row), score: similarityOf(this.metric, row.distance) })).sort(compareSearchHits);
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
    const { k } = validateSearchOptions(options, ['match', 'bm25']);
    const filter = checkedFilter(options.filter, 'options.filter');
    const match = options.match === undefined ? 'any' : checkEnum(options.match, MATCH_MODES, 'options.match');
    if (!this.options.textSearch) {
      throw createError('ZERDA_UNSUPPORTED', { operation: 'textSearch', component: 'this pgvector store', reason: 'it was created with textSearch: false' });
    }
    if (this.options.textRanking === 'bm25') {
      if (match === 'websearch') {
        throw createError('ZERDA_UNSUPPORTED', { operation: "textSearch with match: 'websearch'", component: 'BM25 ranking', reason: "web-search syntax needs PostgreSQL's tsquery: open the store with textRanking: 'ts_rank_cd'" });
      }
      const bm25 = checkBm25(options.bm25, 'options.bm25', this.options.bm25);
      if (k === 0 || query.trim() === '' || !(await this.prepare())) return [];
      try {
        return await bm25Search({ ...this.target, analyzer: this.analyzer! }, query, k, filter, match === 'all', bm25);
      } catch (error) {
        throw backendError('textSearch', error);
      }
    }
    if (options.bm25 !== undefined) throw invalidArgument('options.bm25', "no value (BM25 parameters apply with textRanking: 'bm25')", options.bm25);
    const words = textQueryWords(query);
    if (k === 0 || words.words.length === 0 || !(await this.prepare())) return [];
    try {
      return await tsRankSearch(this.target, this.options.textSearchConfigurations, words, k, filter, match);
    } catch (error) {
      throw backendError('textSearch', error);
    }
  }

  /** Deletes rows whose `column` is one of `values` (after the table is known to exist). */
  private async deleteWhere(column: 'id' | 'doc_id', values: string[], operation: string): Promise<void> {
    if (values.length === 0 || !(await this.prepare())) return;
    try {
      await deleteRows(this.target, column, values);
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
          `SELECT ${chunkColumns(this.options.includeEmbeddings)} FROM ${this.qualifiedTableName} WHERE id = ANY($1::text[])`,
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
      if (row) out.push(toChunk(row));
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
      await inTransaction(this.client, async (client) => {
        await client.query(`DROP TABLE IF EXISTS ${this.qualifiedTableName}`);
        for (const statement of dropKeywordIndexStatements({ schema: this.schema, table: this.collection })) await client.query(statement);
      });
    } catch (error) {
      throw backendError('drop', error);
    }
    this.tableReady = false;
    this.useKeywordIndex(false);
    this.dimensionsValue = this.options.dimensions;
  }

  /**
   * Releases the store. With `closeConnection` (set by {@link createPGliteStore} and
   * {@link createNodePostgresStore}) the connection is ended too; otherwise it stays the caller's.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.options.closeConnection) return;
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
