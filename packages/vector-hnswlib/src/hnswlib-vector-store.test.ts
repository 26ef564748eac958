import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchesFilter, ZerdaError, type DocumentChunk, type MetadataFilter, type VectorMetric } from '@zerda/types';
import { MemoryVectorStore } from '@zerda/vector-memory';
import { HnswVectorStore, autoEfSearch } from './hnswlib-vector-store.js';
import { gaussianMixture, seededRandom } from '@zerda/vector-conformance';

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'zerda-hnsw-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function chunk(id: string, embedding: Float32Array | number[], metadata: DocumentChunk['metadata'] = {}): DocumentChunk {
  return { id, docId: id.split('#')[0]!, text: `text ${id}`, source: 'test', metadata, position: { index: 0 }, embedding };
}

/** 10k points of a 50-centre Gaussian mixture in 64 dimensions, with metadata for filters; 200 queries from the same mixture. */
function clusteredCorpus() {
  const mixture = gaussianMixture({ seed: 42, clusters: 50, dimensions: 64, spread: 0.6 });
  const random = seededRandom(7);
  const chunks = Array.from({ length: 10_000 }, (_, i) => {
    const { cluster, vector } = mixture.sample();
    return chunk(`p${i}`, vector, { cluster, bucket: i % 100, tenant: random() < 0.3 ? 'big' : 'small' });
  });
  const queries = Array.from({ length: 200 }, () => mixture.sample().vector);
  return { chunks, queries };
}

async function recallAt10(
  approximate: HnswVectorStore,
  exact: MemoryVectorStore,
  queries: Float32Array[],
  filter?: MetadataFilter,
): Promise<{ recall: number; microsecondsPerQuery: number }> {
  let found = 0;
  let expected = 0;
  let elapsed = 0;
  for (const query of queries) {
    const truth = await exact.search(query, { k: 10, ...(filter ? { filter } : {}) });
    const started = performance.now();
    const hits = await approximate.search(query, { k: 10, ...(filter ? { filter } : {}) });
    elapsed += performance.now() - started;
    if (filter) for (const hit of hits) expect(matchesFilter(hit.chunk, filter)).toBe(true);
    const truthIds = new Set(truth.map((hit) => hit.chunk.id));
    found += hits.filter((hit) => truthIds.has(hit.chunk.id)).length;
    expected += truth.length;
  }
  return { recall: found / expected, microsecondsPerQuery: (elapsed / queries.length) * 1000 };
}

describe('HnswVectorStore recall on structured data (10k clustered 64-d vectors)', () => {
  const corpus = clusteredCorpus();

  for (const metric of ['cosine', 'l2', 'ip'] as const) {
    it(`recall@10 >= 0.95 against exact search at default settings (${metric})`, { timeout: 300_000 }, async () => {
      const approximate = new HnswVectorStore({ metric, dimensions: 64 });
      const exact = new MemoryVectorStore({ metric });
      const started = performance.now();
      for (let i = 0; i < corpus.chunks.length; i += 1000) await approximate.add(corpus.chunks.slice(i, i + 1000));
      const buildSeconds = (performance.now() - started) / 1000;
      await exact.add(corpus.chunks);
      const { recall, microsecondsPerQuery } = await recallAt10(approximate, exact, corpus.queries);
      console.info(`[hnsw ${metric}] 10k x 64 build ${buildSeconds.toFixed(1)} s (incl. validation), recall@10 ${recall.toFixed(4)}, ${microsecondsPerQuery.toFixed(0)} µs/query`);
      expect(recall).toBeGreaterThanOrEqual(0.95);
      expect(approximate.capacity).toBeGreaterThanOrEqual(10_000);

      // Filters at default settings: at 10k x 64-d every filter is cheaper to answer exactly.
      const narrow = await recallAt10(approximate, exact, corpus.queries.slice(0, 50), { bucket: 7 });
      const wide = await recallAt10(approximate, exact, corpus.queries.slice(0, 50), { tenant: 'big' });
      console.info(`[hnsw ${metric}] filtered recall@10 (default, exact over matches): 1% -> ${narrow.recall.toFixed(4)} (${narrow.microsecondsPerQuery.toFixed(0)} µs), 30% -> ${wide.recall.toFixed(4)} (${wide.microsecondsPerQuery.toFixed(0)} µs)`);
      expect(narrow.recall).toBe(1);
      expect(wide.recall).toBe(1);
      if (metric === 'cosine') {
        // Forced through the graph (exactSearchThreshold 0): the walk admits only matching nodes with a raised ef.
        const forced = new HnswVectorStore({ metric, dimensions: 64, exactSearchThreshold: 0 });
        for (let i = 0; i < corpus.chunks.length; i += 2000) await forced.add(corpus.chunks.slice(i, i + 2000));
        for (const [label, filter] of [
          ['30%', { tenant: 'big' }],
          ['~7%', { $or: [{ bucket: { $lt: 5 } }, { cluster: 3 }] }],
          ['1%', { bucket: 7 }],
        ] as Array<[string, MetadataFilter]>) {
          const graph = await recallAt10(forced, exact, corpus.queries.slice(0, 50), filter);
          console.info(`[hnsw ${metric}] filtered recall@10 through the graph, ${label}: ${graph.recall.toFixed(4)} (${graph.microsecondsPerQuery.toFixed(0)} µs)`);
          expect(graph.recall).toBeGreaterThanOrEqual(0.95);
        }
      }
    });
  }
});

