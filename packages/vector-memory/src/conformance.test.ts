import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { testVectorStore } from '@zerda/vector-conformance';
import { MemoryVectorStore } from './memory-vector-store.js';

const directories: string[] = [];
afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

async function saveAndLoad(store: MemoryVectorStore): Promise<MemoryVectorStore> {
  const directory = await mkdtemp(join(tmpdir(), 'zerda-memory-conformance-'));
  directories.push(directory);
  const path = join(directory, 'store.zvm');
  await store.save(path);
  return MemoryVectorStore.load(path);
}

for (const metric of ['cosine', 'ip', 'l2'] as const) {
  testVectorStore({
    name: `MemoryVectorStore (${metric})`,
    create: () => new MemoryVectorStore({ metric }),
    reopen: (store) => saveAndLoad(store as MemoryVectorStore),
  });
}

testVectorStore({
  name: 'MemoryVectorStore (fixed dimensions, JSON snapshot as persistence)',
  create: () => new MemoryVectorStore({ dimensions: 8 }),
  reopen: async (store) => MemoryVectorStore.fromJSON(JSON.parse(JSON.stringify(store))),
  additionalTests: (getStore) => {
    it('keeps its configured dimension before anything is added', () => {
      expect(getStore().dimensions).toBe(8);
    });
  },
});
