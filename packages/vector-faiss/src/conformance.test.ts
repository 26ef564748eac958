import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testVectorStore } from '@zerda/vector-conformance';
import { afterAll, expect, it } from 'vitest';
import { faissAvailability } from './faiss-loader.js';
import { FaissVectorStore } from './faiss-vector-store.js';

// Where faiss-node cannot load, every suite is skipped with a message that says how to install it.
const availability = faissAvailability();
const skip = availability.available ? false : availability.reason;
const directories: string[] = [];

afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

async function saveAndLoad(store: FaissVectorStore): Promise<FaissVectorStore> {
  const directory = await mkdtemp(join(tmpdir(), 'zerda-faiss-conformance-'));
  directories.push(directory);
  const path = join(directory, 'store.zfaiss');
  await store.save(path);
  return FaissVectorStore.load(path);
}

for (const index of ['flat', 'hnsw'] as const) {
  for (const metric of ['cosine', 'ip', 'l2'] as const) {
    testVectorStore({
      name: `FaissVectorStore (${index}, ${metric})`,
      skip,
      create: () => new FaissVectorStore({ index, metric }),
      reopen: (store) => saveAndLoad(store as FaissVectorStore),
      additionalTests: (getStore) => {
        it('declares persistence (save/load) and post-filtering', () => {
          expect(getStore().capabilities).toEqual({ persistence: true, nativeFilter: false, textSearch: false, embeds: false });
        });
      },
    });
  }
}

testVectorStore({
  name: 'FaissVectorStore (hnsw, fixed dimensions, compacting after every delete, FAISS answers every filter)',
  skip,
  create: () => new FaissVectorStore({ index: 'hnsw', dimensions: 8, autoCompact: 0, exactFilterShare: 0 }),
  reopen: (store) => saveAndLoad(store as FaissVectorStore),
});
