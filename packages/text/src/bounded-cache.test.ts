import { ZerdaError } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { BoundedCache } from './bounded-cache.js';

describe('BoundedCache', () => {
  it('keeps at most capacity entries, forgetting the least recently used first', () => {
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
    expect(cache.size).toBe(2);
  });

  it('never holds more than its capacity, whatever the mix of reads and writes', () => {
    for (const capacity of [1, 2, 3, 7, 64]) {
      const cache = new BoundedCache<number, number>(capacity);
      for (let step = 0; step < 1000; step++) {
        cache.set(step % 97, step);
        cache.get((step * 31) % 89);
        expect(cache.size).toBeLessThanOrEqual(capacity);
      }
      // The entry written last is always there, with its latest value.
      cache.set(5, -1);
      cache.set(5, -2);
      expect(cache.get(5)).toBe(-2);
    }
  });

  it('keeps the entries in use while others age out', () => {
    const cache = new BoundedCache<string, number>(100);
    cache.set('frequent', 1);
    for (let index = 0; index < 10_000; index++) {
      cache.set(`word-${index}`, index);
      if (index % 10 === 0) expect(cache.get('frequent')).toBe(1);
    }
    expect(cache.get('word-0')).toBeUndefined();
    expect(cache.get('word-9999')).toBe(9999);
  });

  it('costs the same per write when full whatever its capacity (no walk over forgotten entries)', () => {
    // The old design (a Map deleting its first key per insertion) cost O(capacity) per write once full.
    const costPerWrite = (capacity: number): number => {
      const cache = new BoundedCache<string, number>(capacity);
      const writes = 200_000;
      const keys = Array.from({ length: writes + capacity }, (_, index) => `key-${index}`);
      for (let index = 0; index < capacity; index++) cache.set(keys[index]!, index);
      let best = Number.POSITIVE_INFINITY;
      for (let round = 0; round < 3; round++) {
        const started = performance.now();
        for (let index = 0; index < writes; index++) cache.set(keys[capacity + ((index + round * 7919) % writes)]!, index);
        best = Math.min(best, performance.now() - started);
      }
      return best / writes;
    };
    const small = costPerWrite(1_000);
    const large = costPerWrite(100_000);
    expect(large / small).toBeLessThan(15);
  });

  it('keeps at most maxWeight of weight (a string key weighs its length) and never stores an entry heavier than maxEntryWeight', () => {
    const cache = new BoundedCache<string, number>(1_000, { maxWeight: 10_000, maxEntryWeight: 2_000 });
    for (let index = 0; index < 500; index++) {
      // Texts of 100 to 2,099 characters, English and Arabic.
      cache.set(`${index % 2 === 0 ? 'x' : 'ك'}`.repeat(100 + ((index * 37) % 2_000)) + index, index);
      expect(cache.weight).toBeLessThanOrEqual(10_000);
      expect(cache.size).toBeLessThanOrEqual(1_000);
    }
    const heavy = 'y'.repeat(2_001);
    cache.set(heavy, 1);
    expect(cache.get(heavy)).toBeUndefined();
    // Replacing an entry replaces its weight.
    const small = new BoundedCache<string, string>(10, { weigh: (_key, value) => value.length, maxWeight: 100 });
    small.set('k', 'a'.repeat(30));
    small.set('k', 'b'.repeat(10));
    expect(small.weight).toBe(10);
    expect(small.get('k')).toBe('b'.repeat(10));
  });

  it('rejects bad weight options, naming them', () => {
    expect(() => new BoundedCache(10, { maxWeight: 0 })).toThrow(/options\.maxWeight/);
    expect(() => new BoundedCache(10, { maxWeight: Number.NaN })).toThrow(/options\.maxWeight/);
    expect(() => new BoundedCache(10, { maxEntryWeight: -1 })).toThrow(/options\.maxEntryWeight/);
    expect(() => new BoundedCache(10, { weigh: 5 as never })).toThrow(/options\.weigh/);
    expect(() => new BoundedCache(10, null as never)).toThrow(/options/);
  });

  it('rejects a capacity that is not a positive integer, naming it', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN, '3']) expect(() => new BoundedCache(capacity as never)).toThrow(ZerdaError);
    expect(() => new BoundedCache(0)).toThrow(/capacity/);
  });
});
