import type { Analyzer, ResolvedAnalyzerOptions } from '@zerda/text';
import { checkBoolean, checkInteger, createError, invalidArgument, validateIdList, type DocumentChunk, type MetadataFilter, type VectorSearchHit } from '@zerda/types';
import { POSTGRES_STORABLE, VectorStoreBase, batches, checkStoreOptions, dimensionsOption, metricOption, type QueryHit, type TextQuery, type VectorQuery, type VectorRecord } from '@zerda/vector-kit';
import { quoteIdentifier } from './identifiers.js';
import { analyzerFor, checkBm25 } from './keyword-index.js';
import {
  DEFAULT_HNSW,
  ITERATIVE_SCAN_MODES,
  MATCH_MODES,
  OPTION_KEYS,
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
import { checkedFilter, chunkColumns, toChunk, type ChunkRow, type PgTable } from './pgvector-records.js';
import { HNSW_MAX_DIMENSIONS, dropKeywordIndexStatements, hnswIndexName, hnswIndexStatement, keywordTables, qualifiedName, type HnswParameters, type KeywordTables } from './pgvector-schema.js';
import { prepareExtension, setUpTable, tableLayout, type SetupSettings } from './pgvector-setup.js';
import { bm25Search, textQueryWords, tsRankSearch } from './pgvector-text-search.js';
import { nearestRows } from './pgvector-vector-query.js';
import { FOLD_AFTER_CHUNKS, IDS_PER_STATEMENT, StaleLayoutError, analyseUnanalysedRows, deleteRows, foldStatistics, inTransaction, writeChunks, type ChunkWrite } from './pgvector-writes.js';
import { isNodePostgresPoolLike, isPGliteLike, toSqlClient, type SqlClient, type SqlConnection } from './sql-client.js';
import { toVectorLiteral } from './vector-literal.js';

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
export class PgVectorStore extends VectorStoreBase<MetadataFilter, ChunkWrite> {
  /** The PostgreSQL schema holding the table. */
  readonly schema: string;
  /** The table holding the collection. */
  readonly collection: string;
  /** The {@link SqlClient} every statement goes through. */
  readonly client: SqlClient;

  private readonly connection: SqlConnection;
  private readonly options: ResolvedPgVectorOptions;
  /** The table's BM25 keyword index (its analyzer), once known; false: the table has none. */
  private keywordIndex: ResolvedAnalyzerOptions | false = false;
  private analyzer: Analyzer | undefined;
  private extensionReady: Promise<string | undefined> | undefined;
  private pgvectorVersion: string | undefined;
  private released = false;
  /** Chunks written or deleted since the keyword index's statistics were last folded by this store. */
  private writtenSinceFold = 0;

  constructor(options: PgVectorStoreOptions) {
    const checked = checkStoreOptions(options, OPTION_KEYS, 'an options object with a connection');
    const client = toSqlClient(checked.connection, 'options.connection');
    const metric = metricOption(checked.metric);
    const resolved = resolvePgVectorOptions(checked, dimensionsOption(checked.dimensions, 'options.dimensions', 16_000));
    super({
      name: 'pgvector',
      metric,
      dimensions: resolved.dimensions,
      capabilities: { persistence: resolved.persistent, nativeFilter: true, textSearch: resolved.textSearch },
      // pgvector's <=>, <#> and <-> give 1 − cos, −dot and the euclidean distance.
      distance: 'distance',
      storable: POSTGRES_STORABLE,
      searchOptions: ['efSearch', 'exact', 'iterativeScan', 'ids'],
      textSearchOptions: ['match', 'bm25'],
    });
    this.connection = checked.connection;
    this.client = client;
    this.options = resolved;
    this.collection = resolved.collection;
    this.schema = resolved.schema;
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

  /** `"schema"."table"`, quoted, for users who want to run their own SQL against the collection. */
  get qualifiedTableName(): string {
    return qualifiedName({ schema: this.schema, table: this.collection });
  }

  /** Where the data lives, for engine snapshots' identity check: the quoted `"schema"."table"` (never the connection). */
  get location(): string {
    return this.qualifiedTableName;
  }

  /** What errors name: the backend and the table. */
  protected override get component(): string {
    return `pgvector table ${this.schema}.${this.collection}`;
  }

  private get setup(): SetupSettings {
    return { ...this.options, metric: this.metric };
  }

  /** The table as the SQL helpers see it. */
  private get target(): PgTable & { keywordTables: KeywordTables } {
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

  /** The extension, then the table: found and checked, or created when `create` (with `dimensions`). */
  protected override async doPrepare(dimensions: number | undefined, create: boolean): Promise<boolean> {
    try {
      this.extensionReady ??= prepareExtension(this.client, this.options.createExtension).catch((error: unknown) => {
        this.extensionReady = undefined;
        throw error;
      });
      this.pgvectorVersion = await this.extensionReady;
      const ready = await setUpTable(this.client, this.setup, this.dimensionsValue, create ? dimensions : undefined);
      if (!ready) return false;
      this.dimensionsValue = ready.dimensions;
      this.useKeywordIndex(ready.keywordIndex);
      if (this.analyzer) {
        await analyseUnanalysedRows(this.target, this.analyzer);
        await foldStatistics(this.client, this.target.keywordTables);
        this.writtenSinceFold = 0;
      }
      return true;
    } catch (error) {
      throw this.backendError('ensureSchema', error);
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
    await this.backend('createIndex', () =>
      inTransaction(this.client, async (client) => {
        if (options.maintenanceWorkMem !== undefined) await client.query("SELECT set_config('maintenance_work_mem', $1, true)", [options.maintenanceWorkMem]);
        if (workers !== undefined) await client.query("SELECT set_config('max_parallel_maintenance_workers', $1, true)", [String(workers)]);
        await client.query(hnswIndexStatement(tableLayout(this.setup, dimensions, this.keywordIndex), parameters));
      }),
    );
  }

  /** Drops the HNSW index (searches then scan exactly until `createIndex()`). */
  async dropIndex(): Promise<void> {
    this.assertOpen();
    await this.backend('dropIndex', () => this.client.query(`DROP INDEX IF EXISTS ${quoteIdentifier(this.schema)}.${quoteIdentifier(hnswIndexName(this.collection))}`));
  }

  /** A validated chunk as its row: the vector literal and the text-search configuration (chosen even without text search, so that turning it on later analyses every row correctly). */
  protected override toRecord({ chunk, vector }: VectorRecord, index: number): ChunkWrite {
    if (index === 0 && this.options.hnsw && vector.length > HNSW_MAX_DIMENSIONS) throw tooManyDimensionsForHnsw(vector.length, 'chunks[0].embedding');
    const configuration = this.options.chooseTextSearchConfiguration(chunk);
    const { textSearchConfigurations } = this.options;
    if (!textSearchConfigurations.includes(configuration)) {
      throw invalidArgument(`chooseTextSearchConfiguration(chunks[${index}])`, `one of options.textSearchConfigurations (${textSearchConfigurations.join(', ')})`, configuration);
    }
    return { chunk, vector: toVectorLiteral(vector), language: configuration };
  }

  /**
   * Writes the whole `add` in one transaction (multi-row upserts of `batchSize` rows; with the BM25
   * keyword index, each batch's postings too), so a failure in any batch rolls back all of them.
   * When another process gave the table its keyword index after this store opened it, the store
   * learns it and writes again.
   */
  protected async doUpsert(writes: ChunkWrite[]): Promise<void> {
    await this.foldWhenDue(writes.length);
    const write = () => writeChunks({ ...this.target, analyzer: this.analyzer, batchSize: this.options.batchSize }, writes);
    try {
      await write();
    } catch (error) {
      if (!(error instanceof StaleLayoutError)) throw error;
      this.resetPreparation();
      await this.prepare(this.dimensionsValue);
      await write();
    }
  }

  /** Filters are compiled to SQL with the exact semantics of `matchesFilter`; their strings must be text PostgreSQL can hold. */
  protected override checkSearchOptions(options: PgVectorSearchOptions): void {
    checkedFilter(options.filter, 'options.filter');
    if (options.efSearch !== undefined) checkEfSearch(options.efSearch, 'options.efSearch');
    if (options.exact !== undefined) checkBoolean(options.exact, 'options.exact');
    if (options.iterativeScan !== undefined) checkEnum(options.iterativeScan, ITERATIVE_SCAN_MODES, 'options.iterativeScan');
    if (options.ids !== undefined && !(Array.isArray(options.ids) || options.ids instanceof Set)) throw invalidArgument('options.ids', 'an array or Set of chunk ids', options.ids);
    if (options.ids !== undefined) validateIdList([...options.ids], 'options.ids');
  }

  /**
   * k-nearest chunks by the configured distance. Runs `ORDER BY embedding <op> $1 LIMIT k` so the
   * HNSW index answers it; `hnsw.ef_search` is set for the query (to `efSearch`, default 256, and
   * at least `k` up to 1000; `'server'` keeps the server's setting, raised to `k`) and filtered
   * queries use iterative index scans on pgvector 0.8+. `exact: true`, a candidate list `ids`, or
   * `k` above 1000, scans without the index.
   */
  protected async doQuery({ vector, limit, filter, options }: VectorQuery<MetadataFilter>): Promise<QueryHit[]> {
    const knobs = options as PgVectorSearchOptions;
    const restrictTo = knobs.ids === undefined ? undefined : [...new Set(knobs.ids)];
    if (restrictTo?.length === 0) return [];
    const rows = await nearestRows(
      { ...this.target, metric: this.metric, hnsw: this.options.hnsw !== false, pgvectorVersion: this.pgvectorVersion },
      {
        vector,
        k: limit,
        filter,
        restrictTo,
        exact: knobs.exact ?? false,
        efSearch: knobs.efSearch ?? this.options.efSearch,
        iterativeScan: knobs.iterativeScan ?? this.options.iterativeScan,
      },
    );
    return rows.map((row) => ({ chunk: toChunk(row), distance: Number(row.distance) }));
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
  textSearch(query: string, options: PgVectorTextSearchOptions): Promise<VectorSearchHit[]> {
    return this.searchText(query, options);
  }

  protected override checkTextSearchOptions(options: PgVectorTextSearchOptions): void {
    checkedFilter(options.filter, 'options.filter');
    const match = options.match === undefined ? 'any' : checkEnum(options.match, MATCH_MODES, 'options.match');
    if (!this.options.textSearch) {
      throw createError('ZERDA_UNSUPPORTED', { operation: 'textSearch', component: 'this pgvector store', reason: 'it was created with textSearch: false' });
    }
    if (this.options.textRanking === 'bm25') {
      if (match === 'websearch') {
        throw createError('ZERDA_UNSUPPORTED', { operation: "textSearch with match: 'websearch'", component: 'BM25 ranking', reason: "web-search syntax needs PostgreSQL's tsquery: open the store with textRanking: 'ts_rank_cd'" });
      }
      checkBm25(options.bm25, 'options.bm25', this.options.bm25);
    } else if (options.bm25 !== undefined) {
      throw invalidArgument('options.bm25', "no value (BM25 parameters apply with textRanking: 'bm25')", options.bm25);
    }
  }

  protected override async doTextSearch({ query, limit, filter, options }: TextQuery<MetadataFilter>): Promise<QueryHit[]> {
    const { match = 'any', bm25 } = options as PgVectorTextSearchOptions;
    if (this.options.textRanking === 'bm25') {
      if (query.trim() === '') return [];
      return bm25Search({ ...this.target, analyzer: this.analyzer! }, query, limit, filter, match === 'all', checkBm25(bm25, 'options.bm25', this.options.bm25));
    }
    const words = textQueryWords(query);
    return words.words.length === 0 ? [] : tsRankSearch(this.target, this.options.textSearchConfigurations, words, limit, filter, match);
  }

  /**
   * Folds the keyword index's per-backend statistics rows (see `foldStatistics`) before a write
   * once this store has written or deleted {@link FOLD_AFTER_CHUNKS} chunks since the last fold —
   * before, so that a failed fold fails a write that has not happened — then counts `chunks`.
   */
  private async foldWhenDue(chunks: number): Promise<void> {
    if (this.analyzer && this.writtenSinceFold >= FOLD_AFTER_CHUNKS) {
      await foldStatistics(this.client, this.target.keywordTables);
      this.writtenSinceFold = 0;
    }
    this.writtenSinceFold += chunks;
  }

  /** By id or document id, in one transaction, rows locked in the global id order. */
  protected async doDelete(key: 'id' | 'docId', values: string[]): Promise<void> {
    await this.foldWhenDue(values.length);
    await deleteRows(this.target, key === 'id' ? 'id' : 'doc_id', values);
  }

  protected async doCount(): Promise<number> {
    const { rows } = await this.client.query<{ count: number | string | bigint }>(`SELECT count(*) AS count FROM ${this.qualifiedTableName}`);
    return Number(rows[0]?.count ?? 0);
  }

  protected override async doFetch(ids: string[]): Promise<DocumentChunk[]> {
    const found: DocumentChunk[] = [];
    for (const slice of batches(ids, IDS_PER_STATEMENT)) {
      const { rows } = await this.client.query<ChunkRow>(`SELECT ${chunkColumns(this.options.includeEmbeddings)} FROM ${this.qualifiedTableName} WHERE id = ANY($1::text[])`, [slice]);
      found.push(...rows.map(toChunk));
    }
    return found;
  }

  /** Removes every chunk (TRUNCATE, which empties the keyword index too); the table, its indexes and its dimension stay. */
  protected override async doClear(): Promise<void> {
    await this.client.query(`TRUNCATE ${this.qualifiedTableName}`);
  }

  /** Drops the collection's table, its indexes and its keyword index. A dimension fixed in the options is kept; otherwise the next `add` decides again. */
  async drop(): Promise<void> {
    this.assertOpen();
    await this.backend('drop', () =>
      inTransaction(this.client, async (client) => {
        await client.query(`DROP TABLE IF EXISTS ${this.qualifiedTableName}`);
        for (const statement of dropKeywordIndexStatements({ schema: this.schema, table: this.collection })) await client.query(statement);
      }),
    );
    this.resetPreparation();
    this.useKeywordIndex(false);
    this.dimensionsValue = this.options.dimensions;
  }

  /**
   * Releases the store. With `closeConnection` (set by {@link createPGliteStore} and
   * {@link createNodePostgresStore}) the connection is ended too; otherwise it stays the caller's.
   */
  async close(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.markClosed();
    if (!this.options.closeConnection) return;
    const connection = this.connection as unknown as { end?: () => Promise<void>; close?: () => Promise<void> };
    await this.backend('close', async () => {
      if (isPGliteLike(this.connection) && typeof connection.close === 'function') await connection.close();
      else if ((isNodePostgresPoolLike(this.connection) || typeof connection.end === 'function') && typeof connection.end === 'function') await connection.end();
      else if (typeof connection.close === 'function') await connection.close();
    });
  }
}
