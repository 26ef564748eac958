import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, readlink, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ZerdaError, type DocumentChunk, type VectorMetric } from '@zerda/types';
import { MemoryVectorStore } from '@zerda/vector-memory';
import { seededRandom } from '@zerda/vector-conformance';
import { HnswVectorStore, type HnswVectorStoreOptions } from './hnswlib-vector-store.js';
import { loadAddon, parallelBuildAddon } from './parallel-build.js';

const addon = parallelBuildAddon();
const BUILD_HINT = 'the parallel-build addon is not compiled: run `node scripts/build-native.mjs` (or `pnpm --filter @zerda/vector-hnswlib build`) in packages/vector-hnswlib';
if (!addon) console.warn(`[vector-hnswlib] parallel-build tests skipped: ${BUILD_HINT}`);

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'zerda-hnsw-parallel-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

function chunk(id: string, embedding: Float32Array | number[], metadata: DocumentChunk['metadata'] = {}): DocumentChunk {
  return { id, docId: id.split('#')[0]!, text: `text ${id}`, source: 'test', metadata, position: { index: 0 }, embedding };
}

function randomChunks(count: number, dimensions: number, seed: number, prefix = 'v'): DocumentChunk[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => chunk(`${prefix}${i}`, Float32Array.from({ length: dimensions }, () => random() * 2 - 1), { bucket: i % 10 }));
}

function randomVectors(count: number, dimensions: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => Float32Array.from({ length: dimensions }, () => random() * 2 - 1));
}

/** hnswlib's graph file of a store, as bytes (through the store's own graph object). */
async function graphBytes(store: HnswVectorStore, name: string): Promise<Buffer> {
  const path = join(directory, `${name}.hnsw`);
  await (store as unknown as { index: { writeIndex(path: string): Promise<boolean> } }).index.writeIndex(path);
  return readFile(path);
}

/** The store's current graph object: the parallel path replaces it, the single-threaded path keeps it. */
function graphOf(store: HnswVectorStore): object | undefined {
  return (store as unknown as { index: object | undefined }).index;
}

/** Adds `chunks` and checks that they went through the native helper (not its single-threaded fallback). */
async function addInParallel(store: HnswVectorStore, chunks: DocumentChunk[]): Promise<void> {
  const before = graphOf(store);
  await store.add(chunks);
  expect(graphOf(store), 'the batch was built in parallel (the graph was replaced)').not.toBe(before);
}

/** Adds `chunks` and checks that they were inserted one by one into the same graph. */
async function addSequentially(store: HnswVectorStore, chunks: DocumentChunk[]): Promise<void> {
  const before = graphOf(store);
  await store.add(chunks);
  if (before !== undefined) expect(graphOf(store), 'the batch was inserted into the same graph').toBe(before);
}

async function recallAt10(store: HnswVectorStore, exact: MemoryVectorStore, queries: Float32Array[]): Promise<number> {
  let found = 0;
  let expected = 0;
  for (const query of queries) {
    const truth = new Set((await exact.search(query, { k: 10 })).map((hit) => hit.chunk.id));
    const hits = await store.search(query, { k: 10 });
    found += hits.filter((hit) => truth.has(hit.chunk.id)).length;
    expected += truth.size;
  }
  return found / expected;
}

