import { expectZerdaError } from '@zerda/vector-conformance';
import { describe, expect, it, vi } from 'vitest';
import { pgliteForFile, temporaryDirectory, uniqueCollection } from './__fixtures__/databases.js';
import { chunk, describeStoreSuite } from './__fixtures__/store-suite.js';
import { createNodePostgresStore, createPGliteStore } from './create-store.js';
import { PgVectorStore } from './pgvector-vector-store.js';
import { toSqlClient, type SqlClient } from './sql-client.js';

// The store's own tests on PGlite (PostgreSQL in WebAssembly, in process); server.test.ts runs the
// same suite against a PostgreSQL server.
const database = pgliteForFile();

describeStoreSuite('PGlite', {
  connection: () => database(),
  // PGlite is one session: its settings hold for every statement.
  session: async () => ({ connection: database(), release: async () => undefined }),
});

describe('PGlite lifecycle', () => {
  it('persists in a PGlite data directory: close, reopen, data, dimension and keyword index present', async () => {
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
      expect((await second.textSearch('ملاحظات', { k: 5 })).map((found) => found.chunk.id)).toEqual(['n1']);
      await second.close();
    } finally {
      await directory.remove();
    }
  });

  it('reports an in-memory PGlite as not persistent and leaves a borrowed connection open on close', async () => {
    const borrowed = new PgVectorStore({ connection: database(), collection: uniqueCollection() });
    expect(borrowed.capabilities.persistence).toBe(false);
    expect(new PgVectorStore({ connection: database(), persistent: true }).capabilities.persistence).toBe(true);
    await borrowed.add([chunk('a', [1, 0])]);
    await borrowed.close();
    await borrowed.close();
    expect((await database().query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
    await expect(borrowed.add([chunk('b', [1, 0])])).rejects.toMatchObject({ code: 'ZERDA_NOT_READY' });
  });

  it('connects with a connection string through createNodePostgresStore (pg over TCP), and ends its pool on close', async () => {
    const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
    const server = new PGLiteSocketServer({ db: database(), host: '127.0.0.1', port: 0 });
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
      expect(await new PgVectorStore({ connection: database(), collection }).count()).toBe(1);
      await expect(createNodePostgresStore({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, collection: 'Bad Name' })).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT' });
      expect((await expectZerdaError(() => createNodePostgresStore({ connectionString: '' }))).message).toContain('options.connectionString');
    } finally {
      await server.stop();
    }
  });
});

describe('PGlite: a write the server rolls back as a deadlock victim', () => {
  // A client whose first write transaction does all its work, then fails as PostgreSQL fails a
  // deadlock victim (SQLSTATE 40P01): the transaction is rolled back, so nothing of it is left.
  function failingOnce(code: string): { client: SqlClient; attempts: () => number } {
    const inner = toSqlClient(database());
    let attempts = 0;
    return {
      attempts: () => attempts,
      client: {
        query: (text, params) => inner.query(text, params),
        // Only write transactions (those that insert or delete rows) count; the first one fails.
        transaction: (fn) =>
          inner.transaction!(async (client) => {
            let writes = false;
            const result = await fn({ query: (text, params) => ((writes ||= /^\s*(INSERT INTO|DELETE FROM)/.test(text)), client.query(text, params)) });
            if (writes && ++attempts === 1) throw Object.assign(new Error(code === '40P01' ? 'deadlock detected' : 'duplicate key value'), { code });
            return result;
          }),
      },
    };
  }

  it('is run again, whole: add and delete succeed and leave each row once', async () => {
    const collection = uniqueCollection();
    await new PgVectorStore({ connection: database(), collection }).add([chunk('seed', [0, 0, 1])]);
    const adding = failingOnce('40P01');
    const store = new PgVectorStore({ connection: adding.client, collection });
    await store.add([chunk('a', [1, 0, 0], { text: 'البحث عن المقاطع' }), chunk('b', [0, 1, 0])]);
    expect(adding.attempts()).toBeGreaterThanOrEqual(2);
    const reader = new PgVectorStore({ connection: database(), collection });
    expect(await reader.count()).toBe(3);
    expect((await reader.textSearch!('المقاطع', { k: 5 })).map((hit) => hit.chunk.id)).toEqual(['a']);
    const deleting = failingOnce('40P01');
    await new PgVectorStore({ connection: deleting.client, collection }).delete(['a']);
    expect(deleting.attempts()).toBe(2);
    expect(await reader.count()).toBe(2);
  });

  it('other errors are not retried: the write fails with ZERDA_BACKEND_ERROR and leaves nothing', async () => {
    const collection = uniqueCollection();
    await new PgVectorStore({ connection: database(), collection }).add([chunk('seed', [0, 0, 1])]);
    const adding = failingOnce('23505');
    const error = await expectZerdaError(() => new PgVectorStore({ connection: adding.client, collection }).add([chunk('c', [1, 0, 0])]));
    expect(error.code).toBe('ZERDA_BACKEND_ERROR');
    expect(adding.attempts()).toBe(1);
    expect(await new PgVectorStore({ connection: database(), collection }).count()).toBe(1);
  });
});
