import { ZerdaError } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { fnv1a } from './hash.js';

describe('fnv1a', () => {
  it('gives the published 32-bit FNV-1a values and hashes Arabic by its code units', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
    expect(fnv1a('مكتبة')).toBe(fnv1a('مكتبة'));
    expect(fnv1a('مكتبة')).not.toBe(fnv1a('مكتبه'));
    expect(Number.isInteger(fnv1a('😀')) && fnv1a('😀') >= 0).toBe(true);
  });

  it('names bad input', () => {
    expect(() => fnv1a(5 as never)).toThrow(ZerdaError);
    expect(() => fnv1a(undefined as never)).toThrow(/text/);
  });
});
