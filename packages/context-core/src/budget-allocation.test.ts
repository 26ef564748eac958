import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { QueryAnalysis, QueryComplexity } from '@zerda/types';
import { ComplexityBasedAllocation, EqualBudgetAllocation, apportion } from './budget-allocation.js';
import { QueryAnalyzer } from './query-analyzer.js';

const of = (...complexities: QueryComplexity[]) => complexities.map((complexity) => ({ complexity }) as QueryAnalysis);
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('EqualBudgetAllocation', () => {
  it('splits equally and hands the remainder to the first queries', () => {
    expect(new EqualBudgetAllocation().allocate(of('simple', 'complex', 'moderate'), 1000)).toEqual([334, 333, 333]);
    expect(new EqualBudgetAllocation().allocate(of('simple', 'simple'), 1000)).toEqual([500, 500]);
  });

  it('returns nothing for no queries, and zeros for a zero budget', () => {
    expect(new EqualBudgetAllocation().allocate([], 1000)).toEqual([]);
    expect(new EqualBudgetAllocation().allocate(of('simple', 'simple'), 0)).toEqual([0, 0]);
  });

  it('rounds a fractional budget down', () => {
    expect(sum(new EqualBudgetAllocation().allocate(of('simple', 'simple', 'simple'), 100.9))).toBe(100);
  });
});

describe('ComplexityBasedAllocation', () => {
  it('shares in proportion to complexity weights 1:2:3 (the README example)', () => {
    const shares = new ComplexityBasedAllocation().allocate(of('simple', 'complex', 'moderate', 'simple'), 4000);
    expect(shares).toEqual([572, 1714, 1143, 571]);
    expect(sum(shares)).toBe(4000);
  });

  it('lifts small shares to minPerQuery and re-shares the rest by weight (water-filling)', () => {
    const shares = new ComplexityBasedAllocation({ minPerQuery: 700 }).allocate(of('simple', 'complex', 'moderate', 'simple'), 4000);
    expect(shares).toEqual([700, 1560, 1040, 700]);
  });

  it('the per-call minPerQuery overrides the configured one', () => {
    const allocator = new ComplexityBasedAllocation({ minPerQuery: 0 });
    expect(allocator.allocate(of('simple', 'complex'), 1000, { minPerQuery: 400 })).toEqual([400, 600]);
  });

  it('splits equally when the minimum cannot hold for everyone', () => {
    expect(new ComplexityBasedAllocation({ minPerQuery: 500 }).allocate(of('simple', 'complex', 'moderate'), 1000)).toEqual([334, 333, 333]);
  });

  it('uses configurable weights', () => {
    const allocator = new ComplexityBasedAllocation({ minPerQuery: 0 }, { weights: { complex: 9 } });
    expect(allocator.allocate(of('simple', 'complex'), 1000)).toEqual([100, 900]);
    expect(allocator.weights).toEqual({ simple: 1, moderate: 2, complex: 9 });
  });

  it('works on real analyses of English and Arabic queries', () => {
    const analyzer = new QueryAnalyzer();
    const analyses = [analyzer.analyze('ما هو التعلم الآلي؟'), analyzer.analyze('Compare BM25 and dense retrieval for Arabic search, and explain when to use each')];
    const [simple, complex] = new ComplexityBasedAllocation({ minPerQuery: 0 }).allocate(analyses, 4000);
    expect(simple).toBe(1000);
    expect(complex).toBe(3000);
  });

  it('rejects bad input naming the field', () => {
    const allocator = new ComplexityBasedAllocation();
    expect(() => allocator.allocate(of('simple'), -5)).toThrow(/globalBudget must be a finite number >= 0, got number -5/);
    expect(() => allocator.allocate(of('simple'), Number.NaN)).toThrow(/globalBudget/);
    expect(() => allocator.allocate('x' as never, 100)).toThrow(/analyses must be an array/);
    expect(() => allocator.allocate([{ complexity: 'hard' } as never], 100)).toThrow(/analyses\[0\]\.complexity must be one of simple, moderate, complex/);
    expect(() => allocator.allocate(of('simple'), 100, { minPerQuery: -1 })).toThrow(/options.minPerQuery/);
    expect(() => allocator.allocate(of('simple'), 100, { min: 1 } as never)).toThrow(/options.min/);
    expect(() => new ComplexityBasedAllocation({}, { weights: { simple: 0 } })).toThrow(/options.weights.simple must be a finite number > 0/);
    expect(() => new ComplexityBasedAllocation({}, { weights: { easy: 1 } as never })).toThrow(/options.weights.easy/);
    expect(() => new EqualBudgetAllocation({ minPerQuery: -3 })).toThrow(/config.budget.minPerQuery/);
  });
});

describe('apportion', () => {
  it('sums exactly to the total with largest-remainder rounding', () => {
    expect(apportion([1, 1, 1], 10)).toEqual([4, 3, 3]);
    expect(apportion([0, 0], 5)).toEqual([3, 2]);
  });
});

describe('budget allocation: properties', () => {
  const complexity = fc.constantFrom<QueryComplexity>('simple', 'moderate', 'complex');
  const allocators = [
    (min: number) => new EqualBudgetAllocation({ minPerQuery: min }),
    (min: number) => new ComplexityBasedAllocation({ minPerQuery: min }),
    (min: number) => new ComplexityBasedAllocation({ minPerQuery: min }, { weights: { simple: 0.5, moderate: 7, complex: 2.25 } }),
  ];

  it('integer shares that never sum above the budget, each at least minPerQuery when the budget allows', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(fc.array(complexity, { maxLength: 30 }), fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 5000 }), (list, budget, min) => {
        for (const make of allocators) {
          const shares = make(min).allocate(of(...list), budget);
          expect(shares).toHaveLength(list.length);
          expect(shares.every((share) => Number.isInteger(share) && share >= 0)).toBe(true);
          expect(sum(shares)).toBeLessThanOrEqual(budget);
          if (list.length > 0) expect(sum(shares)).toBe(budget);
          if (min * list.length <= budget) expect(shares.every((share) => share >= min)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a more complex query never gets less than a simpler one', () => {
    fc.assert(
      fc.property(fc.array(complexity, { minLength: 1, maxLength: 20 }), fc.integer({ min: 0, max: 50_000 }), fc.integer({ min: 0, max: 1000 }), (list, budget, min) => {
        const shares = new ComplexityBasedAllocation({ minPerQuery: min }).allocate(of(...list), budget);
        const rank = { simple: 0, moderate: 1, complex: 2 };
        for (let i = 0; i < list.length; i++) {
          for (let j = 0; j < list.length; j++) {
            // Rounding can give an earlier query one unit more than an equal or heavier later one.
            if (rank[list[i]!] > rank[list[j]!]) expect(shares[i]! + 1).toBeGreaterThanOrEqual(shares[j]!);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
