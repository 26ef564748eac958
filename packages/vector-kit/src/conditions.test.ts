import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesFilter, type DocumentChunk, type FieldCondition, type FilterScalar } from '@zerda/types';
import { compileCondition, type ConditionCompiler } from './conditions.js';

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
