import { invalidArgument } from '@zerda/types';

/** Consecutive slices of `items` of at most `size` items each (every item exactly once, in order). */
export function batches<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw invalidArgument('size', 'a positive integer', size);
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

/**
 * Consecutive groups of `items` within `maxItems` items and `maxWeight` total weight each (a
 * request's record and byte limits). An item heavier than `maxWeight` travels alone. Every item is
 * in exactly one group, in order.
 */
export function batchesWithin<T>(items: readonly T[], maxItems: number, maxWeight: number, weight: (item: T) => number): T[][] {
  if (!Number.isInteger(maxItems) || maxItems < 1) throw invalidArgument('maxItems', 'a positive integer', maxItems);
  if (typeof maxWeight !== 'number' || !(maxWeight > 0)) throw invalidArgument('maxWeight', 'a positive number', maxWeight);
  const out: T[][] = [];
  let current: T[] = [];
  let total = 0;
  for (const item of items) {
    const itemWeight = weight(item);
    if (current.length > 0 && (current.length >= maxItems || total + itemWeight > maxWeight)) {
      out.push(current);
      current = [];
      total = 0;
    }
    current.push(item);
    total += itemWeight;
  }
  if (current.length > 0) out.push(current);
  return out;
}
