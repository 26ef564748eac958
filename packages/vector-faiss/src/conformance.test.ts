import { reopenThroughFiles, testVectorStore } from '@zerda/vector-conformance';
import { VECTOR_METRICS } from '@zerda/types';
import { faissAvailability } from './faiss-loader.js';
import { FaissVectorStore } from './faiss-vector-store.js';

// Where faiss-node cannot load, every suite is skipped with a message that says how to install it.
const availability = faissAvailability();
const skip = availability.available ? false : availability.reason;
// Persistence: save to a .zfaiss file, load it back.
const reopen = reopenThroughFiles<FaissVectorStore>({
  prefix: 'zerda-faiss-conformance-',
  file: 'store.zfaiss',
  save: (store, path) => store.save(path),
  load: (path) => FaissVectorStore.load(path),
});

for (const index of ['flat', 'hnsw'] as const) {
  for (const metric of VECTOR_METRICS) {
    testVectorStore({
      name: `FaissVectorStore (${index}, ${metric})`,
      skip,
      create: () => new FaissVectorStore({ index, metric }),
      reopen,
      // Persistence through save/load; filters are applied after FAISS answers.
      capabilities: { persistence: true, nativeFilter: false, textSearch: false, embeds: false },
    });
  }
}

testVectorStore({
  name: 'FaissVectorStore (hnsw, fixed dimensions, compacting after every delete, FAISS answers every filter)',
  skip,
  create: () => new FaissVectorStore({ index: 'hnsw', dimensions: 8, autoCompact: 0, exactFilterShare: 0 }),
  reopen,
  initialDimensions: 8,
});
