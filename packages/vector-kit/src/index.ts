export { VectorStoreBase, type VectorStoreSettings, type VectorRecord, type VectorQuery, type TextQuery, type QueryHit, type TranslatedFilter } from './vector-store-base.js';
export { checkStoreOptions, checkKnownKeys, metricOption, dimensionsOption, overFetchOption, pathOption, embedderOption, MAX_DIMENSIONS } from './options.js';
export { checkStorable, checkStorableJson, checkStorableChunk, storableDistinct, hasLoneSurrogate, utf8Storable, POSTGRES_STORABLE, type StorablePolicy } from './storable.js';
export { similarityFrom, topHits, DISTANCE_CONVENTIONS, type DistanceConvention } from './similarity.js';
export { fetchUntilMatches, type FetchUntilMatchesOptions } from './over-fetch.js';
export { batches, batchesWithin } from './batches.js';
export { Preparation } from './preparation.js';
export { backendError } from './backend-error.js';
export { validateChunks, embedMissing, validateVectors } from './chunks.js';