describe('HnswVectorStore scores', () => {
  it.each(['cosine', 'ip', 'l2'] as VectorMetric[])('converts hnswlib distances to the same similarities as exact search (%s)', async (metric) => {
    const random = seededRandom(3);
    const chunks = Array.from({ length: 300 }, (_, i) => chunk(`s${i}`, Array.from({ length: 16 }, () => random() * 4 - 2)));
    const approximate = new HnswVectorStore({ metric });
    const exact = new MemoryVectorStore({ metric });
    await approximate.add(chunks);
    await exact.add(chunks);
    const query = Array.from({ length: 16 }, () => random() * 4 - 2);
    const truth = new Map((await exact.search(query, { k: 300 })).map((hit) => [hit.chunk.id, hit.score]));
    const hits = await approximate.search(query, { k: 20, efSearch: 300 });
    expect(hits).toHaveLength(20);
    for (const hit of hits) expect(hit.score).toBeCloseTo(truth.get(hit.chunk.id)!, 4);
  });
});

describe('HnswVectorStore writes', () => {
  it('grows from a tiny capacity and reuses deleted slots instead of growing', async () => {
    const store = new HnswVectorStore({ metric: 'l2', dimensions: 4, maxElements: 2 });
    const random = seededRandom(11);
    const vector = () => Array.from({ length: 4 }, () => random());
    await store.add(Array.from({ length: 500 }, (_, i) => chunk(`g${i}`, vector())));
    expect(await store.count()).toBe(500);
    const grown = store.capacity;
    expect(grown).toBeGreaterThanOrEqual(500);
    await store.delete(Array.from({ length: 200 }, (_, i) => `g${i}`));
    await store.add(Array.from({ length: 200 }, (_, i) => chunk(`h${i}`, vector())));
    expect(store.capacity).toBe(grown);
    expect(await store.count()).toBe(500);
    const all = await store.search(vector(), { k: 1000 });
    expect(all.some((hit) => hit.chunk.id.startsWith('g') && Number(hit.chunk.id.slice(1)) < 200)).toBe(false);
  });

  it('re-adding a deleted id works and the old vector is gone', async () => {
    const store = new HnswVectorStore({ metric: 'cosine', dimensions: 2 });
    await store.add([chunk('a', [1, 0]), chunk('b', [0, 1]), chunk('c', [1, 1])]);
    await store.delete(['a']);
    await store.add([chunk('a', [-1, 0])]);
    const [best] = await store.search([1, 0], { k: 1 });
    expect(best?.chunk.id).toBe('c');
    const hits = await store.search([-1, 0], { k: 1 });
    expect(hits.map((hit) => [hit.chunk.id, hit.score])).toEqual([['a', 1]]);
  });

  it('validates options and search knobs with ZerdaErrors naming the field', async () => {
    expect(() => new HnswVectorStore({ M: 1 })).toThrow(/options\.M must be an integer from 2 to 512, got number 1/);
    expect(() => new HnswVectorStore({ efSearch: 0 })).toThrow(/options\.efSearch/);
    expect(() => new HnswVectorStore({ metric: 'dot' as never })).toThrow(/options\.metric must be one of/);
    expect(() => new HnswVectorStore({ ef: 10 } as never)).toThrow(/options\.ef must be a known option/);
    const store = new HnswVectorStore({ dimensions: 2 });
    await store.add([chunk('a', [1, 0])]);
    await expect(store.search([1, 0], { k: 1, efSearch: -3 })).rejects.toThrow(/options\.efSearch must be an integer from 1 to 100000, got number -3/);
    await expect(store.add([chunk('x', [1, 0]), { ...chunk('y', [1, 0]), embedding: undefined } as DocumentChunk])).rejects.toThrow(
      /chunks\[1\]\.embedding must be an embedding \(this store does not embed text\)/,
    );
    expect(await store.count()).toBe(1);
  });

  it('serializes writes: a save waits for earlier adds and later adds wait for the save', async () => {
    const store = new HnswVectorStore({ dimensions: 3 });
    const path = join(directory, 'serialized');
    const first = store.add([chunk('one', [1, 0, 0])]);
    const saving = store.save(path);
    const later = store.add([chunk('two', [0, 1, 0])]);
    await Promise.all([first, saving, later]);
    expect(await (await HnswVectorStore.load(path)).count()).toBe(1);
    expect(await store.count()).toBe(2);
  });
});

