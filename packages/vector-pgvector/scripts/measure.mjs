#!/usr/bin/env node
// Measures @zerda/vector-pgvector on embedded PGlite: bulk-load time, HNSW build time, query latency
// (p50/p95) and recall@10 against exact search, on seeded Gaussian-mixture vectors (realistic
// neighbourhoods, unlike uniform noise). Not a test: numbers depend on the machine.
//
// usage (after `pnpm --filter @zerda/vector-pgvector build`):
//   node scripts/measure.mjs [--sizes 10000,100000] [--dimensions 384] [--queries 100] [--ef 40,100]
//                            [--clusters 10] [--spread 1] [--json]
import { performance } from 'node:perf_hooks';
import { gaussianMixture } from '@zerda/vector-conformance';
import { createPGliteStore } from '../dist/index.js';
import { percentile } from '@zerda/types';

function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : process.argv[index + 1];
}

const sizes = argument('sizes', '10000').split(',').map(Number);
const dimensions = Number(argument('dimensions', '384'));
const queryCount = Number(argument('queries', '100'));
const efValues = argument('ef', '40,100').split(',').map(Number);
// Wide clusters (spread 1 = noise as large as the distance between centres) make the neighbours
// hard to tell apart, which is where approximate search loses recall.
const clusters = Number(argument('clusters', '10'));
const spread = Number(argument('spread', '1'));
const k = 10;
const asJson = process.argv.includes('--json');

/** Exact top-k by cosine in plain JavaScript: the ground truth recall is measured against. */
function exactTopK(vectors, norms, query) {
  let queryNorm = 0;
  for (let d = 0; d < query.length; d++) queryNorm += query[d] * query[d];
  queryNorm = Math.sqrt(queryNorm);
  const scored = new Array(vectors.length);
  for (let i = 0; i < vectors.length; i++) {
    const vector = vectors[i];
    let dot = 0;
    for (let d = 0; d < query.length; d++) dot += query[d] * vector[d];
    scored[i] = [dot / (norms[i] * queryNorm), i];
  }
  scored.sort((a, b) => b[0] - a[0]);
  return new Set(scored.slice(0, k).map(([, i]) => `v${i}`));
}

async function measure(size) {
  const mixture = gaussianMixture({ seed: 42, clusters, dimensions, spread });
  const vectors = Array.from({ length: size }, () => mixture.sample().vector);
  const queries = Array.from({ length: queryCount }, () => mixture.sample().vector);
  const norms = vectors.map((vector) => Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0)));

  const store = await createPGliteStore({ dimensions, deferIndex: true, textSearch: false, batchSize: 500, hnsw: { m: 16, efConstruction: 64 } });
  try {
    const loadStart = performance.now();
    const batch = 5000;
    for (let start = 0; start < size; start += batch) {
      await store.add(
        vectors.slice(start, start + batch).map((embedding, offset) => ({
          id: `v${start + offset}`,
          docId: `d${Math.floor((start + offset) / 10)}`,
          text: `chunk ${start + offset}`,
          source: 'bench',
          metadata: { bucket: (start + offset) % 10 },
          position: { index: (start + offset) % 10 },
          embedding,
        })),
      );
    }
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const indexStart = performance.now();
    await store.createIndex({ maintenanceWorkMem: '512MB' });
    const indexSeconds = (performance.now() - indexStart) / 1000;

    const truth = queries.map((query) => exactTopK(vectors, norms, query));
    const rows = [];
    for (const efSearch of efValues) {
      // One warm-up query so the first timing does not include loading the index pages.
      await store.search(queries[0], { k, efSearch });
      const latencies = [];
      let found = 0;
      for (let q = 0; q < queries.length; q++) {
        const start = performance.now();
        const hits = await store.search(queries[q], { k, efSearch });
        latencies.push(performance.now() - start);
        for (const hit of hits) if (truth[q].has(hit.chunk.id)) found++;
      }
      latencies.sort((a, b) => a - b);
      rows.push({ efSearch, p50: percentile(latencies, 50), p95: percentile(latencies, 95), recall: found / (queries.length * k) });
    }
    const exactLatencies = [];
    for (const query of queries.slice(0, 20)) {
      const start = performance.now();
      await store.search(query, { k, exact: true });
      exactLatencies.push(performance.now() - start);
    }
    exactLatencies.sort((a, b) => a - b);
    return { size, dimensions, clusters, spread, loadSeconds, indexSeconds, rows, exactP50: percentile(exactLatencies, 50) };
  } finally {
    await store.close();
  }
}

const results = [];
for (const size of sizes) {
  const result = await measure(size);
  results.push(result);
  if (!asJson) {
    console.log(`${size} chunks x ${dimensions}-d, ${clusters} clusters, spread ${spread} (PGlite, HNSW m=16 ef_construction=64, cosine): load ${result.loadSeconds.toFixed(1)} s, index build ${result.indexSeconds.toFixed(1)} s, exact scan p50 ${result.exactP50.toFixed(1)} ms`);
    for (const row of result.rows) {
      console.log(`  ef_search=${row.efSearch}: p50 ${row.p50.toFixed(2)} ms, p95 ${row.p95.toFixed(2)} ms, recall@${k} ${row.recall.toFixed(3)}`);
    }
  }
}
if (asJson) console.log(JSON.stringify(results, null, 2));
