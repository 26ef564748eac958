import fc from 'fast-check';
import { parseMetadataFilter } from '@zerda/types';
import { FILTER_CASES, chunkWithMetadata, deepFilters, expectZerdaError, filterArbitraries, idsMatchingFilter } from '@zerda/vector-conformance';
import type { Where } from 'chromadb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryServer, uniqueCollection } from './__fixtures__/server.js';
import { ChromaVectorStore } from './chroma-vector-store.js';
import { isNumberKey, numberKey, presenceKey, valueKey } from './chroma-records.js';
import { translateWhere } from './chroma-filter.js';

describe('translateWhere: every operator', () => {
  it('equality, $in and their negations test typed flag keys with $eq/$ne true', () => {
    expect(translateWhere({ lang: 'ar' })).toEqual({ where: { [valueKey('lang', 'ar')]: { $eq: true } }, matchesNothing: false, exact: true });
    expect(translateWhere({ lang: { $ne: 'ar' } }).where).toEqual({ [valueKey('lang', 'ar')]: { $ne: true } });
    expect(translateWhere({ year: { $in: [2018, '2023'] } }).where).toEqual({ $or: [{ [valueKey('year', 2018)]: { $eq: true } }, { [valueKey('year', '2023')]: { $eq: true } }] });
    expect(translateWhere({ year: { $nin: [2018, '2023'] } }).where).toEqual({ $and: [{ [valueKey('year', 2018)]: { $ne: true } }, { [valueKey('year', '2023')]: { $ne: true } }] });
    expect(translateWhere({ author: null }).where).toEqual({ $or: [{ [valueKey('author', null)]: { $eq: true } }, { [presenceKey('author')]: { $ne: true } }] });
    expect(translateWhere({ author: { $exists: false } }).where).toEqual({ [presenceKey('author')]: { $ne: true } });
  });

  it('numeric ranges read the number only while its flag is true; negations add "no number"', () => {
    expect(translateWhere({ year: { $gte: 2020 } }).where).toEqual({ $and: [{ [numberKey('year')]: { $gte: 2020 } }, { [isNumberKey('year')]: { $eq: true } }] });
    expect(translateWhere({ $not: { year: { $gt: 2020 } } }).where).toEqual({
      $or: [{ $and: [{ [numberKey('year')]: { $lte: 2020 } }, { [isNumberKey('year')]: { $eq: true } }] }, { [isNumberKey('year')]: { $ne: true } }],
    });
    expect(translateWhere({ lang: { $gte: 'en' } })).toEqual({ where: undefined, matchesNothing: false, exact: false });
  });

  it('docId/source use their keys; $and/$or with one clause collapse (Chroma needs two)', () => {
    expect(translateWhere({ docId: 'doc-b' }).where).toEqual({ zerda_doc_id: { $eq: 'doc-b' } });
    expect(translateWhere({ source: { $nin: ['forum', 'blog'] } }).where).toEqual({ zerda_source: { $nin: ['forum', 'blog'] } });
    expect(translateWhere({ $and: [{ docId: 'a' }] }).where).toEqual({ zerda_doc_id: { $eq: 'a' } });
    expect(translateWhere({ docId: 7 }).matchesNothing).toBe(true);
    expect(translateWhere({ $not: { docId: 7 } })).toEqual({ where: undefined, matchesNothing: false, exact: true });
  });

  it('uses only operators Chroma accepts', () => {
    const accepted = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$and', '$or']);
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(visit);
      else if (node !== null && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key.startsWith('$')) expect(accepted).toContain(key);
          if (key === '$and' || key === '$or') expect((value as unknown[]).length).toBeGreaterThanOrEqual(2);
          visit(value);
        }
      }
    };
    for (const testCase of FILTER_CASES) visit(translateWhere(testCase.filter).where);
  });
});

let fixture: Awaited<ReturnType<typeof temporaryServer>>;

beforeAll(async () => {
  fixture = await temporaryServer();
});

afterAll(async () => {
  await fixture?.dispose();
});

