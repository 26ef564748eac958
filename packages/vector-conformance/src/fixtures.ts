import { similarityFromDistance, type DocumentChunk, type Metadata, type MetadataFilter, type VectorMetric } from '@zerda/types';

/**
 * A unit vector at `degrees` in the plane of the first two axes, zero elsewhere. Unit vectors at
 * known angles rank identically under cosine, inner product and L2 (the smaller the angle to the
 * query, the better), and each metric's exact score is known in closed form.
 */
export function unitVector(degrees: number, dimensions: number): number[] {
  if (dimensions < 2) throw new Error(`the conformance suite needs at least 2 dimensions, got ${dimensions}`);
  const radians = (degrees * Math.PI) / 180;
  const vector = new Array<number>(dimensions).fill(0);
  vector[0] = Math.cos(radians);
  vector[1] = Math.sin(radians);
  return vector;
}

/** The similarity a store with `metric` must report between `query` and `stored` (the zerda score contract). */
export function expectedSimilarity(metric: VectorMetric, query: ArrayLike<number>, stored: ArrayLike<number>): number {
  let dot = 0;
  let queryNorm = 0;
  let storedNorm = 0;
  let squaredDistance = 0;
  for (let i = 0; i < query.length; i++) {
    const a = query[i]!;
    const b = stored[i]!;
    dot += a * b;
    queryNorm += a * a;
    storedNorm += b * b;
    squaredDistance += (a - b) * (a - b);
  }
  switch (metric) {
    case 'cosine':
      return queryNorm === 0 || storedNorm === 0 ? 0 : dot / Math.sqrt(queryNorm * storedNorm);
    case 'ip':
      return dot;
    case 'l2':
      return similarityFromDistance('l2', squaredDistance, { squared: true });
  }
}

/** One chunk of the filter fixture: its angle to the query (so expected order is known) and metadata. */
export interface FilterFixtureRow {
  id: string;
  docId: string;
  source: string;
  degrees: number;
  metadata: Metadata;
}

/**
 * Nine chunks covering the awkward cases of the filter language: missing fields, `null` values,
 * array values, a number stored as a string (and a string stored as a number), Arabic values, and a
 * chunk with no metadata at all. Chunk `f<i>` sits at `i * 15` degrees from the query.
 */
export const FILTER_FIXTURE: readonly FilterFixtureRow[] = [
  { id: 'f0', docId: 'doc-a', source: 'wiki', degrees: 0, metadata: { lang: 'en', year: 2019, tags: ['news', 'sport'], draft: false, rating: 4.5, author: 'Ali' } },
  { id: 'f1', docId: 'doc-a', source: 'wiki', degrees: 15, metadata: { lang: 'ar', year: 2020, tags: ['news'], draft: true, rating: 3 } },
  { id: 'f2', docId: 'doc-b', source: 'blog', degrees: 30, metadata: { lang: 'ar', year: 2021, tags: ['tech'], draft: false, rating: 5, author: 'Sara' } },
  { id: 'f3', docId: 'doc-b', source: 'blog', degrees: 45, metadata: { lang: 'en', year: 2022, tags: [], draft: false, author: null } },
  { id: 'f4', docId: 'doc-c', source: 'wiki', degrees: 60, metadata: { lang: 'fr', year: 2018, tags: ['sport'], rating: 2, code: '1' } },
  { id: 'f5', docId: 'doc-c', source: 'forum', degrees: 75, metadata: { lang: 'ar', year: '2023', draft: true, code: 1 } },
  { id: 'f6', docId: 'doc-d', source: 'forum', degrees: 90, metadata: { lang: 'en', year: 2024, tags: ['news', 'tech'], rating: 4.5, author: 'ali' } },
  { id: 'f7', docId: 'doc-d', source: 'blog', degrees: 105, metadata: {} },
  { id: 'f8', docId: 'doc-e', source: 'wiki', degrees: 120, metadata: { lang: 'ar', year: 2020, tags: ['عربي'], draft: false, note: 'مرحبا بالعالم' } },
];

/** A filter and the ids it must return from {@link FILTER_FIXTURE}, best first (query at 0 degrees). */
export interface FilterCase {
  name: string;
  filter: MetadataFilter;
  expected: string[];
}

