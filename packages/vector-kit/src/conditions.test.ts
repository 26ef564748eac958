import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesFilter, parseMetadataFilter, pushDownFilter, type DocumentChunk, type FieldCondition, type FilterScalar, type MetadataFilter } from '@zerda/types';
import { filterArbitraries, filterFixtureChunks, FILTER_CASES } from '@zerda/vector-conformance';
import { compileCondition, compileFilterTree, stringFieldTranslator, type ConditionCompiler, type FilterCompiler } from './conditions.js';

/** A compiler to text, showing the structure. */
const text: ConditionCompiler<string> = {
  equals: (value) => `=${JSON.stringify(value)}`,
  anyEquals: (values) => `in${JSON.stringify(values)}`,
  compare: (operator, bound) => `${operator}${JSON.stringify(bound)}`,
  present: (expected) => (expected ? 'present' : 'absent'),
  not: (part) => `not(${part})`,
  allOf: (parts) => (parts.length === 1 ? parts[0]! : `and(${parts.join(',')})`),
  nothing: 'false',
};

/** A compiler to predicates over one metadata value, built from matchesFilter on single equalities. */
function predicates(key: string): ConditionCompiler<(chunk: DocumentChunk) => boolean> {
  const holds = (condition: FieldCondition) => (chunk: DocumentChunk) => matchesFilter(chunk, { [key]: condition });
  return {
    equals: (value) => holds(value),
    anyEquals: (values) => (chunk) => values.some((value) => holds(value)(chunk)),
    compare: (operator, bound) => holds({ [operator]: bound }),
    present: (expected) => holds({ $exists: expected }),
    not: (part) => (chunk) => !part(chunk),
    allOf: (parts) => (chunk) => parts.every((part) => part(chunk)),
    nothing: () => false,
  };
}

describe('compileCondition', () => {
  it('compiles each operator through the backend compiler, ANDing several and skipping undefined operands', () => {
    expect(compileCondition('ar', text)).toBe('="ar"');
    expect(compileCondition({ $ne: 'ar' }, text)).toBe('not(="ar")');
    expect(compileCondition({ $in: [1, 'a'] }, text)).toBe('in[1,"a"]');
    expect(compileCondition({ $nin: [null] }, text)).toBe('not(in[null])');
    expect(compileCondition({ $gte: 2, $lt: 5, $eq: undefined } as FieldCondition, text)).toBe('and($gte2,$lt5)');
    expect(compileCondition({ $exists: false }, text)).toBe('absent');
    expect(compileCondition({ $like: 'x' } as unknown as FieldCondition, text)).toBe('false');
  });

  it('agrees with matchesFilter for every operator combination (property)', () => {
    const scalar = fc.oneof(fc.constantFrom<FilterScalar>(null, true, 'a', 'b', ''), fc.integer({ min: -3, max: 3 }));
    const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }));
    const condition = fc.oneof(
      scalar,
      fc.record(
        {
          $eq: scalar,
          $ne: scalar,
          $in: fc.array(scalar, { maxLength: 3 }),
          $nin: fc.array(scalar, { maxLength: 3 }),
          $gt: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('a', 'b')),
          $lte: fc.integer({ min: -3, max: 3 }),
          $exists: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(fc.option(value, { nil: undefined }), condition, (stored, input) => {
        const chunk: DocumentChunk = { id: 'c', docId: 'd', text: 't', source: 's', metadata: stored === undefined ? {} : { k: stored }, position: { index: 0 } };
        const cond = input as FieldCondition;
        if (typeof cond === 'object' && cond !== null && Object.keys(cond).length === 0) return;
        expect(compileCondition(cond, predicates('k'))(chunk)).toBe(matchesFilter(chunk, { k: cond }));
      }),
    );
  });
});

/** Predicates over whole chunks: `docId`, `source` and metadata keys, each through matchesFilter on one equality. */
const chunkPredicates: FilterCompiler<(chunk: DocumentChunk) => boolean> = {
  allOf: (parts) => (chunk) => parts.every((part) => part(chunk)),
  anyOf: (parts) => (chunk) => parts.some((part) => part(chunk)),
  not: (part) => (chunk) => !part(chunk),
  field: (key) => predicates(key),
};

