import { cosineSimilarity, type Embedding } from '@zerda/types';

/**
 * Cosine similarity of a chunk's embedding with the query's, or undefined when either is missing,
 * of another dimension, or all zeros (the shared `cosineSimilarity` of @zerda/types scores those 0;
 * here "unknown" must stay distinguishable from "orthogonal").
 */
export function embeddingSimilarity(left: Embedding | undefined, right: Embedding | undefined): number | undefined {
  if (!left || !right || left.length === 0 || left.length !== right.length) return undefined;
  let zero = true;
  for (let i = 0; i < left.length && zero; i++) if (left[i] !== 0) zero = false;
  if (zero) return undefined;
  zero = true;
  for (let i = 0; i < right.length && zero; i++) if (right[i] !== 0) zero = false;
  if (zero) return undefined;
  return cosineSimilarity(left, right);
}
