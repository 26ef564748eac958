import type { PGlite } from '@electric-sql/pglite';
import { ZerdaError, type DocumentChunk, type VectorMetric } from '@zerda/types';
import { seededRandom, expectZerdaError } from '@zerda/vector-conformance';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPGlite, temporaryDirectory, uniqueCollection } from './__fixtures__/databases.js';
import { recordingClient } from './__fixtures__/recording-client.js';
import { createNodePostgresStore, createPGliteStore } from './create-store.js';
import { PgVectorStore, type PgVectorStoreOptions } from './pgvector-store.js';
import { fromPGlite, type SqlClient } from './sql-client.js';

let database: PGlite;

beforeAll(async () => {
  database = await startPGlite();
}, 60_000);

afterAll(async () => {
  await database?.close();
});

function store(options: Partial<PgVectorStoreOptions> = {}): PgVectorStore {
  return new PgVectorStore({ connection: database, collection: uniqueCollection(), ...options });
}

/** Seeded vectors, so failures reproduce. */
function randomVectors(count: number, dimensions: number, seed: number): Float32Array[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => Float32Array.from({ length: dimensions }, () => next() * 2 - 1));
}

function chunk(id: string, embedding: ArrayLike<number>, extra: Partial<DocumentChunk> = {}): DocumentChunk {
  const vector = embedding instanceof Float32Array ? embedding : Array.from(embedding);
  return { id, docId: extra.docId ?? id.split('#')[0]!, text: `text ${id}`, source: 'test', metadata: {}, position: { index: 0 }, embedding: vector, ...extra };
}

