import type { CompositionPolicy } from './composition-policy.js';

/**
 * Sentence values adjusted so that runs stay whole: a later clause of a long sentence is worth at
 * least `continuation` × the clause before it, and a sentence between two that are worth more at
 * least `bridge` × the lesser (neighbours' own values, so a bridge never spreads further).
 */
export function keepRunsWhole(values: number[], pieceIndex: readonly number[], policy: Pick<CompositionPolicy, 'continuation' | 'bridge'>): number[] {
  if (policy.continuation === 0 && policy.bridge === 0) return values;
  const result = [...values];
  if (policy.continuation > 0) for (let index = 1; index < result.length; index++) if (pieceIndex[index]! > 0) result[index] = Math.max(result[index]!, policy.continuation * result[index - 1]!);
  if (policy.bridge > 0) {
    for (let index = 1; index + 1 < values.length; index++) {
      const lesser = Math.min(values[index - 1]!, values[index + 1]!);
      if (lesser > values[index]!) result[index] = Math.max(result[index]!, policy.bridge * lesser);
    }
  }
  return result;
}

