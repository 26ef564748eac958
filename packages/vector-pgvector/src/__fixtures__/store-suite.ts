import { KeywordRetriever } from '@zerda/retriever';
import { ZerdaError, type DocumentChunk, type VectorMetric, type VectorSearchHit } from '@zerda/types';
import { expectZerdaError, expectedSimilarity, seededRandom } from '@zerda/vector-conformance';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TERM_LENGTH } from '../keyword-index.js';
import type { PgVectorStoreOptions } from '../pgvector-options.js';
import { PgVectorStore } from '../pgvector-vector-store.js';
import { keywordIndexNames } from '../pgvector-schema.js';
import { toSqlClient, type SqlClient, type SqlConnection } from '../sql-client.js';
import { uniqueCollection } from './databases.js';
import { auditKeywordIndex } from './keyword-index-audit.js';
import { recordingClient } from './recording-client.js';

/** Where the suite runs: PGlite in process, or a PostgreSQL server through a node-postgres pool. */
export interface StoreHarness {
  /** A connection stores share (a PGlite instance or a pool); the harness owns it. */
  connection(): SqlConnection;
  /** A connection whose session settings hold for every statement (PGlite itself; a dedicated client on a server). */
  session(): Promise<{ connection: SqlConnection; release: () => Promise<void> }>;
}

/** Seeded vectors, so failures reproduce. */
export function randomVectors(count: number, dimensions: number, seed: number): Float32Array[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => Float32Array.from({ length: dimensions }, () => next() * 2 - 1));
}