describe('compileFilterTree', () => {
  it('compiles $and, $or and $not with the backend logic, ANDs the entries of an object and skips undefined ones', () => {
    const textTree: FilterCompiler<string> = {
      allOf: (parts) => (parts.length === 1 ? parts[0]! : `and(${parts.join(',')})`),
      anyOf: (parts) => `or(${parts.join(',')})`,
      not: (part) => `not(${part})`,
      field: (key) => ({ ...text, equals: (value) => `${key}=${JSON.stringify(value)}` }),
    };
    expect(compileFilterTree({ a: 1, $or: [{ b: 'x' }, { $not: { c: null } }], d: undefined, $and: [{ e: true }] } as MetadataFilter, textTree)).toBe(
      'and(a=1,or(b="x",not(c=null)),e=true)',
    );
    expect(compileFilterTree({}, textTree)).toBe('and()');
    expect(() => compileFilterTree(null as never, textTree)).toThrow(/filter must be a metadata filter object/);
    expect(() => compileFilterTree({}, { ...textTree, not: undefined } as never)).toThrow(/compiler\.not must be a function/);
  });

  it('selects what matchesFilter selects: every case of the conformance fixture and random nested filters', () => {
    const chunks = filterFixtureChunks(2);
    for (const testCase of FILTER_CASES) {
      const selected = compileFilterTree(parseMetadataFilter(testCase.filter), chunkPredicates);
      expect(chunks.filter(selected).map((chunk) => chunk.id).sort(), testCase.name).toEqual([...testCase.expected].sort());
    }
    const { row, filter } = filterArbitraries(fc);
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 10 }), filter, (rows, input) => {
        const parsed = parseMetadataFilter(input);
        const selected = compileFilterTree(parsed, chunkPredicates);
        rows.forEach((generated, i) => {
          const chunk: DocumentChunk = { id: `c${i}`, docId: generated.docId, source: generated.source, text: 't', metadata: generated.metadata, position: { index: i } };
          expect(selected(chunk)).toBe(matchesFilter(chunk, parsed));
        });
      }),
    );
  });
});

describe('stringFieldTranslator', () => {
  const translate = (filter: MetadataFilter, storable?: (value: string) => boolean) => pushDownFilter(filter, () => stringFieldTranslator('doc_id', storable));

  it('translates equality and $in, and their negations, on the stored field; non-strings never equal it', () => {
    expect(translate({ docId: 'a' })).toEqual({ clause: { doc_id: { $eq: 'a' } }, matchesNothing: false, exact: true });
    expect(translate({ docId: { $in: ['a', 5, 'b', 'a'] } }).clause).toEqual({ doc_id: { $in: ['a', 'b'] } });
    expect(translate({ $not: { docId: { $in: ['a', 'b'] } } }).clause).toEqual({ doc_id: { $nin: ['a', 'b'] } });
    expect(translate({ docId: { $ne: 'a' } }).clause).toEqual({ doc_id: { $ne: 'a' } });
    expect(translate({ docId: 5 }).matchesNothing).toBe(true);
    expect(translate({ docId: { $ne: 5 } })).toEqual({ clause: undefined, matchesNothing: false, exact: true });
  });

  it('keeps a superset for string ranges (checked afterwards), never holds for number ones, is always present', () => {
    expect(translate({ docId: { $gte: 'b' } })).toEqual({ clause: undefined, matchesNothing: false, exact: false });
    expect(translate({ docId: { $gte: 2 } }).matchesNothing).toBe(true);
    expect(translate({ docId: { $exists: false } }).matchesNothing).toBe(true);
    expect(translate({ docId: { $exists: true } })).toEqual({ clause: undefined, matchesNothing: false, exact: true });
  });

  it('refuses an empty field name or a storable that is not a function, naming it', () => {
    expect(() => stringFieldTranslator('')).toThrow(/field must be the non-empty name/);
    expect(() => stringFieldTranslator('doc_id', 'yes' as never)).toThrow(/storable must be a function/);
  });

  it('treats a value the backend cannot store as equal to no stored value', () => {
    const storable = (value: string) => value !== 'x';
    expect(translate({ docId: 'x' }, storable).matchesNothing).toBe(true);
    expect(translate({ docId: { $in: ['x', 'a'] } }, storable).clause).toEqual({ doc_id: { $eq: 'a' } });
    expect(translate({ docId: { $nin: ['x'] } }, storable)).toEqual({ clause: undefined, matchesNothing: false, exact: true });
  });
});
