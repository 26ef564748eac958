import { describe, expect, it } from 'vitest';
import { NEGATED_RANGE, SUPERSET, allOf, anyOf, constant, leaf, pushDownFilter, type FieldTranslator } from './filter-pushdown.js';
import { parseMetadataFilter } from './filter.js';

/** A toy backend: every field is stored as is; string ranges cannot be expressed. */
const plain = (key: string): FieldTranslator => ({
  anyEquals: (values, negated) => (values.length === 1 ? leaf(key, negated ? '$ne' : '$eq', values[0]) : leaf(key, negated ? '$nin' : '$in', values)),
  compare: (operator, bound, negated) => (typeof bound === 'string' ? SUPERSET : leaf(key, negated ? NEGATED_RANGE[operator] : operator, bound)),
  present: (expected) => leaf(key, '$exists', expected),
});
const push = (filter: unknown) => pushDownFilter(parseMetadataFilter(filter), plain);

describe('pushDownFilter', () => {
  it('pushes $not to the leaves by De Morgan (English and Arabic keys)', () => {
    expect(push({ $not: { lang: 'ar', year: { $gt: 2020 } } })).toEqual({ clause: { $or: [{ lang: { $ne: 'ar' } }, { year: { $lte: 2020 } }] }, matchesNothing: false, exact: true });
    expect(push({ $not: { $or: [{ 'اللغة': 'عربي' }, { tags: { $in: ['a', 'b'] } }] } })).toEqual({ clause: { $and: [{ 'اللغة': { $ne: 'عربي' } }, { tags: { $nin: ['a', 'b'] } }] }, matchesNothing: false, exact: true });
    expect(push({ $not: { $not: { year: { $exists: true } } } }).clause).toEqual({ year: { $exists: true } });
  });

  it('keeps a superset (exact: false) where the backend cannot express a part, and says when nothing matches', () => {
    expect(push({ lang: 'en', title: { $gte: 'm' } })).toEqual({ clause: { lang: { $eq: 'en' } }, matchesNothing: false, exact: false });
    expect(push({ $or: [{ lang: 'en' }, { title: { $lt: 'm' } }] })).toEqual({ clause: undefined, matchesNothing: false, exact: false });
    expect(push({})).toEqual({ clause: undefined, matchesNothing: false, exact: true });
    expect(pushDownFilter(undefined, plain)).toEqual({ clause: undefined, matchesNothing: false, exact: true });
    const nothing = (): FieldTranslator => ({ anyEquals: (_values, negated) => constant(negated), compare: () => SUPERSET, present: (expected) => constant(!expected) });
    expect(pushDownFilter(parseMetadataFilter({ lang: 'x', year: { $gt: 1 } }), nothing)).toEqual({ clause: undefined, matchesNothing: true, exact: true });
  });

  it('simplifies: FALSE absorbs a conjunction even from a superset, an exact TRUE absorbs a disjunction, one clause stands alone', () => {
    const a = leaf('a', '$eq', 1);
    expect(allOf([a, { node: { kind: 'false' }, exact: false }])).toEqual(constant(false));
    expect(anyOf([a, constant(true)])).toEqual(constant(true));
    expect(anyOf([a, SUPERSET])).toEqual(SUPERSET);
    expect(allOf([a, constant(true)])).toEqual(a);
    expect(anyOf([a, constant(false)])).toEqual(a);
    expect(allOf([a, SUPERSET])).toEqual({ node: a.node, exact: false });
    expect(allOf([])).toEqual(constant(true));
    expect(anyOf([])).toEqual(constant(false));
  });
});

describe('pushDownFilter: bad input', () => {
  it('names the field: an invalid filter, a missing translator, bad building blocks', () => {
    expect(() => pushDownFilter({ year: { $between: [1, 2] } } as never, plain)).toThrow(/filter/);
    expect(() => pushDownFilter({ lang: 'ar' }, undefined as never)).toThrow(/fieldFor/);
    expect(() => leaf(3 as never, '$eq', 1)).toThrow(/field/);
    expect(() => leaf('lang', 'eq', 1)).toThrow(/operator/);
    expect(() => allOf('x' as never)).toThrow(/parts/);
    expect(() => anyOf(undefined as never)).toThrow(/parts/);
  });
});
