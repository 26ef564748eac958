#!/usr/bin/env node
// Measures FaissVectorStore at 10k chunks: build (add in batches of 1,000) and query latency
// (k = 10; unfiltered, and with a metadata filter keeping ~1/8 of the chunks), flat and HNSW,
// for 64 and 384 dimensions. Run after `pnpm --filter @zerda/vector-faiss build` (and
// `node packages/vector-faiss/scripts/build-faiss-node.mjs`):
//   node packages/vector-faiss/scripts/measure.mjs [chunks] [queries]
// Prints one JSON line per configuration. Numbers depend on the machine: compare within one run.
import { gaussianMixture } from '@zerda/vector-conformance';
import { percentile } from '@zerda/types';
import { FaissVectorStore, faissAvailability } from '../dist/index.js';
import { SELECTIVE_FILTER, clusteredCorpus, measureArguments, recallAt10, searchLatency, timeAdds } from '../../../scripts/vector-store-measure.mjs';

const availability = faissAvailability();
if (!availability.available) {
  console.error(availability.reason);
  process.exit(1);
}
const { total, queries } = measureArguments();

for (const dimensions of [64, 384]) {
  const { queryVectors, chunks } = clusteredCorpus(gaussianMixture, { total, queries, dimensions });
  // The flat index is exact: the HNSW index's recall is measured against it.
  const flat = new FaissVectorStore({ index: 'flat', metric: 'cosine' });
  const exactTop = async (vector) => new Set((await flat.search(vector, { k: 10 })).map((hit) => hit.chunk.id));
  for (const index of ['flat', 'hnsw']) {
    const store = index === 'flat' ? flat : new FaissVectorStore({ index: 'hnsw', metric: 'cosine' });
    const buildMs = await timeAdds(store, chunks);
    const recall = await recallAt10(store, queryVectors, 50, exactTop);
    const unfiltered = await searchLatency(store, queryVectors, { k: 10 }, percentile);
    const filtered = await searchLatency(store, queryVectors, { k: 10, filter: SELECTIVE_FILTER }, percentile);
    const name = index === 'flat' ? 'flat, exact' : `HNSW${store.hnswParameters.m}, efSearch ${store.hnswParameters.efSearch}`;
    console.log(JSON.stringify({ store: `faiss (${name})`, chunks: total, dimensions, buildMs: Math.round(buildMs), recallAt10: recall, queryMs: unfiltered, filteredQueryMs: filtered }));
  }
}
