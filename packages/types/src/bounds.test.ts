import { describe, expect, it } from 'vitest';
import {
  FILTER_LIMITS,
  ZerdaError,
  assertStructureLimits,
  canonicalFilterKey,
  matchesFilter,
  parseMetadataFilter,
  pushDownFilter,
  toDocumentChunk,
  type MetadataFilter,
} from './index.js';

function nest(levels: number, wrap: (inner: unknown) => unknown, leaf: unknown = { lang: 'ar' }): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = wrap(value);
  return value;
}

function zerdaError(action: () => unknown): ZerdaError {
  try {
    action();
  } catch (error) {
    if (ZerdaError.isInstance(error)) return error;
    throw new Error(`expected a ZerdaError, got ${String(error)}`);
  }
  throw new Error('expected a ZerdaError, nothing was thrown');
}

describe('defect 4 (issue 15): deep and huge filters fail with ZERDA_INVALID_FILTER, never a stack overflow', () => {
  const wraps: Array<[string, (inner: unknown) => unknown]> = [
    ['$not', (inner) => ({ $not: inner })],
    ['$and', (inner) => ({ $and: [inner] })],
    ['$or', (inner) => ({ $or: [{ x: 1 }, inner] })],
  ];
  it.each(wraps)('refuses a %s nest of 5,000 levels (~60 KB of JSON) from parseMetadataFilter, canonicalFilterKey and pushDownFilter', (_name, wrap) => {
    const deep = nest(5000, wrap);
    for (const action of [() => parseMetadataFilter(deep, 'options.filter'), () => canonicalFilterKey(deep as MetadataFilter), () => pushDownFilter(deep as MetadataFilter, () => ({}) as never)]) {
      const error = zerdaError(action);
      expect(error.code).toBe('ZERDA_INVALID_FILTER');
      expect(error.message).toMatch(/nested at most 64 levels deep/);
    }
    expect(zerdaError(() => parseMetadataFilter(deep, 'options.filter')).message).toMatch(/^options\.filter must be a filter nested at most 64/);
  });

  it('accepts filters up to the limit and evaluates them', () => {
    // 31 $and levels use 62 levels, plus the leaf's object: 63.
    const filter = parseMetadataFilter(nest(31, (inner) => ({ $and: [inner] })));
    expect(matchesFilter({ metadata: { lang: 'ar' } }, filter)).toBe(true);
    expect(matchesFilter({ metadata: { lang: 'en' } }, filter)).toBe(false);
    const negations = parseMetadataFilter(nest(62, (inner) => ({ $not: inner })));
    expect(matchesFilter({ metadata: { lang: 'ar' } }, negations)).toBe(true);
  });

  it('refuses a cyclic filter as too deep', () => {
    const cyclic: Record<string, unknown> = { lang: 'ar' };
    cyclic.$not = cyclic;
    expect(zerdaError(() => parseMetadataFilter(cyclic)).code).toBe('ZERDA_INVALID_FILTER');
  });

  it('refuses a filter of more than 100,000 values', () => {
    const wide = { docId: { $in: Array.from({ length: FILTER_LIMITS.maxNodes }, (_, i) => `doc-${i}`) } };
    const error = zerdaError(() => parseMetadataFilter(wide));
    expect(error.code).toBe('ZERDA_INVALID_FILTER');
    expect(error.message).toMatch(/at most 100000 values/);
    // 50,000 ids (a large tenant allow-list) still work.
    const allowList = parseMetadataFilter({ docId: { $in: Array.from({ length: 50_000 }, (_, i) => `doc-${i}`) } });
    expect(matchesFilter({ metadata: {}, docId: 'doc-49999' }, allowList)).toBe(true);
  });

  it('matchesFilter given an unvalidated filter of the wrong shape throws ZERDA_INVALID_FILTER, not a TypeError (fuzz, 1M cases)', () => {
    for (const filter of [{ $or: [null] }, { $and: [{ lang: 'ar' }, 7] }, { $or: 'lang' }, { $and: { lang: 'ar' } }, { lang: { $in: 'ar' } }, { lang: { $nin: null } }, { $not: null }, { $not: ['x'] }]) {
      const error = zerdaError(() => matchesFilter({ metadata: { lang: 'ar' } }, filter as unknown as MetadataFilter));
      expect(error.code, JSON.stringify(filter)).toBe('ZERDA_INVALID_FILTER');
      expect(error.message).toMatch(/validate filters with parseMetadataFilter/);
    }
  });

  it('matchesFilter given an unvalidated deep filter throws ZERDA_INVALID_FILTER instead of overflowing', () => {
    const deep = nest(20_000, (inner) => ({ $not: inner })) as MetadataFilter;
    expect(zerdaError(() => matchesFilter({ metadata: {} }, deep)).code).toBe('ZERDA_INVALID_FILTER');
  });

  it('chunk metadata nested 5,000 levels deep is refused with a ZerdaError naming the field', () => {
    const error = zerdaError(() => toDocumentChunk({ docId: 'd', text: 't', metadata: { a: nest(5000, (inner) => ({ a: inner }), 1) } }, 0, 'chunks[0]'));
    expect(error.code).toBe('ZERDA_INVALID_ARGUMENT');
    expect(error.message).toMatch(/^chunks\[0\]\.metadata must be metadata nested at most 64 levels deep/);
  });

  it("lets the caller's own getter errors through unchanged", () => {
    const own = new Error('from the caller');
    const filter = Object.defineProperty({}, 'lang', { enumerable: true, get: () => { throw own; } });
    expect(() => assertStructureLimits({ a: filter }, 'f', FILTER_LIMITS)).toThrow(own);
  });
});

describe('defect 9 (issue 15): an array is not a filter value', () => {
  it('says so for { tags: ["faq"] } and suggests $in', () => {
    const error = zerdaError(() => parseMetadataFilter({ tags: ['faq'] }, 'options.metadataFilters'));
    expect(error.code).toBe('ZERDA_INVALID_FILTER');
    expect(error.details.field).toBe('options.metadataFilters.tags');
    expect(error.message).toMatch(/an array is not a filter value/);
    expect(error.message).toContain('{ "tags": { $in: [...] } }');
    expect(error.message).not.toMatch(/tags\.0|known operator/);
  });
});
