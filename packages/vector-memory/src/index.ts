export { MemoryVectorStore, type MemoryVectorStoreOptions, type MemoryVectorStoreJSON } from './memory-vector-store.js';
