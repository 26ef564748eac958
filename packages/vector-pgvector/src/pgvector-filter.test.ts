import fc from 'fast-check';
import { parseMetadataFilter, type Metadata, type MetadataFilter } from '@zerda/types';
import { chunkWithMetadata, deepFilters, expectZerdaError, filterArbitraries, hostileChunks, hostileFilter, idsMatchingFilter } from '@zerda/vector-conformance';
import { describe, expect, it } from 'vitest';
import { pgliteForFile, uniqueCollection } from './__fixtures__/databases.js';
import { compileFilter } from './pgvector-filter.js';
import { PgVectorStore } from './pgvector-vector-store.js';

const COLUMNS = { metadata: 'metadata', docId: 'doc_id', source: 'source' };

// `__proto__` is left out of the end-to-end cases: @zerda/types' zod parsing drops that key from
// metadata and filters before any store sees it (compileFilter itself keeps it, tested below).
const HOSTILE_KEYS = ["'; DROP TABLE x; --", 'a"b', 'back\\slash', 'مفتاح', 'constructor', 'emoji🐈', 'with space', "it's", 'x$$y', '?'];
const HOSTILE_VALUES = ["'; DROP TABLE x; --", "O'Reilly", 'back\\slash', '"quoted"', 'مَرْحَبًا', '\\\'', ') OR 1=1 --', '$1', 'ـــ'];

describe('compileFilter (SQL text)', () => {
  it('puts no filter key or value into the SQL text: only placeholders, operators and column names', () => {
    for (const key of HOSTILE_KEYS) {
      for (const value of HOSTILE_VALUES) {
        const filter = parseMetadataFilter(hostileFilter(key, value));
        const parameters: unknown[] = [];
        const sql = compileFilter(filter, parameters, COLUMNS);
        for (const fragment of [...HOSTILE_KEYS, ...HOSTILE_VALUES]) {
          // These also occur as SQL syntax (the ? operator, $n placeholders).
          if (fragment === '?' || fragment === '$1') continue;
          expect(sql).not.toContain(fragment);
        }
        expect(sql).not.toContain('DROP');
        expect(sql).not.toContain('$$');
        // Every placeholder refers to a parameter that exists.
        for (const match of sql.matchAll(/\$(\d+)/g)) expect(Number(match[1])).toBeLessThanOrEqual(parameters.length);
        // The value travels as a parameter: raw (columns, ranges) or inside a JSON containment document.
        expect(parameters.some((parameter) => parameter === value || (typeof parameter === 'string' && parameter.includes(JSON.stringify(value))))).toBe(true);
      }
    }
  });

  it('appends to existing parameters and returns TRUE for no filter', () => {
    const parameters: unknown[] = ['[1,2]'];
    expect(compileFilter(undefined, parameters, COLUMNS)).toBe('TRUE');
    expect(compileFilter({}, parameters, COLUMNS)).toBe('TRUE');
    const sql = compileFilter({ lang: 'ar' }, parameters, COLUMNS);
    expect(sql).toBe('(metadata @> $2::jsonb OR metadata @> $3::jsonb)');
    expect(parameters.slice(1)).toEqual(['{"lang":"ar"}', '{"lang":["ar"]}']);
  });

  it('maps docId and source to their columns and never matches them against non-strings', () => {
    const parameters: unknown[] = [];
    expect(compileFilter({ docId: 5 }, parameters, COLUMNS)).toBe('FALSE');
    expect(compileFilter({ source: { $exists: false } }, parameters, COLUMNS)).toBe('FALSE');
    expect(compileFilter({ docId: 'x' }, parameters, COLUMNS)).toBe('(doc_id = $1::text)');
    expect(parameters).toEqual(['x']);
  });

  it('refuses a __proto__ field (it would reach the prototype of a record in JavaScript) with ZERDA_INVALID_FILTER, as every store does', () => {
    const parameters: unknown[] = [];
    expect(() => compileFilter(JSON.parse('{"__proto__": "x"}') as MetadataFilter, parameters, COLUMNS)).toThrow(expect.objectContaining({ code: 'ZERDA_INVALID_FILTER' }));
    expect(parameters).toEqual([]);
  });
});

const database = pgliteForFile();

async function idsMatching(store: PgVectorStore, filter: MetadataFilter): Promise<string[]> {
  const hits = await store.search([1, 0, 0], { k: 10_000, filter, exact: true });
  return hits.map((hit) => hit.chunk.id).sort();
}

