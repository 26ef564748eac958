import { contentHash } from '@zerda/context-core';
import type { LegacyDeduplicationStrategy } from './legacy-strategies.js';
import { checkTuples, type LegacyChunk, type ScoredTuple, type TupleInput } from './legacy-tuple.js';

/**
 * Legacy exact deduplication: tuples whose chunk texts have the same content hash — the one the
 * modern `ChunkFilter` uses (`contentHash` of `@zerda/context-core`: search-normalised text, i.e.
 * case folded, Arabic letters unified, harakat and tatweel removed, digits folded, whitespace
 * collapsed; SHA-256) — are duplicates; the first one seen is kept and order is preserved. Works on
 * chunks of any length.
 */
export class HashDeduplication implements LegacyDeduplicationStrategy {
  deduplicate<C extends LegacyChunk>(chunks: readonly TupleInput<C>[]): ScoredTuple<C>[] {
    checkTuples<C>(chunks);
    const seen = new Set<string>();
    const kept: ScoredTuple<C>[] = [];
    for (const tuple of chunks) {
      const hash = contentHash(tuple[0].text);
      if (seen.has(hash)) continue;
      seen.add(hash);
      kept.push(tuple as ScoredTuple<C>);
    }
    return kept;
  }
}
