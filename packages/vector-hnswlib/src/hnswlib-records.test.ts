import { describe, expect, it } from 'vitest';
import { HnswLabels } from './hnswlib-records.js';

describe('HnswLabels', () => {
  it('never reuses a label, and lets inserts take the slots deletes freed', () => {
    const labels = new HnswLabels();
    expect(labels.insert('a')).toEqual({ label: 0, reuse: false });
    expect(labels.insert('b')).toEqual({ label: 1, reuse: false });
    expect(labels.release('a')).toBe(0);
    expect(labels.release('a')).toBeUndefined();
    expect(labels.idOf(0)).toBeUndefined();
    expect(labels.countNew(['a', 'b', 'c'])).toBe(2);
    expect(labels.insert('a')).toEqual({ label: 2, reuse: true });
    expect(labels.insert('c')).toEqual({ label: 3, reuse: false });
    expect([...labels.byId]).toEqual([['b', 1], ['a', 2], ['c', 3]]);
    expect(labels.size).toBe(3);
  });

  it('adopts labels assigned by a parallel build, keeping those ids that had one, and restores from a snapshot', () => {
    const labels = HnswLabels.restore([['x', 4]], 5, 1);
    labels.adopt(['x', 'y'], Uint32Array.from([9, 5]), 6, 0);
    expect(labels.labelOf('x')).toBe(4);
    expect(labels.idOf(5)).toBe('y');
    expect([labels.next, labels.deletedSlots]).toEqual([6, 0]);
  });
});
