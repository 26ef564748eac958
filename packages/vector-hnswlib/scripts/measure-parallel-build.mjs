#!/usr/bin/env node
// Measures the parallel build against the single-threaded one in one process (observed, never
// asserted): N random unit vectors (default 200,000 x 100-d) added in one batch with the store's
// defaults, then recall@10 of each store against exact search on 200 queries, then one more batch
// of EXTRA vectors added to each full store (the graph hand-over cost), and the hand-over itself
// (hnswlib-node writing and reading the graph). Run after `pnpm build`:
//   node scripts/measure-parallel-build.mjs [count=200000] [dimensions=100] [extra=20000]
import { availableParallelism, tmpdir } from 'node:os';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { MemoryVectorStore } from '@zerda/vector-memory';
import { HnswVectorStore, isParallelBuildAvailable } from '@zerda/vector-hnswlib';

const [count = 200_000, dimensions = 100, extra = 20_000] = process.argv.slice(2).map(Number);
if (!isParallelBuildAvailable()) {
  console.error('the parallel-build addon is not compiled: run `node scripts/build-native.mjs` first');
  process.exit(1);
}

let seed = 12345;
function random() {
  // xorshift32: fast, seeded, good enough for random directions
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
}
function gaussian() {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}
function unitVector() {
  const vector = Float32Array.from({ length: dimensions }, gaussian);
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  return vector.map((x) => x / norm);
}
const vectors = Array.from({ length: count + extra }, unitVector);
const queries = Array.from({ length: 200 }, unitVector);
const chunksOf = (from, to) => vectors.slice(from, to).map((embedding, i) => ({ id: `c${from + i}`, docId: `d${from + i}`, text: '', source: 'measure', metadata: {}, position: { index: 0 }, embedding }));

function cpuSeconds() {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}
/** CPU seconds the whole machine spent busy so far (Linux /proc/stat), to see other processes' load. */
function machineBusySeconds() {
  if (!existsSync('/proc/stat')) return undefined;
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const busy = fields.slice(0, 8).reduce((sum, x) => sum + x, 0) - fields[3] - fields[4];
  return busy / 100; // USER_HZ
}
async function timed(label, action) {
  const wall = performance.now();
  const cpu = cpuSeconds();
  const machine = machineBusySeconds();
  await action();
  const result = { wall: (performance.now() - wall) / 1000, cpu: cpuSeconds() - cpu };
  const others = machine === undefined ? '' : `; other processes meanwhile: ${Math.max(0, (machineBusySeconds() - machine - result.cpu) / result.wall).toFixed(2)} cores`;
  console.log(`${label}: ${result.wall.toFixed(2)} s wall, ${result.cpu.toFixed(1)} s CPU${others}`);
  return result;
}

const exact = new MemoryVectorStore({ metric: 'cosine' });
await exact.add(chunksOf(0, count));
const truth = [];
for (const query of queries) truth.push(new Set((await exact.search(query, { k: 10 })).map((hit) => hit.chunk.id)));
async function recall(store) {
  let found = 0;
  for (let i = 0; i < queries.length; i++) for (const hit of await store.search(queries[i], { k: 10 })) if (truth[i].has(hit.chunk.id)) found++;
  return found / (queries.length * 10);
}

console.log(`${count} x ${dimensions}-d random unit vectors, store defaults (M 24, efConstruction 100, efSearch 256, cosine); availableParallelism ${availableParallelism()}`);
const sequential = new HnswVectorStore({ buildThreads: 1 });
const sequentialTime = await timed('sequential build (buildThreads 1)', () => sequential.add(chunksOf(0, count)));
const parallel = new HnswVectorStore();
const parallelTime = await timed(`parallel build (buildThreads ${parallel.buildThreads})`, () => parallel.add(chunksOf(0, count)));
console.log(`speed-up ${(sequentialTime.wall / parallelTime.wall).toFixed(2)}x (wall)`);
console.log(`recall@10 vs exact (200 queries): sequential ${(await recall(sequential)).toFixed(4)}, parallel ${(await recall(parallel)).toFixed(4)}`);

if (extra > 0) {
  const sequentialExtra = await timed(`+${extra} into the ${count}-node sequential store (one thread)`, () => sequential.add(chunksOf(count, count + extra)));
  const parallelExtra = await timed(`+${extra} into the ${count}-node parallel store (hand-over + parallel)`, () => parallel.add(chunksOf(count, count + extra)));
  console.log(`speed-up on the extra batch ${(sequentialExtra.wall / parallelExtra.wall).toFixed(2)}x (wall)`);
}

// The hand-over: hnswlib-node writing the graph and reading it back (the helper does the same once more).
const directory = await mkdtemp(join(tmpdir(), 'zerda-hnsw-measure-'));
try {
  const graph = parallel['index'];
  const file = join(directory, 'graph.hnsw');
  await timed(`writeIndex of the ${count + extra}-node graph`, () => graph.writeIndex(file));
  await timed(`readIndex of the ${count + extra}-node graph`, () => graph.readIndex(file, true));
} finally {
  await rm(directory, { recursive: true, force: true });
}