describe('filters in PostgreSQL', () => {
  it('survive hostile keys and values: right results, table intact', async () => {
    const store = new PgVectorStore({ connection: database(), collection: uniqueCollection('hostile'), hnsw: false });
    const chunks = hostileChunks(HOSTILE_KEYS, HOSTILE_VALUES);
    await store.add(chunks);
    for (const key of HOSTILE_KEYS) {
      for (const value of HOSTILE_VALUES) {
        for (const filter of [{ [key]: value }, { [`${key}-list`]: value }, { [key]: { $gte: value } }, { $not: { [key]: { $in: [value] } } }, { docId: `doc'${HOSTILE_VALUES.indexOf(value)}` }]) {
          const parsed = parseMetadataFilter(filter);
          expect({ filter, ids: await idsMatching(store, parsed) }).toEqual({ filter, ids: idsMatchingFilter(chunks, parsed) });
        }
      }
    }
    expect(await store.count()).toBe(chunks.length);
    const { rows } = await database().query<{ n: number }>("SELECT count(*)::int AS n FROM pg_class WHERE relname = 'x' OR relname = $1", [store.collection]);
    expect(rows[0]!.n).toBe(1);
  });

  it('orders strings by UTF-16 code unit like JavaScript (supplementary characters before U+E000–U+FFFF)', async () => {
    const store = new PgVectorStore({ connection: database(), collection: uniqueCollection('order'), hnsw: false });
    const values = ['\uFFFF', '😀', '\uE000', '\uD7FF', 'z', 'ي', '', 'a😀', 'a\uFFFD', '\u{10FFFF}'];
    const chunks = values.map((value, i) => chunkWithMetadata(`s${i}`, { value }, `doc${i}`, value.length > 0 ? value : 'empty', i));
    await store.add(chunks);
    for (const bound of values) {
      for (const operator of ['$gt', '$gte', '$lt', '$lte'] as const) {
        for (const filter of [{ value: { [operator]: bound } }, { source: { [operator]: bound } }]) {
          expect(await idsMatching(store, filter)).toEqual(idsMatchingFilter(chunks, filter));
        }
      }
    }
  });

  it('agree with matchesFilter on random chunks and random filters (differential property)', async () => {
    const store = new PgVectorStore({ connection: database(), collection: uniqueCollection('property'), hnsw: false });
    // The shared generators of @zerda/vector-conformance, with this suite's own keys, strings,
    // numbers and sources (the lists it has always used).
    const { row, filter } = filterArbitraries(fc, {
      keys: ['lang', 'year', 'tags', 'docId', 'source', "'; DROP TABLE x; --", 'مفتاح', 'constructor', 'a"b'],
      strings: ['', 'a', 'A', 'ab', 'b', 'z', '1', 'null', 'true', "O'Reilly", 'back\\slash', 'مرحبا', 'مَرْحَبًا', 'عربي', '😀', '\uFFFF', 'doc1', 'src1'],
      numbers: [0, 1, -1, 1.5, 2, 2020, 2021, -0.25, 1e21, 1e-7],
      sources: ['src1', 'src2', '😀'],
    });

    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 25 }), fc.array(filter, { minLength: 1, maxLength: 10 }), async (rows, filters) => {
        const chunks = rows.map((generated, i) => chunkWithMetadata(`c${i}`, generated.metadata as Metadata, generated.docId, generated.source, i));
        await store.clear();
        await store.add(chunks);
        for (const generated of filters) {
          const parsed = parseMetadataFilter(generated);
          const expected = idsMatchingFilter(chunks, parsed);
          const actual = await idsMatching(store, parsed);
          if (JSON.stringify(actual) !== JSON.stringify(expected)) {
            throw new Error(`filter ${JSON.stringify(parsed)}: SQL matched ${JSON.stringify(actual)}, matchesFilter ${JSON.stringify(expected)}`);
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('deep filters (issue 15, defect 4)', () => {
  it('a $and / $or / $not nest of 5,000 levels is refused with ZERDA_INVALID_FILTER, not a stack overflow', async () => {
    for (const filter of deepFilters()) await expectZerdaError(async () => compileFilter(filter, [], COLUMNS), ['ZERDA_INVALID_FILTER']);
  });
});
