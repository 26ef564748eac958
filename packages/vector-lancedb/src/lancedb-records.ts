import { createRequire } from 'node:module';
import type * as Arrow from 'apache-arrow';
import { createError, invalidArgument, type DocumentChunk, type VectorMetric } from '@zerda/types';
import type { ResolvedAnalyzerOptions } from '@zerda/text';
import { filterColumnsOf } from './lancedb-filter.js';

// @lancedb/lancedb is a CommonJS module that checks `instanceof arrow.Table` against the CommonJS
// build of apache-arrow; an ESM import would load the other build (different classes) and LanceDB
// would rebuild the table and drop the field metadata that marks the JSON columns. Loading the
// same build keeps Arrow tables intact on their way in.
const require = createRequire(import.meta.url);
const arrow = require('apache-arrow') as typeof Arrow;

/** Version of the table layout below; recorded in the table's schema metadata. */
export const TABLE_FORMAT_VERSION = 1;
/** Schema metadata key holding {@link TableDescription}. */
export const TABLE_METADATA_KEY = 'zerda';

/** What a zerda LanceDB table records about itself in its schema metadata. */
export interface TableDescription {
  format: 'zerda-lancedb';
  version: number;
  metric: VectorMetric;
  /** How `search_text` was analysed (null when the table was created without text search). */
  analyzer: ResolvedAnalyzerOptions | null;
}

/** The vector column: a fixed-size list of float32. */
export function vectorType(dimensions: number): Arrow.FixedSizeList<Arrow.Float32> {
  return new arrow.FixedSizeList(dimensions, new arrow.Field('item', new arrow.Float32(), true));
}

const JSON_EXTENSION = new Map([['ARROW:extension:name', 'arrow.json']]);

/**
 * The Arrow schema of a zerda table. Chunk fields round-trip exactly (`metadata` and `position` as
 * JSON text); `filter_terms`, `filter_numbers` and `filter_strings` are derived for filtering (see
 * `lancedb-filter.ts`), `search_text` holds the analysed words for the full-text index, and
 * `zero_vector` marks vectors without a direction, which cosine search skips.
 */
export function tableSchema(dimensions: number, description: TableDescription): Arrow.Schema {
  return new arrow.Schema(
    [
      new arrow.Field('id', new arrow.Utf8(), false),
      new arrow.Field('doc_id', new arrow.Utf8(), false),
      new arrow.Field('text', new arrow.Utf8(), false),
      new arrow.Field('source', new arrow.Utf8(), false),
      new arrow.Field('title', new arrow.Utf8(), true),
      new arrow.Field('metadata', new arrow.Utf8(), false),
      new arrow.Field('position', new arrow.Utf8(), false),
      new arrow.Field('timestamp', new arrow.Float64(), true),
      new arrow.Field('vector', vectorType(dimensions), false),
      new arrow.Field('zero_vector', new arrow.Bool(), false),
      new arrow.Field('filter_terms', new arrow.List(new arrow.Field('item', new arrow.Utf8(), true)), false),
      new arrow.Field('filter_numbers', new arrow.Utf8(), false, JSON_EXTENSION),
      new arrow.Field('filter_strings', new arrow.Utf8(), false, JSON_EXTENSION),
      new arrow.Field('search_text', new arrow.Utf8(), false),
    ],
    new Map([[TABLE_METADATA_KEY, JSON.stringify(description)]]),
  );
}

/** Columns read back to rebuild a chunk (the derived columns stay in the table). */
export const CHUNK_COLUMNS = ['id', 'doc_id', 'text', 'source', 'title', 'metadata', 'position', 'timestamp'] as const;

/** One validated chunk with what the table stores besides it. */
export interface PreparedRow {
  chunk: DocumentChunk;
  vector: Float32Array;
  searchText: string;
}

function utf8Column(values: Array<string | null>): Arrow.Data {
  return arrow.vectorFromArray(values, new arrow.Utf8()).data[0]!;
}

/** Builds the Arrow table LanceDB writes, column by column (no per-row object conversion). */
export function toArrowTable(rows: PreparedRow[], schema: Arrow.Schema, dimensions: number): Arrow.Table {
  const vectors = new Float32Array(rows.length * dimensions);
  const zero: boolean[] = [];
  const terms: string[][] = [];
  const numbers: string[] = [];
  const strings: string[] = [];
  rows.forEach((row, i) => {
    vectors.set(row.vector, i * dimensions);
    zero.push(row.vector.every((value) => value === 0));
    const columns = filterColumnsOf(row.chunk.metadata);
    terms.push(columns.terms);
    numbers.push(columns.numbers);
    strings.push(columns.strings);
  });
  const fields = schema.fields;
  const vectorField = fields.find((field) => field.name === 'vector')!;
  const termsField = fields.find((field) => field.name === 'filter_terms')!;
  const children: Arrow.Data[] = [
    utf8Column(rows.map((row) => row.chunk.id)),
    utf8Column(rows.map((row) => row.chunk.docId)),
    utf8Column(rows.map((row) => row.chunk.text)),
    utf8Column(rows.map((row) => row.chunk.source)),
    utf8Column(rows.map((row) => row.chunk.title ?? null)),
    utf8Column(rows.map((row) => JSON.stringify(row.chunk.metadata))),
    utf8Column(rows.map((row) => JSON.stringify(row.chunk.position))),
    arrow.vectorFromArray(rows.map((row) => row.chunk.timestamp ?? null), new arrow.Float64()).data[0]!,
    arrow.makeData({
      type: vectorField.type as Arrow.FixedSizeList<Arrow.Float32>,
      length: rows.length,
      nullCount: 0,
      child: arrow.makeData({ type: new arrow.Float32(), length: vectors.length, data: vectors }),
    }),
    arrow.vectorFromArray(zero, new arrow.Bool()).data[0]!,
    arrow.vectorFromArray(terms, termsField.type as Arrow.List<Arrow.Utf8>).data[0]!,
    utf8Column(numbers),
    utf8Column(strings),
    utf8Column(rows.map((row) => row.searchText)),
  ];
  const batch = new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(fields), length: rows.length, nullCount: 0, children }));
  return new arrow.Table(schema, [batch]);
}

