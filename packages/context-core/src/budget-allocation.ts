import {
  invalidArgument,
  resolveConfigSection,
  type BudgetAllocator,
  type BudgetConfig,
  type QueryAnalysis,
  type QueryComplexity,
} from '@zerda/types';
import type { BudgetConfigInput } from './config-input.js';
import { assertKnownKeys, assertNumber, assertOptionsObject } from './validate.js';

const COMPLEXITIES: readonly QueryComplexity[] = ['simple', 'moderate', 'complex'];

/** Relative weight of each complexity in {@link ComplexityBasedAllocation}. */
export type ComplexityWeights = Record<QueryComplexity, number>;

/** Default weights: a complex query gets three times the share of a simple one, a moderate one twice. */
export const DEFAULT_COMPLEXITY_WEIGHTS: Readonly<ComplexityWeights> = Object.freeze({ simple: 1, moderate: 2, complex: 3 });

function validateCall(analyses: unknown, globalBudget: unknown, options: unknown, fallbackMin: number): { count: number; budget: number; minPerQuery: number } {
  if (!Array.isArray(analyses)) throw invalidArgument('analyses', 'an array of query analyses', analyses);
  assertNumber(globalBudget, 'globalBudget', { min: 0 });
  assertOptionsObject(options, 'options');
  assertKnownKeys(options as Record<string, unknown> | undefined, ['minPerQuery'], 'options');
  const minPerQuery = (options as { minPerQuery?: unknown } | undefined)?.minPerQuery ?? fallbackMin;
  assertNumber(minPerQuery, 'options.minPerQuery', { min: 0, integer: true });
  // Shares are whole units (characters, tokens): a fractional budget is rounded down, never up.
  // (Budgets beyond 2^53 units are not distinguishable anyway; they are clamped so shares stay exact integers.)
  return { count: analyses.length, budget: Math.min(Math.floor(globalBudget), Number.MAX_SAFE_INTEGER), minPerQuery };
}

/**
 * Integer shares proportional to `weights` that sum exactly to `total` (largest-remainder
 * rounding: floors first, then one unit each to the largest fractional parts, earlier index first
 * on ties).
 */
export function apportion(weights: readonly number[], total: number): number[] {
  if (!Array.isArray(weights) || weights.some((weight) => typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0)) {
    throw invalidArgument('weights', 'an array of finite numbers >= 0', weights);
  }
  if (typeof total !== 'number' || !Number.isInteger(total) || total < 0 || total > Number.MAX_SAFE_INTEGER) {
    throw invalidArgument('total', `an integer from 0 to ${Number.MAX_SAFE_INTEGER}`, total);
  }
  const sum = weights.reduce((a, b) => a + b, 0);
  if (weights.length === 0) return [];
  const exact = weights.map((weight) => (sum > 0 ? (total * weight) / sum : total / weights.length));
  const shares = exact.map((value) => Math.floor(value));
  let left = total - shares.reduce((a, b) => a + b, 0);
  const order = exact.map((value, index) => ({ index, fraction: value - Math.floor(value) })).sort((a, b) => b.fraction - a.fraction || a.index - b.index);
  // The largest remainders get one unit each; exactly, fewer than `weights.length` units are left,
  // so one pass suffices (and a rounding error can never make this loop run away).
  for (let k = 0; k < order.length && left > 0; k++, left--) {
    const index = (order[k] as { index: number }).index;
    shares[index] = (shares[index] as number) + 1;
  }
  // Rounding can also overshoot by a unit: take it back from the smallest remainders.
  for (let k = order.length - 1; k >= 0 && left < 0; k--) {
    const index = (order[k] as { index: number }).index;
    if ((shares[index] as number) > 0) {
      shares[index] = (shares[index] as number) - 1;
      left++;
    }
  }
  return shares;
}

export class EqualBudgetAllocation implements BudgetAllocator {
  /** The resolved `budget` configuration section. */
  readonly config: BudgetConfig;

  constructor(config?: BudgetConfigInput) {
    this.config = resolveConfigSection('budget', config);
  }

