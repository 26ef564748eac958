import * as lancedb from '@lancedb/lancedb';
import type * as Arrow from 'apache-arrow';
import { createError, type DocumentChunk, type MetadataFilter, type VectorSearchHit, type VectorSearchOptions } from '@zerda/types';
import { VectorStoreBase, batches, topHits, utf8Storable, type QueryHit, type TextQuery, type TranslatedFilter, type VectorQuery, type VectorRecord } from '@zerda/vector-kit';
import { compileFilter, sqlString, type CompiledFilter } from './lancedb-filter.js';
import {
  checkSearchKnobs,
  checkVectorIndexOptions,
  resolveLanceDbOptions,
  type LanceDbVectorIndexOptions,
  type LanceDbVectorStoreOptions,
  type ResolvedLanceDbOptions,
} from './lancedb-options.js';
import { CHUNK_COLUMNS, TABLE_FORMAT_VERSION, checkTable, readDescription, tableSchema, toArrowTable, toChunk, type ChunkRecord, type PreparedRow, type TableDescription } from './lancedb-records.js';

/** The name LanceDB gives the full-text index on `search_text`. */
const TEXT_INDEX_NAME = 'search_text_idx';
const DISTANCE_TYPE = { cosine: 'cosine', ip: 'dot', l2: 'l2' } as const;
/** Ids per `IN (…)` list in one statement. */
const IDS_PER_STATEMENT = 1000;
const COLUMN = { id: 'id', docId: 'doc_id' } as const;

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
export class LanceDbVectorStore extends VectorStoreBase<CompiledFilter, PreparedRow> {
  /** The table holding the collection. */
  readonly tableName: string;

  private readonly options: ResolvedLanceDbOptions;
  private connectionValue: lancedb.Connection | undefined;
  private connecting: Promise<lancedb.Connection> | undefined;
  /** The schema batches are written with (LanceDB reports JSON columns as LargeBinary; writes need the arrow.json form). */
  private writeSchema: ReturnType<typeof tableSchema> | undefined;
  private table: lancedb.Table | undefined;
  /** Partitions of the IVF index this store built with an explicit `numPartitions` (undefined otherwise). */
  private indexPartitions: number | undefined;
  private released = false;

