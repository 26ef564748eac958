#!/usr/bin/env node
// Measures ChromaVectorStore at 10k chunks against the local Chroma server the chromadb package
// ships (started here on 127.0.0.1 with a temporary directory): build (add in batches of 1,000)
// and query latency (k = 10; unfiltered, and with a metadata filter keeping ~1/8 of the chunks),
// for 64 and 384 dimensions. Run after `pnpm --filter @zerda/vector-chroma build`:
//   node packages/vector-chroma/scripts/measure.mjs [chunks] [queries]
// Prints one JSON line per configuration. Numbers depend on the machine: compare within one run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gaussianMixture } from '@zerda/vector-conformance';
import { cosineSimilarity, percentile } from '@zerda/types';
import { ChromaVectorStore, startChromaServer } from '../dist/index.js';
import { SELECTIVE_FILTER, clusteredCorpus, measureArguments, recallAt10, searchLatency, timeAdds } from '../../../scripts/vector-store-measure.mjs';

const { total, queries } = measureArguments();
const directory = await mkdtemp(join(tmpdir(), 'zerda-chroma-measure-'));
const server = await startChromaServer({ path: directory });
try {
  for (const dimensions of [64, 384]) {
    const { chunks, queryVectors } = clusteredCorpus(gaussianMixture, { total, queries, dimensions });
    const store = new ChromaVectorStore({ url: server.url, collection: `bench-${dimensions}`, metric: 'cosine' });
    const buildMs = await timeAdds(store, chunks);
    // Exact neighbours by brute force (Chroma has no exact mode).
    const exactTop = (vector) =>
      new Set(chunks.map((chunk) => ({ id: chunk.id, score: cosineSimilarity(vector, chunk.embedding) })).sort((x, y) => y.score - x.score).slice(0, 10).map((hit) => hit.id));
    const recall = await recallAt10(store, queryVectors, 30, exactTop);
    const unfiltered = await searchLatency(store, queryVectors, { k: 10 }, percentile);
    const filtered = await searchLatency(store, queryVectors, { k: 10, filter: SELECTIVE_FILTER }, percentile);
    console.log(JSON.stringify({ store: 'chroma (local server, HNSW)', chunks: total, dimensions, buildMs: Math.round(buildMs), recallAt10: recall, queryMs: unfiltered, filteredQueryMs: filtered }));
    await store.drop();
  }
} finally {
  await server.stop();
  await rm(directory, { recursive: true, force: true });
}
