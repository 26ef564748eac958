import type pg from 'pg';
import { testVectorStore } from '@zerda/vector-conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueCollection } from './__fixtures__/databases.js';
import { SERVER_SKIP_REASON, SERVER_URL, serverClient, serverPool } from './__fixtures__/server.js';
import { describeStoreSuite } from './__fixtures__/store-suite.js';
import { PgVectorStore } from './pgvector-vector-store.js';
import { sqlClientKind } from './sql-client.js';

// Everything that runs on PGlite, against a real PostgreSQL server (ZERDA_PG_URL: the private
// server `npm test` starts, or yours) through node-postgres: the conformance suite over a Pool and
// over a single Client, and the store's own suite over a shared Pool.
const skip = SERVER_SKIP_REASON ?? false;
const pools: pg.Pool[] = [];
let shared: pg.Pool | undefined;

function pool(max = 4): pg.Pool {
  const created = serverPool(max);
  pools.push(created);
  return created;
}

afterAll(async () => {
  await Promise.all(pools.map((each) => each.end().catch(() => undefined)));
});

describe.skipIf(!SERVER_URL)('PostgreSQL server', () => {
  it('is a PostgreSQL server with pgvector 0.8 or newer', async () => {
    const client = await serverClient();
    try {
      const { rows } = await client.query<{ server: string; pgvector: string | null }>(
        "SELECT current_setting('server_version') AS server, (SELECT default_version FROM pg_available_extensions WHERE name = 'vector') AS pgvector",
      );
      console.info(`[vector-pgvector] server tests on PostgreSQL ${rows[0]!.server}, pgvector ${rows[0]!.pgvector}`);
      expect(rows[0]!.pgvector).toMatch(/^(0\.[89]|[1-9])/);
      expect(rows[0]!.server).not.toMatch(/PGlite/);
    } finally {
      await client.end();
    }
  });
});

// Metrics differ only in SQL text (each runs on PGlite): on the server, cosine over a Pool, inner product over a Client.
for (const metric of ['cosine'] as const) {
  testVectorStore({
    name: `PgVectorStore on a PostgreSQL server over a node-postgres Pool (${metric})`,
    skip,
    // Each store owns its pool (closed with the store after every test).
    create: () => new PgVectorStore({ connection: pool(), collection: uniqueCollection(`server_${metric}`), metric, closeConnection: true }),
    // Another pool — other connections, as another process would have — sees the committed data.
    reopen: (store) => PgVectorStore.open({ connection: pool(), collection: (store as PgVectorStore).collection, metric, closeConnection: true }),
    additionalTests: (getStore) => {
      it('talks through the pool adapter and declares persistence', () => {
        expect(sqlClientKind((getStore() as PgVectorStore).client)).toBe('node-postgres-pool');
        expect(getStore().capabilities).toEqual({ persistence: true, nativeFilter: true, textSearch: true, embeds: false });
      });
    },
  });
}

testVectorStore({
  name: 'PgVectorStore on a PostgreSQL server over a single node-postgres Client (ip)',
  skip,
  create: async () => new PgVectorStore({ connection: await serverClient(), collection: uniqueCollection('server_client'), metric: 'ip', closeConnection: true }),
  reopen: async (store) => PgVectorStore.open({ connection: await serverClient(), collection: (store as PgVectorStore).collection, metric: 'ip', closeConnection: true }),
  additionalTests: (getStore) => {
    it('talks through the client adapter', () => {
      expect(sqlClientKind((getStore() as PgVectorStore).client)).toBe('node-postgres-client');
    });
  },
});

describe.skipIf(!SERVER_URL)('the store suite on a PostgreSQL server', () => {
  describeStoreSuite('PostgreSQL server', {
    connection: () => (shared ??= pool(8)),
    session: async () => {
      const client = await serverClient();
      return { connection: client, release: () => client.end() };
    },
  });
});
