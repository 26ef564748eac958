export { ChromaVectorStore, FORMAT_KEY, FORMAT_VERSION, VERSION_KEY } from './chroma-vector-store.js';
export type { ChromaVectorStoreOptions } from './chroma-options.js';
export { startChromaServer, freePort, chromaCliPath } from './chroma-server.js';
export type { ChromaServer, ChromaServerOptions } from './chroma-server.js';
export { translateWhere } from './chroma-filter.js';
export type { ChromaWhere, TranslatedWhere } from './chroma-filter.js';
export { CHUNK_KEY, DOC_ID_KEY, SOURCE_KEY, presenceKey, valueKey, numberKey, isNumberKey, toChromaMetadata, fromChromaRecord } from './chroma-records.js';
export type { ChromaMetadata } from './chroma-records.js';
