import { createError, type VectorMetric } from '@zerda/types';
import { derivedName, quoteIdentifier } from './identifiers.js';
import type { SqlClient } from './sql-client.js';

/** Version of the table layout this package writes (kept in the table comment). */
export const SCHEMA_VERSION = 1;

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
}

/** Everything the DDL needs to know about one collection's table. */
export interface TableLayout {
  schema: string;
  table: string;
  metric: VectorMetric;
  dimensions: number;
  hnsw: HnswParameters | false;
  textSearch: boolean;
}

/** `"schema"."table"` for a validated layout. */
export function qualifiedName(layout: Pick<TableLayout, 'schema' | 'table'>): string {
  return `${quoteIdentifier(layout.schema)}.${quoteIdentifier(layout.table)}`;
}

/** The full-text column: title weighted A, body weighted B, analysed with the row's own configuration. */
const TEXT_SEARCH_COLUMN =
  "tsv tsvector GENERATED ALWAYS AS (setweight(to_tsvector(language, coalesce(title, '')), 'A') || setweight(to_tsvector(language, text), 'B')) STORED";

/** CREATE TABLE plus the indexes that do not depend on the HNSW settings. Every statement is idempotent. */
export function tableStatements(layout: TableLayout): string[] {
  const table = qualifiedName(layout);
  const comment: TableComment = { zerda: 'vector-pgvector', schemaVersion: SCHEMA_VERSION, metric: layout.metric };
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
      embedding vector(${layout.dimensions}) NOT NULL${layout.textSearch ? `,\n      ${TEXT_SEARCH_COLUMN}` : ''}
    )`,
    // A comment is readable by any client (psql \d+) and travels with dumps; it carries no user input.
    `COMMENT ON TABLE ${table} IS '${JSON.stringify(comment)}'`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(derivedName(layout.table, 'doc_id'))} ON ${table} (doc_id)`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(derivedName(layout.table, 'metadata_gin'))} ON ${table} USING gin (metadata jsonb_path_ops)`,
  ];
  if (layout.textSearch) statements.push(...textSearchStatements(layout));
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
  const indexes = await client.query<{ present: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_class i JOIN pg_index x ON x.indexrelid = i.oid WHERE x.indrelid = $1::int8::oid AND i.relname = $2) AS present`,
    [row.oid, hnswIndexName(table)],
  );
  return {
    dimensions: embedding?.typname === 'vector' && typmod > 0 ? typmod : undefined,
    comment: parseComment(row.comment),
    rawComment: row.comment,
    hasTextSearchColumn: columns.rows.some((column) => column.attname === 'tsv'),
    hasHnswIndex: indexes.rows[0]?.present === true,
  };
}

function parseComment(comment: string | null): TableComment | undefined {
  if (!comment) return undefined;
  try {
    const parsed = JSON.parse(comment) as Partial<TableComment>;
    if (parsed.zerda !== 'vector-pgvector' || typeof parsed.schemaVersion !== 'number') return undefined;
    if (parsed.metric !== 'cosine' && parsed.metric !== 'ip' && parsed.metric !== 'l2') return undefined;
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