function thrown(action: () => unknown): ZerdaError {
  try {
    action();
  } catch (error) {
    if (ZerdaError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a throw');
}

async function indexDefinitions(table: string): Promise<string[]> {
  const { rows } = await database.query<{ indexdef: string }>('SELECT indexdef FROM pg_indexes WHERE tablename = $1 ORDER BY indexname', [table]);
  return rows.map((row) => row.indexdef);
}

function exactSimilarities(metric: VectorMetric, query: Float32Array, vectors: Float32Array[]): number[] {
  return vectors.map((vector) => {
    let dot = 0;
    let queryNorm = 0;
    let norm = 0;
    let squared = 0;
    for (let i = 0; i < query.length; i++) {
      dot += query[i]! * vector[i]!;
      queryNorm += query[i]! * query[i]!;
      norm += vector[i]! * vector[i]!;
      squared += (query[i]! - vector[i]!) ** 2;
    }
    return metric === 'cosine' ? dot / Math.sqrt(queryNorm * norm) : metric === 'ip' ? dot : 1 / (1 + Math.sqrt(squared));
  });
}

describe('options and names', () => {
  it('refuses collection, schema and configuration names outside the strict pattern, naming the field', () => {
    for (const collection of ['Robert"); DROP TABLE students; --', 'UpperCase', '1starts_with_digit', 'has-dash', 'a'.repeat(64), '', 'مجموعة', 'x y']) {
      const error = thrown(() => store({ collection }));
      expect(error.code).toBe('ZERDA_INVALID_ARGUMENT');
      expect(error.message).toContain('options.collection');
    }
    expect(thrown(() => store({ schema: 'public; DROP SCHEMA public' })).message).toContain('options.schema');
    expect(thrown(() => store({ textSearchConfigurations: ["english'); --"] })).message).toContain('options.textSearchConfigurations[0]');
    expect(store({ collection: 'a'.repeat(63) }).collection).toHaveLength(63);
  });

  it('validates every option with a ZerdaError that names it', () => {
    const cases: Array<[Partial<PgVectorStoreOptions>, string]> = [
      [{ metric: 'dot' as VectorMetric }, 'options.metric'],
      [{ dimensions: 0 }, 'options.dimensions'],
      [{ dimensions: 1.5 }, 'options.dimensions'],
      [{ hnsw: { m: 1 } }, 'options.hnsw.m'],
      [{ hnsw: { m: 16, efConstruction: 20 } }, 'options.hnsw.efConstruction'],
      [{ hnsw: { mm: 3 } as never }, 'options.hnsw.mm'],
      [{ efSearch: 0 }, 'options.efSearch'],
      [{ efSearch: 1001 }, 'options.efSearch'],
      [{ batchSize: -1 }, 'options.batchSize'],
      [{ iterativeScan: 'sometimes' as never }, 'options.iterativeScan'],
      [{ textSearch: 'yes' as never }, 'options.textSearch'],
      [{ textSearchConfigurations: [] }, 'options.textSearchConfigurations'],
      [{ unknownOption: true } as never, 'options.unknownOption'],
    ];
    for (const [options, field] of cases) expect(thrown(() => store(options)).message).toContain(field);
    expect(thrown(() => new PgVectorStore({ connection: { nope: true } as never })).message).toContain('options.connection');
    expect(thrown(() => new PgVectorStore(null as never)).code).toBe('ZERDA_INVALID_ARGUMENT');
  });

  it('refuses an HNSW index above pgvector\'s 2000 dimensions, and allows exact search there', async () => {
    expect(thrown(() => store({ dimensions: 2001 })).code).toBe('ZERDA_UNSUPPORTED');
    const exact = store({ dimensions: 2001, hnsw: false, textSearch: false });
    await exact.add([chunk('wide', new Float32Array(2001).fill(0.5))]);
    expect((await exact.search(new Float32Array(2001).fill(0.5), { k: 1 }))[0]!.chunk.id).toBe('wide');
    const lazy = store();
    expect((await expectZerdaError(() => lazy.add([chunk('wide', new Float32Array(2001).fill(1))]))).code).toBe('ZERDA_UNSUPPORTED');
    expect(await lazy.count()).toBe(0);
  });
});

describe('ensureSchema', () => {
  it('creates the table, the HNSW index with the chosen parameters and opclass, and GIN indexes — idempotently', async () => {
    for (const [metric, operatorClass] of [['cosine', 'vector_cosine_ops'], ['ip', 'vector_ip_ops'], ['l2', 'vector_l2_ops']] as const) {
      const collection = uniqueCollection(metric);
      const created = store({ collection, metric, dimensions: 4, hnsw: { m: 8, efConstruction: 40 } });
      await created.ensureSchema();
      await created.ensureSchema();
      await store({ collection, metric }).ensureSchema();
      const definitions = await indexDefinitions(collection);
      const hnsw = definitions.filter((definition) => definition.includes('USING hnsw'));
      expect(hnsw).toHaveLength(1);
      expect(hnsw[0]).toContain(operatorClass);
      expect(hnsw[0]).toMatch(/m='?8'?/);
      expect(hnsw[0]).toMatch(/ef_construction='?40'?/);
      expect(definitions.some((definition) => definition.includes('USING gin (metadata jsonb_path_ops)'))).toBe(true);
      expect(definitions.some((definition) => definition.includes('USING gin (tsv)'))).toBe(true);
      expect(definitions.some((definition) => definition.includes('(doc_id)'))).toBe(true);
      expect(definitions).toHaveLength(5); // primary key, doc_id, metadata, tsv, hnsw
    }
  });

  it('records the layout version and metric in the table comment, and the dimension in the column type', async () => {
    const created = store({ dimensions: 6, metric: 'l2' });
    await created.ensureSchema();
    const { rows } = await database.query<{ comment: string; type: string }>(
      `SELECT obj_description(c.oid, 'pg_class') AS comment, format_type(a.atttypid, a.atttypmod) AS type
         FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'embedding' WHERE c.relname = $1`,
      [created.collection],
    );
    expect(JSON.parse(rows[0]!.comment)).toEqual({ zerda: 'vector-pgvector', schemaVersion: 1, metric: 'l2' });
    expect(rows[0]!.type).toBe('vector(6)');
  });

  it('learns the dimension of an existing table from the catalog', async () => {
    const collection = uniqueCollection();
    await store({ collection, dimensions: 5 }).ensureSchema();
    const reopened = await PgVectorStore.open({ connection: database, collection });
    expect(reopened.dimensions).toBe(5);
    const error = await expectZerdaError(() => reopened.add([chunk('x', [1, 2, 3])]));
    expect(error.code).toBe('ZERDA_DIMENSION_MISMATCH');
  });

  it('refuses an existing table with another dimension, naming the table and both dimensions', async () => {
    const collection = uniqueCollection();
    await store({ collection, dimensions: 4 }).ensureSchema();
    const error = await expectZerdaError(() => store({ collection, dimensions: 8 }).ensureSchema());
    expect(error.code).toBe('ZERDA_DIMENSION_MISMATCH');
    expect(error.message).toContain(collection);
    expect(error.message).toContain('vector(4)');
    expect(error.message).toContain('8');
  });

  it('refuses an existing table built for another metric, a foreign table and a newer layout', async () => {
    const collection = uniqueCollection();
    await store({ collection, dimensions: 4, metric: 'cosine' }).ensureSchema();
    const metricError = await expectZerdaError(() => store({ collection, metric: 'l2' }).ensureSchema());
    expect(metricError.code).toBe('ZERDA_INVALID_CONFIG');
    expect(metricError.message).toContain('"cosine"');

    const foreign = uniqueCollection('foreign');
    await database.query(`CREATE TABLE ${foreign} (id text primary key, embedding vector(4))`);
    const foreignError = await expectZerdaError(() => store({ collection: foreign }).ensureSchema());
    expect(foreignError.code).toBe('ZERDA_STORE_CORRUPT');
    expect(foreignError.message).toContain('not created by @zerda/vector-pgvector');

    const newer = uniqueCollection('newer');
    await store({ collection: newer, dimensions: 4 }).ensureSchema();
    await database.query(`COMMENT ON TABLE ${newer} IS '{"zerda":"vector-pgvector","schemaVersion":99,"metric":"cosine"}'`);
    const newerError = await expectZerdaError(() => store({ collection: newer }).ensureSchema());
    expect(newerError.code).toBe('ZERDA_STORE_CORRUPT');
    expect(newerError.message).toContain('version 99');
  });

  it('says clearly when the vector extension is missing and may not be created', async () => {
    const statements: string[] = [];
    const bare: SqlClient = {
      query: async <Row>(text: string) => {
        statements.push(text);
        return { rows: [] as Row[] };
      },
      transaction: (fn) => fn(bare),
    };
    const error = await expectZerdaError(() => new PgVectorStore({ connection: bare, createExtension: false }).ensureSchema());
    expect(error.code).toBe('ZERDA_NOT_READY');
    expect(error.message).toContain('CREATE EXTENSION vector');
    expect(statements.some((text) => text.includes('CREATE EXTENSION'))).toBe(false);
  });

  it('lets several stores (as several processes would) create the same collection at once', async () => {
    const collection = uniqueCollection('race');
    const stores = Array.from({ length: 4 }, () => store({ collection }));
    await Promise.all(stores.map((each, i) => each.add([chunk(`r${i}`, [i, 1])])));
    expect(await stores[0]!.count()).toBe(4);
  });

  it('creates a missing schema, and keeps collections in different schemas apart', async () => {
    const schema = uniqueCollection('schema');
    const collection = uniqueCollection();
    const inSchema = store({ schema, collection });
    const inPublic = store({ collection });
    await inSchema.add([chunk('s', [1, 0])]);
    await inPublic.add([chunk('p1', [0, 1]), chunk('p2', [1, 1])]);
    expect(await inSchema.count()).toBe(1);
    expect(await inPublic.count()).toBe(2);
    expect(inSchema.qualifiedTableName).toBe(`"${schema}"."${collection}"`);
  });

  it('defers the HNSW index for bulk loads until createIndex(), which is idempotent; dropIndex removes it', async () => {
    const deferred = store({ deferIndex: true, hnsw: { m: 12, efConstruction: 48 } });
    const vectors = randomVectors(60, 8, 1);
    await deferred.add(vectors.map((vector, i) => chunk(`v${i}`, vector)));
    expect((await indexDefinitions(deferred.collection)).filter((definition) => definition.includes('hnsw'))).toHaveLength(0);
    await deferred.createIndex({ maintenanceWorkMem: '64MB' });
    await deferred.createIndex();
    const hnsw = (await indexDefinitions(deferred.collection)).filter((definition) => definition.includes('hnsw'));
    expect(hnsw).toHaveLength(1);
    expect(hnsw[0]).toMatch(/m='?12'?/);
    await deferred.dropIndex();
    expect((await indexDefinitions(deferred.collection)).filter((definition) => definition.includes('hnsw'))).toHaveLength(0);
    expect((await expectZerdaError(() => deferred.createIndex({ maintenanceWorkMem: "1GB'; DROP TABLE x" }))).message).toContain('options.maintenanceWorkMem');
    expect((await expectZerdaError(() => store().createIndex())).code).toBe('ZERDA_NOT_READY');
  });
});

describe('writes', () => {
  it('upserts in batches: re-adding ids updates them, and every field round-trips', async () => {
    const batched = store({ batchSize: 3 });
    const chunks = Array.from({ length: 10 }, (_, i) =>
      chunk(`doc${i % 3}#${i}`, [i, 1, 0], { text: `نص رقم ${i} — text ${i}`, title: i % 2 ? `عنوان ${i}` : undefined, metadata: { i, even: i % 2 === 0, tags: ['a', `t${i}`] }, timestamp: 1_700_000_000_000 + i, position: { index: i, total: 10, start: i * 10, end: i * 10 + 9 } }),
    );
    for (const value of chunks) if (value.title === undefined) delete value.title;
    await batched.add(chunks);
    expect(await batched.count()).toBe(10);
    await batched.add([chunk('doc0#0', [0, 0, 1], { text: 'replaced', metadata: { replaced: true } })]);
    expect(await batched.count()).toBe(10);
    const [replaced] = await batched.get(['doc0#0']);
    expect(replaced!.text).toBe('replaced');
    expect(replaced!.metadata).toEqual({ replaced: true });
    expect(Array.from(replaced!.embedding!)).toEqual([0, 0, 1]);
    const got = await batched.get(['doc1#7', 'missing', 'doc2#2', 'doc1#7']);
    expect(got.map((value) => value.id)).toEqual(['doc1#7', 'doc2#2', 'doc1#7']);
    const { embedding: _embedding, ...expected } = chunks[7]!;
    const { embedding: stored, ...actual } = got[0]!;
    expect(actual).toEqual(expected);
    expect(Array.from(stored!)).toEqual([7, 1, 0]);
  });

  it('rolls back the whole add when the 2nd INSERT fails (fault injected in the driver)', async () => {
    const client = recordingClient(fromPGlite(database as never));
    const faulty = new PgVectorStore({ connection: client, collection: uniqueCollection(), batchSize: 2 });
    await faulty.add([chunk('keep', [1, 0], { text: 'original' })]);
    let inserts = 0;
    client.failWhen = (statement) => (statement.text.trimStart().startsWith('INSERT') && ++inserts === 2 ? new Error('connection reset by peer') : undefined);
    const error = await expectZerdaError(() => faulty.add([chunk('keep', [0, 1], { text: 'changed' }), chunk('new1', [1, 1]), chunk('new2', [1, 2]), chunk('new3', [2, 1])]));
    expect(error.code).toBe('ZERDA_BACKEND_ERROR');
    expect(error.message).toContain('connection reset by peer');
    expect(inserts).toBe(2);
    client.failWhen = undefined;
    expect(await faulty.count()).toBe(1);
    expect((await faulty.get(['keep']))[0]!.text).toBe('original');
  });

  it('rolls back the whole add when PostgreSQL rejects a row of the 2nd batch', async () => {
    const strict = store({ batchSize: 2 });
    await strict.add([chunk('keep', [1, 0], { text: 'original' })]);
    await database.query(`ALTER TABLE ${strict.collection} ADD CONSTRAINT no_boom CHECK (text <> 'boom')`);
    const error = await expectZerdaError(() => strict.add([chunk('keep', [0, 1], { text: 'changed' }), chunk('a', [1, 1]), chunk('b', [1, 2], { text: 'boom' })]));
    expect(error.code).toBe('ZERDA_BACKEND_ERROR');
    expect(error.message).toContain('no_boom');
    expect(await strict.count()).toBe(1);
    expect((await strict.get(['keep']))[0]!.text).toBe('original');
  });

  it('validates the whole batch before any SQL runs', async () => {
    const client = recordingClient(fromPGlite(database as never));
    const checked = new PgVectorStore({ connection: client, collection: uniqueCollection(), dimensions: 2 });
    const bad: Array<[DocumentChunk[], string]> = [
      [[chunk('a', [1, 0]), chunk('b', Float32Array.of(Number.NaN, 0))], 'ZERDA_INVALID_EMBEDDING'],
      [[chunk('a', [1, 0]), chunk('b', [1, 0, 0])], 'ZERDA_DIMENSION_MISMATCH'],
      [[chunk('a', [1, 0]), { ...chunk('b', [1, 0]), embedding: undefined }], 'ZERDA_INVALID_EMBEDDING'],
      [[chunk('a', [1, 0]), chunk('b', [1, 0], { text: 'nul \u0000 inside' })], 'ZERDA_INVALID_ARGUMENT'],
      [[chunk('a', [1, 0]), chunk('b', [1, 0], { metadata: { ['key\u0000']: 1 } })], 'ZERDA_INVALID_ARGUMENT'],
      [[chunk('a', [1, 0]), chunk('b', [1, 0], { metadata: { lone: 'x\ud800y' } })], 'ZERDA_INVALID_ARGUMENT'],
      [[chunk('a', [1, 0]), chunk('a', [0, 1])], 'ZERDA_INVALID_ARGUMENT'],
    ];
    for (const [chunks, code] of bad) expect((await expectZerdaError(() => checked.add(chunks))).code).toBe(code);
    expect(client.statements).toHaveLength(0);
    const textError = await expectZerdaError(() => checked.add([chunk('b', [1, 0], { text: 'nul \u0000 inside' })]));
    expect(textError.message).toContain('chunks[0].text');
    expect(textError.message).toContain('U+0000');
  });

  it('deletes by id and by document id, in any number, and clears', async () => {
    const target = store({ textSearch: false });
    await target.add(Array.from({ length: 30 }, (_, i) => chunk(`d${i % 5}#${i}`, [i, 1])));
    await target.delete(['d0#0', 'd1#1', 'unknown', 'd0#0']);
    expect(await target.count()).toBe(28);
    await target.deleteByDocIds(['d2', 'd3', 'nobody']);
    expect(await target.count()).toBe(16);
    expect((await target.search([1, 1], { k: 100, exact: true })).every((hit) => !['d2', 'd3'].includes(hit.chunk.docId))).toBe(true);
    await target.clear();
    expect(await target.count()).toBe(0);
    expect(target.dimensions).toBe(2);
    expect((await expectZerdaError(() => target.delete('d0#5' as never))).message).toContain('ids');
    expect((await expectZerdaError(() => target.deleteByDocIds([1 as never]))).message).toContain('docIds[0]');
  });
});

describe('search', () => {
  it('matches exact search (computed here) for every metric, with pgvector distances converted to similarities', async () => {
    const vectors = randomVectors(80, 12, 7);
    const query = randomVectors(1, 12, 99)[0]!;
    for (const metric of ['cosine', 'ip', 'l2'] as const) {
      const target = store({ metric });
      await target.add(vectors.map((vector, i) => chunk(`v${i}`, vector)));
      const expected = exactSimilarities(metric, query, vectors)
        .map((score, i) => ({ id: `v${i}`, score }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 10);
      const hits = await target.search(query, { k: 10, exact: true });
      expect(hits.map((hit) => hit.chunk.id)).toEqual(expected.map((entry) => entry.id));
      hits.forEach((hit, i) => expect(hit.score).toBeCloseTo(expected[i]!.score, 4));
    }
  });

  it('sets hnsw.ef_search for the query only (SET LOCAL in a transaction), at least k', async () => {
    const client = recordingClient(fromPGlite(database as never));
    const target = new PgVectorStore({ connection: client, collection: uniqueCollection(), efSearch: 64 });
    await target.add(randomVectors(20, 4, 3).map((vector, i) => chunk(`v${i}`, vector)));
    client.statements.length = 0;
    await target.search([1, 0, 0, 0], { k: 5 });
    expect(client.statements.find((statement) => statement.text.includes('set_config'))).toMatchObject({ params: ['hnsw.ef_search', '64'], inTransaction: true });
    client.statements.length = 0;
    await target.search([1, 0, 0, 0], { k: 300, efSearch: 100 });
    expect(client.statements.find((statement) => statement.text.includes('set_config'))?.params).toEqual(['hnsw.ef_search', '300']);
    const { rows } = await database.query<{ value: string }>("SELECT current_setting('hnsw.ef_search') AS value");
    expect(rows[0]!.value).toBe('40');
    expect((await expectZerdaError(() => target.search([1, 0, 0, 0], { k: 1, efSearch: 5000 }))).message).toContain('options.efSearch');
  });

  it('returns k hits through the HNSW index even when k exceeds the default ef_search, and filtered queries fill k (iterative scan)', async () => {
    const vectors = randomVectors(400, 16, 11);
    const target = store();
    await target.add(vectors.map((vector, i) => chunk(`v${i}`, vector, { metadata: { bucket: i % 20 } })));
    const query = vectors[0]!;
    await database.exec('SET enable_seqscan = off; SET enable_bitmapscan = off');
    try {
      const plan = await database.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT id FROM ${target.collection} ORDER BY embedding <=> $1::vector LIMIT 5`, [`[${Array.from(query).join(',')}]`]);
      expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toContain('_embedding_hnsw');
      expect(await target.search(query, { k: 120 })).toHaveLength(120);
      const filtered = await target.search(query, { k: 15, filter: { bucket: 3 } });
      expect(filtered).toHaveLength(15);
      expect(filtered.every((hit) => hit.chunk.metadata.bucket === 3)).toBe(true);
      const exact = await target.search(query, { k: 15, filter: { bucket: 3 }, exact: true });
      expect(exact).toHaveLength(15);
      expect(exact.every((hit) => hit.chunk.metadata.bucket === 3)).toBe(true);
      const recall = filtered.filter((hit) => exact.some((other) => other.chunk.id === hit.chunk.id)).length / exact.length;
      expect(recall).toBeGreaterThanOrEqual(0.8);
    } finally {
      await database.exec('RESET enable_seqscan; RESET enable_bitmapscan');
    }
  });

  it('scores a zero vector 0 under cosine, never NaN', async () => {
    const target = store({ hnsw: false });
    await target.add([chunk('zero', [0, 0, 0]), chunk('same', [1, 0, 0]), chunk('opposite', [-1, 0, 0])]);
    const hits = await target.search([1, 0, 0], { k: 3, exact: true });
    expect(hits.map((hit) => [hit.chunk.id, hit.score])).toEqual([
      ['same', 1],
      ['zero', 0],
      ['opposite', -1],
    ]);
  });

  it('restricts candidates to ids, omits embeddings when asked, and validates its options', async () => {
    const target = store({ includeEmbeddings: false });
    await target.add([chunk('a', [1, 0]), chunk('b', [0.9, 0.1]), chunk('c', [0, 1])]);
    const hits = await target.search([1, 0], { k: 5, ids: new Set(['c', 'b', 'unknown']) });
    expect(hits.map((hit) => hit.chunk.id)).toEqual(['b', 'c']);
    expect((await target.search([1, 0], { k: 5, ids: ['a', 'c'], filter: { docId: 'c' } })).map((hit) => hit.chunk.id)).toEqual(['c']);
    expect(hits[0]!.chunk.embedding).toBeUndefined();
    expect(await target.search([1, 0], { k: 5, ids: [] })).toEqual([]);
    expect((await expectZerdaError(() => target.search([1, 0], { k: 5, ids: 'a' as never }))).message).toContain('options.ids');
    expect((await expectZerdaError(() => target.search([1, 0], { k: 5, exact: 'yes' as never }))).message).toContain('options.exact');
    expect((await expectZerdaError(() => target.search([1, 0], { k: 1, filter: { tag: 'nul\u0000' } }))).code).toBe('ZERDA_INVALID_FILTER');
  });
});

describe('text search', () => {
  const corpus: Array<[string, string, string | undefined]> = [
    ['en-library', 'The city libraries are running reading programs for children.', 'Public libraries'],
    ['en-cats', 'Cats sleep for most of the day and hunt at night.', undefined],
    ['en-title', 'Opening hours change in summer.', 'Library schedule'],
    ['ar-library', 'افتتحت المكتبةُ العامّة في المدينة قسماً جديداً للأطفال، وتضم آلاف الكتب.', 'مكتبات المدينة'],
    ['ar-diacritics', 'المَكْتَبَاتُ الـــعامة تفتح أبوابها صباحاً؟', undefined],
    ['ar-alef', 'إنشاء مكتبة رقمية أحمد؛ آفاق جديدة', undefined],
    ['mixed', 'The مكتبة has a new Python workshop ورشة بايثون', undefined],
  ];

  async function textStore(): Promise<PgVectorStore> {
    const target = store();
    await target.add(corpus.map(([id, text, title], i) => chunk(id, [1, i], { text, ...(title ? { title } : {}), metadata: { lang: id.slice(0, 2) } })));
    return target;
  }

  it('stores a text-search configuration per chunk from its language', async () => {
    const target = await textStore();
    const { rows } = await database.query<{ id: string; language: string }>(`SELECT id, language::text AS language FROM ${target.collection} ORDER BY id`);
    expect(Object.fromEntries(rows.map((row) => [row.id, row.language]))).toEqual({
      'en-library': 'english',
      'en-cats': 'english',
      'en-title': 'english',
      'ar-library': 'arabic',
      'ar-diacritics': 'arabic',
      'ar-alef': 'arabic',
      mixed: 'simple',
    });
  });

  it('finds English by stem and ranks title matches, with scores >= 0 best first', async () => {
    const target = await textStore();
    const hits = await target.textSearch('library runs', { k: 10 });
    expect(hits.map((hit) => hit.chunk.id)).toEqual(expect.arrayContaining(['en-library', 'en-title']));
    expect(hits[0]!.chunk.id).toBe('en-library');
    for (let i = 0; i < hits.length; i++) {
      expect(hits[i]!.score).toBeGreaterThan(0);
      if (i > 0) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
    }
    expect((await target.textSearch('cat', { k: 10 })).map((hit) => hit.chunk.id)).toEqual(['en-cats']);
  });

  it('finds Arabic through stemming, diacritics, tatweel and alef variants', async () => {
    const target = await textStore();
    const libraries = (await target.textSearch('المكتبات', { k: 10 })).map((hit) => hit.chunk.id);
    expect(libraries).toEqual(expect.arrayContaining(['ar-library', 'ar-diacritics', 'ar-alef']));
    expect(libraries).not.toContain('en-library');
    expect((await target.textSearch('مَكْتَبَة', { k: 10 })).map((hit) => hit.chunk.id)).toEqual(expect.arrayContaining(['ar-library', 'ar-alef']));
    expect((await target.textSearch('العامة', { k: 10 })).map((hit) => hit.chunk.id)).toEqual(expect.arrayContaining(['ar-library', 'ar-diacritics']));
    expect((await target.textSearch('احمد', { k: 10 })).map((hit) => hit.chunk.id)).toEqual(['ar-alef']);
    expect((await target.textSearch('انشاء؟', { k: 10 })).map((hit) => hit.chunk.id)).toEqual(['ar-alef']);
  });

  it('finds words of mixed Arabic/English chunks', async () => {
    const target = await textStore();
    expect((await target.textSearch('python', { k: 10 })).map((hit) => hit.chunk.id)).toEqual(['mixed']);
    expect((await target.textSearch('ورشة', { k: 10 })).map((hit) => hit.chunk.id)).toEqual(['mixed']);
  });

  it('combines words with any (default), all, or web-search syntax, and applies filters', async () => {
    const target = await textStore();
    const any = (await target.textSearch('cats library', { k: 10 })).map((hit) => hit.chunk.id);
    expect(any).toEqual(expect.arrayContaining(['en-cats', 'en-library', 'en-title']));
    expect(await target.textSearch('cats library', { k: 10, match: 'all' })).toEqual([]);
    const web = (await target.textSearch('library -children', { k: 10, match: 'websearch' })).map((hit) => hit.chunk.id);
    expect(web).toContain('en-title');
    expect(web).not.toContain('en-library');
    const filtered = await target.textSearch('library مكتبة', { k: 10, filter: { lang: 'ar' } });
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((hit) => hit.chunk.metadata.lang === 'ar')).toBe(true);
    expect(await target.textSearch('   ', { k: 10 })).toEqual([]);
    // Stop words only: the english and arabic configurations drop them, and no 'simple' row contains them.
    expect(await target.textSearch('and of', { k: 10 })).toEqual([]);
    expect((await expectZerdaError(() => target.textSearch('x', { k: 10, match: 'some' as never }))).message).toContain('options.match');
  });

  it('treats hostile query text as words', async () => {
    const target = await textStore();
    for (const query of ["'; DROP TABLE x; --", 'a & b | !c <-> d', "\\' \" ) ( :*", 'تجربة\u0000']) {
      await expect(target.textSearch(query, { k: 5 })).resolves.toBeInstanceOf(Array);
    }
    expect(await target.count()).toBe(corpus.length);
  });

  it('is refused when the store was created without it', async () => {
    const plain = store({ textSearch: false });
    expect(plain.capabilities.textSearch).toBe(false);
    expect((await expectZerdaError(() => plain.textSearch('x', { k: 1 }))).code).toBe('ZERDA_UNSUPPORTED');
  });

  it('adds the text column to a table created without it, when text search is turned on', async () => {
    const collection = uniqueCollection();
    await store({ collection, textSearch: false }).add([chunk('cat', [1, 0], { text: 'cats purr' })]);
    const upgraded = await PgVectorStore.open({ connection: database, collection });
    expect((await upgraded.textSearch('cat', { k: 1 })).map((hit) => hit.chunk.id)).toEqual(['cat']);
  });
});

describe('lifecycle', () => {
  it('persists in a PGlite data directory: close, reopen, data and dimension present', async () => {
    const directory = await temporaryDirectory('zerda-pgvector-persist-');
    try {
      const first = await createPGliteStore({ dataDir: directory.path, collection: 'notes', metric: 'l2' });
      expect(first.capabilities.persistence).toBe(true);
      await first.add([chunk('n1', [1, 2, 3], { text: 'ملاحظة أولى', metadata: { tag: 'x' } }), chunk('n2', [3, 2, 1])]);
      await first.close();
      await expect(first.count()).rejects.toMatchObject({ code: 'ZERDA_NOT_READY' });
      const second = await createPGliteStore({ dataDir: directory.path, collection: 'notes', metric: 'l2' });
      expect(second.dimensions).toBe(3);
      expect(await second.count()).toBe(2);
      const [hit] = await second.search([1, 2, 3], { k: 1, filter: { tag: 'x' } });
      expect(hit!.chunk.text).toBe('ملاحظة أولى');
      expect(hit!.score).toBeCloseTo(1, 6);
      await second.close();
    } finally {
      await directory.remove();
    }
  });

  it('reports an in-memory PGlite as not persistent and leaves a borrowed connection open on close', async () => {
    const borrowed = store();
    expect(borrowed.capabilities.persistence).toBe(false);
    expect(store({ persistent: true }).capabilities.persistence).toBe(true);
    await borrowed.add([chunk('a', [1, 0])]);
    await borrowed.close();
    await borrowed.close();
    expect((await database.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
    await expect(borrowed.add([chunk('b', [1, 0])])).rejects.toMatchObject({ code: 'ZERDA_NOT_READY' });
  });

  it('connects with a connection string through createNodePostgresStore (pg over TCP), and ends its pool on close', async () => {
    const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
    const server = new PGLiteSocketServer({ db: database, host: '127.0.0.1', port: 0 });
    await server.start();
    try {
      const port = server.getServerConn().split(':').pop();
      const collection = uniqueCollection('remote');
      const remote = await createNodePostgresStore({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, pool: { max: 1 }, collection, dimensions: 2 });
      await remote.add([chunk('r', [0, 1], { text: 'عن بعد' })]);
      expect((await remote.search([0, 1], { k: 1 }))[0]!.chunk.text).toBe('عن بعد');
      await remote.close();
      // The pool ended: the server sees its connection go away.
      await vi.waitFor(() => expect(server.getStats().activeConnections).toBe(0), { timeout: 10_000 });
      expect(await new PgVectorStore({ connection: database, collection }).count()).toBe(1);
      await expect(createNodePostgresStore({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, collection: 'Bad Name' })).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT' });
    } finally {
      await server.stop();
    }
  });
});
