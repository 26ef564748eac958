import type { LengthCounter } from '@zerda/types';
import type { LegacyChunk, ScoredTuple, TupleInput } from './legacy-tuple.js';

/** The legacy deduplication strategy: removes duplicate tuples, keeping the first of each group, in order. */
export interface LegacyDeduplicationStrategy {
  deduplicate<C extends LegacyChunk>(chunks: readonly TupleInput<C>[]): ScoredTuple<C>[];
}

/** The legacy ranking strategy: orders tuples best first and keeps at most `maxChunks` (all when undefined). */
export interface LegacyRankingStrategy {
  rank<C extends LegacyChunk>(chunks: readonly TupleInput<C>[], maxChunks?: number | null): ScoredTuple<C>[];
}

/** The legacy compression strategy: shortens an already composed context to `target` counter units. */
export interface LegacyCompressionStrategy {
  compress(context: string, target: number, counter?: LengthCounter, separator?: string): string;
}
