#!/usr/bin/env node
// Measures FaissVectorStore at 10k chunks: build (add in batches of 1,000) and query latency
// (k = 10; unfiltered, and with a metadata filter keeping ~1/8 of the chunks), flat and HNSW,
// for 64 and 384 dimensions. Run after `pnpm --filter @zerda/vector-faiss build` (and
// `node packages/vector-faiss/scripts/build-faiss-node.mjs`):
//   node packages/vector-faiss/scripts/measure.mjs [chunks] [queries]
// Prints one JSON line per configuration. Numbers depend on the machine: compare within one run.
import { gaussianMixture } from '@zerda/vector-conformance';
import { FaissVectorStore, faissAvailability } from '../dist/index.js';
import { percentile } from '@zerda/types';

const availability = faissAvailability();
if (!availability.available) {
  console.error(availability.reason);
  process.exit(1);
}
const total = Number(process.argv[2] ?? 10_000);
const queries = Number(process.argv[3] ?? 200);

async function time(action) {
  const start = process.hrtime.bigint();
  await action();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

for (const dimensions of [64, 384]) {
  const mixture = gaussianMixture({ seed: 42, clusters: 16, dimensions, spread: 0.3 });
  const chunks = Array.from({ length: total }, (_, i) => {
    const { cluster, vector } = mixture.sample();
    return { id: `c${i}`, docId: `d${i >> 3}`, text: `chunk ${i} about topic ${cluster}`, source: 'bench', metadata: { cluster: cluster % 8, year: 2000 + (i % 25) }, position: { index: i & 7 }, embedding: vector };
  });
  const queryVectors = Array.from({ length: queries }, () => mixture.sample().vector);
  const flat = new FaissVectorStore({ index: 'flat', metric: 'cosine' });
  for (const index of ['flat', 'hnsw']) {
    const store = index === 'flat' ? flat : new FaissVectorStore({ index: 'hnsw', metric: 'cosine' });
    const buildMs = await time(async () => {
      for (let start = 0; start < total; start += 1000) await store.add(chunks.slice(start, start + 1000));
    });
    let found = 0;
    for (const vector of queryVectors.slice(0, 50)) {
      const exact = new Set((await flat.search(vector, { k: 10 })).map((hit) => hit.chunk.id));
      for (const hit of await store.search(vector, { k: 10 })) if (exact.has(hit.chunk.id)) found += 1;
    }
    const measure = async (options) => {
      for (const vector of queryVectors.slice(0, 10)) await store.search(vector, options); // warm-up
      const times = [];
      for (const vector of queryVectors) times.push(await time(() => store.search(vector, options)));
      times.sort((a, b) => a - b);
      return { p50: +percentile(times, 50).toFixed(2), p95: +percentile(times, 95).toFixed(2) };
    };
    const unfiltered = await measure({ k: 10 });
    const filtered = await measure({ k: 10, filter: { cluster: 3, year: { $gte: 2010 } } });
    console.log(JSON.stringify({ store: `faiss (${index === 'flat' ? 'flat, exact' : `HNSW${store.hnswParameters.m}, efSearch ${store.hnswParameters.efSearch}`})`, chunks: total, dimensions, buildMs: Math.round(buildMs), recallAt10: found / 500, queryMs: unfiltered, filteredQueryMs: filtered }));
  }
}
