#!/usr/bin/env node
// Measures LanceDbVectorStore at 10k chunks: build (add in batches of 1,000) and query latency
// (k = 10; unfiltered, and with a metadata filter keeping ~1/8 of the chunks), for 64 and 384
// dimensions, on a temporary directory. Run after `pnpm --filter @zerda/vector-lancedb build`:
//   node packages/vector-lancedb/scripts/measure.mjs [chunks] [queries]
// Prints one JSON line per configuration. Numbers depend on the machine: compare within one run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gaussianMixture } from '@zerda/vector-conformance';
import { LanceDbVectorStore } from '../dist/index.js';
import { percentile } from '@zerda/types';

const total = Number(process.argv[2] ?? 10_000);
const queries = Number(process.argv[3] ?? 200);

async function time(action) {
  const start = process.hrtime.bigint();
  await action();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

for (const dimensions of [64, 384]) {
  const directory = await mkdtemp(join(tmpdir(), 'zerda-lancedb-measure-'));
  const mixture = gaussianMixture({ seed: 42, clusters: 16, dimensions, spread: 0.3 });
  const chunks = Array.from({ length: total }, (_, i) => {
    const { cluster, vector } = mixture.sample();
    return { id: `c${i}`, docId: `d${i >> 3}`, text: `chunk ${i} about topic ${cluster}`, source: 'bench', metadata: { cluster: cluster % 8, year: 2000 + (i % 25) }, position: { index: i & 7 }, embedding: vector };
  });
  const store = new LanceDbVectorStore({ uri: directory, table: 'bench', metric: 'cosine' });
  const buildMs = await time(async () => {
    for (let start = 0; start < total; start += 1000) await store.add(chunks.slice(start, start + 1000));
  });
  const queryVectors = Array.from({ length: queries }, () => mixture.sample().vector);
  const measure = async (options) => {
    for (const vector of queryVectors.slice(0, 10)) await store.search(vector, options); // warm-up
    const times = [];
    for (const vector of queryVectors) times.push(await time(() => store.search(vector, options)));
    times.sort((a, b) => a - b);
    return { p50: +percentile(times, 50).toFixed(2), p95: +percentile(times, 95).toFixed(2) };
  };
  const unfiltered = await measure({ k: 10 });
  const filtered = await measure({ k: 10, filter: { cluster: 3, year: { $gte: 2010 } } });
  console.log(JSON.stringify({ store: 'lancedb (exact scan)', chunks: total, dimensions, buildMs: Math.round(buildMs), queryMs: unfiltered, filteredQueryMs: filtered }));
  // The same table with an IVF-flat index of about sqrt(n) partitions (LanceDB's own default makes
  // a few large ones), 20 of them probed.
  const indexMs = await time(() => store.createVectorIndex({ type: 'ivfFlat', numPartitions: Math.round(Math.sqrt(total)) }));
  const knobs = { nprobes: 20 };
  let found = 0;
  for (const vector of queryVectors.slice(0, 50)) {
    const exact = new Set((await store.search(vector, { k: 10, exact: true })).map((hit) => hit.chunk.id));
    for (const hit of await store.search(vector, { k: 10, ...knobs })) if (exact.has(hit.chunk.id)) found += 1;
  }
  const indexed = await measure({ k: 10, ...knobs });
  const indexedFiltered = await measure({ k: 10, filter: { cluster: 3, year: { $gte: 2010 } }, ...knobs });
  console.log(JSON.stringify({ store: `lancedb (IVF-flat, ${Math.round(Math.sqrt(total))} partitions, nprobes 20)`, chunks: total, dimensions, buildMs: Math.round(buildMs + indexMs), indexMs: Math.round(indexMs), recallAt10: found / 500, queryMs: indexed, filteredQueryMs: indexedFiltered }));
  await store.close();
  await rm(directory, { recursive: true, force: true });
}
