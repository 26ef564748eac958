import { describe, expect, it } from 'vitest';
import { LengthClasses, UNCLASSED } from './length-classes.js';
import { fillNorms, lengthNormalization } from './scoring.js';

const normalization = lengthNormalization({ k1: 1.2, b: 0.75, titleWeight: 1.5 }, 37.25);

/** The norm `fillNorms` gives one chunk with these lengths (the definition the classes must reproduce). */
function directNorm(text: number, title: number): number {
  const norms = new Float64Array(1);
  fillNorms(norms, 1, Uint32Array.of(text), Uint32Array.of(title), 1.5, normalization);
  return norms[0]!;
}

describe('LengthClasses', () => {
  it('gives chunks with equal length pairs one class, and each class the norm fillNorms gives its chunks', () => {
    const classes = new LengthClasses();
    const lengths: Array<[number, number]> = [[10, 0], [10, 2], [10, 0], [0, 0], [4_000_000_000, 7], [10, 2]];
    classes.reserve(lengths.length);
    lengths.forEach(([text, title], ordinal) => classes.set(ordinal, text, title));
    const ids = [...classes.ids.subarray(0, lengths.length)];
    expect(ids[0]).toBe(ids[2]);
    expect(ids[1]).toBe(ids[5]);
    expect(new Set(ids).size).toBe(4);
    const norms = classes.normsFor(1.5, normalization);
    lengths.forEach(([text, title], ordinal) => expect(norms[ids[ordinal]!]).toBe(directNorm(text, title)));
  });

  it('recomputes the per-class norms when the normalisation or the title weight changes, and after new classes', () => {
    const classes = new LengthClasses();
    classes.reserve(2);
    classes.set(0, 12, 3);
    const first = classes.normsFor(1.5, normalization)[0];
    const other = lengthNormalization({ k1: 0.9, b: 0.4, titleWeight: 1.5 }, 20);
    expect(classes.normsFor(1.5, other)[0]).toBe(other.lengthFree + other.lengthScale * (12 + 1.5 * 3));
    expect(classes.normsFor(0, other)[0]).toBe(other.lengthFree + other.lengthScale * 12);
    classes.set(1, 5, 0);
    const norms = classes.normsFor(1.5, normalization);
    expect([norms[0], norms[1]]).toEqual([first, directNorm(5, 0)]);
  });

  it('leaves chunks past its capacity (or with titles of 2^20 terms and more) unclassed', () => {
    const classes = new LengthClasses(2);
    classes.reserve(5);
    [[1, 0], [2, 0], [3, 0], [1, 0], [4, 0x100000]].forEach(([text, title], ordinal) => classes.set(ordinal, text!, title!));
    expect([...classes.ids.subarray(0, 5)]).toEqual([0, 1, UNCLASSED, 0, UNCLASSED]);
  });

  it('renumbers its chunks after a compaction, keeping each chunk its class', () => {
    const classes = new LengthClasses();
    classes.reserve(4);
    [[1, 0], [2, 0], [3, 0], [2, 0]].forEach(([text, title], ordinal) => classes.set(ordinal, text!, title!));
    const before = [...classes.ids.subarray(0, 4)];
    classes.renumber([3, 0, 2]);
    expect([...classes.ids]).toEqual([before[3], before[0], before[2]]);
  });

  it('forgets every class on clear', () => {
    const classes = new LengthClasses();
    classes.reserve(1);
    classes.set(0, 9, 9);
    classes.clear();
    classes.reserve(1);
    classes.set(0, 1, 1);
    expect(classes.ids[0]).toBe(0);
    expect(classes.normsFor(1.5, normalization)[0]).toBe(directNorm(1, 1));
  });
});
