/**
 * @zerda/legacy-compat — the tuple-based API of zerda's first generation (`[chunk, score]` lists),
 * kept for callers migrating to the modern strategies. Every name is exported here (the Python
 * package shadowed them with `None` at its root; this one does not).
 */
export { validateChunk } from './legacy-tuple.js';
export type { LegacyChunk, ScoredTuple, TupleInput } from './legacy-tuple.js';
export type { LegacyDeduplicationStrategy, LegacyRankingStrategy, LegacyCompressionStrategy } from './legacy-strategies.js';
export { PrefixDeduplication } from './prefix-deduplication.js';
export { HashDeduplication } from './hash-deduplication.js';
export { ScoreRanking } from './score-ranking.js';
export { GreedyCompression } from './greedy-compression.js';
export { asChunkFilter, asChunkRanker } from './strategy-adapters.js';
export { tupleToScored, buildFromTuples, buildMultiQueryFromTuples } from './tuple-build.js';
export type { BuildOptions, BuildMultiQueryOptions, TupleBuildStages, TupleBuildEngine } from './tuple-build.js';
