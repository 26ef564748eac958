import * as lancedb from '@lancedb/lancedb';
import { ZerdaError, type DocumentChunk } from '@zerda/types';
import { gaussianMixture, expectZerdaError } from '@zerda/vector-conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory, uniqueTable } from './__fixtures__/directories.js';
import { LanceDbVectorStore } from './lancedb-vector-store.js';

let directory: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeAll(async () => {
  directory = await temporaryDirectory('zerda-lancedb-store-');
});

afterAll(async () => {
  await directory?.remove();
});

function chunk(id: string, text: string, embedding: number[], extra: Partial<DocumentChunk> = {}): DocumentChunk {
  return { id, docId: id.split('#')[0]!, text, source: 'test', metadata: {}, position: { index: 0 }, embedding, ...extra };
}

function store(options: Partial<ConstructorParameters<typeof LanceDbVectorStore>[0]> = {}): LanceDbVectorStore {
  return new LanceDbVectorStore({ uri: directory.path, table: uniqueTable('store'), ...options });
}

describe('options', () => {
  it('rejects bad options with errors naming the field', () => {
    expect(() => new LanceDbVectorStore({} as never)).toThrow(/options\.uri/);
    expect(() => new LanceDbVectorStore({ uri: directory.path, table: 'bad name!' })).toThrow(/options\.table must be a table name/);
    expect(() => new LanceDbVectorStore({ uri: directory.path, table: '../escape' })).toThrow(/options\.table/);
    expect(() => new LanceDbVectorStore({ uri: directory.path, metric: 'dot' as never })).toThrow(/options\.metric must be one of/);
    expect(() => new LanceDbVectorStore({ uri: directory.path, dimensions: 0 })).toThrow(/options\.dimensions/);
    expect(() => new LanceDbVectorStore({ uri: directory.path, overFetch: 0 })).toThrow(/options\.overFetch/);
    expect(() => new LanceDbVectorStore({ uri: directory.path, efSearch: 5 } as never)).toThrow(/options\.efSearch must be a known option/);
    expect(() => new LanceDbVectorStore({ connection: {} as never })).toThrow(/options\.connection must be a LanceDB Connection/);
    expect(() => new LanceDbVectorStore({ uri: directory.path, analyzer: { stemmer: 'x' } as never })).toThrow(ZerdaError);
  });

  it('declares memory:// stores as not persistent', async () => {
    const memory = new LanceDbVectorStore({ uri: 'memory://zerda-test' });
    expect(memory.capabilities.persistence).toBe(false);
    await memory.add([chunk('a', 'x', [1, 0])]);
    expect(await memory.count()).toBe(1);
    await memory.close();
  });

  it('rejects search knobs of the wrong type', async () => {
    const s = store();
    await s.add([chunk('a', 'x', [1, 0])]);
    expect((await expectZerdaError(() => s.search([1, 0], { k: 1, nprobes: 0 }))).message).toMatch(/options\.nprobes/);
    expect((await expectZerdaError(() => s.search([1, 0], { k: 1, exact: 'yes' as never }))).message).toMatch(/options\.exact must be a boolean/);
    await s.close();
  });
});

describe('text LanceDB cannot store', () => {
  it('rejects lone surrogates with the field named, before writing anything', async () => {
    const s = store();
    await s.add([chunk('ok', 'fine', [1, 0])]);
    const inText = await expectZerdaError(() => s.add([chunk('a', 'bad \uD800 text', [1, 0])]));
    expect(inText.details.field).toBe('chunks[0].text');
    const inMetadata = await expectZerdaError(() => s.add([chunk('b', 'x', [1, 0], { metadata: { list: ['ok', '\uDC00'] } })]));
    expect(inMetadata.details.field).toBe('chunks[0].metadata.list[1]');
    expect(await s.count()).toBe(1);
    // A filter value LanceDB could never have stored simply matches nothing.
    expect(await s.search([1, 0], { k: 5, filter: { docId: '\uD800' } })).toEqual([]);
    expect((await s.search([1, 0], { k: 5, filter: { docId: { $ne: '\uD800' } } })).map((hit) => hit.chunk.id)).toEqual(['ok']);
    await s.close();
  });
});

describe('cosine and vectors without a direction', () => {
  it('scores a zero vector 0 and ranks it between positive and negative similarities', async () => {
    const s = store();
    await s.add([chunk('same', 'a', [1, 0]), chunk('zero', 'b', [0, 0]), chunk('opposite', 'c', [-1, 0]), chunk('half', 'd', [1, 1])]);
    const hits = await s.search([1, 0], { k: 10 });
    expect(hits.map((hit) => hit.chunk.id)).toEqual(['same', 'half', 'zero', 'opposite']);
    expect(hits[2]!.score).toBe(0);
    expect((await s.search([1, 0], { k: 3 })).map((hit) => hit.chunk.id)).toEqual(['same', 'half', 'zero']);
    expect((await s.search([1, 0], { k: 10, filter: { docId: { $in: ['zero', 'opposite'] } } })).map((hit) => hit.chunk.id)).toEqual(['zero', 'opposite']);
    await s.close();
  });
});

