// Child of the parallel-build temporary-file test: adds one large batch (built on two threads, so
// through temporary graph files in TMPDIR) and prints "done" when finished; the parent SIGKILLs it
// mid-build and checks that TMPDIR is empty.
import { HnswVectorStore } from '@zerda/vector-hnswlib';

let seed = 1;
const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 2 - 1;
const chunks = Array.from({ length: 80_000 }, (_, i) => ({
  id: `c${i}`, docId: `c${i}`, text: 'x', source: 'child', metadata: {}, position: { index: 0 },
  embedding: Float32Array.from({ length: 32 }, random),
}));
const store = new HnswVectorStore({ buildThreads: 2, parallelBuildThreshold: 1000 });
await store.add(chunks);
console.log('done');
