import { VECTOR_METRICS } from '@zerda/types';
import { testVectorStore } from '@zerda/vector-conformance';
import { afterAll, beforeAll } from 'vitest';
import { temporaryDirectory, uniqueTable } from './__fixtures__/directories.js';
import { LanceDbVectorStore } from './lancedb-vector-store.js';

// One database directory for the file; every test gets its own table. Reopening connects anew to
// the same directory, as a restarted process would.
let directory: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeAll(async () => {
  directory = await temporaryDirectory('zerda-lancedb-conformance-');
});

afterAll(async () => {
  await directory?.remove();
});

async function reopen(store: LanceDbVectorStore): Promise<LanceDbVectorStore> {
  return LanceDbVectorStore.open({ uri: directory.path, table: store.tableName });
}

for (const metric of VECTOR_METRICS) {
  testVectorStore({
    name: `LanceDbVectorStore (${metric})`,
    create: () => new LanceDbVectorStore({ uri: directory.path, table: uniqueTable(metric), metric }),
    reopen: (store) => reopen(store as LanceDbVectorStore),
    // A database directory, filters pushed into LanceDB, its full-text index.
    capabilities: { persistence: true, nativeFilter: true, textSearch: true, embeds: false },
  });
}

testVectorStore({
  name: 'LanceDbVectorStore (fixed dimensions, no text search, no embeddings returned)',
  create: () => new LanceDbVectorStore({ uri: directory.path, table: uniqueTable('fixed'), dimensions: 8, textSearch: false, includeEmbeddings: false }),
  reopen: (store) => LanceDbVectorStore.open({ uri: directory.path, table: (store as LanceDbVectorStore).tableName, textSearch: false }),
  initialDimensions: 8,
});
