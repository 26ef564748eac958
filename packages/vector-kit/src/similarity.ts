import { compareSearchHits, invalidArgument, similarityFromDistance, similarityFromOneMinusDistance, type VectorMetric, type VectorSearchHit } from '@zerda/types';

/**
 * How a backend reports closeness, declared once by the adapter; {@link similarityFrom} turns it
 * into zerda's similarity (cosine in [-1, 1], inner product as is, l2 as `1 / (1 + euclidean)`).
 *
 * - `similarity`: cosine and inner product as similarities, l2 as the squared euclidean distance
 *   (FAISS, Pinecone, an exact scan).
 * - `one-minus`: `1 − cos`, `1 − dot`, squared l2 (hnswlib, Chroma, LanceDB).
 * - `distance`: `1 − cos`, `−dot`, euclidean l2 (pgvector's `<=>`, `<#>`, `<->`).
 */
export type DistanceConvention = 'similarity' | 'one-minus' | 'distance';

export const DISTANCE_CONVENTIONS: readonly DistanceConvention[] = ['similarity', 'one-minus', 'distance'];

/**
 * The similarity of a raw backend value reported in `convention`. Cosine is clamped into [-1, 1]
 * (float32 rounding steps outside it), and a cosine that is not a number — a zero vector has no
 * direction — scores 0, as in every store.
 */
export function similarityFrom(metric: VectorMetric, convention: DistanceConvention, raw: number): number {
  const value = Number(raw);
  if (metric === 'cosine' && Number.isNaN(value)) return 0;
  let similarity: number;
  switch (convention) {
    case 'similarity':
      similarity = metric === 'l2' ? similarityFromDistance('l2', value, { squared: true }) : value;
      break;
    case 'one-minus':
      similarity = similarityFromOneMinusDistance(metric, value);
      break;
    case 'distance':
      similarity = similarityFromDistance(metric, value);
      break;
    default:
      throw invalidArgument('convention', `one of ${DISTANCE_CONVENTIONS.map((name) => `"${name}"`).join(', ')}`, convention);
  }
  return metric === 'cosine' ? Math.max(-1, Math.min(1, similarity)) : similarity;
}

/** The best `k` hits, best first, ties by chunk id ({@link compareSearchHits}); sorts `hits` in place. */
export function topHits(hits: VectorSearchHit[], k: number): VectorSearchHit[] {
  return hits.sort(compareSearchHits).slice(0, k);
}