  constructor(options: LanceDbVectorStoreOptions) {
    const resolved = resolveLanceDbOptions(options);
    super({
      name: 'lancedb',
      metric: resolved.metric,
      dimensions: resolved.dimensions,
      capabilities: { persistence: resolved.uri === undefined || !resolved.uri.startsWith('memory://'), nativeFilter: true, textSearch: resolved.analyzer !== undefined },
      // LanceDB reports 1 − cos, 1 − dot and the squared euclidean distance.
      distance: 'one-minus',
      storable: utf8Storable('LanceDB'),
      searchOptions: ['nprobes', 'refineFactor', 'ef', 'exact'],
      overFetch: resolved.overFetch,
    });
    this.options = resolved;
    this.tableName = resolved.table;
    this.connectionValue = resolved.connection;
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

  /**
   * Where the data lives, for engine snapshots' identity check: the table, and the database URI
   * when one was given (without any user or password in it; storage credentials are options).
   */
  get location(): string {
    if (!this.options.uri) return `table ${this.tableName}`;
    let uri = this.options.uri;
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

  private async connection(): Promise<lancedb.Connection> {
    if (this.connectionValue) return this.connectionValue;
    const { uri, storageOptions } = this.options;
    this.connecting ??= lancedb.connect(uri!, storageOptions ? { storageOptions } : {}).then(
      (connection) => (this.connectionValue = connection),
      (error: unknown) => {
        this.connecting = undefined;
        throw this.backendError('connect', error);
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
      throw this.backendError('openTable', error);
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
    const { analyzer } = this.options;
    return { format: 'zerda-lancedb', version: TABLE_FORMAT_VERSION, metric: this.metric, analyzer: analyzer ? { ...analyzer.options } : null };
  }

  /** Opens the table (checking it against the options), or creates it with its text index when `create`. */
  protected override async doPrepare(dimensions: number | undefined, create: boolean): Promise<boolean> {
    const existing = await this.openExistingTable();
    if (existing) {
      const schema = await this.backend('schema', () => existing.schema());
      this.writeSchema = tableSchema(this.checkExisting(schema), readDescription(schema, this.tableName)!);
      this.table = existing;
      return true;
    }
    if (!create || dimensions === undefined) return false;
    const connection = await this.connection();
    const table = await this.backend('createTable', () => connection.createEmptyTable(this.tableName, tableSchema(dimensions, this.description()), { mode: 'create', existOk: true }));
    // With existOk another process may have created it first: check what we got.
    const schema = await table.schema();
    this.writeSchema = tableSchema(this.checkExisting(schema), readDescription(schema, this.tableName)!);
    if (this.options.analyzer) {
      try {
        // The analyser already normalised, stemmed and dropped stopwords: split on whitespace only.
        await table.createIndex('search_text', {
          config: lancedb.Index.fts({ baseTokenizer: 'whitespace', lowercase: false, stem: false, removeStopWords: false, asciiFolding: false, withPosition: false }),
          replace: false,
        });
      } catch (error) {
        if (!/already exists/i.test(error instanceof Error ? error.message : '')) throw this.backendError('createIndex(search_text)', error);
      }
    }
    this.table = table;
    return true;
  }

  /** Checks an existing table against the options and learns its dimension. */
  private checkExisting(schema: Arrow.Schema): number {
    this.dimensionsValue = checkTable(schema, this.tableName, { metric: this.metric, analyzer: this.options.analyzer?.options, dimensions: this.dimensionsValue });
    return this.dimensionsValue;
  }

  /** A chunk with its analysed words for the full-text column. */
  protected override toRecord({ chunk, vector }: VectorRecord): PreparedRow {
    const { analyzer } = this.options;
    const searchText = analyzer ? analyzer.analyze(chunk.title === undefined ? chunk.text : `${chunk.title}\n${chunk.text}`).join(' ') : '';
    return { chunk, vector, searchText };
  }

  /** The whole `add` as one merge-insert on `id`: one commit, all or nothing. */
  protected async doUpsert(rows: PreparedRow[]): Promise<void> {
    const data = toArrowTable(rows, this.writeSchema!, this.dimensionsValue!);
    await this.table!.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
  }

  private selectedColumns(): string[] {
    return this.options.includeEmbeddings ? [...CHUNK_COLUMNS, 'vector'] : [...CHUNK_COLUMNS];
  }

  /** The filter as LanceDB SQL; the rare parts SQL cannot express exactly make it inexact (the kit over-fetches). */
  protected override translateFilter(filter: MetadataFilter | undefined): TranslatedFilter<CompiledFilter> {
    const compiled = compileFilter(filter);
    return { filter: compiled, exact: compiled.exact };
  }

  /** Candidates an over-fetch may ask for: the rows the SQL part of the filter admits. */
  protected override async candidateCeiling({ filter }: TranslatedFilter<CompiledFilter>): Promise<number> {
    return this.table!.countRows(filter === undefined || filter.sql === 'TRUE' ? undefined : filter.sql);
  }

  protected override checkSearchOptions(options: VectorSearchOptions): void {
    checkSearchKnobs(options);
  }

  /**
   * The `limit` nearest rows. Without a vector index LanceDB scans exactly (fast for tens of
   * thousands of rows); after `createVectorIndex()` the index answers, tuned with `nprobes`,
   * `refineFactor` and `ef`.
   */
  protected async doQuery({ vector, limit, filter, options }: VectorQuery<CompiledFilter>): Promise<QueryHit[]> {
    const knobs = checkSearchKnobs(options);
    const nprobes = knobs.nprobes ?? this.defaultProbes();
    let builder = this.table!.vectorSearch(vector).column('vector').distanceType(DISTANCE_TYPE[this.metric]).select([...this.selectedColumns(), '_distance']).limit(limit);
    if (filter && filter.sql !== 'TRUE') builder = builder.where(filter.sql);
    if (nprobes !== undefined) builder = builder.nprobes(nprobes);
    if (knobs.refineFactor !== undefined) builder = builder.refineFactor(knobs.refineFactor);
    if (knobs.ef !== undefined) builder = builder.ef(knobs.ef);
    if (knobs.exact) builder = builder.bypassVectorIndex();
    const rows = (await builder.toArray()) as Array<ChunkRecord & { _distance: number }>;
    const hits: VectorSearchHit[] = rows.map((row) => this.toHit({ chunk: toChunk(row), distance: Number(row._distance) }));
    if (this.metric === 'cosine' && (hits.length < limit || hits.some((hit) => hit.score < 0))) {
      // Lance's cosine search skips vectors without a direction; zerda scores them 0, like every store.
      hits.push(...(await this.zeroVectors(filter, limit)));
    }
    return topHits(hits, limit);
  }

  private async zeroVectors(filter: CompiledFilter | undefined, limit: number): Promise<VectorSearchHit[]> {
    const where = !filter || filter.sql === 'TRUE' ? 'zero_vector' : `zero_vector AND ${filter.sql}`;
    const rows = (await this.table!.query().where(where).select(this.selectedColumns()).limit(limit).toArray()) as ChunkRecord[];
    return rows.map((row) => ({ chunk: toChunk(row), score: 0 }));
  }

  /**
   * LanceDB answers full-text queries over rows its index has not absorbed yet with a fallback
   * that ranks them badly (measured on SciFact with every row unindexed: nDCG@10 0.077 against
   * 0.692 once indexed). So when the text index reports unindexed rows — added by this store or by
   * another writer — they are folded in (`optimize`) before the query: the first text query after
   * a write pays for it (about 0.4 s for 5k new rows, 0.1 s for a few), the others a 0.3 ms check.
   */
  private async foldNewRowsIntoTextIndex(): Promise<void> {
    const unindexed = async () => (await this.backend('indexStats(search_text)', () => this.table!.indexStats(TEXT_INDEX_NAME)))?.numUnindexedRows ?? 0;
    if ((await unindexed()) === 0) return;
    await this.writes.run(async () => {
      if ((await unindexed()) === 0) return;
      await this.backend('optimize (text index)', () => this.table!.optimize());
    });
  }

  /**
   * Keyword search over the chunks' title and text through LanceDB's BM25 inverted index. Text
   * and query are analysed alike by `@zerda/text` (Arabic normalised and light-stemmed, English
   * Porter2-stemmed, stopwords dropped); a chunk matches when it contains any query term. Scores
   * are BM25 scores (similarities >= 0), best first.
   */
  textSearch(query: string, options: VectorSearchOptions): Promise<VectorSearchHit[]> {
    return this.searchText(query, options);
  }

  protected override async doTextSearch({ query, limit, filter }: TextQuery<CompiledFilter>): Promise<QueryHit[]> {
    const terms = [...new Set(this.options.analyzer!.analyze(query))];
    if (terms.length === 0) return [];
    await this.foldNewRowsIntoTextIndex();
    const match = new lancedb.MatchQuery(terms.join(' '), 'search_text', { operator: lancedb.Operator.Or });
    let builder = this.table!.query().fullTextSearch(match).select([...this.selectedColumns(), '_score']).limit(limit);
    if (filter && filter.sql !== 'TRUE') builder = builder.where(filter.sql);
    const rows = (await builder.toArray()) as Array<ChunkRecord & { _score: number }>;
    return rows.map((row) => ({ chunk: toChunk(row), score: Math.max(0, Number(row._score)) }));
  }

  /** Deletes by id or document id, 1,000 values per Lance commit. */
  protected async doDelete(key: 'id' | 'docId', values: string[]): Promise<void> {
    for (const slice of batches(values, IDS_PER_STATEMENT)) await this.table!.delete(`${COLUMN[key]} IN (${idList(slice)})`);
  }

  protected async doCount(): Promise<number> {
    return this.table!.countRows();
  }

  protected override async doFetch(ids: string[]): Promise<DocumentChunk[]> {
    const found: DocumentChunk[] = [];
    for (const slice of batches(ids, IDS_PER_STATEMENT)) {
      const rows = (await this.table!.query().where(`id IN (${idList(slice)})`).select(this.selectedColumns()).limit(slice.length).toArray()) as ChunkRecord[];
      found.push(...rows.map(toChunk));
    }
    return found;
  }

  /** Removes every chunk; the table, its schema, dimension and indexes stay. */
  protected override async doClear(): Promise<void> {
    await this.table!.delete('TRUE');
  }

  /**
   * Builds an approximate vector index (IVF-flat by default) for large tables; until then, and
   * with `search(…, { exact: true })`, searches scan exactly. LanceDB needs a few hundred rows
   * (PQ: at least 256) to train an index. Rows added later are searched exactly until `optimize()`.
   */
  async createVectorIndex(options: LanceDbVectorIndexOptions = {}): Promise<void> {
    this.assertOpen();
    const { type, numPartitions, numSubVectors } = checkVectorIndexOptions(options);
    await this.writes.run(async () => {
      if (!(await this.prepare())) throw createError('ZERDA_NOT_READY', { component: `LanceDB table ${this.tableName}`, reason: 'it does not exist yet (add chunks first)' });
      const settings = { distanceType: DISTANCE_TYPE[this.metric], ...(numPartitions === undefined ? {} : { numPartitions }), ...(numSubVectors === undefined ? {} : { numSubVectors }) };
      const config =
        type === 'ivfFlat' ? lancedb.Index.ivfFlat(settings) : type === 'hnswSq' ? lancedb.Index.hnswSq(settings) : type === 'hnswPq' ? lancedb.Index.hnswPq(settings) : lancedb.Index.ivfPq(settings);
      await this.backend('createVectorIndex', () => this.table!.createIndex('vector', { config, replace: true }));
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
    await this.writes.run(async () => {
      if (await this.prepare()) await this.backend('optimize', () => this.table!.optimize());
    });
  }

  /** Drops the table and its files. A dimension fixed in the options is kept; otherwise the next `add` decides again. */
  async drop(): Promise<void> {
    this.assertOpen();
    await this.writes.run(async () => {
      const connection = await this.connection();
      this.table?.close();
      this.table = undefined;
      this.writeSchema = undefined;
      this.resetPreparation();
      this.dimensionsValue = this.options.dimensions;
      this.indexPartitions = undefined;
      try {
        await connection.dropTable(this.tableName);
      } catch (error) {
        if (!isNotFound(error)) throw this.backendError('drop', error);
      }
    });
  }

  /** Releases the table and, when the store opened it from `uri`, the connection. */
  async close(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.markClosed();
    await this.writes.idle();
    this.table?.close();
    this.table = undefined;
    if (this.options.connection === undefined) this.connectionValue?.close();
  }
}
