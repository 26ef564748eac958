import { mkdir, mkdtemp, readFile, rm, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZerdaError, type DocumentChunk } from '@zerda/types';
import { MemoryVectorStore, type MemoryVectorStoreOptions } from './memory-vector-store.js';

function chunk(id: string, embedding: number[], metadata: DocumentChunk['metadata'] = {}, docId = id.split('#')[0]!): DocumentChunk {
  return { id, docId, text: `text of ${id}`, source: docId, metadata, position: { index: 0 }, embedding };
}

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'zerda-vector-memory-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('MemoryVectorStore options', () => {
  it('rejects unknown options, bad metrics and bad dimensions with a ZerdaError naming the field', () => {
    const unknown = catchError(() => new MemoryVectorStore({ metrc: 'ip' } as never)) as ZerdaError;
    expect(ZerdaError.isInstance(unknown)).toBe(true);
    expect(unknown.message).toContain('options.metrc');
    const metric = catchError(() => new MemoryVectorStore({ metric: 'dot' as never })) as ZerdaError;
    expect(metric.message).toMatch(/options\.metric must be one of "cosine", "ip", "l2", got string "dot"/);
    expect(() => new MemoryVectorStore({ dimensions: 0 })).toThrow(/options\.dimensions must be a positive integer/);
    expect(() => new MemoryVectorStore({ embedder: 42 as never })).toThrow(/options\.embedder/);
  });

  it('declares its capabilities honestly', () => {
    expect(new MemoryVectorStore().capabilities).toEqual({ persistence: true, nativeFilter: true, textSearch: false, embeds: false, snapshot: true });
    expect(new MemoryVectorStore({ embedder: (texts) => texts.map(() => [1, 0]) }).capabilities.embeds).toBe(true);
  });
});

