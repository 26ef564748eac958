import type { DocumentChunk } from '@zerda/types';
import type { QueryTerm } from './pruning.js';

/**
 * The two ends of a {@link Bm25Index} search around the pruned scoring of `pruning.ts`: the order
 * of the resolved query terms, and the hits built from the top k with the query terms each matched.
 */

/** A query term with how often it occurs in the query (repeated query terms count repeatedly). */
export interface WeightedTerm {
  term: string;
  weight: number;
}

/** What a search returns per hit. */
export interface IndexHit {
  chunk: DocumentChunk;
  score: number;
  /** The query terms (of {@link IndexSearch.checked}) the chunk's text or title contains, in query-term order. */
  matched: readonly string[];
}

/** A search's hits, best first, and which query terms their `matched` lists are exact for. */
export interface IndexSearch<H = IndexHit> {
  hits: H[];
  /**
   * Distinct query terms whose presence is known for every hit: all of them, except beyond the 32
   * highest-weighted terms the index knows (only those are tracked). A term the index does not know
   * is in no chunk.
   */
  checked: readonly string[];
}

/** Most query terms whose matches are tracked per hit (one bit each). */
const TRACKED_TERMS = 32;

/**
 * Puts resolved query terms in scoring order, highest weight first, and gives the first 32 their
 * bit in a match mask. Stable: equal weights keep query order, so the summation order (and the
 * scores, to the last bit) is the same however the index was built.
 */
export function orderQueryTerms(terms: QueryTerm[]): void {
  terms.sort((a, b) => b.weight - a.weight);
  for (let index = 0; index < terms.length && index < TRACKED_TERMS; index++) terms[index]!.bit = 1 << index;
}

/**
 * The hits of a search: for each kept chunk (`items[rank]`, score `ranks[rank]`, match mask
 * `masks[rank]`) the hit `makeHit` builds, with the query terms it matched — one frozen list per
 * distinct mask — and the terms whose presence is known for every hit (`absent` ones, which no
 * chunk has, and the tracked ones).
 */
export function collectHits<H>(
  terms: readonly QueryTerm[],
  absent: string[],
  ranks: ArrayLike<number>,
  items: ArrayLike<number>,
  masks: Uint32Array,
  makeHit: (ordinal: number, score: number, matched: readonly string[], checked: readonly string[]) => H,
): IndexSearch<H> {
  const checked: string[] = absent;
  for (let index = 0; index < terms.length && index < TRACKED_TERMS; index++) checked.push(terms[index]!.term);
  Object.freeze(checked);
  const byMask = new Map<number, readonly string[]>();
  const hits: H[] = new Array(items.length);
  for (let rank = 0; rank < items.length; rank++) {
    const mask = masks[rank]!;
    let matched = byMask.get(mask);
    if (!matched) {
      const list: string[] = [];
      for (let index = 0; index < terms.length && index < TRACKED_TERMS; index++) if ((mask & (1 << index)) !== 0) list.push(terms[index]!.term);
      matched = Object.freeze(list);
      byMask.set(mask, matched);
    }
    hits[rank] = makeHit(items[rank]!, ranks[rank]!, matched, checked);
  }
  return { hits, checked };
}
