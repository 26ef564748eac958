import { invalidArgument } from '@zerda/types';
import type { LegacyRankingStrategy } from './legacy-strategies.js';
import { checkTuples, type LegacyChunk, type ScoredTuple, type TupleInput } from './legacy-tuple.js';

/**
 * Legacy ranking: tuples sorted by score, highest first (stable: equal scores keep their input
 * order), then cut to `maxChunks`. `maxChunks` undefined or null returns the whole sorted list (not
 * an empty one); 0 returns `[]`. Returns a new array; the input is not modified.
 */
export class ScoreRanking implements LegacyRankingStrategy {
  rank<C extends LegacyChunk>(chunks: readonly TupleInput<C>[], maxChunks?: number | null): ScoredTuple<C>[] {
    checkTuples<C>(chunks, { scores: true });
    if (maxChunks !== undefined && maxChunks !== null && (typeof maxChunks !== 'number' || !Number.isInteger(maxChunks) || maxChunks < 0)) {
      throw invalidArgument('maxChunks', 'an integer >= 0, null or undefined (all)', maxChunks);
    }
    const sorted = ([...chunks] as ScoredTuple<C>[]).sort((a, b) => (a[1] === b[1] ? 0 : b[1] > a[1] ? 1 : -1));
    return maxChunks === undefined || maxChunks === null ? sorted : sorted.slice(0, maxChunks);
  }
}
