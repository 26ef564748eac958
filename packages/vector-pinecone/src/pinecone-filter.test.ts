import fc from 'fast-check';
import { parseMetadataFilter, type DocumentChunk, type Metadata, type MetadataFilter } from '@zerda/types';
import { FILTER_CASES, chunkWithMetadata, deepFilters, expectZerdaError, filterArbitraries, filterFixtureChunks, idsMatchingFilter } from '@zerda/vector-conformance';
import { describe, expect, it } from 'vitest';
import { evaluateFilter } from './__fixtures__/fake-pinecone.js';
import { translateFilter } from './pinecone-filter.js';
import { numberField, toPineconeMetadata } from './pinecone-records.js';

const terms = 'zerda_terms';
const year = numberField('year');

describe('translateFilter: every operator', () => {
  it('equality and its shorthand become typed terms on the terms list', () => {
    expect(translateFilter({ lang: 'ar' })).toEqual({ filter: { [terms]: { $in: ['["lang","ar"]'] } }, matchesNothing: false, exact: true });
    expect(translateFilter({ code: { $eq: 1 } }).filter).toEqual({ [terms]: { $in: ['["code",1]'] } });
    expect(translateFilter({ draft: false }).filter).toEqual({ [terms]: { $in: ['["draft",false]'] } });
  });

  it('$ne and $nin use $nin on the always-present terms list (never on a possibly missing field)', () => {
    expect(translateFilter({ lang: { $ne: 'ar' } }).filter).toEqual({ [terms]: { $nin: ['["lang","ar"]'] } });
    expect(translateFilter({ lang: { $nin: ['ar', 'en', 'ar'] } }).filter).toEqual({ [terms]: { $nin: ['["lang","ar"]', '["lang","en"]'] } });
  });

  it('$in lists typed terms; null also matches a missing key', () => {
    expect(translateFilter({ year: { $in: [2018, '2023'] } }).filter).toEqual({ [terms]: { $in: ['["year",2018]', '["year","2023"]'] } });
    expect(translateFilter({ author: null }).filter).toEqual({ $or: [{ [terms]: { $in: ['["author",null]'] } }, { [terms]: { $nin: ['["author"]'] } }] });
    expect(translateFilter({ author: { $ne: null } }).filter).toEqual({ $and: [{ [terms]: { $nin: ['["author",null]'] } }, { [terms]: { $in: ['["author"]'] } }] });
  });

  it('$exists tests the presence term', () => {
    expect(translateFilter({ author: { $exists: true } }).filter).toEqual({ [terms]: { $in: ['["author"]'] } });
    expect(translateFilter({ author: { $exists: false } }).filter).toEqual({ [terms]: { $nin: ['["author"]'] } });
  });

  it('numeric ranges use the number field; string ranges are post-checked', () => {
    expect(translateFilter({ year: { $gte: 2019, $lt: 2022 } })).toEqual({ filter: { $and: [{ [year]: { $gte: 2019 } }, { [year]: { $lt: 2022 } }] }, matchesNothing: false, exact: true });
    expect(translateFilter({ year: { $gt: '2000' } })).toEqual({ filter: undefined, matchesNothing: false, exact: false });
    expect(translateFilter({ lang: 'ar', year: { $gt: '2000' } })).toEqual({ filter: { [terms]: { $in: ['["lang","ar"]'] } }, matchesNothing: false, exact: false });
  });

  it('$and and $or map to Pinecone $and/$or; $not is pushed down with exact complements', () => {
    expect(translateFilter({ $or: [{ lang: 'fr' }, { rating: { $gte: 4.5 } }] }).filter).toEqual({ $or: [{ [terms]: { $in: ['["lang","fr"]'] } }, { [numberField('rating')]: { $gte: 4.5 } }] });
    expect(translateFilter({ $not: { lang: 'ar' } }).filter).toEqual({ [terms]: { $nin: ['["lang","ar"]'] } });
    expect(translateFilter({ $not: { year: { $gt: 2020 } } }).filter).toEqual({ $or: [{ [year]: { $lte: 2020 } }, { [year]: { $exists: false } }] });
    expect(translateFilter({ $not: { $and: [{ lang: 'ar' }, { year: { $gte: 2020 } }] } }).filter).toEqual({
      $or: [{ [terms]: { $nin: ['["lang","ar"]'] } }, { $or: [{ [year]: { $lt: 2020 } }, { [year]: { $exists: false } }] }],
    });
    expect(translateFilter({ $not: { $not: { lang: 'ar' } } }).filter).toEqual({ [terms]: { $in: ['["lang","ar"]'] } });
    // A string range cannot be negated exactly either: the whole negation is post-checked.
    expect(translateFilter({ $not: { lang: { $gt: 'a' } } })).toEqual({ filter: undefined, matchesNothing: false, exact: false });
  });

  it('docId and source are plain string fields; impossible conditions need no request', () => {
    expect(translateFilter({ docId: 'doc-b' }).filter).toEqual({ zerda_doc_id: { $eq: 'doc-b' } });
    expect(translateFilter({ source: { $in: ['forum', 'blog'] } }).filter).toEqual({ zerda_source: { $in: ['forum', 'blog'] } });
    expect(translateFilter({ docId: { $nin: ['a'] } }).filter).toEqual({ zerda_doc_id: { $ne: 'a' } });
    expect(translateFilter({ docId: 5 })).toEqual({ filter: undefined, matchesNothing: true, exact: true });
    expect(translateFilter({ docId: { $ne: 5 } })).toEqual({ filter: undefined, matchesNothing: false, exact: true });
    expect(translateFilter({ source: { $exists: false } }).matchesNothing).toBe(true);
    expect(translateFilter({ missing: { $in: [] } }).matchesNothing).toBe(true);
    expect(translateFilter({ $or: [{ docId: 5 }, { missing: { $in: [] } }] }).matchesNothing).toBe(true);
  });

  it('uses only the operators Pinecone documents', () => {
    const documented = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists', '$and', '$or']);
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(visit);
      else if (node !== null && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key.startsWith('$')) expect(documented).toContain(key);
          visit(value);
        }
      }
    };
    for (const testCase of FILTER_CASES) visit(translateFilter(testCase.filter).filter);
  });
});

