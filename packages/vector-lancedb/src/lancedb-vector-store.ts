import * as lancedb from '@lancedb/lancedb';
import { Analyzer, type AnalyzerOptions } from '@zerda/text';
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
  type MetadataFilter,
  type VectorMetric,
  type VectorSearchHit,
  type VectorSearchOptions,
  type VectorStore,
  type VectorStoreCapabilities,
  checkInteger,
  checkBoolean,
} from '@zerda/types';
import { compileFilter, hasLoneSurrogate, sqlString, type CompiledFilter } from './lancedb-filter.js';
import {
  CHUNK_COLUMNS,
  TABLE_FORMAT_VERSION,
  readDescription,
  readDimensions,
  tableSchema,
  toArrowTable,
  toChunk,
  type ChunkRecord,
  type PreparedRow,
  type TableDescription,
} from './lancedb-records.js';

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

/** The name LanceDB gives the full-text index on `search_text`. */
const TEXT_INDEX_NAME = 'search_text_idx';

const OPTION_KEYS = new Set(['uri', 'connection', 'storageOptions', 'table', 'metric', 'dimensions', 'textSearch', 'analyzer', 'includeEmbeddings', 'overFetch']);
const METRICS: readonly VectorMetric[] = ['cosine', 'ip', 'l2'];
const DISTANCE_TYPE = { cosine: 'cosine', ip: 'dot', l2: 'l2' } as const;
const TABLE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
/** Ids per `IN (…)` list in one statement. */
const IDS_PER_STATEMENT = 1000;



