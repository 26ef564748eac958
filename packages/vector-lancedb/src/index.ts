export { LanceDbVectorStore } from './lancedb-vector-store.js';
export type { LanceDbVectorStoreOptions, LanceDbSearchOptions, LanceDbVectorIndexOptions } from './lancedb-options.js';
export { compileFilter, filterColumnsOf, sqlString, FILTER_COLUMN_NAMES } from './lancedb-filter.js';
/** The term encoding of the filter columns (one implementation, in @zerda/types). */
export { presenceTerm, valueTerm } from '@zerda/types';
export type { CompiledFilter, FilterColumns, LanceFilterColumnNames } from './lancedb-filter.js';
export { TABLE_FORMAT_VERSION, TABLE_METADATA_KEY, tableSchema } from './lancedb-records.js';
export type { TableDescription } from './lancedb-records.js';
