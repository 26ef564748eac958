import { describe, expect, it } from 'vitest';
import { ZerdaError, compareSearchHits, validateIdList, validateSearchOptions, type VectorSearchHit } from './index.js';

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return ZerdaError.isInstance(error) ? error.code : 'not a ZerdaError';
  }
  return undefined;
}

describe('validateSearchOptions', () => {
  it('returns k and the parsed filter', () => {
    expect(validateSearchOptions({ k: 3 })).toEqual({ k: 3, filter: undefined });
    expect(validateSearchOptions({ k: 0, filter: { lang: 'ar' }, efSearch: 10 }, ['efSearch'])).toEqual({ k: 0, filter: { lang: 'ar' } });
  });

  it("refuses keys that are neither k, filter nor the store's own (issue 15, defect 9)", () => {
    expect(() => validateSearchOptions({ k: 1, efSearch: 10 })).toThrow(/^options\.efSearch must be a known option \(one of k, filter\)/);
    expect(() => validateSearchOptions({ k: 1, fliter: {} }, ['ids'])).toThrow(/options\.fliter must be a known option \(one of k, filter, ids\)/);
  });

  it('names options.k and the filter path', () => {
    for (const k of [-1, 1.5, Number.NaN, '3', undefined]) expect(() => validateSearchOptions({ k })).toThrow(/^options\.k must be a non-negative integer/);
    expect(() => validateSearchOptions(null)).toThrow(/^options must be an object with k, got null/);
    expect(() => validateSearchOptions([])).toThrow(/^options must be an object/);
    expect(codeOf(() => validateSearchOptions({ k: 1, filter: { year: { $near: 1 } } }))).toBe('ZERDA_INVALID_FILTER');
    expect(() => validateSearchOptions({ k: 1, filter: { $or: [] } })).toThrow(/options\.filter/);
  });
});

describe('validateIdList', () => {
  it('accepts string arrays and names the bad element', () => {
    expect(validateIdList(['a', 'ب'], 'ids')).toEqual(['a', 'ب']);
    expect(() => validateIdList('a', 'ids')).toThrow('ids must be an array of strings, got string "a"');
    expect(() => validateIdList(['a', 2], 'docIds')).toThrow('docIds[1] must be a string, got number 2');
  });
});

describe('compareSearchHits', () => {
  it('orders by descending score, then by id', () => {
    const hit = (id: string, score: number) => ({ chunk: { id }, score }) as VectorSearchHit;
    const sorted = [hit('b', 0.5), hit('a', 0.5), hit('c', 0.9), hit('d', -1)].sort(compareSearchHits);
    expect(sorted.map((h) => h.chunk.id)).toEqual(['c', 'a', 'b', 'd']);
  });
});