describe('MemoryVectorStore search', () => {
  it('computes cosine, inner product and l2 similarities exactly', async () => {
    const vectors = { a: [3, 4], b: [-4, 3], c: [1, 1] };
    const query = [1, 0];
    const expected = {
      cosine: { a: 0.6, b: -0.8, c: Math.SQRT1_2 },
      ip: { a: 3, b: -4, c: 1 },
      l2: { a: 1 / (1 + Math.hypot(2, 4)), b: 1 / (1 + Math.hypot(5, 3)), c: 1 / (1 + 1) },
    } as const;
    for (const metric of ['cosine', 'ip', 'l2'] as const) {
      const store = new MemoryVectorStore({ metric });
      await store.add(Object.entries(vectors).map(([id, v]) => chunk(id, v)));
      const hits = await store.search(query, { k: 3 });
      for (const hit of hits) expect(hit.score).toBeCloseTo(expected[metric][hit.chunk.id as 'a'], 6);
      const scores = hits.map((h) => h.score);
      expect(scores).toEqual([...scores].sort((x, y) => y - x));
    }
  });

  it('matches a brute-force reference for random data, metrics, filters and k (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Dimensions below, at and above the 4-wide unrolled loop, with remainders.
        fc.integer({ min: 1, max: 11 }).chain((dims) => {
          const vector = fc.array(fc.integer({ min: -5, max: 5 }), { minLength: dims, maxLength: dims });
          return fc.tuple(fc.array(fc.tuple(vector, fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 40 }), vector);
        }),
        fc.constantFrom('cosine' as const, 'ip' as const, 'l2' as const),
        fc.integer({ min: 1, max: 50 }),
        fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
        async ([rows, query], metric, k, group) => {
          const store = new MemoryVectorStore({ metric });
          await store.add(rows.map(([v, g], i) => chunk(`c${String(i).padStart(3, '0')}`, v, { group: g })));
          const hits = await store.search(query, { k, ...(group !== undefined ? { filter: { group } } : {}) });
          const norm = (v: number[]) => Math.hypot(...v);
          const score = (v: number[]) => {
            const dot = v.reduce((s, x, d) => s + x * query[d]!, 0);
            if (metric === 'ip') return dot;
            if (metric === 'cosine') return norm(v) === 0 || norm(query) === 0 ? 0 : dot / (norm(v) * norm(query));
            return 1 / (1 + Math.hypot(...v.map((x, d) => x - query[d]!)));
          };
          const reference = rows
            .map(([v, g], i) => ({ id: `c${String(i).padStart(3, '0')}`, g, s: score(v) }))
            .filter((r) => group === undefined || r.g === group)
            .sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : 1))
            .slice(0, k);
          expect(hits.length).toBe(reference.length);
          hits.forEach((hit, i) => expect(hit.score).toBeCloseTo(reference[i]!.s, 5));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('stays exact across deletes (swap-remove keeps the id map right)', async () => {
    const store = new MemoryVectorStore({ metric: 'ip' });
    await store.add(Array.from({ length: 100 }, (_, i) => chunk(`c${i}`, [i, 1])));
    await store.delete(Array.from({ length: 50 }, (_, i) => `c${i * 2}`));
    expect(await store.count()).toBe(50);
    const hits = await store.search([1, 0], { k: 100 });
    expect(hits.map((h) => h.chunk.id)).toEqual(Array.from({ length: 50 }, (_, i) => `c${99 - 2 * i}`));
    for (const hit of hits) expect(hit.chunk.embedding).toEqual(Float32Array.from([Number(hit.chunk.id.slice(1)), 1]));
  });

  it('grows past several pages without losing rows', { timeout: 30_000 }, async () => {
    const store = new MemoryVectorStore({ metric: 'ip' });
    // 4096 dims -> 1024-row pages; 3000 rows span three pages.
    const dims = 4096;
    const batch = Array.from({ length: 3000 }, (_, i) => {
      const v = new Float32Array(dims);
      v[i % dims] = 1;
      v[dims - 1] = i / 3000;
      return { ...chunk(`r${i}`, []), embedding: v };
    });
    for (let i = 0; i < batch.length; i += 700) await store.add(batch.slice(i, i + 700));
    const query = new Float32Array(dims);
    query[2500] = 1;
    const [best] = await store.search(query, { k: 1 });
    expect(best?.chunk.id).toBe('r2500');
    expect(await store.count()).toBe(3000);
  });

  it('returns copies: mutating a hit does not change the store', async () => {
    const store = new MemoryVectorStore();
    await store.add([chunk('a', [1, 0], { tag: 'x' })]);
    const [hit] = await store.search([1, 0], { k: 1 });
    hit!.chunk.metadata.tag = 'changed';
    (hit!.chunk.embedding as Float32Array)[0] = -1;
    const [again] = await store.get(['a']);
    expect(again!.metadata.tag).toBe('x');
    expect(Array.from(again!.embedding as Float32Array)).toEqual([1, 0]);
  });

  it('validates search arguments', async () => {
    const store = new MemoryVectorStore({ dimensions: 2 });
    await expect(store.search([1, 0], { k: -1 })).rejects.toThrow(/options\.k must be a non-negative integer, got number -1/);
    await expect(store.search([1, 0, 0], { k: 1 })).rejects.toMatchObject({ code: 'ZERDA_DIMENSION_MISMATCH' });
    await expect(store.search([1, 0], { k: 1, filter: { year: { $near: 3 } } as never })).rejects.toMatchObject({ code: 'ZERDA_INVALID_FILTER' });
    expect(await store.search([1, 0], { k: 0 })).toEqual([]);
  });

  it('restricts a search to given ids (with the filter still applied) and lists matching ids', async () => {
    const store = new MemoryVectorStore({ metric: 'ip' });
    await store.add(Array.from({ length: 10 }, (_, i) => chunk(`c${i}`, [i, 1], { even: i % 2 === 0 })));
    expect((await store.search([1, 0], { k: 10, ids: ['c1', 'c4', 'c4', 'missing', 'c7'] })).map((h) => h.chunk.id)).toEqual(['c7', 'c4', 'c1']);
    expect((await store.search([1, 0], { k: 1, ids: new Set(['c1', 'c4']), filter: { even: false } })).map((h) => h.chunk.id)).toEqual(['c1']);
    expect(await store.search([1, 0], { k: 3, ids: [] })).toEqual([]);
    await expect(store.search([1, 0], { k: 3, ids: 'c1' as never })).rejects.toThrow(/options\.ids must be an array or Set of chunk ids/);
    expect(store.matchingIds({ even: true })).toEqual(['c0', 'c2', 'c4', 'c6', 'c8']);
    expect(store.matchingIds()).toHaveLength(10);
    expect(() => store.matchingIds({ $bad: 1 } as never)).toThrow(/filter/);
  });

  it('creates id matchers and estimates how selective a filter is', async () => {
    const store = new MemoryVectorStore({ metric: 'ip' });
    await store.add(Array.from({ length: 5000 }, (_, i) => chunk(`c${i}`, [i, 1], { bucket: i % 100 })));
    const matcher = store.createMatcher({ bucket: { $lt: 10 } });
    expect([matcher('c5'), matcher('c50'), matcher('missing')]).toEqual([true, false, false]);
    expect(store.estimateMatchRate({ bucket: { $lt: 10 } }, 500)).toBeCloseTo(0.1, 1);
    expect(store.estimateMatchRate({ bucket: 1000 })).toBe(0);
    expect(await new MemoryVectorStore().estimateMatchRate({ a: 1 })).toBe(0);
    expect(() => store.estimateMatchRate({ a: 1 }, 0)).toThrow(/sampleSize must be a positive integer/);
  });

  it('gives a zero vector a cosine score of 0 instead of NaN', async () => {
    const store = new MemoryVectorStore();
    await store.add([chunk('zero', [0, 0]), chunk('one', [1, 0])]);
    const hits = await store.search([1, 0], { k: 2 });
    expect(hits.map((h) => [h.chunk.id, h.score])).toEqual([['one', 1], ['zero', 0]]);
    expect((await store.search([0, 0], { k: 2 })).every((h) => h.score === 0)).toBe(true);
  });
});