/** Reads a table's description from its schema metadata (undefined for a table zerda did not create). */
export function readDescription(schema: Arrow.Schema, tableName: string): TableDescription | undefined {
  const raw = schema.metadata.get(TABLE_METADATA_KEY);
  if (raw === undefined) return undefined;
  try {
    const parsed = JSON.parse(raw) as TableDescription;
    if (parsed.format !== 'zerda-lancedb' || typeof parsed.version !== 'number') throw new Error('unknown format');
    return parsed;
  } catch (error) {
    throw createError('ZERDA_STORE_CORRUPT', { path: `LanceDB table ${tableName}`, reason: `its schema metadata "${TABLE_METADATA_KEY}" is not a zerda table description` }, error);
  }
}

/** The vector dimension of an existing table (from its `vector` column). */
export function readDimensions(schema: Arrow.Schema, tableName: string): number {
  const field = schema.fields.find((candidate) => candidate.name === 'vector');
  const type = field?.type as Arrow.DataType | undefined;
  if (!type || !arrow.DataType.isFixedSizeList(type)) {
    throw createError('ZERDA_STORE_CORRUPT', { path: `LanceDB table ${tableName}`, reason: 'it has no fixed-size-list "vector" column' });
  }
  return (type as Arrow.FixedSizeList).listSize;
}

/** What a store expects of an existing table. */
export interface WantedTable {
  metric: VectorMetric;
  /** The analyser options of a store with text search; undefined without. */
  analyzer: ResolvedAnalyzerOptions | undefined;
  /** The dimension the store was given or learnt, if any. */
  dimensions: number | undefined;
}

/**
 * Checks an existing table against a store's settings — created by zerda, a layout this package
 * reads, the same metric, text search and analyser, the same dimension — and returns its
 * dimension; a ZerdaError says what differs.
 */
export function checkTable(schema: Arrow.Schema, tableName: string, wanted: WantedTable): number {
  const description = readDescription(schema, tableName);
  if (!description) {
    throw createError('ZERDA_UNSUPPORTED', {
      operation: `using table ${tableName}`,
      component: 'LanceDbVectorStore',
      reason: 'the table exists but was not created by zerda (no "zerda" schema metadata); choose another options.table',
    });
  }
  if (description.version > TABLE_FORMAT_VERSION) {
    throw createError('ZERDA_STORE_CORRUPT', { path: `LanceDB table ${tableName}`, reason: `it has layout version ${description.version}; this package reads up to ${TABLE_FORMAT_VERSION} (upgrade @zerda/vector-lancedb)` });
  }
  if (description.metric !== wanted.metric) {
    throw invalidArgument('options.metric', `"${description.metric}", the metric table ${tableName} was created with (or leave it out)`, wanted.metric);
  }
  const { analyzer } = wanted;
  if (analyzer && description.analyzer === null) throw invalidArgument('options.textSearch', `false: table ${tableName} was created without text search`, true);
  if (analyzer && description.analyzer && JSON.stringify(description.analyzer) !== JSON.stringify(analyzer)) {
    throw invalidArgument('options.analyzer', `the analyzer table ${tableName} was created with (${JSON.stringify(description.analyzer)})`, analyzer);
  }
  const dimensions = readDimensions(schema, tableName);
  if (wanted.dimensions !== undefined && wanted.dimensions !== dimensions) {
    throw createError('ZERDA_DIMENSION_MISMATCH', { field: 'options.dimensions', received: String(wanted.dimensions), expected: String(dimensions) });
  }
  return dimensions;
}

/** A row as LanceDB returns it (an Arrow struct row proxy). */
export interface ChunkRecord {
  id: string;
  doc_id: string;
  text: string;
  source: string;
  title: string | null;
  metadata: string;
  position: string;
  timestamp: number | null;
  vector?: { toArray(): ArrayLike<number> } | null;
}

/** Rebuilds a chunk from a stored row. */
export function toChunk(record: ChunkRecord): DocumentChunk {
  const chunk: DocumentChunk = {
    id: record.id,
    docId: record.doc_id,
    text: record.text,
    source: record.source,
    metadata: JSON.parse(record.metadata) as DocumentChunk['metadata'],
    position: JSON.parse(record.position) as DocumentChunk['position'],
  };
  if (record.title !== null && record.title !== undefined) chunk.title = record.title;
  if (record.timestamp !== null && record.timestamp !== undefined) chunk.timestamp = Number(record.timestamp);
  if (record.vector) chunk.embedding = Float32Array.from(record.vector.toArray());
  return chunk;
}
