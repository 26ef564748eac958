import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalFilterKey, matchesFilter, parseMetadataFilter, type MetadataFilter } from './index.js';

const target = { docId: 'doc-1', source: 'wiki', metadata: { lang: 'ar', year: 2021, tags: ['faq', 'ai'], draft: false, title: 'التعلم', nothing: null } };

describe('matchesFilter', () => {
  it.each<[MetadataFilter, boolean]>([
    [{}, true],
    [{ lang: 'ar' }, true],
    [{ lang: 'en' }, false],
    [{ lang: { $eq: 'ar' }, year: { $gte: 2020, $lt: 2022 } }, true],
    [{ year: { $gt: 2021 } }, false],
    [{ year: { $lte: 2021 } }, true],
    [{ year: { $gt: '2000' } }, false], // no coercion across types
    [{ title: { $gte: 'ا' } }, true], // string comparison, Arabic
    [{ tags: 'ai' }, true], // arrays: any element
    [{ tags: { $in: ['x', 'faq'] } }, true],
    [{ tags: { $nin: ['faq'] } }, false],
    [{ tags: { $ne: 'zzz' } }, true],
    [{ year: { $in: ['2021'] } }, false],
    [{ draft: { $ne: true } }, true],
    [{ missing: { $exists: false } }, true],
    [{ missing: { $exists: true } }, false],
    [{ nothing: { $exists: true } }, true],
    [{ missing: null }, true],
    [{ missing: { $ne: 'x' } }, true],
    [{ missing: { $nin: ['x'] } }, true],
    [{ missing: { $gt: 1 } }, false],
    [{ docId: 'doc-1', source: { $in: ['wiki'] } }, true],
    [{ $or: [{ lang: 'en' }, { year: 2021 }] }, true],
    [{ $and: [{ lang: 'ar' }, { year: 2020 }] }, false],
    [{ $not: { lang: 'en' } }, true],
    [{ $not: { $or: [{ lang: 'ar' }] } }, false],
  ])('%j → %s', (filter, expected) => {
    expect(matchesFilter(target, parseMetadataFilter(filter))).toBe(expected);
  });

  it('treats constructor and prototype as ordinary field names', () => {
    expect(matchesFilter({ constructor: 'x' }, parseMetadataFilter({ constructor: 'x' }))).toBe(true);
    expect(matchesFilter({}, parseMetadataFilter({ constructor: 'x' }))).toBe(false);
    expect(matchesFilter({}, parseMetadataFilter({ prototype: { $exists: true } }))).toBe(false);
  });

  it('accepts a bare metadata record', () => {
    expect(matchesFilter({ lang: 'ar' }, { lang: 'ar' })).toBe(true);
    expect(matchesFilter({ lang: 'ar' }, undefined)).toBe(true);
  });
});

describe('parseMetadataFilter', () => {
  it.each([
    [{ a: { $regex: 'x' } }, 'filter.a.$regex must be a known operator'],
    [{ $nor: [] }, 'filter.$nor must be a field name or one of the logical operators'],
    [{ $or: [] }, 'filter.$or must be of length >= 1'],
    [{ $and: [{ a: { $in: 'x' } }] }, 'filter.$and[0].a'],
    [{ a: Number.NaN }, 'filter.a'],
    [{ a: { $gt: true } }, 'filter.a'],
    ['x', 'filter must be'],
    [JSON.parse('{"__proto__": "x"}'), 'filter.__proto__ must be a field name other than __proto__'],
    [{ $or: [JSON.parse('{"__proto__": {"$ne": 1}}')] }, 'filter.$or[0].__proto__'],
  ])('rejects %j naming the path', (filter, message) => {
    expect(() => parseMetadataFilter(filter)).toThrow(message);
    try {
      parseMetadataFilter(filter);
    } catch (error) {
      expect((error as { code: string }).code).toBe('ZERDA_INVALID_FILTER');
    }
  });
});