describe('MemoryVectorStore writes', () => {
  it('writes nothing when one chunk of a batch is invalid', async () => {
    const store = new MemoryVectorStore();
    await store.add([chunk('keep', [1, 0])]);
    await expect(store.add([chunk('new1', [0, 1]), chunk('keep', [0, 1]), chunk('bad', [Number.NaN, 1])])).rejects.toMatchObject({ code: 'ZERDA_INVALID_EMBEDDING' });
    await expect(store.add([chunk('new2', [0, 1]), chunk('wide', [1, 2, 3])])).rejects.toMatchObject({ code: 'ZERDA_DIMENSION_MISMATCH' });
    expect(await store.count()).toBe(1);
    const [kept] = await store.get(['keep']);
    expect(Array.from(kept!.embedding as Float32Array)).toEqual([1, 0]);
  });

  it('rejects a batch whose own vectors disagree on the dimension before the store has one', async () => {
    const store = new MemoryVectorStore();
    await expect(store.add([chunk('a', [1, 0]), chunk('b', [1, 0, 0])])).rejects.toThrow(/chunks\[1\]\.embedding has 3 dimensions, expected 2/);
    expect(store.dimensions).toBeUndefined();
    await store.add([chunk('c', [1, 0, 0])]);
    expect(store.dimensions).toBe(3);
  });

  it('embeds chunks without embeddings through an Embedder or a function', async () => {
    const calls: Array<{ texts: string[]; kind: string | undefined }> = [];
    const embedder = {
      specificationVersion: 'v1' as const,
      modelId: 'letters',
      dimensions: 2,
      async embed(texts: string[], options?: { kind?: 'query' | 'document' }) {
        calls.push({ texts, kind: options?.kind });
        return texts.map((t) => [t.length, 1]);
      },
    };
    const store = new MemoryVectorStore({ embedder });
    await store.add([{ id: 'a', docId: 'a', text: 'xx', source: 'a', metadata: {}, position: { index: 0 } }, chunk('b', [5, 5])]);
    expect(calls).toEqual([{ texts: ['xx'], kind: 'document' }]);
    const [a] = await store.get(['a']);
    expect(Array.from(a!.embedding as Float32Array)).toEqual([2, 1]);

    const withFunction = new MemoryVectorStore({ embedder: (texts) => texts.map(() => [Number.NaN, 1]) });
    await expect(withFunction.add([{ docId: 'd', text: 't' } as DocumentChunk])).rejects.toMatchObject({ code: 'ZERDA_INVALID_EMBEDDING' });
    expect(await withFunction.count()).toBe(0);

    const none = new MemoryVectorStore();
    await expect(none.add([{ docId: 'd', text: 't' } as DocumentChunk])).rejects.toThrow(/chunks\[0\]\.embedding must be an embedding \(this store has no embedder/);
  });

  it('deleteByDocIds removes every chunk of the listed documents only', async () => {
    const store = new MemoryVectorStore();
    await store.add([chunk('d1#0', [1, 0]), chunk('d1#1', [0, 1]), chunk('d2#0', [1, 1]), chunk('d3#0', [1, 2])]);
    await store.deleteByDocIds(['d1', 'd3', 'unknown']);
    expect((await store.search([1, 0], { k: 10 })).map((h) => h.chunk.id)).toEqual(['d2#0']);
  });

  it('clear keeps a configured dimension and forgets an inferred one', async () => {
    const fixed = new MemoryVectorStore({ dimensions: 2 });
    await fixed.add([chunk('a', [1, 0])]);
    await fixed.clear();
    expect(fixed.dimensions).toBe(2);
    expect(await fixed.search([1, 0], { k: 3 })).toEqual([]);
  });
});

describe('MemoryVectorStore persistence', () => {
  const sample = [
    chunk('a', [0.1, 0.2, 0.3], { lang: 'ar', tags: ['x', 'y'], year: 2020 }),
    { ...chunk('b', [-1, 0.5, 2]), title: 'عنوان', timestamp: 1700000000000, text: 'نصٌّ عربيّ\nwith a newline' },
  ];

  /** A store (of `options`) holding the sample, saved at `name` below the test directory. */
  async function savedSample(name: string, options: MemoryVectorStoreOptions = {}): Promise<{ store: MemoryVectorStore; path: string }> {
    const store = new MemoryVectorStore(options);
    await store.add(sample);
    const path = join(directory, name);
    await store.save(path);
    return { store, path };
  }

  it('save/load round-trips chunks, vectors, metric and dimension', async () => {
    const { store, path } = await savedSample('round-trip.zvm', { metric: 'l2' });
    const loaded = await MemoryVectorStore.load(path);
    expect(loaded.metric).toBe('l2');
    expect(loaded.dimensions).toBe(3);
    expect(await loaded.get(['a', 'b'])).toEqual(await store.get(['a', 'b']));
    expect(await loaded.search([0, 0, 1], { k: 2 })).toEqual(await store.search([0, 0, 1], { k: 2 }));
    // save() without an argument goes back to the file it was loaded from.
    await loaded.delete(['a']);
    await loaded.save();
    expect(await (await MemoryVectorStore.load(path)).count()).toBe(1);
    expect((await readdir(directory)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('saves an empty store that remembers its configured dimension', async () => {
    const path = join(directory, 'empty.zvm');
    await new MemoryVectorStore({ dimensions: 7, metric: 'ip' }).save(path);
    const loaded = await MemoryVectorStore.load(path);
    expect([loaded.dimensions, loaded.metric, await loaded.count()]).toEqual([7, 'ip', 0]);
  });

  it('fails on corrupt, truncated, mismatched or missing files with ZERDA_STORE_CORRUPT naming the path', async () => {
    const { path } = await savedSample('good.zvm');
    const bytes = await readFile(path);

    const truncated = join(directory, 'truncated.zvm');
    await writeFile(truncated, bytes.subarray(0, bytes.indexOf(0x0a) + 10));
    await expect(MemoryVectorStore.load(truncated)).rejects.toMatchObject({ code: 'ZERDA_STORE_CORRUPT', message: expect.stringContaining(truncated) });

    const missingLine = join(directory, 'missing-line.zvm');
    await writeFile(missingLine, bytes.subarray(0, bytes.length - 5));
    await expect(MemoryVectorStore.load(missingLine)).rejects.toMatchObject({ code: 'ZERDA_STORE_CORRUPT' });

    const garbage = join(directory, 'garbage.zvm');
    await writeFile(garbage, 'hello\nworld\n');
    await expect(MemoryVectorStore.load(garbage)).rejects.toThrow(/garbage\.zvm cannot be loaded: the header is not valid JSON/);

    await expect(MemoryVectorStore.load(path, { metric: 'ip' })).rejects.toThrow(/metric "cosine", but options\.metric is "ip"/);
    await expect(MemoryVectorStore.load(join(directory, 'nope.zvm'))).rejects.toThrow(/nope\.zvm cannot be loaded: the file does not exist/);
  });

  it('a failed save leaves the previous file intact and no temporary behind', async () => {
    const { store, path } = await savedSample('keep.zvm');
    const before = await readFile(path);
    // The target is a directory: the final rename fails after the whole file was written.
    const blocked = join(directory, 'blocked.zvm');
    await mkdir(join(blocked, 'inside'), { recursive: true });
    await expect(store.save(blocked)).rejects.toMatchObject({ code: 'ZERDA_STORE_IO' });
    expect(await readFile(path)).toEqual(before);
    expect((await readdir(directory)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('creates missing directories, like every other store (issue 15, defect 9)', async () => {
    const { path } = await savedSample(join('new', 'nested', 'dirs', 'x.zvm'));
    expect(await (await MemoryVectorStore.load(path)).count()).toBe(2);
  });

  it('refuses a file with a flipped byte anywhere, naming the part and the check (issue 15, defect 7)', async () => {
    const { path } = await savedSample('checksummed.zvm');
    const bytes = await readFile(path);
    const vectorsAt = bytes.indexOf(Buffer.from(new Float32Array([0.1, 0.2, 0.3]).buffer));
    expect(vectorsAt).toBeGreaterThan(0);
    for (const [offset, part] of [
      [vectorsAt + 1, 'vectors.f32'],
      [bytes.indexOf(Buffer.from('عنوان')), 'chunks/title.str'],
      [bytes.indexOf(Buffer.from('"metric"')) + 2, 'store.json'],
    ] as const) {
      const damaged = Buffer.from(bytes);
      damaged[offset] = damaged[offset]! ^ 0x01;
      const target = join(directory, `flipped-${offset}.zvm`);
      await writeFile(target, damaged);
      await expect(MemoryVectorStore.load(target)).rejects.toMatchObject({
        code: 'ZERDA_STORE_CORRUPT',
        details: { path: target, file: part, check: 'sha256' },
      });
    }
  });

  it('still opens format-1 files written by earlier versions', async () => {
    const path = join(directory, 'format-1.zvm');
    const header = JSON.stringify({ format: 'zerda-vector-memory', formatVersion: 1, metric: 'cosine', dimensions: 2, count: 2, littleEndian: true });
    const vectors = Buffer.from(new Float32Array([1, 0, 0, 1]).buffer);
    const lines = [JSON.stringify({ id: 'x', docId: 'x', text: 'one', source: 'x', metadata: {}, position: { index: 0 } }), JSON.stringify({ id: 'y', docId: 'y', text: 'two', source: 'y', metadata: { lang: 'en' }, position: { index: 0 } })];
    await writeFile(path, Buffer.concat([Buffer.from(`${header}\n`), vectors, Buffer.from(`${lines.join('\n')}\n`)]));
    const loaded = await MemoryVectorStore.load(path);
    expect((await loaded.search([0, 1], { k: 1 }))[0]).toMatchObject({ chunk: { id: 'y', metadata: { lang: 'en' } }, score: 1 });
    // Saving writes the current format.
    await loaded.save();
    expect((await readFile(path)).subarray(0, 8).toString('latin1')).toBe('ZERDASNP');
    expect(await (await MemoryVectorStore.load(path)).count()).toBe(2);
  });

  it('writeSnapshot/readSnapshot restore into an empty store of the same metric only', async () => {
    const { store, path } = await savedSample('snapshot-pair.zvm', { metric: 'ip' });
    const { readSnapshotFile } = await import('@zerda/persistence');
    const format = { format: 'zerda-vector-memory', formatVersion: 2, producer: 'test', zerdaVersion: 'test' };
    const into = (target: MemoryVectorStore) => readSnapshotFile(path, format, (reader) => target.readSnapshot(reader));
    const restored = new MemoryVectorStore({ metric: 'ip' });
    await into(restored);
    expect(await restored.get(['a', 'b'])).toEqual(await store.get(['a', 'b']));
    await expect(into(restored)).rejects.toMatchObject({ code: 'ZERDA_UNSUPPORTED' });
    await expect(into(new MemoryVectorStore({ metric: 'cosine' }))).rejects.toMatchObject({ code: 'ZERDA_CORRUPT_SNAPSHOT', message: expect.stringContaining('metric "ip"') });
    await expect(into(new MemoryVectorStore({ metric: 'ip', dimensions: 4 }))).rejects.toMatchObject({ message: expect.stringContaining('3-dimensional') });
  });

  it('writes issued during a save wait for it, so the file is a consistent snapshot', async () => {
    const store = new MemoryVectorStore({ metric: 'ip' });
    await store.add(Array.from({ length: 2000 }, (_, i) => chunk(`c${i}`, [i, 1])));
    const path = join(directory, 'concurrent.zvm');
    const saving = store.save(path);
    const adding = store.add([chunk('late', [1, 1])]);
    const deleting = store.delete(['c0']);
    await Promise.all([saving, adding, deleting]);
    const loaded = await MemoryVectorStore.load(path);
    expect(await loaded.count()).toBe(2000);
    expect((await loaded.get(['c0', 'late'])).map((c) => c.id)).toEqual(['c0']);
    expect(await store.count()).toBe(2000);
  });

  it('toJSON/fromJSON round-trips through JSON text and validates what it reads', async () => {
    const store = new MemoryVectorStore({ metric: 'ip' });
    await store.add(sample);
    const copy = MemoryVectorStore.fromJSON(JSON.parse(JSON.stringify(store)));
    expect(copy.metric).toBe('ip');
    expect(await copy.get(['a', 'b'])).toEqual(await store.get(['a', 'b']));
    const broken = store.toJSON();
    broken.chunks[1]!.embedding = [1, 2];
    expect(() => MemoryVectorStore.fromJSON(broken)).toThrow(/json|chunks\[1\]\.embedding has 2 dimensions, expected 3/);
    expect(() => MemoryVectorStore.fromJSON({ format: 'other' })).toThrow(/json\.format/);
  });
});
