import type { ResolvedAnalyzerOptions } from '@zerda/text';
import { createError, type VectorMetric } from '@zerda/types';
import { derivedName, quoteIdentifier } from './identifiers.js';
import type { SqlClient } from './sql-client.js';

/**
 * Newest table layout this package writes and understands (kept in the table comment). Version 1:
 * the chunk table (with a generated `tsvector` column when full-text ranking is on). Version 2 adds
 * the BM25 keyword index: analysed lengths on each row, a postings table and a collection
 * statistics table kept exact by triggers, and (added within version 2, see
 * `termStatisticsStatements`) per-term statistics kept by a trigger on the postings, which let a
 * top-k query skip the postings that cannot reach the best k. The addition is compatible both ways
 * — a release that does not know the per-term table reads and writes correctly, its trigger keeping
 * the table exact — so the version stays 2; a version-2 table without it is migrated when a store
 * opens it. A table without the keyword index stays at version 1, so processes running an older
 * release keep working on it.
 */
export const SCHEMA_VERSION = 2;

/** pgvector's HNSW index supports `vector` columns of at most this many dimensions. */
export const HNSW_MAX_DIMENSIONS = 2000;

/** The pgvector operator and HNSW operator class for each metric. */
export const METRIC_SQL: Readonly<Record<VectorMetric, { operator: '<=>' | '<#>' | '<->'; operatorClass: string }>> = Object.freeze({
  cosine: { operator: '<=>', operatorClass: 'vector_cosine_ops' },
  ip: { operator: '<#>', operatorClass: 'vector_ip_ops' },
  l2: { operator: '<->', operatorClass: 'vector_l2_ops' },
});

/** HNSW build parameters (pgvector's `m` and `ef_construction`). */
export interface HnswParameters {
  m: number;
  efConstruction: number;
}

/** What the table comment records, so a later process opens the table with the same settings. */
export interface TableComment {
  zerda: 'vector-pgvector';
  schemaVersion: number;
  metric: VectorMetric;
  /** How the keyword index analysed the text (present from version 2, when the index exists). */
  analyzer?: ResolvedAnalyzerOptions;
}

/** Everything the DDL needs to know about one collection's table. */
export interface TableLayout {
  schema: string;
  table: string;
  metric: VectorMetric;
  dimensions: number;
  hnsw: HnswParameters | false;
  /** Keep the generated `tsvector` column and its GIN index (`textRanking: 'ts_rank_cd'`). */
  fullText: boolean;
  /** Keep the BM25 keyword index, analysed with these options (`textRanking: 'bm25'`), or not. */
  keywordIndex: ResolvedAnalyzerOptions | false;
}

/** `"schema"."table"` for a validated layout. */
export function qualifiedName(layout: Pick<TableLayout, 'schema' | 'table'>): string {
  return `${quoteIdentifier(layout.schema)}.${quoteIdentifier(layout.table)}`;
}

/** The full-text column: title weighted A, body weighted B, analysed with the row's own configuration. */
const TEXT_SEARCH_COLUMN =
  "tsv tsvector GENERATED ALWAYS AS (setweight(to_tsvector(language, coalesce(title, '')), 'A') || setweight(to_tsvector(language, text), 'B')) STORED";

/** The table comment for a layout: version 2 with the analyzer when the keyword index exists, else version 1. */
export function tableComment(layout: Pick<TableLayout, 'metric' | 'keywordIndex'>): TableComment {
  return layout.keywordIndex
    ? { zerda: 'vector-pgvector', schemaVersion: 2, metric: layout.metric, analyzer: layout.keywordIndex }
    : { zerda: 'vector-pgvector', schemaVersion: 1, metric: layout.metric };
}

/** `COMMENT ON TABLE` with the layout's comment (JSON of validated options only; quotes doubled all the same). */
export function commentStatement(layout: Pick<TableLayout, 'schema' | 'table' | 'metric' | 'keywordIndex'>): string {
  return `COMMENT ON TABLE ${qualifiedName(layout)} IS '${JSON.stringify(tableComment(layout)).replace(/'/g, "''")}'`;
}

