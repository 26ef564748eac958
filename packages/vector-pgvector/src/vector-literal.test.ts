import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromVectorLiteral, toVectorLiteral } from './vector-literal.js';

describe('vector literals', () => {
  it('round-trip every finite float32 exactly', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 32 }), (values) => {
        const vector = Float32Array.from(values);
        const parsed = fromVectorLiteral(toVectorLiteral(vector));
        expect(Array.from(parsed).map((value) => Object.is(value, -0) ? 0 : value)).toEqual(Array.from(vector).map((value) => Object.is(value, -0) ? 0 : value));
      }),
    );
  });

  it('writes integers plainly and fractions with nine significant digits', () => {
    expect(toVectorLiteral(Float32Array.of(1, -2, 0.1))).toBe('[1,-2,0.100000001]');
  });

  it('refuses text that is not a pgvector value', () => {
    for (const bad of ['1,2', '', null, 5, '[1,2']) expect(() => fromVectorLiteral(bad)).toThrow(/pgvector value/);
    expect(Array.from(fromVectorLiteral('[]'))).toEqual([]);
  });
});