describe('textSearch', () => {
  const corpus = (): DocumentChunk[] => [
    chunk('ar1', 'ذَهَبَ الطُّلّابُ إلى المَكْتَبَةِ لِقِراءَةِ الكُتُبِ', [1, 0], { metadata: { lang: 'ar' } }),
    chunk('ar2', 'المكتبات العامة مفتوحة للجميع', [0, 1], { metadata: { lang: 'ar' } }),
    chunk('ar3', 'الطقس جميل اليوم في المدينة', [1, 1], { metadata: { lang: 'ar' } }),
    chunk('en1', 'The libraries were opened to readers', [1, 0], { metadata: { lang: 'en' } }),
    chunk('en2', 'A library opens early', [0, 1], { metadata: { lang: 'en' }, title: 'Opening hours' }),
    chunk('mix', 'مكتبة the library تفتح', [1, 1], { metadata: { lang: 'mixed' } }),
  ];

  it('matches Arabic through diacritics, tatweel, alef variants and light stemming', async () => {
    const s = store();
    await s.add(corpus());
    // Query without diacritics, with tatweel, plural against singular.
    const ids = async (query: string) => (await s.textSearch(query, { k: 10 })).map((hit) => hit.chunk.id).sort();
    expect(await ids('المكتبة')).toEqual(['ar1', 'ar2', 'mix']);
    expect(await ids('المكـــتبة')).toEqual(['ar1', 'ar2', 'mix']);
    expect(await ids('مَكْتَبَات')).toEqual(['ar1', 'ar2', 'mix']);
    expect(await ids('إلى الطقس')).toEqual(['ar3']);
    expect(await ids('library')).toEqual(['en1', 'en2', 'mix']);
    expect(await ids('opening')).toEqual(['en1', 'en2']);
    await s.close();
  });

  it('returns BM25 similarities >= 0 best first, honours k and filters, and forgets deleted chunks', async () => {
    const s = store();
    await s.add(corpus());
    const hits = await s.textSearch('library early', { k: 10 });
    expect(hits[0]!.chunk.id).toBe('en2');
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
    for (const hit of hits) expect(hit.score).toBeGreaterThanOrEqual(0);
    expect(await s.textSearch('library', { k: 1 })).toHaveLength(1);
    expect((await s.textSearch('library مكتبة', { k: 10, filter: { lang: { $in: ['ar', 'mixed'] } } })).map((hit) => hit.chunk.id).sort()).toEqual(['ar1', 'ar2', 'mix']);
    await s.delete(['mix']);
    await s.add([chunk('en1', 'Weather report only', [1, 0])]);
    expect((await s.textSearch('library', { k: 10 })).map((hit) => hit.chunk.id)).toEqual(['en2']);
    expect(await s.textSearch('the of and', { k: 10 })).toEqual([]);
    expect(await s.textSearch('', { k: 10 })).toEqual([]);
    expect(await s.textSearch('library', { k: 0 })).toEqual([]);
    await s.close();
  });

  it('ranks rows from every add exactly like a table indexed in one go (new rows are folded into the text index)', async () => {
    // A seeded Zipf-like corpus, English and Arabic words, added in three batches.
    const words = ['river', 'library', 'vector', 'nile', 'index', 'stemming', 'مكتبة', 'نهر', 'فهرس', 'بحث', 'عربي', 'ranking', 'query', 'budget', 'context', 'الكتب', 'token', 'model'];
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    const pick = () => words[Math.min(words.length - 1, Math.floor(words.length * next() ** 2))]!;
    const documents = Array.from({ length: 600 }, (_, i) => chunk(`z${i}`, Array.from({ length: 4 + Math.floor(next() * 20) }, pick).join(' '), [1, 0]));
    const incremental = new LanceDbVectorStore({ uri: directory.path, table: uniqueTable('fts_batches') });
    for (let start = 0; start < documents.length; start += 200) await incremental.add(documents.slice(start, start + 200));
    const reference = new LanceDbVectorStore({ uri: directory.path, table: uniqueTable('fts_whole') });
    await reference.add(documents);
    await reference.optimize();
    for (const query of ['nile river', 'مكتبة الكتب', 'vector index ranking', 'عربي budget', 'token model context']) {
      const expected = (await reference.textSearch(query, { k: 10 })).map((hit) => hit.chunk.id);
      expect(expected.length, query).toBe(10);
      expect((await incremental.textSearch(query, { k: 10 })).map((hit) => hit.chunk.id), query).toEqual(expected);
    }
    // And a row added after a query is found by the next one.
    await incremental.add([chunk('late', 'zebra giraffe مكتبة', [1, 0])]);
    expect((await incremental.textSearch('zebra', { k: 3 })).map((hit) => hit.chunk.id)).toEqual(['late']);
    await incremental.close();
    await reference.close();
  });

  it('is unsupported, with a clear error, when turned off', async () => {
    const s = store({ textSearch: false });
    expect(s.capabilities.textSearch).toBe(false);
    expect((await expectZerdaError(() => s.textSearch('x', { k: 1 }))).code).toBe('ZERDA_UNSUPPORTED');
    await s.close();
  });
});