/** CREATE TABLE plus the indexes that do not depend on the HNSW settings. Every statement is idempotent. */
export function tableStatements(layout: TableLayout): string[] {
  const table = qualifiedName(layout);
  const statements = [
    `CREATE TABLE IF NOT EXISTS ${table} (
      id text PRIMARY KEY,
      doc_id text NOT NULL,
      text text NOT NULL,
      source text NOT NULL,
      title text,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      position jsonb NOT NULL,
      timestamp_ms double precision,
      language regconfig NOT NULL DEFAULT 'simple',
      embedding vector(${layout.dimensions}) NOT NULL${layout.fullText ? `,\n      ${TEXT_SEARCH_COLUMN}` : ''}
    )`,
    // A comment is readable by any client (psql \d+) and travels with dumps; it carries no user input.
    commentStatement(layout),
    `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(derivedName(layout.table, 'doc_id'))} ON ${table} (doc_id)`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(derivedName(layout.table, 'metadata_gin'))} ON ${table} USING gin (metadata jsonb_path_ops)`,
  ];
  if (layout.fullText) statements.push(...textSearchStatements(layout));
  if (layout.keywordIndex) statements.push(...keywordIndexStatements(layout));
  return statements;
}

/** Adds the full-text column and its GIN index (also to a table created without them). */
export function textSearchStatements(layout: Pick<TableLayout, 'schema' | 'table'>): string[] {
  const table = qualifiedName(layout);
  return [
    `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${TEXT_SEARCH_COLUMN}`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(derivedName(layout.table, 'tsv_gin'))} ON ${table} USING gin (tsv)`,
  ];
}

/** The tables and functions of a collection's BM25 keyword index. */
export function keywordIndexNames(table: string): { postings: string; statistics: string; sync: string; termStatistics: string; termSync: string } {
  return {
    postings: derivedName(table, 'terms'),
    statistics: derivedName(table, 'term_stats'),
    sync: derivedName(table, 'terms_sync'),
    termStatistics: derivedName(table, 'term_bounds'),
    termSync: derivedName(table, 'term_bounds_sync'),
  };
}

/** The quoted names of a collection's keyword-index tables, and the postings table's `schema.name` (for `to_regclass`). */
export interface KeywordTables {
  postings: string;
  statistics: string;
  /** Per-term document frequencies and score bounds. */
  termStatistics: string;
  postingsName: string;
}

export function keywordTables(schema: string, table: string): KeywordTables {
  const names = keywordIndexNames(table);
  return {
    postings: qualifiedName({ schema, table: names.postings }),
    statistics: qualifiedName({ schema, table: names.statistics }),
    termStatistics: qualifiedName({ schema, table: names.termStatistics }),
    postingsName: `${schema}.${names.postings}`,
  };
}

/**
 * The BM25 keyword index (layout version 2), idempotently:
 * - `text_length`/`title_length` on each chunk row: how many analysed terms its text and title
 *   have (NULL: not analysed yet; a partial index finds those rows for the backfill);
 * - `<table>_terms`: one posting per (term, chunk) with the term's frequency in the text and in
 *   the title and the chunk's lengths, keyed by term with everything scoring needs in the index
 *   (an index-only scan per query term), plus an index on the chunk id for deletes;
 * - `<table>_term_stats`: the number of analysed chunks and their total lengths, as one row per
 *   writing backend (`pg_backend_pid()`), summed by queries. Each write transaction touches only
 *   its own row, so concurrent writers never wait on each other there (nor deadlock);
 * - statement-level triggers with transition tables keep the statistics exact for every insert,
 *   update and delete of chunk rows — the store's or anyone's SQL — in the same transaction, and
 *   drop the postings of deleted rows (TRUNCATE of the chunk table empties both tables).
 * The store writes the postings of the rows it adds, after the upsert has locked those rows.
 */
