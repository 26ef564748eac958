import { VECTOR_METRICS } from '@zerda/types';
import { reopenThroughFiles, testVectorStore } from '@zerda/vector-conformance';
import { MemoryVectorStore } from './memory-vector-store.js';

// Persistence: save to a .zvm file, load it back.
const reopen = reopenThroughFiles<MemoryVectorStore>({
  prefix: 'zerda-memory-conformance-',
  file: 'store.zvm',
  save: (store, path) => store.save(path),
  load: (path) => MemoryVectorStore.load(path),
});

for (const metric of VECTOR_METRICS) {
  testVectorStore({ name: `MemoryVectorStore (${metric})`, create: () => new MemoryVectorStore({ metric }), reopen });
}

testVectorStore({
  name: 'MemoryVectorStore (fixed dimensions, JSON snapshot as persistence)',
  create: () => new MemoryVectorStore({ dimensions: 8 }),
  reopen: async (store) => MemoryVectorStore.fromJSON(JSON.parse(JSON.stringify(store))),
  initialDimensions: 8,
});
