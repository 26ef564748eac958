export { MemoryVectorStore, type MemorySearchOptions, type MemoryVectorStoreOptions, type MemoryVectorStoreJSON } from './memory-vector-store.js';
