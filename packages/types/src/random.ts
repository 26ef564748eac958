import { invalidArgument } from './errors.js';

/**
 * A seeded pseudo-random generator (mulberry32) returning floats in [0, 1): the same seed gives
 * the same sequence on every platform and run, which `Math.random` cannot promise. For test data,
 * benchmarks and dataset slices, not for anything secret. The seed is taken modulo 2³².
 */
export function seededRandom(seed: number): () => number {
  if (typeof seed !== 'number' || !Number.isFinite(seed)) throw invalidArgument('seed', 'a finite number', seed);
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