describe('HnswVectorStore persistence', () => {
  async function filledStore(count = 300): Promise<HnswVectorStore> {
    const store = new HnswVectorStore({ metric: 'cosine', dimensions: 8, M: 8, efConstruction: 64 });
    const random = seededRandom(5);
    await store.add(Array.from({ length: count }, (_, i) => chunk(`d${i}#0`, Array.from({ length: 8 }, () => random() - 0.5), { even: i % 2 === 0 })));
    await store.delete(['d0#0', 'd1#0']);
    return store;
  }

  async function generation(path: string): Promise<string> {
    return (JSON.parse(await readFile(join(path, 'CURRENT'), 'utf8')) as { generation: string }).generation;
  }

  it('round-trips graph, chunks, labels and settings; the loaded store keeps working', async () => {
    const store = await filledStore();
    const path = join(directory, 'round-trip');
    await store.save(path);
    const loaded = await HnswVectorStore.load(path);
    expect([loaded.metric, loaded.dimensions, loaded.M, loaded.efConstruction, await loaded.count()]).toEqual(['cosine', 8, 8, 64, 298]);
    const query = [0.1, -0.2, 0.3, 0, 0.5, -0.1, 0.2, 0.05];
    expect(await loaded.search(query, { k: 10 })).toEqual(await store.search(query, { k: 10 }));
    expect(await loaded.search(query, { k: 5, filter: { even: true } })).toEqual(await store.search(query, { k: 5, filter: { even: true } }));
    // Deleted slots are still reusable and new labels do not collide after loading.
    await loaded.add([chunk('new#0', query)]);
    await loaded.delete(['d2#0']);
    expect((await loaded.search(query, { k: 1 }))[0]?.chunk.id).toBe('new#0');
    await loaded.save();
    const again = await HnswVectorStore.load(path);
    expect(await again.count()).toBe(298);
    expect((await again.search(query, { k: 1 }))[0]?.chunk.id).toBe('new#0');
    // One generation is left: CURRENT and the directory it names, nothing else.
    const current = await generation(path);
    expect((await readdir(path)).sort()).toEqual(['CURRENT', current]);
    const manifest = JSON.parse(await readFile(join(path, current, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ format: 'zerda-vector-hnswlib', formatVersion: 2 });
    expect(manifest.files.map((file: { name: string }) => file.name)).toEqual(expect.arrayContaining(['graph/index.hnsw', 'hnsw.json', 'labels.u32', 'exact/vectors.f32', 'exact/chunks/text.str']));
    expect(JSON.parse(await readFile(join(path, current, 'hnsw.json'), 'utf8'))).toMatchObject({ dimensions: 8, metric: 'cosine', count: 298, M: 8, efConstruction: 64 });
  });

  it('a save that fails half-way leaves the previous save loadable and no stray files', async () => {
    const store = await filledStore();
    const path = join(directory, 'crash');
    await store.save(path);
    const before = (await readdir(path)).sort();
    await store.add([chunk('extra#0', [1, 0, 0, 0, 0, 0, 0, 0])]);
    // Simulate the disk failing after the graph file was written.
    const internals = store as unknown as { exact: { writeSnapshot: (writer: unknown) => Promise<void> } };
    const original = internals.exact.writeSnapshot.bind(internals.exact);
    internals.exact.writeSnapshot = async () => {
      throw new Error('ENOSPC: no space left on device');
    };
    await expect(store.save(path)).rejects.toMatchObject({ code: 'ZERDA_STORE_IO', message: expect.stringContaining('ENOSPC') });
    internals.exact.writeSnapshot = original;
    expect((await readdir(path)).sort()).toEqual(before);
    const loaded = await HnswVectorStore.load(path);
    expect(await loaded.count()).toBe(298);
    expect(await loaded.get(['extra#0'])).toEqual([]);
  });

  it('rejects missing, corrupt and mismatched directories with ZERDA_STORE_CORRUPT naming the file and the check', async () => {
    const store = await filledStore(50);
    const path = join(directory, 'corrupt');
    await store.save(path);
    const root = join(path, await generation(path));
    const loadError = async (options = {}) => {
      try {
        await HnswVectorStore.load(path, options);
      } catch (error) {
        expect(ZerdaError.isInstance(error)).toBe(true);
        return error as ZerdaError;
      }
      throw new Error('load succeeded');
    };

    await expect(HnswVectorStore.load(join(directory, 'nothing-here'))).rejects.toThrow(/nothing-here cannot be loaded: there is no manifest\.json/);
    expect((await loadError({ metric: 'l2' })).message).toMatch(/saved with metric "cosine", but metric "l2" was requested/);
    expect((await loadError({ dimensions: 16 })).message).toMatch(/holds 8-dimensional vectors, but dimensions 16 were requested/);

    const indexPath = join(root, 'graph', 'index.hnsw');
    const indexBytes = await readFile(indexPath);
    const flipped = Buffer.from(indexBytes);
    flipped[flipped.length - 3] = flipped[flipped.length - 3]! ^ 0xff;
    await writeFile(indexPath, flipped);
    const checksum = await loadError();
    expect(checksum).toMatchObject({ code: 'ZERDA_STORE_CORRUPT', details: { path, file: 'graph/index.hnsw', check: 'sha256' } });
    expect(checksum.message).toMatch(/graph\/index\.hnsw failed the sha256 check/);
    // verify: false skips the checksums: the damage is then found (or not) by hnswlib's own checks.
    expect(await loadError({ verify: false })).toMatchObject({ code: 'ZERDA_STORE_CORRUPT', details: { file: 'graph/index.hnsw', check: 'consistency' } });
    await writeFile(indexPath, indexBytes.subarray(0, 100));
    expect(await loadError()).toMatchObject({ details: { file: 'graph/index.hnsw', check: 'size' } });
    await writeFile(indexPath, indexBytes);

    const labelsPath = join(root, 'labels.u32');
    const labels = await readFile(labelsPath);
    await writeFile(labelsPath, Buffer.concat([labels.subarray(4), labels.subarray(0, 4)]));
    expect(await loadError()).toMatchObject({ details: { file: 'labels.u32', check: 'sha256' } });
    await writeFile(labelsPath, labels);
    expect(await (await HnswVectorStore.load(path)).count()).toBe(48);
  });

  it('still loads a format-1 directory, and a save replaces its files', async () => {
    const { createHash } = await import('node:crypto');
    const hnswlib = (await import('hnswlib-node')).default;
    const path = join(directory, 'format-1');
    await mkdir(path, { recursive: true });
    const index = new hnswlib.HierarchicalNSW('cosine', 2);
    index.initIndex(16, 16, 200, 100, true);
    index.addPoint([1, 0], 0);
    index.addPoint([0, 1], 1);
    await index.writeIndex(join(path, 'index-g1.hnsw'));
    const header = JSON.stringify({ format: 'zerda-vector-memory', formatVersion: 1, metric: 'cosine', dimensions: 2, count: 2, littleEndian: true });
    const lines = ['x', 'y'].map((id) => JSON.stringify({ id, docId: id, text: `text ${id}`, source: 'test', metadata: {}, position: { index: 0 } }));
    await writeFile(join(path, 'chunks-g1.zvm'), Buffer.concat([Buffer.from(`${header}\n`), Buffer.from(new Float32Array([1, 0, 0, 1]).buffer), Buffer.from(`${lines.join('\n')}\n`)]));
    await writeFile(join(path, 'labels-g1.json'), JSON.stringify({ ids: ['x', 'y'], labels: [0, 1] }));
    const entry = async (name: string) => {
      const bytes = await readFile(join(path, name));
      return { name, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
    };
    const manifest = {
      format: 'zerda-vector-hnswlib', formatVersion: 1, dimensions: 2, metric: 'cosine', space: 'cosine', count: 2, M: 16, efConstruction: 200, efSearch: 50,
      randomSeed: 100, maxElements: 16, nextLabel: 2, deletedSlots: 0, savedAt: 'then',
      files: { index: await entry('index-g1.hnsw'), chunks: await entry('chunks-g1.zvm'), labels: await entry('labels-g1.json') },
    };
    await writeFile(join(path, 'manifest.json'), JSON.stringify(manifest));
    await writeFile(join(path, '.chunks-g0.zvm.123.456.abc.tmp'), 'left by a killed format-1 save');
    const loaded = await HnswVectorStore.open({ directory: path });
    expect((await loaded.search([0, 1], { k: 1 }))[0]?.chunk.id).toBe('y');
    await loaded.save();
    expect((await readdir(path)).sort()).toEqual(['CURRENT', await generation(path)]);
    expect((await (await HnswVectorStore.load(path)).search([1, 0], { k: 1 }))[0]?.chunk.id).toBe('x');
  });

  it('writeSnapshot/readSnapshot restore into an empty store and refuse a non-empty one or another metric', async () => {
    const { readSnapshotDirectory, writeSnapshotDirectory } = await import('@zerda/persistence');
    const format = { format: 'test', formatVersion: 1, producer: 'test', zerdaVersion: 'test' };
    const store = await filledStore(40);
    const path = join(directory, 'pair');
    await writeSnapshotDirectory(path, format, (writer) => store.writeSnapshot(writer.scope('vectors')));
    const restored = new HnswVectorStore({ efSearch: 77 });
    await readSnapshotDirectory(path, format, (reader) => restored.readSnapshot(reader.scope('vectors')));
    expect([await restored.count(), restored.M, restored.efConstruction, restored.efSearch]).toEqual([38, 8, 64, 77]);
    const query = [0.3, 0.1, -0.2, 0.4, 0, 0.1, 0.2, -0.3];
    expect(await restored.search(query, { k: 5 })).toEqual(await store.search(query, { k: 5 }));
    await expect(readSnapshotDirectory(path, format, (reader) => restored.readSnapshot(reader.scope('vectors')))).rejects.toMatchObject({ code: 'ZERDA_UNSUPPORTED' });
    await expect(readSnapshotDirectory(path, format, (reader) => new HnswVectorStore({ metric: 'l2' }).readSnapshot(reader.scope('vectors')))).rejects.toMatchObject({
      code: 'ZERDA_CORRUPT_SNAPSHOT',
      details: { file: 'vectors/hnsw.json' },
    });
  });

  it("keeps efSearch 'auto' (the default) or a fixed number through save/load, and reads a snapshot without the flag as fixed", async () => {
    const store = await filledStore(40);
    expect([store.efSearchSetting, store.efSearch]).toEqual(['auto', 256]);
    const autoPath = join(directory, 'auto-ef');
    await store.save(autoPath);
    expect((await HnswVectorStore.load(autoPath)).efSearchSetting).toBe('auto');
    expect((await HnswVectorStore.load(autoPath, { efSearch: 90 })).efSearchSetting).toBe(90);
    const fixed = new HnswVectorStore({ efSearch: 300 });
    await fixed.add([chunk('a', [1, 0]), chunk('b', [0, 1])]);
    const fixedPath = join(directory, 'fixed-ef');
    await fixed.save(fixedPath);
    expect((await HnswVectorStore.load(fixedPath)).efSearchSetting).toBe(300);
    expect((await HnswVectorStore.load(fixedPath, { efSearch: 'auto' })).efSearchSetting).toBe('auto');
    // A snapshot written before the flag existed (no efSearchAuto): its number is kept as fixed.
    const { readSnapshotDirectory, writeSnapshotDirectory } = await import('@zerda/persistence');
    const format = { format: 'test', formatVersion: 1, producer: 'test', zerdaVersion: 'test' };
    const pair = join(directory, 'ef-flag');
    await writeSnapshotDirectory(pair, format, (writer) => store.writeSnapshot(writer.scope('vectors')));
    const jsonPath = join(pair, (await readdir(pair)).find((name) => name.startsWith('g-'))!, 'vectors', 'hnsw.json');
    const original = await readFile(jsonPath, 'utf8');
    const json = JSON.parse(original) as Record<string, unknown>;
    expect(json.efSearchAuto).toBe(true);
    // The manifest checks sizes even without checksums: pad the edited JSON to the recorded size.
    const rewrite = (value: Record<string, unknown>) => writeFile(jsonPath, JSON.stringify(value).padEnd(Buffer.byteLength(original), ' '));
    delete json.efSearchAuto;
    await rewrite(json);
    const legacy = new HnswVectorStore();
    await readSnapshotDirectory(pair, format, (reader) => legacy.readSnapshot(reader.scope('vectors')), { verify: false });
    expect(legacy.efSearchSetting).toBe(256);
    json.efSearchAuto = 1;
    await rewrite(json);
    await expect(readSnapshotDirectory(pair, format, (reader) => new HnswVectorStore().readSnapshot(reader.scope('vectors')), { verify: false })).rejects.toThrow(/efSearchAuto/);
  });

  it("refuses an efSearch that is neither a count nor 'auto', naming it", async () => {
    for (const bad of ['fast', 'AUTO', 0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 100_001]) {
      expect(() => new HnswVectorStore({ efSearch: bad as number })).toThrow(/options\.efSearch must be an integer from 1 to 100000, or 'auto', got/);
      // load() refuses it before reading anything (here: a directory that does not exist).
      await expect(HnswVectorStore.load(join(tmpdir(), 'zerda-hnsw-no-such-store'), { efSearch: bad as number })).rejects.toThrow(/options\.efSearch must be an integer from 1 to 100000, or 'auto', got/);
    }
    expect(new HnswVectorStore({ efSearch: 'auto' }).efSearchSetting).toBe('auto');
  });

  it('open() creates a store for an empty directory and loads a saved one', async () => {
    const path = join(directory, 'open');
    const fresh = await HnswVectorStore.open({ directory: path, dimensions: 3, metric: 'ip' });
    expect(await fresh.count()).toBe(0);
    await fresh.add([chunk('a', [1, 2, 3])]);
    await fresh.save();
    const reopened = await HnswVectorStore.open({ directory: path, efSearch: 80 });
    expect([await reopened.count(), reopened.metric, reopened.efSearch]).toEqual([1, 'ip', 80]);
  });

  it('saves and loads a store that has no dimension yet', async () => {
    const path = join(directory, 'empty');
    await new HnswVectorStore().save(path);
    const loaded = await HnswVectorStore.load(path);
    expect([loaded.dimensions, await loaded.count()]).toEqual([undefined, 0]);
    await loaded.add([chunk('a', [1, 0])]);
    expect((await loaded.search([1, 0], { k: 1 }))[0]?.score).toBeCloseTo(1, 6);
  });
});

describe('HnswVectorStore: sizes hnswlib cannot take are refused (found by the fuzz, issue 15)', () => {
  it('M = 2^53 (and other out-of-range sizes) throw a ZerdaError instead of crashing the process', async () => {
    for (const options of [{ M: 2 ** 53 }, { M: 513 }, { efConstruction: 2 ** 40 }, { maxElements: 2 ** 40 }, { dimensions: 10_000_000 }, { efSearch: 1e9 }]) {
      expect(() => new HnswVectorStore(options), JSON.stringify(options)).toThrow(/must be an integer from/);
    }
    const store = new HnswVectorStore({ dimensions: 2, M: 512, maxElements: 44 });
    await store.add([{ id: 'a', docId: 'a', text: 'x', source: 'a', metadata: {}, position: { index: 0 }, embedding: [1, 0] }]);
    expect((await store.search([1, 0], { k: 1 }))[0]?.chunk.id).toBe('a');
    await expect(store.search([1, 0], { k: 1, efSearch: 2 ** 53 })).rejects.toThrow(/options.efSearch/);
  });
});

describe("efSearch 'auto'", () => {
  it('is 256 up to 100,000 vectors, then grows as the cube root of the count (monotone, capped)', () => {
    expect([0, 1, 50_000, 100_000].map(autoEfSearch)).toEqual([256, 256, 256, 256]);
    expect(autoEfSearch(800_000)).toBe(512);
    expect(autoEfSearch(1_000_000)).toBe(552);
    expect(autoEfSearch(10_000_000)).toBe(1189);
    expect(autoEfSearch(1e18)).toBe(100_000);
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1000' as unknown as number]) {
      expect(() => autoEfSearch(bad)).toThrow(/count must be a non-negative integer \(a number of vectors\), got/);
    }
    let previous = 0;
    for (let count = 0; count <= 3_000_000; count += 12_345) {
      const value = autoEfSearch(count);
      expect(value).toBeGreaterThanOrEqual(previous);
      previous = value;
    }
  });
});
