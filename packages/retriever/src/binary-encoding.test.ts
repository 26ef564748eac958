import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUint32, encodeUint32 } from './binary-encoding.js';

describe('Uint32 base64 encoding', () => {
  it('round-trips any array, little-endian', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffffffff })), (values) => {
        const array = Uint32Array.from(values);
        expect(Array.from(decodeUint32(encodeUint32(array))!)).toEqual(values);
      }),
    );
    expect(encodeUint32(Uint32Array.of(1))).toBe('AQAAAA==');
    expect(encodeUint32(Uint32Array.of(1, 2, 3), 1)).toBe('AQAAAA==');
  });

  it('rejects what is not base64 of whole 32-bit values', () => {
    expect(decodeUint32('AQA=')).toBeUndefined();
    expect(decodeUint32('not base64!')).toBeUndefined();
    expect(decodeUint32(42)).toBeUndefined();
    expect(decodeUint32('')).toEqual(new Uint32Array(0));
  });
});
