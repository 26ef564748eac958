export { HnswVectorStore, autoEfSearch, type HnswSearchOptions, type HnswVectorStoreOptions } from './hnswlib-vector-store.js';
export { isParallelBuildAvailable } from './parallel-build.js';
export { HNSW_SNAPSHOT_FORMAT as DIRECTORY_FORMAT, HNSW_SNAPSHOT_VERSION as DIRECTORY_FORMAT_VERSION, type HnswSnapshotSettings } from './hnswlib-snapshot.js';
export { MANIFEST_FILE, type HnswManifest } from './hnswlib-directory.js';