/** Every operator of the filter language, with the missing-field rules of `@zerda/types` filter.ts. */
export const FILTER_CASES: readonly FilterCase[] = [
  { name: 'equality shorthand', filter: { lang: 'ar' }, expected: ['f1', 'f2', 'f5', 'f8'] },
  { name: '$eq', filter: { lang: { $eq: 'en' } }, expected: ['f0', 'f3', 'f6'] },
  { name: '$ne holds for a missing field', filter: { lang: { $ne: 'ar' } }, expected: ['f0', 'f3', 'f4', 'f6', 'f7'] },
  { name: '$gt compares numbers only (the string "2023" never matches a number)', filter: { year: { $gt: 2020 } }, expected: ['f2', 'f3', 'f6'] },
  { name: '$gte', filter: { year: { $gte: 2020 } }, expected: ['f1', 'f2', 'f3', 'f6', 'f8'] },
  { name: '$lt', filter: { year: { $lt: 2020 } }, expected: ['f0', 'f4'] },
  { name: '$lte', filter: { year: { $lte: 2020 } }, expected: ['f0', 'f1', 'f4', 'f8'] },
  { name: 'two operators on one field are ANDed (a range)', filter: { year: { $gte: 2019, $lt: 2022 } }, expected: ['f0', 'f1', 'f2', 'f8'] },
  { name: 'ordered operators compare strings by code unit', filter: { lang: { $gte: 'en' } }, expected: ['f0', 'f3', 'f4', 'f6'] },
  { name: 'a string bound never matches a number', filter: { year: { $gte: '2000' } }, expected: ['f5'] },
  { name: '$lt on a decimal', filter: { rating: { $lt: 4 } }, expected: ['f1', 'f4'] },
  { name: 'equality on an array value matches any element', filter: { tags: 'news' }, expected: ['f0', 'f1', 'f6'] },
  { name: '$in on an array value', filter: { tags: { $in: ['tech', 'sport'] } }, expected: ['f0', 'f2', 'f4', 'f6'] },
  { name: '$in mixing types is exact per type', filter: { year: { $in: [2018, 2024, '2023'] } }, expected: ['f4', 'f5', 'f6'] },
  { name: '$nin holds when no element matches and when the field is missing', filter: { tags: { $nin: ['news'] } }, expected: ['f2', 'f3', 'f4', 'f5', 'f7', 'f8'] },
  { name: '$ne on an array value holds when no element matches', filter: { tags: { $ne: 'news' } }, expected: ['f2', 'f3', 'f4', 'f5', 'f7', 'f8'] },
  { name: '$nin on a scalar field', filter: { lang: { $nin: ['ar', 'en'] } }, expected: ['f4', 'f7'] },
  { name: '$exists: true (a stored null exists)', filter: { author: { $exists: true } }, expected: ['f0', 'f2', 'f3', 'f6'] },
  { name: '$exists: false', filter: { author: { $exists: false } }, expected: ['f1', 'f4', 'f5', 'f7', 'f8'] },
  { name: 'null equality matches null and missing', filter: { author: null }, expected: ['f1', 'f3', 'f4', 'f5', 'f7', 'f8'] },
  { name: 'no type coercion: number 1', filter: { code: 1 }, expected: ['f5'] },
  { name: 'no type coercion: string "1"', filter: { code: '1' }, expected: ['f4'] },
  { name: 'boolean true', filter: { draft: true }, expected: ['f1', 'f5'] },
  { name: 'boolean false is not missing', filter: { draft: false }, expected: ['f0', 'f2', 'f3', 'f8'] },
  { name: 'string equality is case-sensitive', filter: { author: 'ali' }, expected: ['f6'] },
  { name: 'Arabic values', filter: { tags: 'عربي' }, expected: ['f8'] },
  { name: 'several keys are ANDed', filter: { lang: 'ar', year: 2020 }, expected: ['f1', 'f8'] },
  { name: '$and', filter: { $and: [{ lang: 'ar' }, { draft: false }] }, expected: ['f2', 'f8'] },
  { name: '$or', filter: { $or: [{ lang: 'fr' }, { rating: { $gte: 4.5 } }] }, expected: ['f0', 'f2', 'f4', 'f6'] },
  { name: '$not', filter: { $not: { lang: 'ar' } }, expected: ['f0', 'f3', 'f4', 'f6', 'f7'] },
  { name: 'docId names the chunk field', filter: { docId: 'doc-b' }, expected: ['f2', 'f3'] },
  { name: 'source names the chunk field', filter: { source: { $in: ['forum', 'blog'] } }, expected: ['f2', 'f3', 'f5', 'f6', 'f7'] },
  {
    name: 'nested $or / $and / $not',
    filter: { $or: [{ docId: 'doc-a' }, { $and: [{ source: 'forum' }, { $not: { draft: true } }] }] },
    expected: ['f0', 'f1', 'f6'],
  },
  { name: 'an operator on a field nobody has', filter: { missing: { $gt: 0 } }, expected: [] },
];

/** Builds the fixture's chunks for a store of `dimensions`. */
export function filterFixtureChunks(dimensions: number): DocumentChunk[] {
  return FILTER_FIXTURE.map((row, index) => ({
    id: row.id,
    docId: row.docId,
    text: `chunk ${row.id} — نص ${index}`,
    source: row.source,
    metadata: row.metadata,
    position: { index },
    embedding: unitVector(row.degrees, dimensions),
  }));
}

/**
 * Filters nested `levels` deep (default 5,000 — about 60 KB of JSON) with each logical operator:
 * `$not` inside `$not`, `$and: [ … ]`, `$or: [ …, { lang: 'en' } ]`. Every backend must refuse them
 * with `ZERDA_INVALID_FILTER` instead of overflowing the stack while validating or translating them.
 */
export function deepFilters(levels = 5000): MetadataFilter[] {
  const wraps: Array<(inner: MetadataFilter) => MetadataFilter> = [(inner) => ({ $not: inner }), (inner) => ({ $and: [inner] }), (inner) => ({ $or: [inner, { lang: 'en' }] })];
  return wraps.map((wrap) => {
    let filter: MetadataFilter = { lang: 'ar' };
    for (let level = 0; level < levels; level++) filter = wrap(filter);
    return filter;
  });
}
