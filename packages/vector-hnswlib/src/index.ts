export { HnswVectorStore, type HnswSearchOptions, type HnswVectorStoreOptions } from './hnsw-vector-store.js';
export { DIRECTORY_FORMAT, DIRECTORY_FORMAT_VERSION, MANIFEST_FILE, type HnswManifest } from './store-directory.js';
