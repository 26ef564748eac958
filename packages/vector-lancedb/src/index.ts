export { LanceDbVectorStore } from './lancedb-vector-store.js';
export type { LanceDbVectorStoreOptions, LanceDbSearchOptions, LanceDbVectorIndexOptions } from './lancedb-vector-store.js';
export { compileFilter, filterColumnsOf, sqlString, FILTER_COLUMN_NAMES } from './filter-sql.js';
/** The term encoding of the filter columns (one implementation, in @zerda/types). */
export { presenceTerm, valueTerm } from '@zerda/types';
export type { CompiledFilter, FilterColumns, LanceFilterColumnNames } from './filter-sql.js';
export { TABLE_FORMAT_VERSION, TABLE_METADATA_KEY, tableSchema } from './table-schema.js';
export type { TableDescription } from './table-schema.js';