  /** Equal integer shares of ⌊globalBudget⌋, in the order of `analyses`. */
  allocate(analyses: QueryAnalysis[], globalBudget: number, options?: { minPerQuery?: number }): number[] {
    const { count, budget } = validateCall(analyses, globalBudget, options, this.config.minPerQuery);
    return apportion(new Array<number>(count).fill(1), budget);
  }
}

/**
 * Splits a global budget in proportion to each query's complexity weight, with a floor: every
 * share is max(minPerQuery, λ · weight), λ chosen so that the shares use the whole budget
 * (“water-filling”: queries whose proportional share would fall below the floor get the floor,
 * the rest share what remains in proportion to their weights). Shares are integers and sum to
 * exactly the (integer) budget. When `minPerQuery × n` exceeds the budget the floor cannot hold for
 * everyone, and the budget is split equally instead.
 */
export class ComplexityBasedAllocation implements BudgetAllocator {
  /** The resolved `budget` configuration section. */
  readonly config: BudgetConfig;
  /** Weight per complexity. */
  readonly weights: Readonly<ComplexityWeights>;

  constructor(config?: BudgetConfigInput, options: { weights?: Partial<ComplexityWeights> } = {}) {
    this.config = resolveConfigSection('budget', config);
    assertOptionsObject(options, 'options');
    assertKnownKeys(options as Record<string, unknown>, ['weights'], 'options');
    assertOptionsObject(options.weights, 'options.weights');
    assertKnownKeys(options.weights as Record<string, unknown> | undefined, COMPLEXITIES, 'options.weights');
    const weights = { ...DEFAULT_COMPLEXITY_WEIGHTS, ...options.weights };
    for (const complexity of COMPLEXITIES) {
      const weight = weights[complexity];
      if (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0) throw invalidArgument(`options.weights.${complexity}`, 'a finite number > 0', weight);
    }
    this.weights = Object.freeze(weights);
  }

  /** Complexity-weighted integer shares of ⌊globalBudget⌋ with a floor of `minPerQuery`, in the order of `analyses`. */
  allocate(analyses: QueryAnalysis[], globalBudget: number, options?: { minPerQuery?: number }): number[] {
    const { count, budget, minPerQuery } = validateCall(analyses, globalBudget, options, this.config.minPerQuery);
    const weights = analyses.map((analysis, i) => {
      const complexity = (analysis as Partial<QueryAnalysis> | null)?.complexity;
      if (!COMPLEXITIES.includes(complexity as QueryComplexity)) throw invalidArgument(`analyses[${i}].complexity`, `one of ${COMPLEXITIES.join(', ')}`, complexity);
      return this.weights[complexity as QueryComplexity];
    });
    if (count === 0) return [];
    if (minPerQuery * count > budget) return apportion(new Array<number>(count).fill(1), budget);

    // Water-filling: fix at the floor every query whose proportional share of what is left falls
    // below it, until the remaining ones all clear it. At most n rounds.
    const floored = new Array<boolean>(count).fill(false);
    for (;;) {
      const free = weights.map((_, i) => i).filter((i) => !floored[i]);
      const remaining = budget - minPerQuery * (count - free.length);
      const freeWeight = free.reduce((sum, i) => sum + (weights[i] as number), 0);
      const below = free.filter((i) => (remaining * (weights[i] as number)) / freeWeight < minPerQuery);
      if (below.length === 0 || below.length === free.length) {
        if (below.length === free.length) for (const i of free) floored[i] = true;
        break;
      }
      for (const i of below) floored[i] = true;
    }
    const shares = new Array<number>(count).fill(minPerQuery);
    const free = weights.map((_, i) => i).filter((i) => !floored[i]);
    const remaining = budget - minPerQuery * (count - free.length);
    if (free.length === 0) {
      // Everyone sits at the floor: hand out what is left over equally, so nothing is wasted.
      const extra = apportion(new Array<number>(count).fill(1), budget - minPerQuery * count);
      return shares.map((share, i) => share + (extra[i] as number));
    }
    const parts = apportion(free.map((i) => weights[i] as number), remaining);
    free.forEach((i, k) => {
      shares[i] = parts[k] as number;
    });
    return shares;
  }
}
