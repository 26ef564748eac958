import {
  ZerdaError,
  describeValue,
  invalidArgument,
  type RerankFunction,
  type RerankOptions,
  type RerankedCandidate,
  type Reranker,
  type ScoredChunk,
} from '@zerda/types';

/**
 * Wraps a plain scoring function (an LLM judge, a hosted API, a heuristic) as a {@link Reranker}:
 * `score(query, candidates, options)` returns one relevance score per candidate in the order given;
 * the reranker keeps the best `topN`, ties in input order. A result that is not one finite number
 * per candidate fails with a `ZerdaError` naming the function.
 */
export function functionReranker(score: RerankFunction, options: { name?: string } = {}): Reranker {
  if (typeof score !== 'function') throw invalidArgument('score', 'a function (query, candidates, options) => number[]', score);
  if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an options object { name? }', options);
  const name = options.name ?? `function:${score.name || 'anonymous'}`;
  if (typeof name !== 'string' || name.length === 0) throw invalidArgument('options.name', 'a non-empty string', options.name);
  return {
    name,
    async rerank(query, candidates, rerankOptions) {
      const scores = await score(query, candidates, rerankOptions);
      if (!Array.isArray(scores) || scores.length !== candidates.length || scores.some((value) => typeof value !== 'number' || !Number.isFinite(value))) {
        throw invalidArgument(
          `${name}(query, candidates)`,
          `an array of ${candidates.length} finite numbers (one score per candidate, in order)`,
          Array.isArray(scores) ? scores.find((value) => typeof value !== 'number' || !Number.isFinite(value)) ?? scores : scores,
        );
      }
      return scores
        .map((value, index) => ({ index, score: value }))
        .sort((a, b) => b.score - a.score || a.index - b.index)
        .slice(0, rerankOptions.topN);
    },
  };
}

/**
 * A {@link Reranker} from what a caller passed: a reranker object (anything with a `rerank` method)
 * as is, a function through {@link functionReranker}. Anything else fails with a `ZerdaError`
 * naming `field`.
 */
export function toReranker(value: unknown, field = 'reranker'): Reranker {
  if (typeof value === 'function') return functionReranker(value as RerankFunction);
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && typeof (value as Reranker).rerank === 'function') return value as Reranker;
  throw invalidArgument(field, 'a Reranker (an object with a rerank(query, candidates, { topN }) method) or a scoring function', value);
}

/** A short name for a reranker in diagnostics and traces. */
export function rerankerName(reranker: Reranker): string {
  return reranker.name ?? (reranker.constructor?.name && reranker.constructor.name !== 'Object' ? reranker.constructor.name : 'reranker');
}

/**
 * Runs `reranker` over `candidates` and returns the ones it kept, best first (by its score, ties in
 * its order), at most `topN`: each a copy whose `score` and `scores.rerank` are the reranker's score,
 * every other factor kept. What the reranker returns is checked (an array of `{ index, score }` with
 * in-range, distinct indices and finite scores); a violation fails with a `ZerdaError` naming the
 * reranker and the entry. An empty candidate list returns `[]` without calling the reranker.
 */
export async function rerankCandidates(reranker: Reranker, query: string, candidates: ScoredChunk[], options: RerankOptions): Promise<ScoredChunk[]> {
  if (!Number.isInteger(options.topN) || options.topN < 1) throw invalidArgument('options.topN', 'a positive integer', options.topN);
  options.signal?.throwIfAborted();
  if (candidates.length === 0) return [];
  const kept = await reranker.rerank(query, candidates, options);
  const field = `${rerankerName(reranker)}.rerank()`;
  if (!Array.isArray(kept)) throw invalidArgument(field, 'to return an array of { index, score }', kept);
  const seen = new Set<number>();
  const entries: RerankedCandidate[] = [];
  for (let i = 0; i < kept.length; i++) {
    const entry = kept[i] as Partial<RerankedCandidate> | null;
    const at = `${field}[${i}]`;
    if (entry === null || typeof entry !== 'object') throw invalidArgument(at, 'an object { index, score }', entry);
    const { index, score } = entry;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= candidates.length) {
      throw invalidArgument(`${at}.index`, `an integer from 0 to ${candidates.length - 1} (a position in the candidates)`, index);
    }
    if (seen.has(index)) {
      throw new ZerdaError('ZERDA_INVALID_ARGUMENT', { field: `${at}.index`, expected: 'an index not returned before', received: `${describeValue(index)}, a duplicate` });
    }
    if (typeof score !== 'number' || !Number.isFinite(score)) throw invalidArgument(`${at}.score`, 'a finite number', score);
    seen.add(index);
    entries.push({ index, score });
  }
  return entries
    .map((entry, order) => ({ entry, order }))
    .sort((a, b) => b.entry.score - a.entry.score || a.order - b.order)
    .slice(0, options.topN)
    .map(({ entry }) => {
      const candidate = candidates[entry.index] as ScoredChunk;
      return { ...candidate, score: entry.score, scores: { ...candidate.scores, rerank: entry.score } };
    });
}
