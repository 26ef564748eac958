import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TopKHeap } from './top-k-heap.js';

describe('TopKHeap', () => {
  it('keeps exactly the k best (score desc, then order asc) of any sequence', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 50 })), { maxLength: 60 }), fc.integer({ min: 0, max: 10 }), (entries, k) => {
        const heap = new TopKHeap(k);
        entries.forEach(([score, order], item) => heap.offer(score, order, item));
        const expected = entries
          .map(([score, order], item) => ({ score, order, item }))
          .sort((a, b) => b.score - a.score || a.order - b.order || a.item - b.item)
          .slice(0, k);
        const drained = heap.drain();
        expect(drained.map((entry) => entry.score)).toEqual(expected.map((entry) => entry.score));
        // Orders may repeat across items; compare the (score, order) pairs.
        expect(drained.map((entry) => [entry.score, entries[entry.item]![1]])).toEqual(expected.map((entry) => [entry.score, entry.order]));
      }),
    );
  });

  it('admits() tells whether an entry would be kept', () => {
    const heap = new TopKHeap(2);
    heap.offer(5, 0, 0);
    heap.offer(3, 1, 1);
    expect(heap.admits(3, 2)).toBe(false);
    expect(heap.admits(3, 0)).toBe(true);
    expect(heap.admits(4, 9)).toBe(true);
    expect(new TopKHeap(0).admits(100, 0)).toBe(false);
  });
});
