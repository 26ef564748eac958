import type { PGlite } from '@electric-sql/pglite';
import { VECTOR_METRICS } from '@zerda/types';
import { testVectorStore } from '@zerda/vector-conformance';
import { afterAll, beforeAll } from 'vitest';
import { startPGlite, temporaryDirectory, uniqueCollection } from './__fixtures__/databases.js';
import { PgVectorStore } from './pgvector-vector-store.js';

// One PGlite for the whole file (start-up takes seconds); every test gets its own collection.
// The data directory makes the stores persistent, so the suite's reopen round-trip runs: it
// closes the database and opens the same directory again, like a process restart.
let database: PGlite;
let directory: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeAll(async () => {
  directory = await temporaryDirectory('zerda-pgvector-conformance-');
  database = await startPGlite(directory.path);
}, 60_000);

afterAll(async () => {
  await database?.close();
  await directory?.remove();
});

async function restart(store: PgVectorStore): Promise<PgVectorStore> {
  await database.close();
  database = await startPGlite(directory.path);
  return PgVectorStore.open({ connection: database, collection: store.collection, metric: store.metric });
}

for (const metric of VECTOR_METRICS) {
  testVectorStore({
    name: `PgVectorStore on PGlite (${metric})`,
    create: () => new PgVectorStore({ connection: database, collection: uniqueCollection(metric), metric }),
    reopen: (store) => restart(store as PgVectorStore),
    // Persistence through the data directory, filters in SQL, keyword search in PostgreSQL.
    capabilities: { persistence: true, nativeFilter: true, textSearch: true, embeds: false },
  });
}

testVectorStore({
  name: 'PgVectorStore on PGlite (fixed dimensions, no HNSW index, deferred schema)',
  create: () => new PgVectorStore({ connection: database, collection: uniqueCollection('exact'), dimensions: 8, hnsw: false, textSearch: false }),
  reopen: (store) => restart(store as PgVectorStore),
  initialDimensions: 8,
});
