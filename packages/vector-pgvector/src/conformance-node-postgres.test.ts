import type pg from 'pg';
import { testVectorStore } from '@zerda/vector-conformance';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { nodePostgresPool, startSocketDatabase, uniqueCollection, type SocketDatabase } from './__fixtures__/databases.js';
import { PgVectorStore } from './pgvector-vector-store.js';
import { sqlClientKind } from './sql-client.js';

// The `pg` client over TCP to PGlite served on 127.0.0.1 (ephemeral port): the code path of a real
// PostgreSQL server, started and stopped by this file.
let server: SocketDatabase;
const pools: pg.Pool[] = [];

beforeAll(async () => {
  server = await startSocketDatabase();
}, 60_000);

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
  await server?.stop();
});

function pool(): pg.Pool {
  const created = nodePostgresPool(server.connectionString);
  pools.push(created);
  return created;
}

// Metrics differ only in SQL text (covered on PGlite); over TCP each metric runs once, across both adapters.
for (const metric of ['cosine', 'l2'] as const) {
  testVectorStore({
    name: `PgVectorStore over node-postgres Pool (${metric})`,
    create: () => new PgVectorStore({ connection: pool(), collection: uniqueCollection(`pool_${metric}`), metric, closeConnection: true }),
    // A new pool (new connections) on the same server sees the committed data.
    reopen: (store) => PgVectorStore.open({ connection: pool(), collection: (store as PgVectorStore).collection, metric, closeConnection: true }),
    additionalTests: (getStore) => {
      it('talks through the pool adapter', () => {
        expect(sqlClientKind((getStore() as PgVectorStore).client)).toBe('node-postgres-pool');
      });
    },
  });
}

async function connectedClient(): Promise<pg.Client> {
  const { default: pgModule } = await import('pg');
  const client = new pgModule.Client({ connectionString: server.connectionString });
  await client.connect();
  return client;
}

testVectorStore({
  name: 'PgVectorStore over a single node-postgres Client (ip)',
  create: async () => new PgVectorStore({ connection: await connectedClient(), collection: uniqueCollection('client'), metric: 'ip', closeConnection: true }),
  reopen: async (store) => PgVectorStore.open({ connection: await connectedClient(), collection: (store as PgVectorStore).collection, metric: 'ip', closeConnection: true }),
  additionalTests: (getStore) => {
    it('talks through the client adapter', () => {
      expect(sqlClientKind((getStore() as PgVectorStore).client)).toBe('node-postgres-client');
    });
  },
});