describe('HnswVectorStore parallel build options', () => {
  it('defaults to all cores and 20,000 vectors', () => {
    const store = new HnswVectorStore();
    expect(store.buildThreads).toBe(availableParallelism());
    expect(store.parallelBuildThreshold).toBe(20_000);
    const custom = new HnswVectorStore({ buildThreads: 3, parallelBuildThreshold: 500 });
    expect([custom.buildThreads, custom.parallelBuildThreshold]).toEqual([3, 500]);
  });

  it('refuses invalid values with a ZerdaError naming the field, what was received and what was expected', async () => {
    const cases: Array<[HnswVectorStoreOptions, RegExp]> = [
      [{ buildThreads: 0 }, /^options\.buildThreads must be an integer from 1 to 1024, got number 0$/],
      [{ buildThreads: 2.5 }, /^options\.buildThreads must be an integer from 1 to 1024, got number 2\.5$/],
      [{ buildThreads: 1025 }, /^options\.buildThreads must be an integer from 1 to 1024, got number 1025$/],
      [{ buildThreads: '4' as never }, /^options\.buildThreads must be an integer from 1 to 1024, got string "4"$/],
      [{ parallelBuildThreshold: 0 }, /^options\.parallelBuildThreshold must be an integer from 1 to 1000000000, got number 0$/],
      [{ parallelBuildThreshold: Number.NaN }, /^options\.parallelBuildThreshold must be an integer from 1 to 1000000000, got number NaN$/],
    ];
    for (const [options, message] of cases) {
      let caught: unknown;
      try {
        new HnswVectorStore(options);
      } catch (error) {
        caught = error;
      }
      expect(ZerdaError.isInstance(caught), JSON.stringify(options)).toBe(true);
      expect((caught as ZerdaError).code).toBe('ZERDA_INVALID_ARGUMENT');
      expect((caught as ZerdaError).message).toMatch(message);
    }
    // load() and open() take them too, validated the same way.
    const path = join(directory, 'options');
    const store = new HnswVectorStore({ dimensions: 2 });
    await store.add([chunk('a', [1, 0])]);
    await store.save(path);
    await expect(HnswVectorStore.load(path, { buildThreads: 0 })).rejects.toThrow(/options\.buildThreads must be an integer from 1 to 1024, got number 0/);
    await expect(HnswVectorStore.load(join(directory, 'not-saved'), { parallelBuildThreshold: -1 })).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', details: { field: 'options.parallelBuildThreshold' } });
    const loaded = await HnswVectorStore.open({ directory: path, buildThreads: 2, parallelBuildThreshold: 7 });
    expect([loaded.buildThreads, loaded.parallelBuildThreshold, await loaded.count()]).toEqual([2, 7, 1]);
  });

  it('an addon that is missing or does not load is reported as absent, not thrown', () => {
    expect(loadAddon('../build/Release/no-such-addon.node')).toBeUndefined();
    expect(loadAddon('./hnswlib-snapshot.js')).toBeUndefined(); // loads, but is not the addon
  });
});

