import * as lancedb from '@lancedb/lancedb';
import fc from 'fast-check';
import { parseMetadataFilter, type Metadata, type MetadataFilter } from '@zerda/types';
import { chunkWithMetadata, deepFilters, expectZerdaError, filterArbitraries, hostileChunks, hostileFilter, idsMatchingFilter } from '@zerda/vector-conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory, uniqueTable } from './__fixtures__/directories.js';
import { presenceTerm, valueTerm } from '@zerda/types';
import { compileFilter, filterColumnsOf, sqlString } from './lancedb-filter.js';
import { LanceDbVectorStore } from './lancedb-vector-store.js';

// `__proto__` is left out of the end-to-end cases: @zerda/types' zod parsing drops that key.
const HOSTILE_KEYS = ["'; DROP TABLE x; --", 'a"b', 'back\\slash', 'مفتاح', 'toString', 'constructor', 'emoji🐈', 'with space', "it's", 'a.b', 'k.$x', '[0]', '*', 'nul\u0000key'];
const HOSTILE_VALUES = ["'; DROP TABLE x; --", "O'Reilly", "''", 'back\\slash', '"quoted"', 'مَرْحَبًا', "\\'", ') OR 1=1 --', '%', '_', 'ـــ', 'line\nbreak', 'nul\u0000value'];

describe('filterColumnsOf', () => {
  it('writes presence and typed value terms, array elements, and typed number/string maps', () => {
    const columns = filterColumnsOf({ n: 1, s: '1', b: true, z: null, list: ['x', 1, 'x', [2], { a: 1 }, null], object: { a: 1 } });
    expect(columns.terms).toEqual([
      '["n"]',
      '["n",1]',
      '["s"]',
      '["s","1"]',
      '["b"]',
      '["b",true]',
      '["z"]',
      '["z",null]',
      '["list"]',
      '["list","x"]',
      '["list",1]',
      '["list",null]',
      '["object"]',
    ]);
    expect(JSON.parse(columns.numbers)).toEqual({ n: 1 });
    expect(JSON.parse(columns.strings)).toEqual({ s: '1' });
  });

  it('keeps __proto__ an ordinary key', () => {
    const columns = filterColumnsOf(JSON.parse('{"__proto__": 5}') as Metadata);
    expect(columns.numbers).toBe('{"__proto__":5}');
    expect(columns.terms).toContain(valueTerm('__proto__', 5));
  });
});

