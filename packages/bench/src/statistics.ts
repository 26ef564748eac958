import { percentile } from '@zerda/types';

/** Summary statistics for latency samples and growth between corpus sizes. */

/** The one percentile of zerda (interpolated, p in [0, 100], NaN for no samples), re-exported for the report code. */
export { percentile };

/** Arithmetic mean; NaN for no samples. */
export function mean(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  let total = 0;
  for (const sample of samples) total += sample;
  return total / samples.length;
}

/** Latency summary of a series of timed operations, in milliseconds. */
export interface LatencySummary {
  count: number;
  p50Ms: number;
  p95Ms: number;
  meanMs: number;
  /** Operations per second when run back to back (count / total time). */
  qps: number;
}

/** Summarises per-operation latencies (ms). */
export function summarizeLatencies(samples: readonly number[]): LatencySummary {
  const total = samples.reduce((sum, value) => sum + value, 0);
  return {
    count: samples.length,
    p50Ms: percentile(samples, 50),
    p95Ms: percentile(samples, 95),
    meanMs: mean(samples),
    qps: total > 0 ? (samples.length * 1000) / total : Number.NaN,
  };
}

/**
 * The growth exponent e in cost ∝ size^e between two measurements: 1 is linear, below 1
 * sub-linear, 0 flat. NaN when either value is not positive.
 */
export function growthExponent(sizeA: number, costA: number, sizeB: number, costB: number): number {
  if (!(sizeA > 0 && sizeB > 0 && costA > 0 && costB > 0) || sizeA === sizeB) return Number.NaN;
  return Math.log(costB / costA) / Math.log(sizeB / sizeA);
}

/** Mean share of the exact top-k ids that a backend's top-k contains. */
export function recallAgainst(exact: readonly string[][], found: readonly string[][]): number {
  let total = 0;
  let counted = 0;
  exact.forEach((truth, index) => {
    if (truth.length === 0) return;
    const hits = new Set(found[index] ?? []);
    total += truth.filter((id) => hits.has(id)).length / truth.length;
    counted++;
  });
  return counted === 0 ? Number.NaN : total / counted;
}