/** What Pinecone (as documented) would select: the fake's evaluator over the written metadata. */
function selectedByPinecone(chunks: DocumentChunk[], filter: MetadataFilter): string[] {
  const translated = translateFilter(filter);
  if (translated.matchesNothing) return [];
  return chunks
    .filter((chunk) => translated.filter === undefined || evaluateFilter(translated.filter, toPineconeMetadata(chunk)))
    .map((chunk) => chunk.id)
    .sort();
}

describe('translated filters under Pinecone’s documented semantics', () => {
  it('select exactly the conformance fixture’s expected chunks', () => {
    const chunks = filterFixtureChunks(2);
    for (const testCase of FILTER_CASES) {
      const selected = selectedByPinecone(chunks, testCase.filter);
      const expected = [...testCase.expected].sort();
      if (translateFilter(testCase.filter).exact) expect({ filter: testCase.filter, selected }).toEqual({ filter: testCase.filter, selected: expected });
      else for (const id of expected) expect(selected).toContain(id);
    }
  });

  it('agree with matchesFilter on random chunks and filters: exact, or a superset when flagged (differential property)', () => {
    const { row, filter } = filterArbitraries(fc);
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 20 }), filter, (rows, generated) => {
        const chunks = rows.map((item, i) => chunkWithMetadata(`c${i}`, item.metadata as Metadata, item.docId, item.source));
        const parsed = parseMetadataFilter(generated);
        const expected = idsMatchingFilter(chunks, parsed);
        const selected = selectedByPinecone(chunks, parsed);
        if (translateFilter(parsed).exact) expect(selected).toEqual(expected);
        else for (const id of expected) expect(selected).toContain(id);
      }),
      { numRuns: 1500 },
    );
  });

  it('the fake refuses what Pinecone leaves undocumented (so the property above can fail)', () => {
    expect(() => evaluateFilter({ lang: { $ne: 'ar' } }, {})).toThrow(/without that field/);
    expect(() => evaluateFilter({ lang: { $nin: ['ar'] } }, {})).toThrow(/without that field/);
    expect(() => evaluateFilter({ $not: { lang: 'ar' } }, { lang: 'ar' })).toThrow(/unsupported operator \$not/);
    expect(() => evaluateFilter({ year: { $gt: '2000' } }, { year: 2020 })).toThrow(/takes a number/);
    expect(evaluateFilter({ tags: 'news' }, { tags: ['news', 'sport'] })).toBe(true);
    expect(evaluateFilter({ tags: { $nin: ['news'] } }, { tags: ['sport'] })).toBe(true);
    expect(evaluateFilter({ code: 1 }, { code: '1' })).toBe(false);
  });
});

describe('deep filters (issue 15, defect 4)', () => {
  it('a $and / $or / $not nest of 5,000 levels is refused with ZERDA_INVALID_FILTER, not a stack overflow', async () => {
    for (const filter of deepFilters()) await expectZerdaError(async () => translateFilter(filter), ['ZERDA_INVALID_FILTER']);
  });
});