export function keywordIndexStatements(layout: Pick<TableLayout, 'schema' | 'table'>): string[] {
  const table = qualifiedName(layout);
  const names = keywordIndexNames(layout.table);
  const postings = qualifiedName({ schema: layout.schema, table: names.postings });
  const statistics = qualifiedName({ schema: layout.schema, table: names.statistics });
  const sync = qualifiedName({ schema: layout.schema, table: names.sync });
  const delta = (rows: string, sign: string) =>
    `SELECT ${sign}count(text_length) AS chunks, ${sign}coalesce(sum(text_length), 0) AS text_length, ${sign}coalesce(sum(title_length), 0) AS title_length FROM ${rows}`;
  const addStatistics = (source: string) =>
    mergeStatistics(
      statistics,
      `SELECT pg_backend_pid(), d.chunks, d.text_length, d.title_length FROM (${source}) d
         WHERE d.chunks <> 0 OR d.text_length <> 0 OR d.title_length <> 0`,
    );
  return [
    `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS text_length integer, ADD COLUMN IF NOT EXISTS title_length integer`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(derivedName(layout.table, 'unanalysed'))} ON ${table} (id) WHERE text_length IS NULL`,
    `CREATE TABLE IF NOT EXISTS ${postings} (
      term text NOT NULL,
      chunk_id text NOT NULL,
      text_frequency integer NOT NULL,
      title_frequency integer NOT NULL,
      text_length integer NOT NULL,
      title_length integer NOT NULL,
      PRIMARY KEY (term, chunk_id) INCLUDE (text_frequency, title_frequency, text_length, title_length)
    )`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(derivedName(names.postings, 'chunk_id'))} ON ${postings} (chunk_id)`,
    `CREATE TABLE IF NOT EXISTS ${statistics} (slot integer PRIMARY KEY, chunks bigint NOT NULL, text_length bigint NOT NULL, title_length bigint NOT NULL)`,
    ...statementTriggerStatements(table, sync, (event) => derivedName(layout.table, `terms_${event}`), {
      insert: addStatistics(delta('new_rows', '')),
      update: addStatistics(
        `SELECT n.chunks - o.chunks AS chunks, n.text_length - o.text_length AS text_length, n.title_length - o.title_length AS title_length FROM (${delta('new_rows', '')}) n, (${delta('old_rows', '')}) o`,
      ),
      delete: `DELETE FROM ${postings} p USING old_rows o WHERE p.chunk_id = o.id;
        ${addStatistics(delta('old_rows', '-'))}`,
      truncate: `TRUNCATE ${postings}, ${statistics}`,
    }),
    ...termStatisticsStatements(layout),
  ];
}

/** What a sync function does for each kind of statement (one or more SQL statements, `;`-separated). */
interface SyncBranches {
  insert: string;
  update: string;
  delete: string;
  truncate: string;
}

/**
 * A PL/pgSQL function `sync` with one branch per TG_OP (the pattern of PostgreSQL's own
 * transition-table example; each branch refers only to the transition tables of its statement)
 * and the four statement-level triggers that run it after every INSERT, UPDATE, DELETE and
 * TRUNCATE on `table` (`name(event)` names them). Every statement is idempotent.
 */
function statementTriggerStatements(table: string, sync: string, name: (event: string) => string, branches: SyncBranches): string[] {
  const trigger = (event: string, referencing: string) => {
    const quoted = quoteIdentifier(name(event.toLowerCase()));
    return [`DROP TRIGGER IF EXISTS ${quoted} ON ${table}`, `CREATE TRIGGER ${quoted} AFTER ${event} ON ${table} ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION ${sync}()`];
  };
  return [
    `CREATE OR REPLACE FUNCTION ${sync}() RETURNS trigger LANGUAGE plpgsql AS $zerda$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        ${branches.insert};
      ELSIF TG_OP = 'UPDATE' THEN
        ${branches.update};
      ELSIF TG_OP = 'DELETE' THEN
        ${branches.delete};
      ELSIF TG_OP = 'TRUNCATE' THEN
        ${branches.truncate};
      END IF;
      RETURN NULL;
    END
    $zerda$`,
    ...trigger('INSERT', 'REFERENCING NEW TABLE AS new_rows'),
    ...trigger('UPDATE', 'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows'),
    ...trigger('DELETE', 'REFERENCING OLD TABLE AS old_rows'),
    ...trigger('TRUNCATE', ''),
  ];
}

/** The name of a trigger keeping the per-term statistics, on the postings table. */
function termTriggerName(postings: string, event: string): string {
  return derivedName(postings, `bounds_${event}`);
}

