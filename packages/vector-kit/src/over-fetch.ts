import { invalidArgument, type VectorSearchHit } from '@zerda/types';
import { topHits } from './similarity.js';

/** What {@link fetchUntilMatches} needs. */
export interface FetchUntilMatchesOptions {
  /** Hits wanted. */
  k: number;
  /** The first candidate limit (typically `k * overFetch`). */
  first: number;
  /** The most candidates the backend can return (its row count, or its cap on one query). */
  max: number;
  /** Asks the backend for up to `limit` candidates (in any order). */
  fetch: (limit: number) => Promise<VectorSearchHit[]>;
  /** The exact filter, applied to every candidate. */
  matches: (hit: VectorSearchHit) => boolean;
  /** Factor the limit grows by when too few candidates matched. Default 4. */
  growth?: number;
}

/**
 * Over-fetches until `k` candidates match: asks for `first` candidates, keeps those `matches`
 * accepts, and asks again for `growth` times more until `k` match, the backend returned fewer
 * than asked (there are no more), or `max` was asked. Returns the best `min(k, matching)` hits,
 * best first (ties by chunk id). For backends that can push only part of a filter down.
 */
export async function fetchUntilMatches(options: FetchUntilMatchesOptions): Promise<VectorSearchHit[]> {
  const { k, first, max, fetch, matches, growth = 4 } = options;
  if (!Number.isInteger(k) || k < 0) throw invalidArgument('k', 'a non-negative integer', k);
  if (!(growth > 1)) throw invalidArgument('growth', 'a number above 1', growth);
  if (k === 0) return [];
  const ceiling = Math.max(1, Math.floor(max));
  let limit = Math.max(1, Math.min(ceiling, Math.ceil(first)));
  for (;;) {
    const candidates = await fetch(limit);
    const matching = candidates.filter(matches);
    if (matching.length >= k || candidates.length < limit || limit >= ceiling) return topHits(matching, k);
    limit = Math.min(ceiling, Math.ceil(limit * growth));
  }
}
