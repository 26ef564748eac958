export { testVectorStore, expectZerdaError, type TestVectorStoreOptions } from './test-vector-store.js';
export {
  FILTER_CASES,
  FILTER_FIXTURE,
  deepFilters,
  expectedSimilarity,
  filterFixtureChunks,
  unitVector,
  type FilterCase,
  type FilterFixtureRow,
} from './fixtures.js';
export { gaussian, gaussianMixture, seededRandom, type Mixture } from './structured-data.js';
export {
  filterArbitraries,
  DEFAULT_FILTER_KEYS,
  DEFAULT_FILTER_STRINGS,
  DEFAULT_FILTER_NUMBERS,
  type FilterArbitraries,
  type FilterArbitraryOptions,
} from './filter-arbitraries.js';
export { chunkWithMetadata, hostileChunks, hostileFilter, idsMatchingFilter } from './filter-testing.js';
export { reopenThroughFiles, temporaryDirectory, uniqueName, type ReopenThroughFilesOptions, type TemporaryDirectory } from './test-directories.js';