/**
 * The per-term statistics of the keyword index, idempotently: `<table>_term_bounds`
 * holds, per term and writing backend (`slot`, as in the collection statistics: concurrent writers
 * never touch one another's rows), how many postings the term has (`chunks`; `text_chunks`: those
 * with the term in the text) — summed over the slots, the term's exact document frequency — and
 * bounds over its postings: the largest text and title frequencies and the smallest text and title
 * lengths. A BM25 contribution grows with the frequency and shrinks with the length, so these give
 * an upper bound of the term's contribution to any chunk for every k1, b and titleWeight. Deletes
 * lower the counts but leave the bounds as they are (still bounds, perhaps loose ones). A
 * statement-level trigger on the postings table keeps the rows exact for every insert, update,
 * delete and truncate of postings, set-based, in the writing transaction. Last, the table is
 * rebuilt from the postings in one statement: empty for a new index, the migration of an index that
 * had no per-term statistics, and never stale rows (an older release's `drop()` leaves the table).
 */
export function termStatisticsStatements(layout: Pick<TableLayout, 'schema' | 'table'>): string[] {
  const names = keywordIndexNames(layout.table);
  const postings = qualifiedName({ schema: layout.schema, table: names.postings });
  const terms = qualifiedName({ schema: layout.schema, table: names.termStatistics });
  const sync = qualifiedName({ schema: layout.schema, table: names.termSync });
  const add = (rows: string, sign: '' | '-') =>
    mergeTermStatistics(
      terms,
      `SELECT term, pg_backend_pid(), ${sign}count(*), ${sign}count(*) FILTER (WHERE text_frequency > 0), ${
        sign ? 'NULL, NULL, NULL, NULL' : 'max(text_frequency), max(title_frequency), min(text_length), min(title_length)'
      }
          FROM ${rows} GROUP BY term ORDER BY term`,
    );
  return [
    `CREATE TABLE IF NOT EXISTS ${terms} (
      term text NOT NULL,
      slot integer NOT NULL,
      chunks bigint NOT NULL,
      text_chunks bigint NOT NULL,
      max_text_frequency integer,
      max_title_frequency integer,
      min_text_length integer,
      min_title_length integer,
      PRIMARY KEY (term, slot)
    )`,
    ...statementTriggerStatements(postings, sync, (event) => termTriggerName(names.postings, event), {
      insert: add('new_rows', ''),
      update: `${add('old_rows', '-')};\n        ${add('new_rows', '')}`,
      delete: add('old_rows', '-'),
      truncate: `TRUNCATE ${terms}`,
    }),
    // After the triggers: creating them locked the postings against writers, so this reads them all.
    `DELETE FROM ${terms}`,
    `INSERT INTO ${terms} (term, slot, chunks, text_chunks, max_text_frequency, max_title_frequency, min_text_length, min_title_length)
      SELECT term, 0, count(*), count(*) FILTER (WHERE text_frequency > 0), max(text_frequency), max(title_frequency), min(text_length), min(title_length)
        FROM ${postings} GROUP BY term`,
  ];
}

/**
 * Folds the per-backend rows of the keyword index's statistics into one row each: every row of a
 * writing backend (`slot` = its `pg_backend_pid()`) of the collection statistics and of the
 * per-term statistics is deleted and added to slot 0 (which no backend writes: a process id is
 * never 0) — counts and lengths summed, frequency bounds the largest, length bounds the smallest.
 * Without it the tables gain a row per term for every backend that ever wrote, so a connection
 * pool that recycles its connections grows them without bound. One statement per table
 * (`WITH moved AS (DELETE … RETURNING) INSERT … ON CONFLICT DO UPDATE`, so the rows move whole or
 * not at all), safe against concurrent writers and folds: rows a writer holds locked (its
 * transaction has not committed) are skipped (`FOR UPDATE SKIP LOCKED`) and left for a later
 * fold, so a fold never waits for a writer nor a writer's statistics are counted twice or lost;
 * concurrent folds take slot 0's rows in term order. Idempotent.
 */
export function foldStatisticsStatements(tables: Pick<KeywordTables, 'statistics' | 'termStatistics'>): string[] {
  const { statistics, termStatistics } = tables;
  const moved = (table: string, key: string) =>
    `WITH moved AS (DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE slot <> 0 FOR UPDATE SKIP LOCKED) RETURNING *)\n      `;
  return [
    moved(statistics, 'slot') + mergeStatistics(statistics, 'SELECT 0, sum(chunks), sum(text_length), sum(title_length) FROM moved HAVING count(*) > 0'),
    moved(termStatistics, 'term, slot') +
      mergeTermStatistics(
        termStatistics,
        `SELECT term, 0, sum(chunks), sum(text_chunks), max(max_text_frequency), max(max_title_frequency), min(min_text_length), min(min_title_length)
          FROM moved GROUP BY term ORDER BY term`,
      ),
  ];
}

