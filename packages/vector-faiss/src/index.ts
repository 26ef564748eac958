export { FaissVectorStore } from './faiss-vector-store.js';
export type { FaissVectorStoreOptions, FaissSearchOptions, FaissIndexType } from './faiss-vector-store.js';
export { faissAvailability, FAISS_INSTALL_HINT } from './faiss-loader.js';
export { STORE_FILE_MAGIC, STORE_FILE_VERSION } from './faiss-snapshot.js';