describe('canonicalFilterKey', () => {
  it('is independent of key order and distinguishes different filters', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }).filter((k) => !k.startsWith('$')), fc.oneof(fc.string(), fc.integer())), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(canonicalFilterKey(record)).toBe(canonicalFilterKey(reversed));
      }),
    );
    expect(canonicalFilterKey({ a: 1 })).not.toBe(canonicalFilterKey({ a: '1' }));
    expect(canonicalFilterKey(undefined)).toBe('');
  });
});

describe('metadataTerms', () => {
  it('encodes presence and every scalar value or array element, type-strict, once per key', async () => {
    const { metadataTerms, presenceTerm, valueTerm, isFilterScalar, isOperatorCondition } = await import('./index.js');
    const metadata = JSON.parse('{"lang":"ar","year":2024,"flag":true,"none":null,"tags":["a",1,"a",["nested"],{"x":1}],"deep":{"x":1},"اللغة":"عربي","__proto__":"p"}');
    expect(metadataTerms(metadata)).toEqual([
      presenceTerm('lang'), valueTerm('lang', 'ar'),
      presenceTerm('year'), valueTerm('year', 2024),
      presenceTerm('flag'), valueTerm('flag', true),
      presenceTerm('none'), valueTerm('none', null),
      presenceTerm('tags'), valueTerm('tags', 'a'), valueTerm('tags', 1),
      presenceTerm('deep'),
      presenceTerm('اللغة'), valueTerm('اللغة', 'عربي'),
      presenceTerm('__proto__'), valueTerm('__proto__', 'p'),
    ]);
    // "1" and 1 stay apart, as in matchesFilter.
    expect(valueTerm('k', '1')).not.toBe(valueTerm('k', 1));
    expect([null, 'x', 0, false].every(isFilterScalar)).toBe(true);
    expect([undefined, [], {}].some(isFilterScalar)).toBe(false);
    expect(isOperatorCondition({ $gt: 1 })).toBe(true);
    expect(() => metadataTerms(null as never)).toThrow(/metadata/);
    expect(() => metadataTerms(['a'] as never)).toThrow(/metadata/);
    expect(() => presenceTerm(1 as never)).toThrow(/key/);
    expect(() => valueTerm('k', { x: 1 } as never)).toThrow(/value/);
    expect([null, 'x', ['a']].some(isOperatorCondition)).toBe(false);
  });

  it('agrees with matchesFilter: a chunk matches { key: value } exactly when it carries valueTerm(key, value)', async () => {
    const { metadataTerms, valueTerm } = await import('./index.js');
    const scalar = fc.oneof(fc.constantFrom('a', 'b', 'عربي', ''), fc.constantFrom(0, 1, 2.5), fc.boolean(), fc.constant(null));
    const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(fc.constantFrom('x'), scalar));
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('k', 'm'), value), scalar, (metadata, probe) => {
        const terms = new Set(metadataTerms(metadata as never));
        expect(terms.has(valueTerm('k', probe)) || (probe === null && !('k' in metadata))).toBe(matchesFilter({ metadata: metadata as never }, { k: probe }));
      }),
      { numRuns: 500 },
    );
  });
});

describe('andFilters', () => {
  it('matches exactly when every given filter matches, skipping undefined and empty filters', async () => {
    const { andFilters } = await import('./index.js');
    expect(andFilters()).toBeUndefined();
    expect(andFilters(undefined, {})).toBeUndefined();
    expect(andFilters({ lang: 'ar' }, undefined)).toEqual({ lang: 'ar' });
    expect(andFilters({ tenant: 'acme' }, { lang: 'ar' })).toEqual({ $and: [{ tenant: 'acme' }, { lang: 'ar' }] });
    const scalar = fc.constantFrom('a', 'b', 'عربي');
    const filter = fc.option(fc.dictionary(fc.constantFrom('tenant', 'lang'), scalar, { maxKeys: 2 }), { nil: undefined });
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('tenant', 'lang'), scalar), filter, filter, (metadata, first, second) => {
        const target = { metadata };
        expect(matchesFilter(target, andFilters(first, second))).toBe(matchesFilter(target, first) && matchesFilter(target, second));
      }),
      { numRuns: 300 },
    );
  });
});
