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
import { percentile } from '@zerda/types';
import { LanceDbVectorStore } from '../dist/index.js';
import { SELECTIVE_FILTER, clusteredCorpus, measureArguments, recallAt10, searchLatency, timeAdds, timeMs } from '../../../scripts/vector-store-measure.mjs';

const { total, queries } = measureArguments();
for (const dimensions of [64, 384]) {
  const directory = await mkdtemp(join(tmpdir(), 'zerda-lancedb-measure-'));
  const { queryVectors, chunks } = clusteredCorpus(gaussianMixture, { total, queries, dimensions });
  const store = new LanceDbVectorStore({ uri: directory, table: 'bench', metric: 'cosine' });
  const buildMs = await timeAdds(store, chunks);
  const latency = (options) => searchLatency(store, queryVectors, options, percentile);
  const unfiltered = await latency({ k: 10 });
  const filtered = await latency({ k: 10, filter: SELECTIVE_FILTER });
  console.log(JSON.stringify({ store: 'lancedb (exact scan)', chunks: total, dimensions, buildMs: Math.round(buildMs), queryMs: unfiltered, filteredQueryMs: filtered }));
  // The same table with an IVF-flat index of about sqrt(n) partitions (LanceDB's own default makes
  // a few large ones), 20 of them probed.
  const partitions = Math.round(Math.sqrt(total));
  const indexMs = await timeMs(() => store.createVectorIndex({ type: 'ivfFlat', numPartitions: partitions }));
  const knobs = { nprobes: 20 };
  const exactTop = async (vector) => new Set((await store.search(vector, { k: 10, exact: true })).map((hit) => hit.chunk.id));
  const recall = await recallAt10(store, queryVectors, 50, exactTop, knobs);
  const indexed = await latency({ k: 10, ...knobs });
  const indexedFiltered = await latency({ k: 10, filter: SELECTIVE_FILTER, ...knobs });
  console.log(JSON.stringify({ store: `lancedb (IVF-flat, ${partitions} partitions, nprobes 20)`, chunks: total, dimensions, buildMs: Math.round(buildMs + indexMs), indexMs: Math.round(indexMs), recallAt10: recall, queryMs: indexed, filteredQueryMs: indexedFiltered }));
  await store.close();
  await rm(directory, { recursive: true, force: true });
}
