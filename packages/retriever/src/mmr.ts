import { cosineSimilarity, invalidArgument, mergeScores, type ScoredChunk } from '@zerda/types';
import { optionsObject, rejectUnknownOptions } from './retrieve-options.js';

/** Options of {@link maximalMarginalRelevance}. */
export interface MmrOptions {
  /** 1 = pure relevance, 0 = pure novelty. */
  lambda: number;
  /** How many to select. */
  topK: number;
}

/**
 * Maximal marginal relevance (Carbonell & Goldstein, 1998): greedily picks the candidate maximising
 * λ·relevance − (1 − λ)·(highest cosine similarity to an already picked candidate), where relevance
 * is `score` min-max normalised over the candidates. Candidates without an embedding cannot be
 * compared and count as dissimilar to everything. Ties go to the earlier candidate. Each picked
 * chunk records its marginal value as `scores.mmr`; `score` is left as it was.
 */
export function maximalMarginalRelevance(candidates: readonly ScoredChunk[], options: MmrOptions): ScoredChunk[] {
  if (!Array.isArray(candidates)) throw invalidArgument('candidates', 'an array of scored chunks', candidates);
  const record = optionsObject(options, 'mmr');
  rejectUnknownOptions(record, ['lambda', 'topK'], 'mmr');
  const { lambda, topK } = record as Partial<MmrOptions>;
  if (typeof lambda !== 'number' || !(lambda >= 0 && lambda <= 1)) throw invalidArgument('mmr.lambda', 'a number in [0, 1]', lambda);
  if (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 0) throw invalidArgument('mmr.topK', 'a non-negative integer', topK);
  candidates.forEach((candidate, index) => {
    if (candidate === null || typeof candidate !== 'object' || typeof candidate.score !== 'number' || !Number.isFinite(candidate.score) || candidate.chunk === null || typeof candidate.chunk !== 'object') {
      throw invalidArgument(`candidates[${index}]`, 'a scored chunk { chunk, score } with a finite score', candidate);
    }
  });
  const count = candidates.length;
  if (count === 0 || topK <= 0) return [];
  let minimum = Number.POSITIVE_INFINITY;
  let maximum = Number.NEGATIVE_INFINITY;
  for (const candidate of candidates) {
    minimum = Math.min(minimum, candidate.score);
    maximum = Math.max(maximum, candidate.score);
  }
  const relevance = candidates.map((candidate) => (maximum > minimum ? (candidate.score - minimum) / (maximum - minimum) : 1));
  // Highest similarity of each candidate to anything picked so far.
  const redundancy = new Float64Array(count);
  const picked = new Uint8Array(count);
  const selected: ScoredChunk[] = [];
  while (selected.length < Math.min(topK, count)) {
    let best = -1;
    let bestValue = Number.NEGATIVE_INFINITY;
    for (let index = 0; index < count; index++) {
      if (picked[index]) continue;
      const value = lambda * relevance[index]! - (1 - lambda) * (selected.length === 0 ? 0 : redundancy[index]!);
      if (value > bestValue) {
        bestValue = value;
        best = index;
      }
    }
    if (best < 0) break;
    picked[best] = 1;
    const chosen = candidates[best]!;
    selected.push({ ...chosen, scores: mergeScores(chosen.scores, { mmr: bestValue }) });
    const embedding = chosen.chunk.embedding;
    if (!embedding) continue;
    for (let index = 0; index < count; index++) {
      if (picked[index]) continue;
      const other = candidates[index]!.chunk.embedding;
      // Embeddings of another length (from another model) cannot be compared: count them as dissimilar.
      if (!other || other.length !== embedding.length) continue;
      const similarity = cosineSimilarity(embedding, other);
      if (similarity > redundancy[index]!) redundancy[index] = similarity;
    }
  }
  return selected;
}