describe('filters on a real Chroma server', () => {
  it('survive hostile keys and values', async () => {
    const store = new ChromaVectorStore({ url: fixture.server.url, collection: uniqueCollection('hostile') });
    const keys = ["'; DROP", 'x$weird', 'a"b', 'zt:["x"]', 'zn:year', 'مفتاح', 'emoji🐈', 'with space'];
    const values = ["O'Reilly", '"quoted"', '$eq', 'مَرْحَبًا', 'back\\slash', 'nul\u0000value', '{"$ne":true}'];
    const chunks = keys.flatMap((key, i) => values.map((value, j) => chunkWithMetadata(`k${i}v${j}`, { [key]: value, [`${key}-n`]: j, [`${key}-list`]: [value, j] }, `doc'${j}`, `src"${i}`, i + j)));
    await store.add(chunks);
    for (const [i, key] of keys.entries()) {
      const value = values[i % values.length]!;
      for (const filter of [{ [key]: value }, { [`${key}-list`]: value }, { [`${key}-n`]: { $gte: 3 } }, { $not: { [key]: { $in: [value] } } }, { docId: `doc'${i % values.length}` }]) {
        const parsed = parseMetadataFilter(filter);
        const hits = await store.search([1, 0, 0.5], { k: 1000, filter: parsed });
        expect({ filter, ids: hits.map((hit) => hit.chunk.id).sort() }).toEqual({ filter, ids: idsMatchingFilter(chunks, parsed) });
      }
    }
    expect(await store.count()).toBe(chunks.length);
  });

  it('agree with matchesFilter after adds and replacements (differential property against the server)', async () => {
    const store = new ChromaVectorStore({ url: fixture.server.url, collection: uniqueCollection('property') });
    const { row, filter } = filterArbitraries(fc);
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 20 }), fc.array(row, { maxLength: 8 }), fc.array(filter, { minLength: 1, maxLength: 8 }), async (rows, replacements, filters) => {
        await store.clear();
        const chunks = rows.map((generated, i) => chunkWithMetadata(`c${i}`, generated.metadata, generated.docId, generated.source, i));
        await store.add(chunks);
        // Replace some chunks with other metadata: the old version's facts must stop matching.
        const replaced = replacements.map((generated, i) => chunkWithMetadata(`c${i % chunks.length}`, generated.metadata, generated.docId, generated.source, i));
        const unique = [...new Map(replaced.map((chunk) => [chunk.id, chunk])).values()];
        if (unique.length > 0) await store.add(unique);
        const current = chunks.map((chunk) => unique.find((candidate) => candidate.id === chunk.id) ?? chunk);
        for (const generated of filters) {
          const parsed = parseMetadataFilter(generated);
          const expected = idsMatchingFilter(current, parsed);
          const actual = (await store.search([1, 0, 0.5], { k: 1000, filter: parsed })).map((hit) => hit.chunk.id).sort();
          if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`filter ${JSON.stringify(parsed)}: Chroma returned ${JSON.stringify(actual)}, matchesFilter ${JSON.stringify(expected)}`);
          // The where alone: exactly the matches, or a superset when flagged.
          const translated = translateWhere(parsed);
          if (translated.matchesNothing) continue;
          const collection = await store.client.getCollection({ name: store.collectionName });
          const selected = (await collection.get(translated.where ? { where: translated.where as Where } : {})).ids.sort();
          const ok = translated.exact ? JSON.stringify(selected) === JSON.stringify(expected) : expected.every((id) => selected.includes(id));
          if (!ok) throw new Error(`where ${JSON.stringify(translated.where)} selects ${JSON.stringify(selected)}, expected ${JSON.stringify(expected)}`);
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe('deep filters (issue 15, defect 4)', () => {
  it('a $and / $or / $not nest of 5,000 levels is refused with ZERDA_INVALID_FILTER, not a stack overflow', async () => {
    for (const filter of deepFilters()) await expectZerdaError(async () => translateWhere(filter), ['ZERDA_INVALID_FILTER']);
  });
});