export function chunk(id: string, embedding: ArrayLike<number>, extra: Partial<DocumentChunk> = {}): DocumentChunk {
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

/**
 * The store's hits equal `KeywordRetriever`'s for the same chunks and query: same scores (to
 * 1e-9 relative) in the same order; among equal scores the order may differ (the store breaks
 * ties by id, the retriever by insertion order), so ids are compared as sets per score.
 */
export function expectSameRanking(actual: VectorSearchHit[], expected: Array<{ chunk: { id: string }; score: number }>, context: string): void {
  const describe = (hits: Array<{ chunk: { id: string }; score: number }>) => hits.map((hit) => `${hit.chunk.id}:${hit.score.toFixed(6)}`).join(' ');
  const message = `${context}\n  store:     ${describe(actual)}\n  retriever: ${describe(expected)}`;
  expect(actual.length, message).toBe(expected.length);
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  actual.forEach((hit, i) => expect(close(hit.score, expected[i]!.score), message).toBe(true));
  // Group equal scores (the last group may be cut by k differently on each side: compare it only in size).
  let start = 0;
  while (start < expected.length) {
    let end = start + 1;
    while (end < expected.length && close(expected[end]!.score, expected[start]!.score)) end++;
    if (end < expected.length) {
      expect(new Set(actual.slice(start, end).map((hit) => hit.chunk.id)), message).toEqual(new Set(expected.slice(start, end).map((hit) => hit.chunk.id)));
    }
    start = end;
  }
}

const ENGLISH_WORDS = ['library', 'libraries', 'reading', 'reads', 'children', 'child', 'city', 'cities', 'opens', 'opening', 'summer', 'night', 'cats', 'cat', 'the', 'and', 'of', 'programs', 'program', 'public'];
const ARABIC_WORDS = ['مكتبة', 'المكتبات', 'مَكْتَبَة', 'الـــعامة', 'العامة', 'أطفال', 'للأطفال', 'الكتب', 'كتاب', 'المدينة', 'مدينة', 'إنشاء', 'انشاء', 'في', 'من', 'قراءة', 'القراءة', 'صباحاً'];

/** The tests every connection kind runs: options, schema, writes, vector search, BM25 text search, ts_rank_cd. */
export function describeStoreSuite(label: string, harness: StoreHarness): void {
  const sql = (): SqlClient => toSqlClient(harness.connection());
  const store = (options: Partial<PgVectorStoreOptions> = {}): PgVectorStore => new PgVectorStore({ connection: harness.connection(), collection: uniqueCollection(), ...options });
  const indexDefinitions = async (table: string): Promise<string[]> => {
    const { rows } = await sql().query<{ indexdef: string }>('SELECT indexdef FROM pg_indexes WHERE tablename = $1 ORDER BY indexname', [table]);
    return rows.map((row) => row.indexdef);
  };

  describe(`${label}: options and names`, () => {
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
        [{ efSearch: 'default' as never }, 'options.efSearch'],
        [{ batchSize: -1 }, 'options.batchSize'],
        [{ iterativeScan: 'sometimes' as never }, 'options.iterativeScan'],
        [{ textSearch: 'yes' as never }, 'options.textSearch'],
        [{ textRanking: 'tf-idf' as never }, 'options.textRanking'],
        [{ analyzer: { stemmer: 'porter' } as never }, 'options.stemmer'],
        [{ bm25: { k1: -1 } }, 'options.bm25.k1'],
        [{ bm25: { b: 2 } }, 'options.bm25.b'],
        [{ bm25: { k3: 1 } as never }, 'options.bm25.k3'],
        [{ textSearchConfigurations: [] }, 'options.textSearchConfigurations'],
        [{ unknownOption: true } as never, 'options.unknownOption'],
      ];
      for (const [options, field] of cases) expect(thrown(() => store(options)).message).toContain(field);
      expect(thrown(() => new PgVectorStore({ connection: { nope: true } as never })).message).toContain('options.connection');
      expect(thrown(() => new PgVectorStore(null as never)).code).toBe('ZERDA_INVALID_ARGUMENT');
    });

    it("refuses an HNSW index above pgvector's 2000 dimensions, and allows exact search there", async () => {
      expect(thrown(() => store({ dimensions: 2001 })).code).toBe('ZERDA_UNSUPPORTED');
      const exact = store({ dimensions: 2001, hnsw: false, textSearch: false });
      await exact.add([chunk('wide', new Float32Array(2001).fill(0.5))]);
      expect((await exact.search(new Float32Array(2001).fill(0.5), { k: 1 }))[0]!.chunk.id).toBe('wide');
      const lazy = store();
      expect((await expectZerdaError(() => lazy.add([chunk('wide', new Float32Array(2001).fill(1))]))).code).toBe('ZERDA_UNSUPPORTED');
      expect(await lazy.count()).toBe(0);
    });
  });

  describe(`${label}: ensureSchema`, () => {
    it('creates the table, the HNSW index with the chosen parameters and opclass, the keyword index and the metadata index — idempotently', async () => {
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
        expect(definitions.some((definition) => definition.includes('(doc_id)'))).toBe(true);
        expect(definitions.some((definition) => definition.includes('WHERE (text_length IS NULL)'))).toBe(true);
        expect(definitions).toHaveLength(5); // primary key, doc_id, metadata, unanalysed rows, hnsw
        const { postings, statistics } = keywordIndexNames(collection);
        expect((await indexDefinitions(postings)).join('\n')).toMatch(/PRIMARY KEY|UNIQUE[\s\S]*term, chunk_id[\s\S]*INCLUDE/);
        expect(await indexDefinitions(statistics)).toHaveLength(1);
      }
    });

    it('keeps the tsvector column and its GIN index with textRanking ts_rank_cd', async () => {
      const created = store({ dimensions: 2, textRanking: 'ts_rank_cd' });
      await created.ensureSchema();
      const definitions = await indexDefinitions(created.collection);
      expect(definitions.some((definition) => definition.includes('USING gin (tsv)'))).toBe(true);
      expect(definitions.some((definition) => definition.includes('text_length'))).toBe(false);
      const { rows } = await sql().query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [keywordIndexNames(created.collection).postings]);
      expect(rows[0]!.present).toBe(false);
    });

    it('records the layout version, metric and analyzer in the table comment, and the dimension in the column type', async () => {
      const created = store({ dimensions: 6, metric: 'l2' });
      await created.ensureSchema();
      const comment = async (table: string) =>
        (
          await sql().query<{ comment: string; type: string }>(
            `SELECT obj_description(c.oid, 'pg_class') AS comment, format_type(a.atttypid, a.atttypmod) AS type
               FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'embedding' WHERE c.relname = $1`,
            [table],
          )
        ).rows[0]!;
      const bm25 = await comment(created.collection);
      expect(JSON.parse(bm25.comment)).toEqual({
        zerda: 'vector-pgvector',
        schemaVersion: 2,
        metric: 'l2',
        analyzer: { stem: true, stopwords: true, arabic: { tehMarbuta: false, hamzaSeats: false, stemmer: 'light' }, english: { stemmer: 'porter2' }, minTokenLength: 1 },
      });
      expect(bm25.type).toBe('vector(6)');
      // A table without the keyword index keeps layout version 1, which older releases still open.
      const plain = store({ dimensions: 3, textRanking: 'ts_rank_cd' });
      await plain.ensureSchema();
      expect(JSON.parse((await comment(plain.collection)).comment)).toEqual({ zerda: 'vector-pgvector', schemaVersion: 1, metric: 'cosine' });
    });

    it('learns the dimension of an existing table from the catalog', async () => {
      const collection = uniqueCollection();
      await store({ collection, dimensions: 5 }).ensureSchema();
      const reopened = await PgVectorStore.open({ connection: harness.connection(), collection });
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

    it('refuses an existing table built for another metric or analyzer, a foreign table and a newer layout', async () => {
      const collection = uniqueCollection();
      await store({ collection, dimensions: 4, metric: 'cosine' }).ensureSchema();
      const metricError = await expectZerdaError(() => store({ collection, metric: 'l2' }).ensureSchema());
      expect(metricError.code).toBe('ZERDA_INVALID_CONFIG');
      expect(metricError.message).toContain('"cosine"');
      const analyzerError = await expectZerdaError(() => store({ collection, analyzer: { arabic: { stemmer: 'snowball' } } }).ensureSchema());
      expect(analyzerError.code).toBe('ZERDA_INVALID_CONFIG');
      expect(analyzerError.message).toContain('options.analyzer');
      expect(analyzerError.message).toContain('"light"');
      await store({ collection, analyzer: {} }).ensureSchema();

      const foreign = uniqueCollection('foreign');
      await sql().query(`CREATE TABLE ${foreign} (id text primary key, embedding vector(4))`);
      const foreignError = await expectZerdaError(() => store({ collection: foreign }).ensureSchema());
      expect(foreignError.code).toBe('ZERDA_STORE_CORRUPT');
      expect(foreignError.message).toContain('not created by @zerda/vector-pgvector');

      const newer = uniqueCollection('newer');
      await store({ collection: newer, dimensions: 4 }).ensureSchema();
      await sql().query(`COMMENT ON TABLE ${newer} IS '{"zerda":"vector-pgvector","schemaVersion":99,"metric":"cosine"}'`);
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
      await Promise.all(stores.map((each, i) => each.add([chunk(`r${i}`, [i, 1], { text: `race ${i}` })])));
      expect(await stores[0]!.count()).toBe(4);
      expect(await auditKeywordIndex(sql(), stores[0]!)).toEqual([]);
    });

    it('creates a missing schema, and keeps collections in different schemas apart', async () => {
      const schema = uniqueCollection('schema');
      const collection = uniqueCollection();
      const inSchema = store({ schema, collection });
      const inPublic = store({ collection });
      await inSchema.add([chunk('s', [1, 0], { text: 'only in the schema' })]);
      await inPublic.add([chunk('p1', [0, 1]), chunk('p2', [1, 1])]);
      expect(await inSchema.count()).toBe(1);
      expect(await inPublic.count()).toBe(2);
      expect(inSchema.qualifiedTableName).toBe(`"${schema}"."${collection}"`);
      expect((await inSchema.textSearch('schema', { k: 5 })).map((hit) => hit.chunk.id)).toEqual(['s']);
      expect(await inPublic.textSearch('schema', { k: 5 })).toEqual([]);
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

    it('drop() removes the table, its keyword index tables and function', async () => {
      const target = store();
      await target.add([chunk('a', [1, 0], { text: 'gone soon' })]);
      await target.drop();
      const names = keywordIndexNames(target.collection);
      const { rows } = await sql().query<{ tables: string | number; functions: string | number }>(
        `SELECT (SELECT count(*) FROM pg_class WHERE relname IN ($1, $2, $3)) AS tables, (SELECT count(*) FROM pg_proc WHERE proname = $4) AS functions`,
        [target.collection, names.postings, names.statistics, names.sync],
      );
      expect([Number(rows[0]!.tables), Number(rows[0]!.functions)]).toEqual([0, 0]);
      await target.add([chunk('b', [0, 1], { text: 'recreated table' })]);
      expect((await target.textSearch('recreated', { k: 1 })).map((hit) => hit.chunk.id)).toEqual(['b']);
    });
  });

  describe(`${label}: writes`, () => {
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
      expect(await auditKeywordIndex(sql(), batched)).toEqual([]);
    });

    it('rolls back the whole add — rows, postings and statistics — when a later statement fails (fault injected in the driver)', async () => {
      const client = recordingClient(toSqlClient(harness.connection()));
      const faulty = new PgVectorStore({ connection: client, collection: uniqueCollection(), batchSize: 2 });
      await faulty.add([chunk('keep', [1, 0], { text: 'original words' })]);
      for (const failing of ['INSERT INTO', 'DELETE FROM']) {
        let seen = 0;
        client.failWhen = (statement) => (statement.text.trimStart().startsWith(failing) && ++seen === 2 ? new Error('connection reset by peer') : undefined);
        const error = await expectZerdaError(() => faulty.add([chunk('keep', [0, 1], { text: 'changed words' }), chunk('new1', [1, 1]), chunk('new2', [1, 2]), chunk('new3', [2, 1])]));
        expect(error.code).toBe('ZERDA_BACKEND_ERROR');
        expect(error.message).toContain('connection reset by peer');
        expect(seen).toBeGreaterThanOrEqual(2);
        client.failWhen = undefined;
        expect(await faulty.count()).toBe(1);
        expect((await faulty.get(['keep']))[0]!.text).toBe('original words');
        expect((await faulty.textSearch('original', { k: 5 })).map((hit) => hit.chunk.id)).toEqual(['keep']);
        expect(await faulty.textSearch('changed', { k: 5 })).toEqual([]);
        expect(await auditKeywordIndex(sql(), faulty)).toEqual([]);
      }
    });

    it('rolls back the whole add when PostgreSQL rejects a row of the 2nd batch', async () => {
      const strict = store({ batchSize: 2 });
      await strict.add([chunk('keep', [1, 0], { text: 'original' })]);
      await sql().query(`ALTER TABLE ${strict.collection} ADD CONSTRAINT no_boom CHECK (text <> 'boom')`);
      const error = await expectZerdaError(() => strict.add([chunk('keep', [0, 1], { text: 'changed' }), chunk('a', [1, 1]), chunk('b', [1, 2], { text: 'boom' })]));
      expect(error.code).toBe('ZERDA_BACKEND_ERROR');
      expect(error.message).toContain('no_boom');
      expect(await strict.count()).toBe(1);
      expect((await strict.get(['keep']))[0]!.text).toBe('original');
      expect(await auditKeywordIndex(sql(), strict)).toEqual([]);
    });

    it('validates the whole batch before any SQL runs', async () => {
      const client = recordingClient(toSqlClient(harness.connection()));
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

    it('deletes by id and by document id, in any number, and clears — the keyword index follows', async () => {
      const target = store();
      await target.add(Array.from({ length: 30 }, (_, i) => chunk(`d${i % 5}#${i}`, [i, 1], { text: `chunk ${i} of document ${i % 5} words${i % 3}` })));
      await target.delete(['d0#0', 'd1#1', 'unknown', 'd0#0']);
      expect(await target.count()).toBe(28);
      await target.deleteByDocIds(['d2', 'd3', 'nobody']);
      expect(await target.count()).toBe(16);
      expect((await target.search([1, 1], { k: 100, exact: true })).every((hit) => !['d2', 'd3'].includes(hit.chunk.docId))).toBe(true);
      expect((await target.textSearch('document', { k: 100 })).every((hit) => !['d2', 'd3'].includes(hit.chunk.docId))).toBe(true);
      expect(await auditKeywordIndex(sql(), target)).toEqual([]);
      await target.clear();
      expect(await target.count()).toBe(0);
      expect(target.dimensions).toBe(2);
      expect(await target.textSearch('document', { k: 10 })).toEqual([]);
      expect(await auditKeywordIndex(sql(), target)).toEqual([]);
      expect((await expectZerdaError(() => target.delete('d0#5' as never))).message).toContain('ids');
      expect((await expectZerdaError(() => target.deleteByDocIds([1 as never]))).message).toContain('docIds[0]');
    });

    it("keeps the keyword statistics exact when rows change through anyone's SQL (triggers in the same transaction)", async () => {
      const target = store();
      await target.add(Array.from({ length: 12 }, (_, i) => chunk(`u${i}`, [1, i], { text: `shared words and token${i}`, title: i % 2 ? 'a title' : undefined, metadata: { i } })));
      await sql().query(`DELETE FROM ${target.qualifiedTableName} WHERE (metadata->>'i')::int < 4`);
      await sql().query(`UPDATE ${target.qualifiedTableName} SET metadata = '{"touched":true}' WHERE (metadata->>'i')::int = 5`);
      expect(await auditKeywordIndex(sql(), target)).toEqual([]);
      expect((await target.textSearch('shared', { k: 20 })).length).toBe(8);
      await sql().query(`TRUNCATE ${target.qualifiedTableName}`);
      expect(await auditKeywordIndex(sql(), target)).toEqual([]);
      expect(await target.textSearch('shared', { k: 20 })).toEqual([]);
    });
  });

  describe(`${label}: vector search`, () => {
    it('matches exact search (computed here) for every metric, with pgvector distances converted to similarities', async () => {
      const vectors = randomVectors(80, 12, 7);
      const query = randomVectors(1, 12, 99)[0]!;
      for (const metric of ['cosine', 'ip', 'l2'] as const) {
        const target = store({ metric, textSearch: false });
        await target.add(vectors.map((vector, i) => chunk(`v${i}`, vector)));
        const expected = vectors
          .map((vector, i) => ({ id: `v${i}`, score: expectedSimilarity(metric, query, vector) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, 10);
        const hits = await target.search(query, { k: 10, exact: true });
        expect(hits.map((hit) => hit.chunk.id)).toEqual(expected.map((entry) => entry.id));
        hits.forEach((hit, i) => expect(hit.score).toBeCloseTo(expected[i]!.score, 4));
      }
    });

    it('sets hnsw.ef_search for the query only (SET LOCAL in a transaction): 256 by default, the option, at least k', async () => {
      const client = recordingClient(toSqlClient(harness.connection()));
      const efSetting = () => client.statements.find((statement) => statement.text.includes('set_config'));
      const target = new PgVectorStore({ connection: client, collection: uniqueCollection() });
      await target.add(randomVectors(20, 4, 3).map((vector, i) => chunk(`v${i}`, vector)));
      client.statements.length = 0;
      await target.search([1, 0, 0, 0], { k: 5 });
      expect(efSetting()).toMatchObject({ params: ['hnsw.ef_search', '256'], inTransaction: true });
      const tuned = new PgVectorStore({ connection: client, collection: target.collection, efSearch: 64 });
      client.statements.length = 0;
      await tuned.search([1, 0, 0, 0], { k: 5 });
      expect(efSetting()?.params).toEqual(['hnsw.ef_search', '64']);
      client.statements.length = 0;
      await tuned.search([1, 0, 0, 0], { k: 300, efSearch: 100 });
      expect(efSetting()?.params).toEqual(['hnsw.ef_search', '300']);
      const session = await harness.session();
      try {
        // (A vector cast loads pgvector into a fresh session, which defines the setting.)
        const { rows } = await toSqlClient(session.connection).query<{ value: string }>("SELECT current_setting('hnsw.ef_search') AS value FROM (SELECT '[1]'::vector) loaded");
        expect(rows[0]!.value).toBe('40');
      } finally {
        await session.release();
      }
      expect((await expectZerdaError(() => target.search([1, 0, 0, 0], { k: 1, efSearch: 5000 }))).message).toContain('options.efSearch');
    });

    it("efSearch 'server' keeps the server's setting: nothing is set for small k, and a large k only raises it", async () => {
      const session = await harness.session();
      try {
        const client = recordingClient(toSqlClient(session.connection));
        const target = new PgVectorStore({ connection: client, collection: uniqueCollection(), efSearch: 'server' });
        await target.add(randomVectors(60, 4, 5).map((vector, i) => chunk(`v${i}`, vector)));
        client.statements.length = 0;
        expect(await target.search([1, 0, 0, 0], { k: 5 })).toHaveLength(5);
        expect(client.statements.some((statement) => statement.text.includes('set_config'))).toBe(false);
        expect(client.statements.some((statement) => statement.text === 'BEGIN')).toBe(false);
        await toSqlClient(session.connection).query("SELECT set_config('hnsw.ef_search', '300', false)");
        client.statements.length = 0;
        expect(await target.search([1, 0, 0, 0], { k: 50 })).toHaveLength(50);
        const raise = client.statements.find((statement) => statement.text.includes('set_config'))!;
        expect(raise.text).toContain('greatest');
        const { rows } = await toSqlClient(session.connection).query<{ value: string }>("SELECT current_setting('hnsw.ef_search') AS value");
        expect(rows[0]!.value).toBe('300');
        // Per query, a number overrides 'server'.
        client.statements.length = 0;
        await target.search([1, 0, 0, 0], { k: 5, efSearch: 77 });
        expect(client.statements.find((statement) => statement.text.includes('set_config'))?.params).toEqual(['hnsw.ef_search', '77']);
        await toSqlClient(session.connection).query('RESET hnsw.ef_search');
      } finally {
        await session.release();
      }
    });

    it('returns k hits through the HNSW index even when k exceeds ef_search, and filtered queries fill k (iterative scan)', async () => {
      const session = await harness.session();
      const connection = toSqlClient(session.connection);
      try {
        const vectors = randomVectors(400, 16, 11);
        const target = new PgVectorStore({ connection: session.connection, collection: uniqueCollection(), textSearch: false });
        await target.add(vectors.map((vector, i) => chunk(`v${i}`, vector, { metadata: { bucket: i % 20 } })));
        const query = vectors[0]!;
        await connection.query('SET enable_seqscan = off');
        await connection.query('SET enable_bitmapscan = off');
        const plan = await connection.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT id FROM ${target.collection} ORDER BY embedding <=> $1::vector LIMIT 5`, [`[${Array.from(query).join(',')}]`]);
        expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toContain('_embedding_hnsw');
        expect(await target.search(query, { k: 300 })).toHaveLength(300);
        const filtered = await target.search(query, { k: 15, filter: { bucket: 3 } });
        expect(filtered).toHaveLength(15);
        expect(filtered.every((hit) => hit.chunk.metadata.bucket === 3)).toBe(true);
        const exact = await target.search(query, { k: 15, filter: { bucket: 3 }, exact: true });
        expect(exact).toHaveLength(15);
        expect(exact.every((hit) => hit.chunk.metadata.bucket === 3)).toBe(true);
        const recall = filtered.filter((hit) => exact.some((other) => other.chunk.id === hit.chunk.id)).length / exact.length;
        expect(recall).toBeGreaterThanOrEqual(0.8);
      } finally {
        await connection.query('RESET enable_seqscan').catch(() => undefined);
        await connection.query('RESET enable_bitmapscan').catch(() => undefined);
        await session.release();
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

  const corpus: Array<[string, string, string | undefined]> = [
    ['en-library', 'The city libraries are running reading programs for children.', 'Public libraries'],
    ['en-cats', 'Cats sleep for most of the day and hunt at night.', undefined],
    ['en-title', 'Opening hours change in summer.', 'Library schedule'],
    ['ar-library', 'افتتحت المكتبةُ العامّة في المدينة قسماً جديداً للأطفال، وتضم آلاف الكتب.', 'مكتبات المدينة'],
    ['ar-diacritics', 'المَكْتَبَاتُ الـــعامة تفتح أبوابها صباحاً؟', undefined],
    ['ar-alef', 'إنشاء مكتبة رقمية أحمد؛ آفاق جديدة', undefined],
    ['mixed', 'The مكتبة has a new Python workshop ورشة بايثون', undefined],
  ];
  const corpusChunks = (): DocumentChunk[] => corpus.map(([id, text, title], i) => chunk(id, [1, i], { text, ...(title ? { title } : {}), metadata: { lang: id.slice(0, 2) } }));

  describe(`${label}: BM25 text search`, () => {
    async function textStore(options: Partial<PgVectorStoreOptions> = {}): Promise<PgVectorStore> {
      const target = store(options);
      await target.add(corpusChunks());
      return target;
    }

    it('finds English by stem and ranks title matches, with scores > 0 best first', async () => {
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
      expect(libraries).toEqual(expect.arrayContaining(['ar-library', 'ar-diacritics', 'ar-alef', 'mixed']));
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

    it('combines terms with any (default) or all, applies filters, and ignores stopword-only queries', async () => {
      const target = await textStore();
      const any = (await target.textSearch('cats library', { k: 10 })).map((hit) => hit.chunk.id);
      expect(any).toEqual(expect.arrayContaining(['en-cats', 'en-library', 'en-title']));
      expect(await target.textSearch('cats library', { k: 10, match: 'all' })).toEqual([]);
      expect((await target.textSearch('library children', { k: 10, match: 'all' })).map((hit) => hit.chunk.id)).toEqual(['en-library']);
      const filtered = await target.textSearch('library مكتبة', { k: 10, filter: { lang: 'ar' } });
      expect(filtered.length).toBeGreaterThan(0);
      expect(filtered.every((hit) => hit.chunk.metadata.lang === 'ar')).toBe(true);
      expect(await target.textSearch('   ', { k: 10 })).toEqual([]);
      expect(await target.textSearch('and of في من', { k: 10 })).toEqual([]);
      expect(await target.textSearch('library', { k: 0 })).toEqual([]);
      expect((await expectZerdaError(() => target.textSearch('x', { k: 10, match: 'some' as never }))).message).toContain('options.match');
      const web = await expectZerdaError(() => target.textSearch('library -children', { k: 10, match: 'websearch' }));
      expect(web.code).toBe('ZERDA_UNSUPPORTED');
      expect(web.message).toContain("textRanking: 'ts_rank_cd'");
      expect((await expectZerdaError(() => target.textSearch('x', { k: 1, bm25: { b: 3 } }))).message).toContain('options.bm25.b');
    });

    it('treats hostile query text as words', async () => {
      const target = await textStore();
      for (const query of ["'; DROP TABLE x; --", 'a & b | !c <-> d', "\\' \" ) ( :*", 'تجربة\u0000', '\ud800 lone']) {
        await expect(target.textSearch(query, { k: 5 })).resolves.toBeInstanceOf(Array);
      }
      expect(await target.count()).toBe(corpus.length);
    });

    it('indexes a token longer than a B-tree key allows, cut to the same prefix in documents and queries', async () => {
      const target = store();
      const long = `x${'y'.repeat(5000)}`;
      const astral = `${'ب'.repeat(MAX_TERM_LENGTH - 1)}😀tail`;
      await target.add([chunk('long', [1, 0], { text: `short ${long}` }), chunk('astral', [0, 1], { text: astral })]);
      expect((await target.textSearch(long, { k: 5 })).map((hit) => hit.chunk.id)).toEqual(['long']);
      expect((await target.textSearch(astral, { k: 5 })).map((hit) => hit.chunk.id)).toEqual(['astral']);
      expect(await auditKeywordIndex(sql(), target)).toEqual([]);
    });

    it('is refused when the store was created without text search', async () => {
      const plain = store({ textSearch: false });
      expect(plain.capabilities.textSearch).toBe(false);
      expect((await expectZerdaError(() => plain.textSearch('x', { k: 1 }))).code).toBe('ZERDA_UNSUPPORTED');
    });

    it('gives a table created without text search its keyword index, analysing the rows already there', async () => {
      const collection = uniqueCollection();
      const without = store({ collection, textSearch: false, batchSize: 7 });
      // More rows than one analysis batch, so the backfill runs several transactions.
      await without.add(Array.from({ length: 1200 }, (_, i) => chunk(`old${i}`, [1, i], { text: `cats purr ${i % 50 === 7 ? 'loudly' : 'softly'}` })));
      const upgraded = await PgVectorStore.open({ connection: harness.connection(), collection });
      expect((await upgraded.textSearch('loudly', { k: 100 })).map((hit) => hit.chunk.id).sort()).toEqual(Array.from({ length: 24 }, (_, i) => `old${7 + 50 * i}`).sort());
      expect(await auditKeywordIndex(sql(), upgraded)).toEqual([]);
      // The store that opened the table before the keyword index existed learns of it at its next write.
      await without.add([chunk('late', [0, 1], { text: 'cats arrive late' })]);
      expect((await upgraded.textSearch('late', { k: 5 })).map((hit) => hit.chunk.id)).toEqual(['late']);
      expect(await auditKeywordIndex(sql(), upgraded)).toEqual([]);
    });

    it('ranks exactly like KeywordRetriever on the same chunks (Arabic and English, titles, replacements, deletes) — property', async () => {
      const target = store({ dimensions: 2 });
      await target.ensureSchema();
      const word = fc.constantFrom(...ENGLISH_WORDS, ...ARABIC_WORDS);
      const text = fc.array(word, { minLength: 0, maxLength: 12 }).map((words) => words.join(' '));
      const document = fc.record({ id: fc.integer({ min: 0, max: 14 }), text, title: fc.option(fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(' ')), { nil: undefined }) });
      const parameters = fc.record({ k1: fc.constantFrom(1.2, 0.9, 2), b: fc.constantFrom(0.75, 0.4, 0, 1), titleWeight: fc.constantFrom(1, 0, 2.5) });
      await fc.assert(
        fc.asyncProperty(fc.array(document, { minLength: 1, maxLength: 25 }), fc.array(fc.integer({ min: 0, max: 14 }), { maxLength: 4 }), fc.array(word, { minLength: 1, maxLength: 4 }), parameters, async (documents, removed, queryWords, bm25) => {
          await target.clear();
          // Added one by one: a later document with an id already stored replaces it (postings and statistics too).
          const latest = new Map<string, DocumentChunk>();
          for (const entry of documents) {
            const version = chunk(`c${entry.id}`, [1, entry.id], { docId: `c${entry.id}`, text: entry.text, ...(entry.title ? { title: entry.title } : {}) });
            latest.set(version.id, version);
            await target.add([version]);
          }
          const removedIds = [...new Set(removed.map((id) => `c${id}`))];
          await target.delete(removedIds);
          const retriever = new KeywordRetriever(bm25);
          await retriever.index([...latest.values()].filter((value) => !removedIds.includes(value.id)));
          const query = queryWords.join(' ');
          const expected = (await retriever.retrieve(query, { topK: 10 })).map((hit) => ({ chunk: hit.chunk, score: hit.score }));
          const actual = await target.textSearch(query, { k: 10, bm25 });
          expectSameRanking(actual, expected, `query "${query}" with ${JSON.stringify(bm25)}`);
        }),
        { numRuns: 30, seed: 2112 },
      );
      expect(await auditKeywordIndex(sql(), target)).toEqual([]);
    });
  });

  describe(`${label}: ts_rank_cd text search (textRanking option)`, () => {
    async function textStore(): Promise<PgVectorStore> {
      const target = store({ textRanking: 'ts_rank_cd' });
      await target.add(corpusChunks());
      return target;
    }

    it('stores a text-search configuration per chunk from its language', async () => {
      const target = await textStore();
      const { rows } = await sql().query<{ id: string; language: string }>(`SELECT id, language::text AS language FROM ${target.collection} ORDER BY id`);
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

    it('matches with any, all or web-search syntax, stems Arabic and English, and applies filters', async () => {
      const target = await textStore();
      expect((await target.textSearch('library runs', { k: 10 }))[0]!.chunk.id).toBe('en-library');
      // (Alef forms are the server's Snowball stemmer's business here: PostgreSQL 18 folds أحمد to احمد, 15 does not.)
      expect((await target.textSearch('المكتبات', { k: 10 })).map((hit) => hit.chunk.id)).toEqual(expect.arrayContaining(['ar-library', 'ar-diacritics', 'ar-alef']));
      expect(await target.textSearch('cats library', { k: 10, match: 'all' })).toEqual([]);
      const web = (await target.textSearch('library -children', { k: 10, match: 'websearch' })).map((hit) => hit.chunk.id);
      expect(web).toContain('en-title');
      expect(web).not.toContain('en-library');
      const filtered = await target.textSearch('library مكتبة', { k: 10, filter: { lang: 'ar' } });
      expect(filtered.length).toBeGreaterThan(0);
      expect(filtered.every((hit) => hit.chunk.metadata.lang === 'ar')).toBe(true);
      expect(await target.textSearch('and of', { k: 10 })).toEqual([]);
      expect((await expectZerdaError(() => target.textSearch('x', { k: 1, bm25: { k1: 1 } }))).message).toContain('options.bm25');
    });

    it('adds the text column to a table created without it, when text search is turned on', async () => {
      const collection = uniqueCollection();
      await store({ collection, textSearch: false }).add([chunk('cat', [1, 0], { text: 'cats purr' })]);
      const upgraded = await PgVectorStore.open({ connection: harness.connection(), collection, textRanking: 'ts_rank_cd' });
      expect((await upgraded.textSearch('cat', { k: 1 })).map((hit) => hit.chunk.id)).toEqual(['cat']);
    });
  });
}
