import { VECTOR_METRICS } from '@zerda/types';
import { reopenThroughFiles, testVectorStore } from '@zerda/vector-conformance';
import { HnswVectorStore } from './hnswlib-vector-store.js';
import { isParallelBuildAvailable } from './parallel-build.js';

// Persistence: save into a snapshot directory, load it back.
const reopen = reopenThroughFiles<HnswVectorStore>({
  prefix: 'zerda-hnsw-conformance-',
  save: (store, directory) => store.save(directory),
  load: (directory) => HnswVectorStore.load(directory),
});

for (const metric of VECTOR_METRICS) {
  testVectorStore({
    name: `HnswVectorStore (${metric})`,
    // A tiny initial capacity makes the suite exercise automatic growth too.
    create: () => new HnswVectorStore({ metric, dimensions: 8, maxElements: 4 }),
    dimensions: 8,
    reopen,
  });
}

testVectorStore({
  name: 'HnswVectorStore (dimension set by the first vector, every filtered search through the graph when possible)',
  create: () => new HnswVectorStore({ exactSearchThreshold: 0 }),
  reopen,
  initialDimensions: null,
});

// Every add through the native parallel build (threshold 1): the whole contract on that path too.
for (const metric of VECTOR_METRICS) {
  testVectorStore({
    name: `HnswVectorStore (${metric}, every add built in parallel)`,
    skip: isParallelBuildAvailable() ? false : 'the parallel-build addon is not compiled: run `node scripts/build-native.mjs` in packages/vector-hnswlib',
    create: () => new HnswVectorStore({ metric, dimensions: 8, maxElements: 4, buildThreads: 2, parallelBuildThreshold: 1 }),
    dimensions: 8,
    reopen,
  });
}
