// Measures KeywordRetriever speed and memory (a report, not a test: nothing is asserted).
//   node --expose-gc scripts/measure-speed.mjs scifact            index build + per-query latency on BEIR SciFact
//   node --expose-gc --max-old-space-size=16000 scripts/measure-speed.mjs synthetic 1000000
//        builds an index of N chunks made of 120-token windows of the SciFact token stream
//        (realistic word frequencies), reports build time, per-query latency and bytes per chunk.
// Run `pnpm --filter @zerda/retriever build` first.
import { Analyzer, words } from '@zerda/text';
import { KeywordRetriever } from '@zerda/retriever';
import { loadBeirDataset, locateDatasets } from '@zerda/retriever/datasets';
import { join } from 'node:path';
import { percentile } from '@zerda/types';

const root = locateDatasets(new URL('.', import.meta.url).pathname);
if (!root) {
  console.error('datasets not found: set ZERDA_DATASETS');
  process.exit(1);
}
const scifact = loadBeirDataset(join(root, 'beir-scifact'));
const mode = process.argv[2] ?? 'scifact';

function memory() {
  globalThis.gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

async function latency(retriever, queries, topK, rounds = 3) {
  for (const query of queries) await retriever.retrieve(query, { topK }); // warm-up
  const times = [];
  const cpuBefore = process.cpuUsage();
  for (let round = 0; round < rounds; round++) {
    for (const query of queries) {
      const start = performance.now();
      await retriever.retrieve(query, { topK });
      times.push(performance.now() - start);
    }
  }
  const cpu = process.cpuUsage(cpuBefore);
  times.sort((a, b) => a - b);
  const mean = times.reduce((sum, time) => sum + time, 0) / times.length;
  const cpuMean = (cpu.user + cpu.system) / 1000 / times.length;
  return `topK ${topK}: mean ${mean.toFixed(3)} ms wall (${cpuMean.toFixed(3)} ms CPU), p50 ${percentile(times, 50).toFixed(3)} ms, p95 ${percentile(times, 95).toFixed(3)} ms`;
}

const queries = scifact.queries.map((query) => query.text);

if (mode === 'scifact') {
  const chunks = scifact.corpus.map((document) => ({ id: document.id, docId: document.id, text: document.text, title: document.title }));
  for (const label of ['cold analyzer cache', 'warm analyzer cache']) {
    const analyzer = label.startsWith('cold') ? new Analyzer() : undefined;
    const retriever = new KeywordRetriever(analyzer ? { analyzer } : {});
    const before = memory();
    const cpuBefore = process.cpuUsage();
    const start = performance.now();
    await retriever.index(chunks);
    const buildMs = performance.now() - start;
    const cpu = process.cpuUsage(cpuBefore);
    const bytes = memory() - before;
    const stats = retriever.stats();
    console.log(`SciFact (${label}): ${chunks.length} chunks indexed in ${buildMs.toFixed(0)} ms wall, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU; ${stats.terms} terms, ${stats.postings} postings; index typed arrays ${(stats.typedArrayBytes / chunks.length).toFixed(0)} B/chunk; heap growth incl. chunks ${(bytes / chunks.length).toFixed(0)} B/chunk`);
  }
  const retriever = new KeywordRetriever();
  await retriever.index(chunks);
  console.log(`SciFact per-query latency (${queries.length} queries x 3): ${await latency(retriever, queries, 10)}`);
  console.log(`SciFact per-query latency (${queries.length} queries x 3): ${await latency(retriever, queries, 100)}`);
} else if (mode === 'synthetic') {
  const count = Number(process.argv[3] ?? 1_000_000);
  const stream = scifact.corpus.flatMap((document) => words(`${document.title} ${document.text}`));
  let seed = 42;
  const random = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const window = 120;
  const chunkAt = (index) => {
    const start = Math.floor(random() * (stream.length - window));
    return { id: `c${index}`, docId: `d${Math.floor(index / 4)}`, text: stream.slice(start, start + window).join(' ') };
  };
  const chunks = Array.from({ length: count }, (_, index) => chunkAt(index));
  const textBytes = chunks.reduce((sum, chunk) => sum + chunk.text.length, 0);
  console.log(`synthetic: ${count} chunks of ${window} tokens (${(textBytes / count).toFixed(0)} chars each) from the SciFact token stream`);
  const retriever = new KeywordRetriever({ analyzer: new Analyzer() });
  const before = memory();
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  await retriever.index(chunks);
  const buildMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  const after = memory();
  const stats = retriever.stats();
  console.log(`built in ${(buildMs / 1000).toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU (${((count / buildMs) * 1000).toFixed(0)} chunks/s wall); ${stats.terms} terms, ${stats.postings} postings (${(stats.postings / count).toFixed(1)} per chunk)`);
  console.log(`index typed arrays: ${(stats.typedArrayBytes / 2 ** 20).toFixed(0)} MiB = ${(stats.typedArrayBytes / count).toFixed(0)} B/chunk; heap growth after build (index + maps, chunk objects already held): ${((after - before) / count).toFixed(0)} B/chunk; process RSS ${(process.memoryUsage().rss / 2 ** 30).toFixed(2)} GiB`);
  console.log(`per-query latency over ${count} chunks (SciFact queries): ${await latency(retriever, queries, 10, 1)}`);
  const addStart = performance.now();
  await retriever.add(Array.from({ length: 1000 }, (_, index) => chunkAt(count + index)));
  await retriever.remove(Array.from({ length: 250 }, (_, index) => `d${index}`));
  console.log(`incremental: add 1000 + remove 1000 chunks in ${(performance.now() - addStart).toFixed(0)} ms; delta postings ${retriever.stats().deltaPostings}, tombstones ${retriever.stats().tombstones}`);
  const compactStart = performance.now();
  retriever.compact();
  console.log(`compaction of ${retriever.size()} chunks: ${(performance.now() - compactStart).toFixed(0)} ms`);
}