describe.skipIf(!addon)(`HnswVectorStore parallel build${addon ? '' : ` (skipped: ${BUILD_HINT})`}`, () => {
  const parallel = { buildThreads: 2, parallelBuildThreshold: 1000 } as const;

  it('finds the same top-10 as the sequential build (20,000 random 32-d vectors, recall@10 against exact)', { timeout: 300_000 }, async () => {
    const chunks = randomChunks(20_000, 32, 1);
    const queries = randomVectors(200, 32, 2);
    const exact = new MemoryVectorStore({ metric: 'cosine' });
    await exact.add(chunks.map((c) => ({ ...c })));
    const build = vi.spyOn(addon!, 'build');
    const sequential = new HnswVectorStore({ buildThreads: 1 });
    await sequential.add(chunks.map((c) => ({ ...c })));
    expect(build).not.toHaveBeenCalled();
    const fast = new HnswVectorStore(parallel);
    await addInParallel(fast, chunks.map((c) => ({ ...c })));
    expect(build).toHaveBeenCalledTimes(1);
    expect(await build.mock.results[0]!.value).toMatchObject({ count: 20_000, threads: 2 });
    const sequentialRecall = await recallAt10(sequential, exact, queries);
    const parallelRecall = await recallAt10(fast, exact, queries);
    console.info(`[hnsw parallel] 20k x 32 recall@10: sequential ${sequentialRecall.toFixed(4)}, parallel ${parallelRecall.toFixed(4)}`);
    expect(parallelRecall).toBeGreaterThanOrEqual(sequentialRecall - 0.02);
    expect(await fast.count()).toBe(20_000);
    expect(fast.capacity).toBe(sequential.capacity);
  });

  it.each(['cosine', 'ip', 'l2'] as VectorMetric[])('stores what hnswlib-node stores and scores like exact search (%s)', async (metric) => {
    // Vectors of varied length, so that a wrong normalisation (cosine) or a normalised ip/l2 shows.
    const random = seededRandom(9);
    const chunks = randomChunks(3000, 16, 3).map((c, i) => ({ ...c, embedding: (c.embedding as Float32Array).map((x) => x * (0.5 + (i % 7))) }));
    const sequential = new HnswVectorStore({ metric, buildThreads: 1 });
    const fast = new HnswVectorStore({ metric, ...parallel });
    const exact = new MemoryVectorStore({ metric });
    await sequential.add(chunks.map((c) => ({ ...c })));
    await addInParallel(fast, chunks.map((c) => ({ ...c })));
    await exact.add(chunks.map((c) => ({ ...c })));
    const graph = (store: HnswVectorStore) => (store as unknown as { index: { getPoint(label: number): number[] } }).index;
    for (const label of [0, 1, 1234, 2999]) expect(graph(fast).getPoint(label)).toEqual(graph(sequential).getPoint(label));
    const query = Array.from({ length: 16 }, () => random() * 2 - 1);
    const truth = new Map((await exact.search(query, { k: 3000 })).map((hit) => [hit.chunk.id, hit.score]));
    const hits = await fast.search(query, { k: 20, efSearch: 500 });
    expect(hits).toHaveLength(20);
    for (const hit of hits) expect(hit.score).toBeCloseTo(truth.get(hit.chunk.id)!, 4);
    expect(hits.map((hit) => hit.chunk.id)).toEqual((await exact.search(query, { k: 20 })).map((hit) => hit.chunk.id));
  });

  it('keeps the event loop responsive, and searches answer from the previous graph meanwhile', { timeout: 300_000 }, async () => {
    const first = randomChunks(2000, 32, 4, 'old');
    const batch = randomChunks(20_000, 32, 5, 'new');
    const store = new HnswVectorStore(parallel);
    await store.add(first);
    const probe = first[17]!.embedding as Float32Array;

    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const adding = addInParallel(store, batch.map((c) => ({ ...c })));
    // Let validation (synchronous) finish and the native build start, then search while it runs.
    while (ticks < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    const during = await store.search(probe, { k: 5 });
    const countDuring = await store.count();
    await adding;
    const parallelTicks = ticks;
    clearInterval(timer);
    expect(during[0]!.chunk.id).toBe('old17');
    expect(during.every((hit) => hit.chunk.id.startsWith('old'))).toBe(true);
    expect(countDuring).toBe(2000);
    expect(await store.count()).toBe(22_000);

    // The same batch on one thread blocks the loop: the timer barely gets a turn.
    const blocking = new HnswVectorStore({ buildThreads: 1 });
    await blocking.add(first);
    ticks = 0;
    const control = setInterval(() => ticks++, 5);
    await blocking.add(batch.map((c) => ({ ...c })));
    clearInterval(control);
    console.info(`[hnsw parallel] timer ticks while adding 20k x 32: parallel ${parallelTicks}, one thread ${ticks}`);
    expect(parallelTicks).toBeGreaterThanOrEqual(20);
    expect(ticks).toBeLessThan(parallelTicks);
  });

  it('a parallel-built store saves, loads and keeps working', { timeout: 120_000 }, async () => {
    const chunks = randomChunks(5000, 16, 6);
    const store = new HnswVectorStore({ metric: 'l2', ...parallel });
    await addInParallel(store, chunks);
    const path = join(directory, 'saved');
    await store.save(path);
    const loaded = await HnswVectorStore.load(path, parallel);
    expect([await loaded.count(), loaded.capacity, loaded.metric]).toEqual([5000, store.capacity, 'l2']);
    const queries = randomVectors(20, 16, 7);
    for (const query of queries) expect(await loaded.search(query, { k: 10 })).toEqual(await store.search(query, { k: 10 }));
    expect(await loaded.search(queries[0]!, { k: 5, filter: { bucket: 3 } })).toEqual(await store.search(queries[0]!, { k: 5, filter: { bucket: 3 } }));
    // A second parallel batch extends the loaded graph, and that saves and loads too.
    await addInParallel(loaded, randomChunks(3000, 16, 8, 'more'));
    await loaded.save();
    const again = await HnswVectorStore.load(path);
    expect(await again.count()).toBe(8000);
    const target = (await again.get(['more42']))[0]!.embedding as Float32Array;
    expect((await again.search(target, { k: 1 }))[0]?.chunk.id).toBe('more42');
  });

  it('deletes, slot reuse, updates and growth after a parallel build match the sequential store', { timeout: 120_000 }, async () => {
    const base = new HnswVectorStore({ metric: 'cosine', maxElements: 16, buildThreads: 1 });
    const fast = new HnswVectorStore({ metric: 'cosine', maxElements: 16, ...parallel });
    const build = vi.spyOn(addon!, 'build');
    const first = randomChunks(5000, 16, 10);
    const deleted = Array.from({ length: 1500 }, (_, i) => `v${i * 3}`);
    // 2000 new ids (1500 take deleted slots, 500 grow the graph) and 100 live ids with new vectors.
    const replacement = randomVectors(100, 16, 12);
    const second = [...randomChunks(2000, 16, 11, 'w'), ...replacement.map((vector, i) => chunk(`v${i * 3 + 1}`, vector, { bucket: 99 }))];
    await base.add(first.map((c) => ({ ...c })));
    await base.delete(deleted);
    await base.add(second.map((c) => ({ ...c })));
    await addInParallel(fast, first.map((c) => ({ ...c })));
    await fast.delete(deleted);
    await addInParallel(fast, second.map((c) => ({ ...c })));
    expect(build).toHaveBeenCalledTimes(2);
    expect(await fast.count()).toBe(5000 - 1500 + 2000);
    expect(fast.capacity).toBe(base.capacity);
    const internals = (store: HnswVectorStore) => store as unknown as { deletedSlots: number; nextLabel: number; index: { getCurrentCount(): number } };
    expect([internals(fast).deletedSlots, internals(fast).nextLabel, internals(fast).index.getCurrentCount()]).toEqual([
      internals(base).deletedSlots,
      internals(base).nextLabel,
      internals(base).index.getCurrentCount(),
    ]);
    expect(internals(fast).index.getCurrentCount()).toBe(5500);
    // Deleted ids are gone, updated ids answer with their new vectors.
    const everything = await fast.search(randomVectors(1, 16, 13)[0]!, { k: 10_000 });
    expect(everything).toHaveLength(5500);
    const deletedSet = new Set(deleted);
    expect(everything.some((hit) => deletedSet.has(hit.chunk.id))).toBe(false);
    for (const i of [0, 50, 99]) {
      const [best] = await fast.search(replacement[i]!, { k: 1 });
      expect(best?.chunk.id).toBe(`v${i * 3 + 1}`);
      expect(best?.score).toBeCloseTo(1, 5);
    }
    // The saved directory passes load's consistency checks (graph labels = live + deleted).
    const path = join(directory, 'reuse');
    await fast.save(path);
    expect(await (await HnswVectorStore.load(path)).count()).toBe(5500);
    // Re-adding deleted ids (new labels) works in parallel too.
    await addInParallel(fast, deleted.slice(0, 1200).map((id, i) => chunk(id, randomVectors(1, 16, 100 + i)[0]!)));
    expect(await fast.count()).toBe(6700);
    expect((await fast.get(['v0', 'v3'])).map((c) => c.id)).toEqual(['v0', 'v3']);
  });

  it('a batch below the threshold takes the single-threaded path: the same graph bytes as buildThreads 1', { timeout: 120_000 }, async () => {
    const batches = [randomChunks(1999, 16, 20), randomChunks(500, 16, 21, 'x')];
    const build = vi.spyOn(addon!, 'build');
    const one = new HnswVectorStore({ buildThreads: 1, randomSeed: 7 });
    const below = new HnswVectorStore({ buildThreads: 4, parallelBuildThreshold: 2000, randomSeed: 7 });
    for (const batch of batches) {
      await one.add(batch.map((c) => ({ ...c })));
      await addSequentially(below, batch.map((c) => ({ ...c })));
    }
    expect(build).not.toHaveBeenCalled();
    expect((await graphBytes(below, 'below')).equals(await graphBytes(one, 'one'))).toBe(true);
    // At the threshold the batch goes to the helper.
    const at = new HnswVectorStore({ buildThreads: 2, parallelBuildThreshold: 1999, randomSeed: 7 });
    await addInParallel(at, batches[0]!.map((c) => ({ ...c })));
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('a failed parallel build falls back to one thread (with one warning), the store untouched until then', { timeout: 120_000 }, async () => {
    const batches = [randomChunks(1500, 16, 30), randomChunks(1200, 16, 31, 'y')];
    const one = new HnswVectorStore({ buildThreads: 1 });
    const failing = new HnswVectorStore(parallel);
    vi.spyOn(addon!, 'build').mockRejectedValue(new Error('hnswlib: simulated failure'));
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    for (const batch of batches) {
      await one.add(batch.map((c) => ({ ...c })));
      await addSequentially(failing, batch.map((c) => ({ ...c })));
    }
    expect((await graphBytes(failing, 'failed')).equals(await graphBytes(one, 'one-again'))).toBe(true);
    expect(await failing.count()).toBe(2700);
    expect(warn).toHaveBeenCalledTimes(1); // once per process, though both batches fell back
    expect(String(warn.mock.calls[0]![0])).toMatch(/parallel HNSW build failed, inserting on one thread instead: hnswlib: simulated failure/);
  });

  it('a batch refused after the build leaves the store unchanged; invalid batches are refused before any build', { timeout: 120_000 }, async () => {
    const store = new HnswVectorStore(parallel);
    await addInParallel(store, randomChunks(1500, 16, 40));
    const query = randomVectors(1, 16, 41)[0]!;
    const before = await store.search(query, { k: 10 });
    const capacity = store.capacity;
    const build = vi.spyOn(addon!, 'build');
    const bad = randomChunks(1500, 16, 42, 'bad');
    bad[1499] = chunk('bad1499', [1, 2, 3]);
    await expect(store.add(bad)).rejects.toMatchObject({ code: 'ZERDA_DIMENSION_MISMATCH' });
    expect(build).not.toHaveBeenCalled();
    // The exact store refusing after a successful build: the new graph is dropped.
    const internals = store as unknown as { exact: { add: (chunks: DocumentChunk[]) => Promise<void> } };
    const original = internals.exact.add.bind(internals.exact);
    internals.exact.add = async () => {
      throw new Error('refused');
    };
    await expect(store.add(randomChunks(1500, 16, 43, 'late'))).rejects.toThrow('refused');
    internals.exact.add = original;
    expect(build).toHaveBeenCalledTimes(1);
    expect([await store.count(), store.capacity]).toEqual([1500, capacity]);
    expect(await store.search(query, { k: 10 })).toEqual(before);
    const graph = graphOf(store);
    await store.add(randomChunks(1500, 16, 43, 'late'));
    expect(graphOf(store)).not.toBe(graph);
    expect(await store.count()).toBe(3000);
  });

  it.runIf(process.platform === 'linux')('temporary graph files have no name: nothing is left in TMPDIR when the process is SIGKILLed mid-build', { timeout: 120_000 }, async () => {
    const privateTmp = await mkdtemp(join(directory, 'tmp-'));
    const childScript = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'parallel-build-child.mjs');
    const child = spawn(process.execPath, [childScript], { env: { ...process.env, TMPDIR: privateTmp }, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    let output = '';
    child.stdout.on('data', (data) => (output += String(data)));
    try {
      // Wait until the child holds a temporary graph file in the private TMPDIR (the build is running).
      const deadline = Date.now() + 60_000;
      let held: string | undefined;
      while (!held && Date.now() < deadline && child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        const fds = await readdir(`/proc/${child.pid}/fd`).catch(() => []);
        for (const fd of fds) {
          const target = await readlink(`/proc/${child.pid}/fd/${fd}`).catch(() => '');
          if (target.startsWith(privateTmp)) held = target;
        }
      }
      expect(held, `the child never opened a temporary file in ${privateTmp} (output: ${output})`).toBeDefined();
      expect(held).toMatch(/\(deleted\)$/);
      expect(await readdir(privateTmp)).toEqual([]);
      expect(output).not.toContain('done');
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    expect(await readdir(privateTmp)).toEqual([]);
  });
});
