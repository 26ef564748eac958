import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { testVectorStore } from '@zerda/vector-conformance';
import { HnswVectorStore } from './hnswlib-vector-store.js';
import { isParallelBuildAvailable } from './parallel-build.js';

const directories: string[] = [];
afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

async function saveAndLoad(store: HnswVectorStore): Promise<HnswVectorStore> {
  const directory = await mkdtemp(join(tmpdir(), 'zerda-hnsw-conformance-'));
  directories.push(directory);
  await store.save(directory);
  return HnswVectorStore.load(directory);
}

for (const metric of ['cosine', 'ip', 'l2'] as const) {
  testVectorStore({
    name: `HnswVectorStore (${metric})`,
    // A tiny initial capacity makes the suite exercise automatic growth too.
    create: () => new HnswVectorStore({ metric, dimensions: 8, maxElements: 4 }),
    dimensions: 8,
    reopen: (store) => saveAndLoad(store as HnswVectorStore),
  });
}

testVectorStore({
  name: 'HnswVectorStore (dimension set by the first vector, every filtered search through the graph when possible)',
  create: () => new HnswVectorStore({ exactSearchThreshold: 0 }),
  reopen: (store) => saveAndLoad(store as HnswVectorStore),
  additionalTests: (getStore) => {
    it('has no dimension until the first add', () => {
      expect(getStore().dimensions).toBeUndefined();
    });
  },
});

// Every add through the native parallel build (threshold 1): the whole contract on that path too.
for (const metric of ['cosine', 'ip', 'l2'] as const) {
  testVectorStore({
    name: `HnswVectorStore (${metric}, every add built in parallel)`,
    skip: isParallelBuildAvailable() ? false : 'the parallel-build addon is not compiled: run `node scripts/build-native.mjs` in packages/vector-hnswlib',
    create: () => new HnswVectorStore({ metric, dimensions: 8, maxElements: 4, buildThreads: 2, parallelBuildThreshold: 1 }),
    dimensions: 8,
    reopen: (store) => saveAndLoad(store as HnswVectorStore),
  });
}