describe('compileFilter (SQL text)', () => {
  it('puts every key and value inside escaped string literals', () => {
    for (const key of HOSTILE_KEYS) {
      for (const value of HOSTILE_VALUES) {
        const filter = parseMetadataFilter(hostileFilter(key, value));
        const { sql } = compileFilter(filter);
        // Remove every well-formed literal: what remains is SQL syntax written by the compiler.
        const outside = sql.replace(/'(?:[^']|'')*'/g, "''");
        for (const fragment of [...HOSTILE_KEYS, ...HOSTILE_VALUES]) {
          if (['*', '%', '_', "''", '[0]', 'a.b'].includes(fragment)) continue;
          expect(outside).not.toContain(fragment);
        }
        expect(outside).not.toMatch(/DROP|--|;/);
        expect(outside).toMatch(/^[A-Za-z_(), =<>'!]*$/);
        // Literals are balanced: the text has an even number of quotes.
        expect((sql.match(/'/g) ?? []).length % 2).toBe(0);
      }
    }
  });

  it('is exact for every operator except string ranges above U+D7FF', () => {
    expect(compileFilter(undefined)).toEqual({ sql: 'TRUE', exact: true });
    expect(compileFilter({})).toEqual({ sql: 'TRUE', exact: true });
    expect(compileFilter({ lang: 'ar' })).toEqual({ sql: `array_has(filter_terms, ${sqlString(valueTerm('lang', 'ar'))})`, exact: true });
    expect(compileFilter({ author: null })).toEqual({
      sql: `(array_has(filter_terms, '["author",null]') OR NOT array_has(filter_terms, ${sqlString(presenceTerm('author'))}))`,
      exact: true,
    });
    expect(compileFilter({ year: { $gte: 2020 } }).exact).toBe(true);
    expect(compileFilter({ name: { $gte: 'م' } }).exact).toBe(true);
    expect(compileFilter({ name: { $gte: '\uE000' } })).toEqual({ sql: `(json_get_string(filter_strings, 'name') IS NOT NULL)`, exact: false });
    expect(compileFilter({ source: { $lt: '😀' } })).toEqual({ sql: 'TRUE', exact: false });
    // A superset cannot be negated: the negation falls back to TRUE and post-filtering.
    expect(compileFilter({ $not: { name: { $gte: '\uE000' } } })).toEqual({ sql: 'TRUE', exact: false });
    expect(compileFilter({ $or: [{ docId: { $exists: true } }, { name: { $gte: '\uE000' } }] })).toEqual({ sql: 'TRUE', exact: true });
  });

  it('short-circuits impossible conditions on docId and source', () => {
    expect(compileFilter({ docId: 5 })).toEqual({ sql: 'FALSE', exact: true });
    expect(compileFilter({ source: { $exists: false } })).toEqual({ sql: 'FALSE', exact: true });
    expect(compileFilter({ docId: { $ne: 5 } })).toEqual({ sql: 'TRUE', exact: true });
    expect(compileFilter({ docId: { $in: ['a', "b'c"] } })).toEqual({ sql: "(doc_id IN ('a', 'b''c'))", exact: true });
    expect(compileFilter({ $or: [{ docId: 5 }, { lang: 'x' }], missing: { $in: [] } })).toEqual({ sql: 'FALSE', exact: true });
  });
});

let directory: Awaited<ReturnType<typeof temporaryDirectory>>;
let connection: lancedb.Connection;

beforeAll(async () => {
  directory = await temporaryDirectory('zerda-lancedb-filters-');
  connection = await lancedb.connect(directory.path);
});

afterAll(async () => {
  connection?.close();
  await directory?.remove();
});

async function idsFromStore(store: LanceDbVectorStore, filter: MetadataFilter): Promise<string[]> {
  const hits = await store.search([1, 0, 0], { k: 10_000, filter });
  return hits.map((hit) => hit.chunk.id).sort();
}

/** Ids the compiled SQL alone selects (no post-filter). */
async function idsFromSql(table: lancedb.Table, sql: string): Promise<string[]> {
  const rows = (await table.query().where(sql).select(['id']).limit(100_000).toArray()) as Array<{ id: string }>;
  return rows.map((row) => row.id).sort();
}

describe('filters in LanceDB', () => {
  it('survive hostile keys and values: right results, table intact', async () => {
    const store = new LanceDbVectorStore({ connection, table: uniqueTable('hostile'), textSearch: false });
    const chunks = hostileChunks(HOSTILE_KEYS, HOSTILE_VALUES);
    await store.add(chunks);
    const table = await connection.openTable(store.tableName);
    // Every key with two of the values (the SQL-text test above covers the full cross product).
    for (const [i, key] of HOSTILE_KEYS.entries()) {
      for (const index of [i % HOSTILE_VALUES.length, (i + 5) % HOSTILE_VALUES.length]) {
        const value = HOSTILE_VALUES[index]!;
        for (const filter of [
          { [key]: value },
          { [`${key}-list`]: value },
          { [`${key}-list`]: index },
          { [key]: { $gte: value } },
          { $not: { [key]: { $in: [value] } } },
          { docId: `doc'${index}` },
        ]) {
          const parsed = parseMetadataFilter(filter);
          const expected = idsMatchingFilter(chunks, parsed);
          expect({ filter, ids: await idsFromStore(store, parsed) }).toEqual({ filter, ids: expected });
          const compiled = compileFilter(parsed);
          if (compiled.exact) expect({ filter, ids: await idsFromSql(table, compiled.sql) }).toEqual({ filter, ids: expected });
        }
      }
    }
    expect(await store.count()).toBe(chunks.length);
    expect(await connection.tableNames()).toContain(store.tableName);
    table.close();
    await store.close();
  });

  it('order strings by UTF-16 code unit like JavaScript, post-filtering where byte order differs', async () => {
    const store = new LanceDbVectorStore({ connection, table: uniqueTable('order'), textSearch: false });
    const values = ['\uFFFF', '😀', '\uE000', '\uD7FF', 'z', 'ي', '', 'a😀', 'a\uFFFD', '\u{10FFFF}'];
    const chunks = values.map((value, i) => chunkWithMetadata(`s${i}`, { value }, `doc${i}`, value.length > 0 ? value : 'empty', i));
    await store.add(chunks);
    for (const bound of values) {
      for (const operator of ['$gt', '$gte', '$lt', '$lte'] as const) {
        for (const filter of [{ value: { [operator]: bound } }, { source: { [operator]: bound } }, { $not: { value: { [operator]: bound } } }]) {
          expect({ filter, ids: await idsFromStore(store, filter) }).toEqual({ filter, ids: idsMatchingFilter(chunks, filter) });
        }
      }
    }
    await store.close();
  });

  it('fill k through post-filtering when the SQL part is only a superset', async () => {
    const store = new LanceDbVectorStore({ connection, table: uniqueTable('overfetch'), textSearch: false, overFetch: 1 });
    // 60 chunks with a string value; the filter keeps the 5 farthest from the query.
    const chunks = Array.from({ length: 60 }, (_, i) => ({ ...chunkWithMetadata(`c${i}`, { value: i >= 55 ? '\uFFFF' : 'a' }), embedding: [1, i, 0] }));
    await store.add(chunks);
    const filter = { value: { $gt: '\uE000' } };
    expect(compileFilter(filter).exact).toBe(false);
    const hits = await store.search([1, 0, 0], { k: 3, filter });
    expect(hits.map((hit) => hit.chunk.id)).toEqual(['c55', 'c56', 'c57']);
    await store.close();
  });

  it('agree with matchesFilter on random chunks and random filters (differential property)', async () => {
    const store = new LanceDbVectorStore({ connection, table: uniqueTable('property'), textSearch: false });
    const { row, filter } = filterArbitraries(fc);

    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 25 }), fc.array(filter, { minLength: 1, maxLength: 10 }), async (rows, filters) => {
        const chunks = rows.map((generated, i) => chunkWithMetadata(`c${i}`, generated.metadata as Metadata, generated.docId, generated.source, i));
        await store.clear();
        await store.add(chunks);
        const table = await connection.openTable(store.tableName);
        try {
          for (const generated of filters) {
            const parsed = parseMetadataFilter(generated);
            const expected = idsMatchingFilter(chunks, parsed);
            const actual = await idsFromStore(store, parsed);
            if (JSON.stringify(actual) !== JSON.stringify(expected)) {
              throw new Error(`filter ${JSON.stringify(parsed)}: the store returned ${JSON.stringify(actual)}, matchesFilter ${JSON.stringify(expected)}`);
            }
            // The SQL alone: exactly the matches when it claims to be exact, a superset otherwise.
            const compiled = compileFilter(parsed);
            const selected = await idsFromSql(table, compiled.sql);
            const ok = compiled.exact ? JSON.stringify(selected) === JSON.stringify(expected) : expected.every((id) => selected.includes(id));
            if (!ok) throw new Error(`filter ${JSON.stringify(parsed)} compiled to ${compiled.sql} (exact: ${compiled.exact}) selects ${JSON.stringify(selected)}, expected ${JSON.stringify(expected)}`);
          }
        } finally {
          table.close();
        }
      }),
      { numRuns: 40 },
    );
    await store.close();
  });
});

describe('deep filters (issue 15, defect 4)', () => {
  it('a $and / $or / $not nest of 5,000 levels is refused with ZERDA_INVALID_FILTER, not a stack overflow', async () => {
    for (const filter of deepFilters()) await expectZerdaError(async () => compileFilter(filter), ['ZERDA_INVALID_FILTER']);
  });
});