/** Adds the rows of `select` (slot, chunks, text_length, title_length) to the collection statistics `statistics`, summed into a slot's existing row. */
function mergeStatistics(statistics: string, select: string): string {
  return `INSERT INTO ${statistics} AS s (slot, chunks, text_length, title_length)
        ${select}
        ON CONFLICT (slot) DO UPDATE SET chunks = s.chunks + excluded.chunks, text_length = s.text_length + excluded.text_length, title_length = s.title_length + excluded.title_length`;
}

/**
 * Adds the rows of `select` (term, slot, chunks, text_chunks, the four bounds) to the per-term
 * statistics `terms`, merged into a (term, slot)'s existing row: counts summed, frequency bounds
 * the largest, length bounds the smallest (NULL bounds — a delete's rows — leave them as they are).
 */
function mergeTermStatistics(terms: string, select: string): string {
  return `INSERT INTO ${terms} AS s (term, slot, chunks, text_chunks, max_text_frequency, max_title_frequency, min_text_length, min_title_length)
        ${select}
        ON CONFLICT (term, slot) DO UPDATE SET chunks = s.chunks + excluded.chunks, text_chunks = s.text_chunks + excluded.text_chunks,
          max_text_frequency = greatest(s.max_text_frequency, excluded.max_text_frequency), max_title_frequency = greatest(s.max_title_frequency, excluded.max_title_frequency),
          min_text_length = least(s.min_text_length, excluded.min_text_length), min_title_length = least(s.min_title_length, excluded.min_title_length)`;
}

/** Drops the keyword index's tables and functions (the triggers go with their tables or with the functions). */
export function dropKeywordIndexStatements(layout: Pick<TableLayout, 'schema' | 'table'>): string[] {
  const names = keywordIndexNames(layout.table);
  const table = (name: string) => qualifiedName({ schema: layout.schema, table: name });
  return [
    `DROP TABLE IF EXISTS ${table(names.postings)}, ${table(names.statistics)}, ${table(names.termStatistics)}`,
    `DROP FUNCTION IF EXISTS ${table(names.sync)}() CASCADE`,
    `DROP FUNCTION IF EXISTS ${table(names.termSync)}() CASCADE`,
  ];
}

/** The name of a collection's HNSW index. */
export function hnswIndexName(table: string): string {
  return derivedName(table, 'embedding_hnsw');
}

/** CREATE INDEX … USING hnsw for the layout's metric and parameters (idempotent). */
export function hnswIndexStatement(layout: TableLayout, parameters: HnswParameters): string {
  const { operatorClass } = METRIC_SQL[layout.metric];
  // m and ef_construction are validated integers; WITH (...) takes no bind parameters.
  return `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(hnswIndexName(layout.table))} ON ${qualifiedName(layout)} USING hnsw (embedding ${operatorClass}) WITH (m = ${parameters.m}, ef_construction = ${parameters.efConstruction})`;
}

/** What the catalog says about an existing collection table. */
export interface ExistingTable {
  dimensions: number | undefined;
  comment: TableComment | undefined;
  rawComment: string | null;
  hasTextSearchColumn: boolean;
  hasHnswIndex: boolean;
  /** The postings and statistics tables of the BM25 keyword index exist. */
  hasKeywordIndex: boolean;
  /** The keyword index's per-term statistics table exists and its trigger is on the postings table. */
  hasTermStatistics: boolean;
}

/**
 * Reads an existing table's layout from the catalog: the embedding dimension is the `vector`
 * column's type modifier (`atttypmod`), the rest comes from the table comment, the columns and
 * the indexes. Returns undefined when the table does not exist.
 */