describe('reopening', () => {
  it('adopts the table metric and dimension, keeps text search, and refuses conflicting options', async () => {
    const table = uniqueTable('reopen');
    const first = new LanceDbVectorStore({ uri: directory.path, table, metric: 'l2' });
    await first.add([chunk('a', 'المكتبة', [3, 4]), chunk('b', 'library', [0, 1])]);
    await first.close();
    const reopened = await LanceDbVectorStore.open({ uri: directory.path, table });
    expect(reopened.metric).toBe('l2');
    expect(reopened.dimensions).toBe(2);
    expect((await reopened.textSearch('مكتبات', { k: 5 })).map((hit) => hit.chunk.id)).toEqual(['a']);
    const [hit] = await reopened.search([3, 4], { k: 1 });
    expect(hit?.score).toBeCloseTo(1, 6);
    await reopened.close();

    const wrongMetric = await expectZerdaError(() => LanceDbVectorStore.open({ uri: directory.path, table, metric: 'cosine' }));
    expect(wrongMetric.message).toMatch(/options\.metric must be "l2"/);
    const wrongDimensions = await expectZerdaError(() => LanceDbVectorStore.open({ uri: directory.path, table, dimensions: 3 }));
    expect(wrongDimensions.code).toBe('ZERDA_DIMENSION_MISMATCH');
    const wrongAnalyzer = await expectZerdaError(() => LanceDbVectorStore.open({ uri: directory.path, table, analyzer: { stem: false } }));
    expect(wrongAnalyzer.message).toMatch(/options\.analyzer/);
  });

  it('refuses a table zerda did not create', async () => {
    const connection = await lancedb.connect(directory.path);
    const table = uniqueTable('foreign');
    await connection.createTable(table, [{ id: 'x', vector: [1, 2] }]);
    connection.close();
    const error = await expectZerdaError(() => LanceDbVectorStore.open({ uri: directory.path, table }));
    expect(error.code).toBe('ZERDA_UNSUPPORTED');
    expect(error.message).toMatch(/not created by zerda/);
  });

  it('drop removes the table; the next add creates it again', async () => {
    const s = store();
    await s.add([chunk('a', 'x', [1, 0])]);
    await s.drop();
    expect(await s.count()).toBe(0);
    expect(s.dimensions).toBeUndefined();
    await s.add([chunk('b', 'x', [1, 0, 0])]);
    expect(s.dimensions).toBe(3);
    await s.close();
    expect((await expectZerdaError(() => s.count())).code).toBe('ZERDA_NOT_READY');
  });
});

describe('vector index', () => {
  it('builds an IVF index and still finds near neighbours; exact search bypasses it', async () => {
    const s = store({ textSearch: false });
    const mixture = gaussianMixture({ seed: 7, clusters: 8, dimensions: 16, spread: 0.1 });
    const chunks = Array.from({ length: 600 }, (_, i) => {
      const { cluster, vector } = mixture.sample();
      return chunk(`p${i}`, `point ${i}`, Array.from(vector), { metadata: { cluster } });
    });
    await s.add(chunks);
    await expect(s.createVectorIndex({ type: 'ivfFlat', numPartitions: 4 })).resolves.toBeUndefined();
    const query = chunks[10]!.embedding as number[];
    const approximate = await s.search(query, { k: 10, nprobes: 4 });
    const exact = await s.search(query, { k: 10, exact: true });
    expect(exact[0]!.chunk.id).toBe('p10');
    // With every partition probed an IVF-flat index is exact.
    expect(approximate.map((hit) => hit.chunk.id)).toEqual(exact.map((hit) => hit.chunk.id));
    const cluster = chunks[10]!.metadata.cluster as number;
    const filtered = await s.search(query, { k: 5, filter: { cluster } });
    expect(filtered).toHaveLength(5);
    for (const hit of filtered) expect(hit.chunk.metadata.cluster).toBe(cluster);
    await s.optimize();
    expect(await s.count()).toBe(600);
    await s.close();
  });

  it('refuses to index a table that does not exist yet', async () => {
    const s = store();
    expect((await expectZerdaError(() => s.createVectorIndex())).code).toBe('ZERDA_NOT_READY');
    expect((await expectZerdaError(() => s.createVectorIndex({ type: 'flat' as never }))).message).toMatch(/options\.type/);
    await s.close();
  });
});

describe('get', () => {
  it('returns chunks in the order asked, with or without embeddings', async () => {
    const withEmbeddings = store();
    await withEmbeddings.add([chunk('a', 'x', [1, 0]), chunk('b', 'y', [0, 1])]);
    const got = await withEmbeddings.get(['b', 'missing', 'a', 'b']);
    expect(got.map((c) => c.id)).toEqual(['b', 'a', 'b']);
    expect(Array.from(got[0]!.embedding!)).toEqual([0, 1]);
    await withEmbeddings.close();
    const without = store({ includeEmbeddings: false });
    await without.add([chunk('a', 'x', [1, 0])]);
    expect((await without.get(['a']))[0]!.embedding).toBeUndefined();
    expect((await without.search([1, 0], { k: 1 }))[0]!.chunk.embedding).toBeUndefined();
    await without.close();
  });
});
