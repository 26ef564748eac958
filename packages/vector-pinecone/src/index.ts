export { PineconeVectorStore } from './pinecone-vector-store.js';
export { PINECONE_METRIC, MAX_TOP_K, MAX_UPSERT_RECORDS, MAX_UPSERT_BYTES, IDS_PER_FETCH, IDS_PER_DELETE } from './pinecone-options.js';
export type { PineconeVectorStoreOptions, PineconeSearchOptions, PineconeIndexLike, WaitForWritesOptions } from './pinecone-options.js';
export { createPineconeStore } from './create-store.js';
export type { CreatePineconeStoreOptions } from './create-store.js';
export { translateFilter } from './pinecone-filter.js';
export type { PineconeFilter, TranslatedFilter } from './pinecone-filter.js';
export {
  CHUNK_FIELD,
  DOC_ID_FIELD,
  SOURCE_FIELD,
  TERMS_FIELD,
  RECORD_MARKER_TERM,
  MAX_METADATA_BYTES,
  numberField,
  toPineconeMetadata,
  fromPineconeRecord,
} from './pinecone-records.js';
export type { PineconeMetadata } from './pinecone-records.js';
/** The term encoding of `zerda_terms` (one implementation, in @zerda/types). */
export { presenceTerm, valueTerm } from '@zerda/types';