export async function inspectTable(client: SqlClient, schema: string, table: string): Promise<ExistingTable | undefined> {
  const { rows } = await client.query<{ oid: unknown; comment: string | null }>(
    `SELECT c.oid::int8 AS oid, obj_description(c.oid, 'pg_class') AS comment
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')`,
    [schema, table],
  );
  const row = rows[0];
  if (!row) return undefined;
  const columns = await client.query<{ attname: string; atttypmod: number | string; typname: string }>(
    `SELECT a.attname, a.atttypmod, t.typname
       FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
      WHERE a.attrelid = $1::int8::oid AND a.attnum > 0 AND NOT a.attisdropped`,
    [row.oid],
  );
  const embedding = columns.rows.find((column) => column.attname === 'embedding');
  const typmod = embedding ? Number(embedding.atttypmod) : NaN;
  const names = keywordIndexNames(table);
  const indexes = await client.query<{ present: boolean; keyword: boolean; terms: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_class i JOIN pg_index x ON x.indexrelid = i.oid WHERE x.indrelid = $1::int8::oid AND i.relname = $2) AS present,
            (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $3 AND c.relname IN ($4, $5) AND c.relkind = 'r') = 2 AS keyword,
            EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $3 AND c.relname = $6 AND c.relkind = 'r')
              AND EXISTS (SELECT 1 FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                           WHERE n.nspname = $3 AND c.relname = $4 AND t.tgname = $7) AS terms`,
    [row.oid, hnswIndexName(table), schema, names.postings, names.statistics, names.termStatistics, termTriggerName(names.postings, 'insert')],
  );
  return {
    dimensions: embedding?.typname === 'vector' && typmod > 0 ? typmod : undefined,
    comment: parseComment(row.comment),
    rawComment: row.comment,
    hasTextSearchColumn: columns.rows.some((column) => column.attname === 'tsv'),
    hasHnswIndex: indexes.rows[0]?.present === true,
    hasKeywordIndex: indexes.rows[0]?.keyword === true,
    hasTermStatistics: indexes.rows[0]?.terms === true,
  };
}

function parseComment(comment: string | null): TableComment | undefined {
  if (!comment) return undefined;
  try {
    const parsed = JSON.parse(comment) as Partial<TableComment>;
    if (parsed.zerda !== 'vector-pgvector' || typeof parsed.schemaVersion !== 'number') return undefined;
    if (parsed.metric !== 'cosine' && parsed.metric !== 'ip' && parsed.metric !== 'l2') return undefined;
    if (parsed.analyzer !== undefined && (parsed.analyzer === null || typeof parsed.analyzer !== 'object')) return undefined;
    return parsed as TableComment;
  } catch {
    return undefined;
  }
}

/**
 * Checks that an existing table can be used with the requested settings; throws a ZerdaError that
 * names the table and the conflicting setting.
 */
export function checkExistingTable(existing: ExistingTable, name: string, wanted: { metric: VectorMetric; dimensions: number | undefined }): number {
  const table = name;
  if (!existing.comment) {
    throw createError('ZERDA_STORE_CORRUPT', {
      path: table,
      reason: `the table exists but was not created by @zerda/vector-pgvector (its comment is ${existing.rawComment === null ? 'missing' : JSON.stringify(existing.rawComment.slice(0, 80))}); choose another collection name`,
    });
  }
  if (existing.comment.schemaVersion > SCHEMA_VERSION) {
    throw createError('ZERDA_STORE_CORRUPT', {
      path: table,
      reason: `it uses table layout version ${existing.comment.schemaVersion}, newer than this package understands (${SCHEMA_VERSION}); upgrade @zerda/vector-pgvector`,
    });
  }
  if (existing.dimensions === undefined) {
    throw createError('ZERDA_STORE_CORRUPT', { path: table, reason: 'its embedding column is not a vector(d) column' });
  }
  if (wanted.dimensions !== undefined && wanted.dimensions !== existing.dimensions) {
    throw createError('ZERDA_DIMENSION_MISMATCH', {
      field: `options.dimensions (table ${table} has embedding vector(${existing.dimensions}))`,
      received: String(wanted.dimensions),
      expected: String(existing.dimensions),
    });
  }
  if (existing.comment.metric !== wanted.metric) {
    throw createError('ZERDA_INVALID_CONFIG', {
      field: 'options.metric',
      expected: `"${existing.comment.metric}" (the metric table ${table} was created with)`,
      received: `string "${wanted.metric}"`,
    });
  }
  return existing.dimensions;
}
