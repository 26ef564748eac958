import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fnv1a } from '@zerda/text';
import { SeededRandom } from './random.js';
import { growthExponent, percentile, recallAgainst, summarizeLatencies } from './statistics.js';

describe('percentile', () => {
  it('interpolates between closest ranks', () => {
    expect(percentile([3, 1, 2, 4], 50)).toBe(2.5);
    expect(percentile([5], 95)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95)).toBeCloseTo(9.55);
    expect(Number.isNaN(percentile([], 50))).toBe(true);
  });

  it('stays within the samples and grows with p', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 50 }), fc.integer({ min: 0, max: 99 }), (samples, p) => {
        const low = percentile(samples, p);
        const high = percentile(samples, p + 1);
        expect(low).toBeGreaterThanOrEqual(Math.min(...samples));
        expect(high).toBeLessThanOrEqual(Math.max(...samples));
        expect(high).toBeGreaterThanOrEqual(low);
      }),
    );
  });
});

describe('summarizeLatencies', () => {
  it('derives queries per second from the total time', () => {
    const summary = summarizeLatencies([1, 1, 2, 4]);
    expect(summary.qps).toBe(500);
    expect(summary.p50Ms).toBe(1.5);
    expect(summary.meanMs).toBe(2);
  });
});

describe('growthExponent', () => {
  it('is 1 for linear growth, 0 for flat, 0.5 for square-root growth', () => {
    expect(growthExponent(10_000, 2, 100_000, 20)).toBeCloseTo(1);
    expect(growthExponent(10_000, 3, 100_000, 3)).toBeCloseTo(0);
    expect(growthExponent(100, 1, 10_000, 10)).toBeCloseTo(0.5);
    expect(Number.isNaN(growthExponent(10, 0, 100, 1))).toBe(true);
  });
});

describe('SeededRandom', () => {
  it('repeats the same sequence for the same seed and differs for another', () => {
    const a = new SeededRandom(42);
    const b = new SeededRandom(42);
    const c = new SeededRandom(fnv1a('other'));
    const first = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(first);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(first);
    for (const value of first) expect(value >= 0 && value < 1).toBe(true);
  });

  it('shuffles into a permutation', () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), fc.integer(), (items, seed) => {
        expect(new SeededRandom(seed).shuffle(items).sort((x, y) => x - y)).toEqual(items.slice().sort((x, y) => x - y));
      }),
    );
  });
});

describe('recallAgainst', () => {
  it('is the mean share of the exact ids found', () => {
    expect(recallAgainst([['a', 'b'], ['c', 'd']], [['b', 'x'], ['c', 'd']])).toBe(0.75);
    expect(recallAgainst([[]], [['a']])).toBeNaN();
  });
});
