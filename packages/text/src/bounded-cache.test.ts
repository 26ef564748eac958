import { ZerdaError } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { BoundedCache } from './bounded-cache.js';

describe('BoundedCache', () => {
  it('keeps at most capacity entries, forgetting the oldest first', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect([cache.get('b'), cache.get('c')]).toEqual([2, 3]);
    // Arabic keys are keys like any other.
    cache.set('مكتبة', 4);
    expect(cache.get('مكتبة')).toBe(4);
    expect(cache.get('b')).toBeUndefined();
  });

  it('rejects a capacity that is not a positive integer, naming it', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN, '3']) expect(() => new BoundedCache(capacity as never)).toThrow(ZerdaError);
    expect(() => new BoundedCache(0)).toThrow(/capacity/);
  });
});
