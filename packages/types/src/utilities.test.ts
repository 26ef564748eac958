import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZerdaError } from './errors.js';
import { TopK } from './top-k.js';

describe('TopK', () => {
  it('keeps exactly the k best (rank desc, then the tie order) of any sequence, whatever the offer order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 50 })), { maxLength: 300, size: 'max' }), fc.integer({ min: 0, max: 120 }), (entries, k) => {
        // The tie order: a per-item key (like an insertion sequence or a chunk id), item index last.
        const key = entries.map(([, order]) => order);
        const heap = new TopK(k, (a, b) => key[a]! < key[b]! || (key[a] === key[b] && a < b));
        entries.forEach(([rank], item) => heap.push(rank, item));
        const expected = entries
          .map(([rank, order], item) => ({ rank, order, item }))
          .sort((a, b) => b.rank - a.rank || a.order - b.order || a.item - b.item)
          .slice(0, k);
        expect(heap.sorted()).toEqual(expected.map(({ rank, item }) => ({ rank, item })));
        expect(heap.length).toBe(Math.min(k, entries.length));
        expect(heap.weakestRank()).toBe(expected.length === 0 ? undefined : expected[expected.length - 1]!.rank);
        const arrays = heap.sortedArrays();
        expect([...arrays.ranks]).toEqual(expected.map(({ rank }) => rank));
        expect([...arrays.items]).toEqual(expected.map(({ item }) => item));
        // sorted() leaves the heap as it was; clear() empties it for another round.
        expect(heap.sorted()).toEqual(expected.map(({ rank, item }) => ({ rank, item })));
        heap.clear();
        expect(heap.length).toBe(0);
        entries.forEach(([rank], item) => heap.push(rank, item));
        expect(heap.sorted()).toEqual(expected.map(({ rank, item }) => ({ rank, item })));
      }),
    );
  });

  it('admits() tells whether an item would be kept', () => {
    const heap = new TopK(2, (a, b) => a < b);
    heap.push(5, 0);
    heap.push(3, 1);
    expect(heap.admits(3, 2)).toBe(false);
    expect(heap.admits(3, 0)).toBe(true);
    expect(heap.admits(4, 9)).toBe(true);
    expect(new TopK(0, (a, b) => a < b).admits(100, 0)).toBe(false);
  });

  it('rejects a bad capacity or tie order, naming it', () => {
    expect(() => new TopK(-1, (a, b) => a < b)).toThrow(ZerdaError);
    expect(() => new TopK(1.5, (a, b) => a < b)).toThrow(/capacity/);
    expect(() => new TopK(3, 'id' as never)).toThrow(/tieBefore/);
  });
});

describe('seededRandom', () => {
  it('repeats its sequence for a seed, stays in [0, 1), and names a bad seed', async () => {
    const { seededRandom } = await import('./random.js');
    const a = seededRandom(42);
    const b = seededRandom(42);
    const first = Array.from({ length: 100 }, a);
    expect(Array.from({ length: 100 }, b)).toEqual(first);
    expect(first.every((value) => value >= 0 && value < 1)).toBe(true);
    expect(Array.from({ length: 5 }, seededRandom(43))).not.toEqual(first.slice(0, 5));
    expect(() => seededRandom(Number.NaN)).toThrow(/seed/);
    expect(() => seededRandom('1' as never)).toThrow(ZerdaError);
  });
});

describe('percentile', () => {
  it('interpolates between the closest ranks, leaves its input alone, and names bad input', async () => {
    const { percentile } = await import('./statistics.js');
    const values = [4, 1, 3, 2];
    expect(percentile(values, 50)).toBe(2.5);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile(values, 100)).toBe(4);
    expect(percentile([7], 95)).toBe(7);
    expect(values).toEqual([4, 1, 3, 2]);
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile(values, 101)).toThrow(/\bp\b/);
    expect(() => percentile('1,2' as never, 50)).toThrow(ZerdaError);
  });
});

describe('similarityFromOneMinusDistance', () => {
  it('reads the 1 − cos / 1 − dot / squared-l2 convention and names bad input', async () => {
    const { similarityFromOneMinusDistance } = await import('./vector-store.js');
    expect(similarityFromOneMinusDistance('cosine', 0.25)).toBeCloseTo(0.75, 12);
    expect(similarityFromOneMinusDistance('cosine', 2.0000001)).toBe(-1);
    expect(similarityFromOneMinusDistance('ip', 1 - 3.5)).toBeCloseTo(3.5, 12);
    expect(similarityFromOneMinusDistance('l2', 9)).toBeCloseTo(1 / 4, 12);
    expect(() => similarityFromOneMinusDistance('dot' as never, 1)).toThrow(/metric/);
    expect(() => similarityFromOneMinusDistance('l2', '1' as never)).toThrow(ZerdaError);
  });
});
