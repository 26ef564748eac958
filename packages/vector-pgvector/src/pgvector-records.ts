import { createError, parseMetadataFilter, type DocumentChunk, type MetadataFilter, type ZerdaError } from '@zerda/types';
import { POSTGRES_STORABLE, checkStorableJson } from '@zerda/vector-kit';
import type { SqlClient } from './sql-client.js';
import { fromVectorLiteral } from './vector-literal.js';

/** What the SQL of reads and writes needs to know about a store's table. */
export interface PgTable {
  /** The client every statement goes through. */
  client: SqlClient;
  /** The quoted `"schema"."table"`. */
  table: string;
  /** Read the embedding column back with each chunk. */
  includeEmbeddings: boolean;
}

/** The columns a chunk is rebuilt from. */
export const CHUNK_COLUMNS = 'id, doc_id, text, source, title, metadata, position, timestamp_ms';

/** A chunk row as the client returns it. */
export interface ChunkRow {
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

/** The select list of a chunk row (columns qualified with `alias.` when given), with the embedding as text when wanted. */
export function chunkColumns(includeEmbeddings: boolean, alias?: string): string {
  const prefix = alias ? `${alias}.` : '';
  const columns = alias ? CHUNK_COLUMNS.split(', ').map((column) => `${prefix}${column}`).join(', ') : CHUNK_COLUMNS;
  return `${columns}${includeEmbeddings ? `, ${prefix}embedding::text AS embedding` : ''}`;
}

function parseJsonColumn(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

/** Rebuilds a chunk from its row (node-postgres and PGlite both parse JSONB; a text value is parsed here). */
export function toChunk(row: ChunkRow): DocumentChunk {
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

/** A validated filter whose strings PostgreSQL can represent (a NUL or lone surrogate is refused as ZERDA_INVALID_FILTER, naming its place). */
export function checkedFilter(value: unknown, field: string): MetadataFilter | undefined {
  if (value === undefined) return undefined;
  const filter = parseMetadataFilter(value, field);
  try {
    checkStorableJson(filter, field, POSTGRES_STORABLE);
  } catch (error) {
    const { details } = error as ZerdaError;
    throw createError('ZERDA_INVALID_FILTER', { field: details.field, expected: 'text PostgreSQL can represent (no U+0000 and no lone surrogates)', received: details.received });
  }
  return filter;
}

/**
 * Orders strings by code point, as PostgreSQL's "C" collation orders their UTF-8 bytes (JavaScript's
 * `<` compares UTF-16 code units, which puts U+E000–U+FFFF above supplementary characters).
 */
export function compareCodePoints(a: string, b: string): number {
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
