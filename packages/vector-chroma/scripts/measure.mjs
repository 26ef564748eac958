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
import { ChromaVectorStore, startChromaServer } from '../dist/index.js';
import { percentile } from '@zerda/types';

const total = Number(process.argv[2] ?? 10_000);
const queries = Number(process.argv[3] ?? 200);

async function time(action) {
  const start = process.hrtime.bigint();
  await action();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const directory = await mkdtemp(join(tmpdir(), 'zerda-chroma-measure-'));
const server = await startChromaServer({ path: directory });
try {
  for (const dimensions of [64, 384]) {
    const mixture = gaussianMixture({ seed: 42, clusters: 16, dimensions, spread: 0.3 });
    const chunks = Array.from({ length: total }, (_, i) => {
      const { cluster, vector } = mixture.sample();
      return { id: `c${i}`, docId: `d${i >> 3}`, text: `chunk ${i} about topic ${cluster}`, source: 'bench', metadata: { cluster: cluster % 8, year: 2000 + (i % 25) }, position: { index: i & 7 }, embedding: vector };
    });
    const store = new ChromaVectorStore({ url: server.url, collection: `bench-${dimensions}`, metric: 'cosine' });
    const buildMs = await time(async () => {
      for (let start = 0; start < total; start += 1000) await store.add(chunks.slice(start, start + 1000));
    });
    const queryVectors = Array.from({ length: queries }, () => mixture.sample().vector);
    const exactTop = async (vector) => {
      const scored = chunks.map((chunk) => {
        let dot = 0, a = 0, b = 0;
        for (let i = 0; i < dimensions; i++) { dot += vector[i] * chunk.embedding[i]; a += vector[i] ** 2; b += chunk.embedding[i] ** 2; }
        return { id: chunk.id, score: dot / Math.sqrt(a * b) };
      });
      return new Set(scored.sort((x, y) => y.score - x.score).slice(0, 10).map((hit) => hit.id));
    };
    let found = 0;
    for (const vector of queryVectors.slice(0, 30)) {
      const exact = await exactTop(vector);
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
    console.log(JSON.stringify({ store: 'chroma (local server, HNSW)', chunks: total, dimensions, buildMs: Math.round(buildMs), recallAt10: found / 300, queryMs: unfiltered, filteredQueryMs: filtered }));
    await store.drop();
  }
} finally {
  await server.stop();
  await rm(directory, { recursive: true, force: true });
}
