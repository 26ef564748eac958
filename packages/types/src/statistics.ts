import { invalidArgument } from './errors.js';

/**
 * The `p`-th percentile (0–100) of `values`, interpolating linearly between the closest ranks
 * (so p = 50 of an even count is the mean of the middle two); NaN for no values. The input is not
 * modified. The one percentile of zerda: semantic chunk breaks, benchmark latencies, measure scripts.
 */
export function percentile(values: readonly number[], p: number): number {
  if (!Array.isArray(values) || values.some((value) => typeof value !== 'number')) throw invalidArgument('values', 'an array of numbers', values);
  if (typeof p !== 'number' || !(p >= 0 && p <= 100)) throw invalidArgument('p', 'a number from 0 to 100', p);
  if (values.length === 0) return Number.NaN;
  const sorted = values.slice().sort((a, b) => a - b);
  const position = ((sorted.length - 1) * p) / 100;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower] as number;
  return low + ((sorted[upper] as number) - low) * (position - lower);
}