function checkStorable(value: string, field: string): void {
  if (hasLoneSurrogate(value)) throw invalidArgument(field, 'well-formed Unicode text (LanceDB stores UTF-8; a lone surrogate cannot be stored)', value);
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

function backendError(operation: string, error: unknown): ZerdaError {
  if (ZerdaError.isInstance(error)) return error;
  return createError('ZERDA_BACKEND_ERROR', { component: 'LanceDB', operation, reason: error instanceof Error ? error.message : String(error) }, error);
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && /was not found|not found|does not exist/i.test(error.message);
}

function idList(ids: string[]): string {
  return ids.map(sqlString).join(', ');
}

/**
 * A `VectorStore` on LanceDB, the embedded columnar vector database: one Lance table per
 * collection (an Arrow schema with a float32 fixed-size-list vector column), on local disk or on
 * object storage, with metadata filters translated to LanceDB SQL and full-text search through a
 * Lance inverted index over text analysed by `@zerda/text` (Arabic normalised and stemmed).
 *
 * Guarantees (the `VectorStore` v1 contract, checked by `@zerda/vector-conformance`):
 * - `add` validates every chunk and embedding first, then upserts all of them in one merge-insert
 *   commit: a failure leaves the table at its previous version; re-adding an id replaces it.
 * - `search` returns at most `k` hits by similarity (cosine `1 - distance`, inner product, or
 *   `1 / (1 + euclidean)`), each matching the filter exactly as `matchesFilter` does: filters
 *   compile to SQL over derived columns, and the rare parts SQL cannot express exactly are checked
 *   afterwards on an over-fetched candidate list that grows until `k` matches are found.
 * - Writes from one store object are serialised; every write is one Lance commit (a new version).
 */
export class LanceDbVectorStore implements VectorStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'lancedb';
  readonly metric: VectorMetric;
  readonly capabilities: VectorStoreCapabilities;
  /** The table holding the collection. */
  readonly tableName: string;
  /**
   * Where the data lives, for engine snapshots' identity check: the table, and the database URI
   * when one was given (without any user or password in it; storage credentials are options).
   */
  get location(): string {
    if (!this.uri) return `table ${this.tableName}`;
    let uri = this.uri;
    try {
      const parsed = new URL(uri);
      if (parsed.username || parsed.password) {
        parsed.username = '';
        parsed.password = '';
        uri = parsed.toString();
      }
    } catch {
      // a plain directory path
    }
    return `${uri} table ${this.tableName}`;
  }

  private readonly uri: string | undefined;
  private readonly storageOptions: Record<string, string> | undefined;
  private readonly ownsConnection: boolean;
  private connectionValue: lancedb.Connection | undefined;
  private connecting: Promise<lancedb.Connection> | undefined;
  private dimensionsValue: number | undefined;
  private readonly configuredDimensions: number | undefined;
  /** The schema batches are written with (LanceDB reports JSON columns as LargeBinary; writes need the arrow.json form). */
  private writeSchema: ReturnType<typeof tableSchema> | undefined;
  private readonly textSearchEnabled: boolean;
  private readonly analyzer: Analyzer | undefined;
  private readonly includeEmbeddings: boolean;
  private readonly overFetch: number;
  private table: lancedb.Table | undefined;
  /** Partitions of the IVF index this store built with an explicit `numPartitions` (undefined otherwise). */
  private indexPartitions: number | undefined;
  private preparing: Promise<boolean> | undefined;
  private writes: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(options: LanceDbVectorStoreOptions) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('options', 'an options object with uri or connection', options);
    for (const key of Object.keys(options)) {
      if (!OPTION_KEYS.has(key)) throw invalidArgument(`options.${key}`, `a known option (one of ${[...OPTION_KEYS].join(', ')})`, `unknown key "${key}"`);
    }
    if (options.connection !== undefined) {
      const connection = options.connection as unknown as { openTable?: unknown; createEmptyTable?: unknown };
      if (connection === null || typeof connection !== 'object' || typeof connection.openTable !== 'function' || typeof connection.createEmptyTable !== 'function') {
        throw invalidArgument('options.connection', 'a LanceDB Connection (from lancedb.connect)', options.connection);
      }
      if (options.uri !== undefined) throw invalidArgument('options.uri', 'absent when options.connection is given', options.uri);
      this.connectionValue = options.connection;
      this.ownsConnection = false;
    } else {
      if (typeof options.uri !== 'string' || options.uri.length === 0) throw invalidArgument('options.uri', 'a non-empty string (a directory, an object-store URI or memory://), or pass options.connection', options.uri);
      this.uri = options.uri;
      this.ownsConnection = true;
    }
    if (options.storageOptions !== undefined) {
      const storage = options.storageOptions;
      if (storage === null || typeof storage !== 'object' || Array.isArray(storage) || Object.values(storage).some((value) => typeof value !== 'string')) {
        throw invalidArgument('options.storageOptions', 'an object of string values', storage);
      }
      this.storageOptions = { ...storage };
    }
    const table = options.table ?? 'zerda_chunks';
    if (typeof table !== 'string' || !TABLE_NAME.test(table)) {
      throw invalidArgument('options.table', 'a table name of letters, digits, "_", "-" and "." (at most 128, not starting with "." or "-")', table);
    }
    this.tableName = table;
    if (options.metric !== undefined && !METRICS.includes(options.metric)) throw invalidArgument('options.metric', 'one of "cosine", "ip", "l2"', options.metric);
    this.metric = options.metric ?? 'cosine';
    this.dimensionsValue = options.dimensions === undefined ? undefined : checkInteger(options.dimensions, 'options.dimensions', 1, 65_536);
    this.configuredDimensions = this.dimensionsValue;
    this.textSearchEnabled = options.textSearch === undefined ? true : checkBoolean(options.textSearch, 'options.textSearch');
    this.analyzer = this.textSearchEnabled ? new Analyzer(options.analyzer) : undefined;
    this.includeEmbeddings = options.includeEmbeddings === undefined ? true : checkBoolean(options.includeEmbeddings, 'options.includeEmbeddings');
    this.overFetch = options.overFetch === undefined ? 4 : checkInteger(options.overFetch, 'options.overFetch', 1, 1000);
    const persistent = this.uri === undefined ? true : !this.uri.startsWith('memory://');
    this.capabilities = Object.freeze({ persistence: persistent, nativeFilter: true, textSearch: this.textSearchEnabled, embeds: false });
  }

  /**
   * Opens a store and its table when it exists: the metric (unless given) and the dimension come
   * from the table, and a table zerda did not create, or one created with another metric, is
   * refused with a ZerdaError. Use this to reopen a persisted collection.
   */
  static async open(options: LanceDbVectorStoreOptions): Promise<LanceDbVectorStore> {
    if (options !== null && typeof options === 'object' && options.metric === undefined) {
      // Peek at the table to adopt its metric; the store below validates everything else.
      const probe = new LanceDbVectorStore(options);
      const description = await probe.describeExistingTable();
      await probe.close();
      if (description) options = { ...options, metric: description.metric };
    }
    const store = new LanceDbVectorStore(options);
    await store.prepare(store.dimensionsValue);
    return store;
  }

  /** The vector dimension: from the options, from an existing table, or set by the first added vector. */
  get dimensions(): number | undefined {
    return this.dimensionsValue;
  }

  private assertOpen(): void {
    if (this.closed) throw createError('ZERDA_NOT_READY', { component: `LanceDB store ${this.tableName}`, reason: 'it was closed' });
  }

  private async connection(): Promise<lancedb.Connection> {
    if (this.connectionValue) return this.connectionValue;
    this.connecting ??= lancedb.connect(this.uri!, this.storageOptions ? { storageOptions: this.storageOptions } : {}).then(
      (connection) => (this.connectionValue = connection),
      (error: unknown) => {
        this.connecting = undefined;
        throw backendError('connect', error);
      },
    );
    return this.connecting;
  }

  private async openExistingTable(): Promise<lancedb.Table | undefined> {
    const connection = await this.connection();
    try {
      return await connection.openTable(this.tableName);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw backendError('openTable', error);
    }
  }

  private async describeExistingTable(): Promise<TableDescription | undefined> {
    const table = await this.openExistingTable();
    if (!table) return undefined;
    try {
      return readDescription(await table.schema(), this.tableName);
    } finally {
      table.close();
    }
  }

  private description(): TableDescription {
    return { format: 'zerda-lancedb', version: TABLE_FORMAT_VERSION, metric: this.metric, analyzer: this.analyzer ? { ...this.analyzer.options } : null };
  }

  /** True when the table exists (creating it when `dimensions` is known). */
  private async prepare(dimensions?: number): Promise<boolean> {
    if (this.table) return true;
    while (this.preparing) {
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
    const existing = await this.openExistingTable();
    if (existing) {
      const schema = await existing.schema().catch((error: unknown) => Promise.reject(backendError('schema', error)));
      this.writeSchema = tableSchema(this.checkExisting(schema), readDescription(schema, this.tableName)!);
      this.table = existing;
      return true;
    }
    if (dimensions === undefined) return false;
    const connection = await this.connection();
    let table: lancedb.Table;
    try {
      table = await connection.createEmptyTable(this.tableName, tableSchema(dimensions, this.description()), { mode: 'create', existOk: true });
    } catch (error) {
      throw backendError('createTable', error);
    }
    // With existOk another process may have created it first: check what we got.
    const schema = await table.schema();
    this.writeSchema = tableSchema(this.checkExisting(schema), readDescription(schema, this.tableName)!);
    if (this.textSearchEnabled) {
      try {
        // The analyser already normalised, stemmed and dropped stopwords: split on whitespace only.
        await table.createIndex('search_text', {
          config: lancedb.Index.fts({ baseTokenizer: 'whitespace', lowercase: false, stem: false, removeStopWords: false, asciiFolding: false, withPosition: false }),
          replace: false,
        });
      } catch (error) {
        if (!/already exists/i.test(error instanceof Error ? error.message : '')) throw backendError('createIndex(search_text)', error);
      }
    }
    this.table = table;
    return true;
  }

  /** Checks an existing table against the options and returns its dimension. */
  private checkExisting(schema: Awaited<ReturnType<lancedb.Table['schema']>>): number {
    const description = readDescription(schema, this.tableName);
    if (!description) {
      throw createError('ZERDA_UNSUPPORTED', {
        operation: `using table ${this.tableName}`,
        component: 'LanceDbVectorStore',
        reason: 'the table exists but was not created by zerda (no "zerda" schema metadata); choose another options.table',
      });
    }
    if (description.version > TABLE_FORMAT_VERSION) {
      throw createError('ZERDA_STORE_CORRUPT', { path: `LanceDB table ${this.tableName}`, reason: `it has layout version ${description.version}; this package reads up to ${TABLE_FORMAT_VERSION} (upgrade @zerda/vector-lancedb)` });
    }
    if (description.metric !== this.metric) {
      throw invalidArgument('options.metric', `"${description.metric}", the metric table ${this.tableName} was created with (or leave it out)`, this.metric);
    }
    if (this.textSearchEnabled && description.analyzer === null) {
      throw invalidArgument('options.textSearch', `false: table ${this.tableName} was created without text search`, true);
    }
    if (this.analyzer && description.analyzer && JSON.stringify(description.analyzer) !== JSON.stringify(this.analyzer.options)) {
      throw invalidArgument('options.analyzer', `the analyzer table ${this.tableName} was created with (${JSON.stringify(description.analyzer)})`, this.analyzer.options);
    }
    const dimensions = readDimensions(schema, this.tableName);
    if (this.dimensionsValue !== undefined && this.dimensionsValue !== dimensions) {
      throw createError('ZERDA_DIMENSION_MISMATCH', { field: 'options.dimensions', received: String(this.dimensionsValue), expected: String(dimensions) });
    }
    this.dimensionsValue = dimensions;
    return dimensions;
  }

  /** Runs writes one after another, so that concurrent calls on one store do not race for commits. */
  private serialize<T>(write: () => Promise<T>): Promise<T> {
    const run = this.writes.then(write, write);
    this.writes = run.catch(() => undefined);
    return run;
  }

  /**
   * Adds or replaces chunks (each needs an `embedding`). The whole call is validated first —
   * chunk shape, unique ids, every embedding's values and dimension, text LanceDB can store — and
   * then written as one merge-insert on `id`: one commit, all or nothing.
   */
  async add(chunks: DocumentChunk[]): Promise<void> {
    this.assertOpen();
    const validated = toDocumentChunks(chunks, 'chunks');
    if (validated.length === 0) return;
    if (this.dimensionsValue === undefined) await this.prepare();
    let dimensions = this.dimensionsValue;
    const rows: PreparedRow[] = [];
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
      const searchText = this.analyzer ? this.analyzer.analyze(chunk.title === undefined ? chunk.text : `${chunk.title}\n${chunk.text}`).join(' ') : '';
      rows.push({ chunk, vector, searchText });
    }
    await this.serialize(async () => {
      await this.prepare(dimensions);
      if (this.dimensionsValue !== dimensions) {
        throw createError('ZERDA_DIMENSION_MISMATCH', { field: 'chunks[0].embedding', received: String(dimensions), expected: String(this.dimensionsValue) });
      }
      const table = this.table!;
      try {
        const data = toArrowTable(rows, this.writeSchema!, dimensions!);
        await table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
      } catch (error) {
        throw backendError('add', error);
      }
    });
  }

  private selectedColumns(): string[] {
    return this.includeEmbeddings ? [...CHUNK_COLUMNS, 'vector'] : [...CHUNK_COLUMNS];
  }

  /** The backend's distance → zerda similarity (its convention: 1 − cos, 1 − dot, squared l2). */
  private toSimilarity(distance: number): number {
    return similarityFromOneMinusDistance(this.metric, distance);
  }

  /**
   * Runs `fetch(limit)` with a growing limit until `k` rows pass `matchesFilter` or the
   * candidates run out. With an exact SQL filter one round suffices.
   */
  private async collect(
    k: number,
    filter: MetadataFilter | undefined,
    compiled: CompiledFilter,
    fetch: (limit: number) => Promise<VectorSearchHit[]>,
  ): Promise<VectorSearchHit[]> {
    if (compiled.exact) return fetch(k);
    const total = await this.table!.countRows(compiled.sql === 'TRUE' ? undefined : compiled.sql);
    let limit = Math.min(total, k * this.overFetch);
    for (;;) {
      const candidates = await fetch(Math.max(limit, 1));
      const matching = candidates.filter((hit) => matchesFilter(hit.chunk, filter));
      if (matching.length >= k || candidates.length < limit || limit >= total) return matching.slice(0, k);
      limit = Math.min(total, limit * 4);
    }
  }

  /**
   * The `k` chunks most similar to `vector`, best first, each matching `filter`. Without a vector
   * index LanceDB scans exactly (fast for tens of thousands of rows); after
   * `createVectorIndex()` the index answers, tuned with `nprobes`, `refineFactor` and `ef`.
   */
  async search(vector: Embedding, options: LanceDbSearchOptions): Promise<VectorSearchHit[]> {
    this.assertOpen();
    const { k, filter } = validateSearchOptions(options, ['nprobes', 'refineFactor', 'ef', 'exact']);
    const nprobes = options.nprobes === undefined ? this.defaultProbes() : checkInteger(options.nprobes, 'options.nprobes', 1, 100_000);
    const refineFactor = options.refineFactor === undefined ? undefined : checkInteger(options.refineFactor, 'options.refineFactor', 1, 1000);
    const ef = options.ef === undefined ? undefined : checkInteger(options.ef, 'options.ef', 1, 100_000);
    const exact = options.exact === undefined ? false : checkBoolean(options.exact, 'options.exact');
    let query = validateEmbedding(vector, 'vector', this.dimensionsValue);
    if (!(await this.prepare())) return [];
    query = validateEmbedding(query, 'vector', this.dimensionsValue);
    if (k === 0) return [];
    const compiled = compileFilter(filter);
    const table = this.table!;
    const columns = this.selectedColumns();
    const nearest = async (limit: number): Promise<VectorSearchHit[]> => {
      let builder = table.vectorSearch(query).column('vector').distanceType(DISTANCE_TYPE[this.metric]).select([...columns, '_distance']).limit(limit);
      if (compiled.sql !== 'TRUE') builder = builder.where(compiled.sql);
      if (nprobes !== undefined) builder = builder.nprobes(nprobes);
      if (refineFactor !== undefined) builder = builder.refineFactor(refineFactor);
      if (ef !== undefined) builder = builder.ef(ef);
      if (exact) builder = builder.bypassVectorIndex();
      const rows = (await builder.toArray()) as Array<ChunkRecord & { _distance: number }>;
      const hits = rows.map((row) => ({ chunk: toChunk(row), score: this.toSimilarity(Number(row._distance)) }));
      if (this.metric === 'cosine' && (hits.length < limit || hits.some((hit) => hit.score < 0))) {
        // Lance's cosine search skips vectors without a direction; zerda scores them 0, like every store.
        hits.push(...(await this.zeroVectors(compiled, limit)));
      }
      return hits.sort(compareSearchHits).slice(0, limit);
    };
    try {
      return await this.collect(k, filter, compiled, nearest);
    } catch (error) {
      throw backendError('search', error);
    }
  }

  /**
   * LanceDB answers full-text queries over rows its index has not absorbed yet with a fallback
   * that ranks them badly (measured on SciFact with every row unindexed: nDCG@10 0.077 against
   * 0.692 once indexed). So when the text index reports unindexed rows — added by this store or by
   * another writer — they are folded in (`optimize`) before the query: the first text query after
   * a write pays for it (about 0.4 s for 5k new rows, 0.1 s for a few), the others a 0.3 ms check.
   */
  private async foldNewRowsIntoTextIndex(): Promise<void> {
    const unindexed = async () => {
      try {
        return (await this.table!.indexStats(TEXT_INDEX_NAME))?.numUnindexedRows ?? 0;
      } catch (error) {
        throw backendError('indexStats(search_text)', error);
      }
    };
    if ((await unindexed()) === 0) return;
    await this.serialize(async () => {
      if ((await unindexed()) === 0) return;
      try {
        await this.table!.optimize();
      } catch (error) {
        throw backendError('optimize (text index)', error);
      }
    });
  }

  private async zeroVectors(compiled: CompiledFilter, limit: number): Promise<VectorSearchHit[]> {
    const where = compiled.sql === 'TRUE' ? 'zero_vector' : `zero_vector AND ${compiled.sql}`;
    const rows = (await this.table!.query().where(where).select(this.selectedColumns()).limit(limit).toArray()) as ChunkRecord[];
    return rows.map((row) => ({ chunk: toChunk(row), score: 0 }));
  }

  /**
   * Keyword search over the chunks' title and text through LanceDB's BM25 inverted index. Text
   * and query are analysed alike by `@zerda/text` (Arabic normalised and light-stemmed, English
   * Porter2-stemmed, stopwords dropped); a chunk matches when it contains any query term. Scores
   * are BM25 scores (similarities >= 0), best first.
   */
  async textSearch(query: string, options: VectorSearchOptions): Promise<VectorSearchHit[]> {
    this.assertOpen();
    if (typeof query !== 'string') throw invalidArgument('query', 'a string', query);
    const { k, filter } = validateSearchOptions(options);
    if (!this.analyzer) throw createError('ZERDA_UNSUPPORTED', { operation: 'textSearch', component: 'this LanceDB store', reason: 'it was created with textSearch: false' });
    const terms = [...new Set(this.analyzer.analyze(query))];
    if (k === 0 || terms.length === 0 || !(await this.prepare())) return [];
    await this.foldNewRowsIntoTextIndex();
    const compiled = compileFilter(filter);
    const table = this.table!;
    const columns = this.selectedColumns();
    const matching = async (limit: number): Promise<VectorSearchHit[]> => {
      const match = new lancedb.MatchQuery(terms.join(' '), 'search_text', { operator: lancedb.Operator.Or });
      let builder = table.query().fullTextSearch(match).select([...columns, '_score']).limit(limit);
      if (compiled.sql !== 'TRUE') builder = builder.where(compiled.sql);
      const rows = (await builder.toArray()) as Array<ChunkRecord & { _score: number }>;
      return rows.map((row) => ({ chunk: toChunk(row), score: Math.max(0, Number(row._score)) })).sort(compareSearchHits);
    };
    try {
      return await this.collect(k, filter, compiled, matching);
    } catch (error) {
      throw backendError('textSearch', error);
    }
  }

  private async deleteWhere(column: 'id' | 'doc_id', values: string[], operation: string): Promise<void> {
    // A value with a lone surrogate cannot have been stored (and cannot cross into Rust intact).
    const unique = [...new Set(values)].filter((value) => !hasLoneSurrogate(value));
    if (unique.length === 0) return;
    await this.serialize(async () => {
      if (!(await this.prepare())) return;
      try {
        for (let start = 0; start < unique.length; start += IDS_PER_STATEMENT) {
          await this.table!.delete(`${column} IN (${idList(unique.slice(start, start + IDS_PER_STATEMENT))})`);
        }
      } catch (error) {
        throw backendError(operation, error);
      }
    });
  }

  /** Deletes chunks by id (unknown ids are ignored), 1,000 ids per Lance commit. */
  async delete(ids: string[]): Promise<void> {
    this.assertOpen();
    await this.deleteWhere('id', validateIdList(ids, 'ids'), 'delete');
  }

  /** Deletes every chunk of the given documents. */
  async deleteByDocIds(docIds: string[]): Promise<void> {
    this.assertOpen();
    await this.deleteWhere('doc_id', validateIdList(docIds, 'docIds'), 'deleteByDocIds');
  }

  /** Number of stored chunks (0 before the table exists). */
  async count(): Promise<number> {
    this.assertOpen();
    if (!(await this.prepare())) return 0;
    try {
      return await this.table!.countRows();
    } catch (error) {
      throw backendError('count', error);
    }
  }

  /** Fetches chunks by id, in the order asked (with embeddings unless `includeEmbeddings: false`); missing ids are skipped. */
  async get(ids: string[]): Promise<DocumentChunk[]> {
    this.assertOpen();
    const wanted = validateIdList(ids, 'ids');
    const unique = [...new Set(wanted)].filter((id) => !hasLoneSurrogate(id));
    if (unique.length === 0 || !(await this.prepare())) return [];
    const found = new Map<string, DocumentChunk>();
    try {
      for (let start = 0; start < unique.length; start += IDS_PER_STATEMENT) {
        const slice = unique.slice(start, start + IDS_PER_STATEMENT);
        const rows = (await this.table!.query().where(`id IN (${idList(slice)})`).select(this.selectedColumns()).limit(slice.length).toArray()) as ChunkRecord[];
        for (const row of rows) found.set(row.id, toChunk(row));
      }
    } catch (error) {
      throw backendError('get', error);
    }
    const out: DocumentChunk[] = [];
    for (const id of wanted) {
      const chunk = found.get(id);
      if (chunk) out.push(chunk);
    }
    return out;
  }

  /** Removes every chunk; the table, its schema, dimension and indexes stay. */
  async clear(): Promise<void> {
    this.assertOpen();
    await this.serialize(async () => {
      if (!(await this.prepare())) return;
      try {
        await this.table!.delete('TRUE');
      } catch (error) {
        throw backendError('clear', error);
      }
    });
  }

  /**
   * Builds an approximate vector index (IVF-flat by default) for large tables; until then, and
   * with `search(…, { exact: true })`, searches scan exactly. LanceDB needs a few hundred rows
   * (PQ: at least 256) to train an index. Rows added later are searched exactly until `optimize()`.
   */
  async createVectorIndex(options: LanceDbVectorIndexOptions = {}): Promise<void> {
    this.assertOpen();
    if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an options object', options);
    const type = options.type ?? 'ivfFlat';
    if (!['ivfPq', 'ivfFlat', 'hnswSq', 'hnswPq'].includes(type)) throw invalidArgument('options.type', 'one of "ivfPq", "ivfFlat", "hnswSq", "hnswPq"', type);
    const numPartitions = options.numPartitions === undefined ? undefined : checkInteger(options.numPartitions, 'options.numPartitions', 1, 1_000_000);
    const numSubVectors = options.numSubVectors === undefined ? undefined : checkInteger(options.numSubVectors, 'options.numSubVectors', 1, 65_536);
    await this.serialize(async () => {
      if (!(await this.prepare())) throw createError('ZERDA_NOT_READY', { component: `LanceDB table ${this.tableName}`, reason: 'it does not exist yet (add chunks first)' });
      const distanceType = DISTANCE_TYPE[this.metric];
      const settings = { distanceType, ...(numPartitions === undefined ? {} : { numPartitions }), ...(numSubVectors === undefined ? {} : { numSubVectors }) };
      const config =
        type === 'ivfFlat' ? lancedb.Index.ivfFlat(settings) : type === 'hnswSq' ? lancedb.Index.hnswSq(settings) : type === 'hnswPq' ? lancedb.Index.hnswPq(settings) : lancedb.Index.ivfPq(settings);
      try {
        await this.table!.createIndex('vector', { config, replace: true });
      } catch (error) {
        throw backendError('createVectorIndex', error);
      }
      this.indexPartitions = type.startsWith('ivf') ? numPartitions : undefined;
    });
  }

  /**
   * Probes for a search that names none: 15% of the partitions of the IVF index this store built
   * (at least LanceDB's default 20). LanceDB's fixed 20 covers 20% of 100 partitions but 6% of 316:
   * on @zerda/bench's 100k GloVe vectors (316 partitions) recall@10 was 0.92 with 20 probes. With
   * unknown partitions (an index built elsewhere) LanceDB's default applies.
   */
  private defaultProbes(): number | undefined {
    return this.indexPartitions === undefined ? undefined : Math.max(20, Math.ceil(this.indexPartitions * 0.15));
  }

  /** Compacts the table's files, folds new rows into its indexes and prunes old versions (LanceDB `optimize`). */
  async optimize(): Promise<void> {
    this.assertOpen();
    await this.serialize(async () => {
      if (!(await this.prepare())) return;
      try {
        await this.table!.optimize();
      } catch (error) {
        throw backendError('optimize', error);
      }
    });
  }

  /** Drops the table and its files. A dimension fixed in the options is kept; otherwise the next `add` decides again. */
  async drop(): Promise<void> {
    this.assertOpen();
    await this.serialize(async () => {
      const connection = await this.connection();
      this.table?.close();
      this.table = undefined;
      this.writeSchema = undefined;
      this.dimensionsValue = this.configuredDimensions;
      this.indexPartitions = undefined;
      try {
        await connection.dropTable(this.tableName);
      } catch (error) {
        if (!isNotFound(error)) throw backendError('drop', error);
      }
    });
  }

  /** Releases the table and, when the store opened it from `uri`, the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes;
    this.table?.close();
    this.table = undefined;
    if (this.ownsConnection) this.connectionValue?.close();
  }
}
