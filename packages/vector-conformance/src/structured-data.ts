import { seededRandom } from '@zerda/types';

/**
 * Deterministic structured test data: points from a Gaussian mixture (`clusters` centres, each
 * coordinate of a centre ~ N(0, 1), each point = centre + N(0, spread²) noise). Nearest neighbours
 * in such data are meaningful (mostly same-cluster points), unlike uniform random vectors where all
 * distances concentrate and recall numbers say little.
 */
/** The seeded PRNG (mulberry32) of @zerda/types, re-exported here for test data. */
export { seededRandom };

/** A standard normal sample drawn with `random`. */
export function gaussian(random: () => number): number {
  // Box–Muller; 1 - u keeps the logarithm finite.
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A Gaussian mixture: its centres and a sampler returning a point and the cluster it came from. */
export interface Mixture {
  centres: Float32Array[];
  sample(): { cluster: number; vector: Float32Array };
}

/** Builds a seeded Gaussian mixture (see the file comment); use it for recall tests of approximate backends. */
export function gaussianMixture(options: { seed: number; clusters: number; dimensions: number; spread: number }): Mixture {
  const random = seededRandom(options.seed);
  const centres = Array.from({ length: options.clusters }, () => Float32Array.from({ length: options.dimensions }, () => gaussian(random)));
  return {
    centres,
    sample() {
      const cluster = Math.floor(random() * options.clusters);
      const centre = centres[cluster]!;
      return { cluster, vector: Float32Array.from(centre, (x) => x + options.spread * gaussian(random)) };
    },
  };
}
