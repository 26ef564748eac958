import { mkdtemp, readFile, rm, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { cosineSimilarity, type DocumentChunk } from '@zerda/types';
import { gaussianMixture, expectZerdaError } from '@zerda/vector-conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faissAvailability } from './faiss-loader.js';
import { FaissVectorStore } from './faiss-vector-store.js';

const availability = faissAvailability();
const title = availability.available ? 'FaissVectorStore' : `FaissVectorStore (skipped: ${availability.reason})`;

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'zerda-faiss-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function chunk(id: string, embedding: number[] | Float32Array, metadata: DocumentChunk['metadata'] = {}): DocumentChunk {
  return { id, docId: `doc-${id}`, text: `نص ${id}`, source: 'test', metadata, position: { index: 0 }, embedding };
}

/** The exact answer, computed here from the live chunks: ids with their cosine similarity, best first. */
function reference(live: Map<string, DocumentChunk>, query: number[], k: number, accept: (chunk: DocumentChunk) => boolean = () => true): Array<{ id: string; score: number }> {
  return [...live.values()]
    .filter(accept)
    .map((item) => ({ id: item.id, score: cosineSimilarity(query, item.embedding as number[]) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, k);
}

/**
 * The store's hits are the exact top k: same length, and position by position the reference
 * score of the returned chunk equals the k-th best score (float32 rounding may swap exact ties).
 */
function expectExactRanking(hits: Array<{ chunk: DocumentChunk }>, live: Map<string, DocumentChunk>, query: number[], k: number, accept?: (chunk: DocumentChunk) => boolean): void {
  const expected = reference(live, query, k, accept);
  expect(hits.length).toBe(expected.length);
  hits.forEach((hit, i) => {
    expect(live.has(hit.chunk.id)).toBe(true);
    expect(Math.abs(cosineSimilarity(query, live.get(hit.chunk.id)!.embedding as number[]) - expected[i]!.score)).toBeLessThan(1e-5);
  });
}

describe.skipIf(!availability.available)(title, () => {
  it('keeps its id map right through removals, replacements, compaction and save/load (flat: exact; model-based property)', async () => {
    const operation = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), ids: fc.array(fc.integer({ min: 0, max: 39 }), { minLength: 1, maxLength: 8 }), seed: fc.integer() }),
      fc.record({ kind: fc.constant('delete' as const), ids: fc.array(fc.integer({ min: 0, max: 39 }), { minLength: 1, maxLength: 8 }) }),
      fc.record({ kind: fc.constant('compact' as const) }),
      fc.record({ kind: fc.constant('reload' as const) }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('flat' as const, 'hnsw' as const), fc.array(operation, { minLength: 1, maxLength: 15 }), fc.integer({ min: 0, max: 359 }), async (index, operations, angle) => {
        let store = new FaissVectorStore({ index, metric: 'cosine', dimensions: 3, autoCompact: 0.5 });
        const live = new Map<string, DocumentChunk>();
        for (const step of operations) {
          if (step.kind === 'add') {
            const ids = [...new Set(step.ids)];
            const added = ids.map((id, i) => {
              const degrees = ((step.seed + i * 37) % 360) + id;
              return chunk(`c${id}`, [Math.cos((degrees * Math.PI) / 180), Math.sin((degrees * Math.PI) / 180), (id % 5) / 10], { group: id % 3 });
            });
            await store.add(added);
            for (const item of added) live.set(item.id, item);
          } else if (step.kind === 'delete') {
            const ids = step.ids.map((id) => `c${id}`);
            await store.delete(ids);
            for (const id of ids) live.delete(id);
          } else if (step.kind === 'compact') {
            store.compact();
            expect(store.deletedCount).toBe(0);
          } else {
            const path = join(directory, `model-${++run}.zfaiss`);
            await store.save(path);
            store = await FaissVectorStore.load(path);
          }
        }
        expect(await store.count()).toBe(live.size);
        const query = [Math.cos((angle * Math.PI) / 180), Math.sin((angle * Math.PI) / 180), 0.2];
        // Small sets: HNSW finds the exact neighbours too; deleted ids never come back.
        for (const k of [1, 5, 100]) expectExactRanking(await store.search(query, { k }), live, query, k);
        expectExactRanking(await store.search(query, { k: 3, filter: { group: 1 } }), live, query, 3, (item) => item.metadata.group === 1);
        const got = await store.get([...live.keys()]);
        expect(got.map((item) => item.id)).toEqual([...live.keys()]);
        got.forEach((item) => expect(Array.from(item.embedding!)).toEqual(Array.from(Float32Array.from(live.get(item.id)!.embedding as number[]))));
      }),
      { numRuns: 60 },
    );
  });

  it('answers filters through FAISS with over-fetch when many chunks match, exactly like a scan (flat)', async () => {
    const mixture = gaussianMixture({ seed: 3, clusters: 6, dimensions: 16, spread: 0.4 });
    const chunks = Array.from({ length: 3000 }, (_, i) => chunk(`p${i}`, Array.from(mixture.sample().vector), { parity: i % 2, rare: i % 97 === 0 }));
    const store = new FaissVectorStore({ metric: 'cosine', overFetch: 1 });
    await store.add(chunks);
    const live = new Map(chunks.map((item) => [item.id, item]));
    for (let q = 0; q < 5; q++) {
      const query = Array.from(mixture.sample().vector);
      // Half the chunks match: FAISS path (more than exactFilterShare); 1/97 match: exact scoring path.
      expectExactRanking(await store.search(query, { k: 10, filter: { parity: 1 } }), live, query, 10, (item) => item.metadata.parity === 1);
      expectExactRanking(await store.search(query, { k: 10, filter: { rare: true } }), live, query, 10, (item) => item.metadata.rare === true);
    }
  });

  it('HNSW: recall@10 >= 0.9 on clustered data, tombstones until compact, automatic compaction', async () => {
    const mixture = gaussianMixture({ seed: 11, clusters: 10, dimensions: 32, spread: 0.3 });
    const chunks = Array.from({ length: 2000 }, (_, i) => chunk(`h${i}`, Array.from(mixture.sample().vector)));
    const store = new FaissVectorStore({ index: 'hnsw', metric: 'cosine', autoCompact: 0.3 });
    await store.add(chunks);
    const live = new Map(chunks.map((item) => [item.id, item]));
    let found = 0;
    const queries = Array.from({ length: 30 }, () => Array.from(mixture.sample().vector));
    for (const query of queries) {
      const expected = new Set(reference(live, query, 10).map((hit) => hit.id));
      for (const hit of await store.search(query, { k: 10 })) if (expected.has(hit.chunk.id)) found += 1;
    }
    expect(found / 300).toBeGreaterThanOrEqual(0.9);

    const removed = chunks.slice(0, 500).map((item) => item.id);
    await store.delete(removed);
    for (const id of removed) live.delete(id);
    expect(store.deletedCount).toBe(500);
    for (const query of queries.slice(0, 5)) for (const hit of await store.search(query, { k: 20 })) expect(live.has(hit.chunk.id)).toBe(true);
    // 500 + 200 deleted of 2000 labels crosses 30%: the graph is rebuilt from the live vectors.
    await store.delete(chunks.slice(500, 700).map((item) => item.id));
    expect(store.deletedCount).toBe(0);
    expect(await store.count()).toBe(1300);
  });

  it('HNSW: efConstruction and efSearch reach the FAISS graph (faiss-node has no setter), survive save/load, and change recall', async () => {
    const mixture = gaussianMixture({ seed: 5, clusters: 40, dimensions: 48, spread: 0.5 });
    const chunks = Array.from({ length: 3000 }, (_, i) => chunk(`g${i}`, Array.from(mixture.sample().vector)));
    const live = new Map(chunks.map((item) => [item.id, item]));
    const queries = Array.from({ length: 40 }, () => Array.from(mixture.sample().vector));
    const recall = async (store: FaissVectorStore) => {
      let found = 0;
      for (const query of queries) {
        const expected = new Set(reference(live, query, 10).map((hit) => hit.id));
        for (const hit of await store.search(query, { k: 10 })) if (expected.has(hit.chunk.id)) found += 1;
      }
      return found / (10 * queries.length);
    };
    const defaults = new FaissVectorStore({ index: 'hnsw' });
    await defaults.add(chunks);
    expect(defaults.hnswParameters).toEqual({ m: 32, efConstruction: 200, efSearch: 256, applied: true });
    const narrow = new FaissVectorStore({ index: 'hnsw', hnsw: { m: 4, efConstruction: 8, efSearch: 1 } });
    await narrow.add(chunks);
    expect(narrow.hnswParameters).toEqual({ m: 4, efConstruction: 8, efSearch: 1, applied: true });
    const [wide, poor] = [await recall(defaults), await recall(narrow)];
    expect(wide).toBeGreaterThanOrEqual(0.95);
    expect(poor).toBeLessThan(wide - 0.1);

    const file = join(directory, 'hnsw-parameters.zfaiss');
    await defaults.save(file);
    const loaded = await FaissVectorStore.load(file);
    expect(loaded.hnswParameters).toEqual({ m: 32, efConstruction: 200, efSearch: 256, applied: true });
    for (const query of queries.slice(0, 5)) {
      expect((await loaded.search(query, { k: 10 })).map((hit) => hit.chunk.id)).toEqual((await defaults.search(query, { k: 10 })).map((hit) => hit.chunk.id));
    }
    expect(new FaissVectorStore().hnswParameters.applied).toBe(false);
    expect((await expectZerdaError(async () => new FaissVectorStore({ index: 'hnsw', hnsw: { efSerch: 10 } as never }))).message).toMatch(/options\.hnsw\.efSerch/);
  });

  it('clamps k to what the index holds (FAISS itself throws above it)', async () => {
    for (const index of ['flat', 'hnsw'] as const) {
      const store = new FaissVectorStore({ index, metric: 'l2' });
      await store.add([chunk('a', [0, 0]), chunk('b', [3, 4])]);
      const hits = await store.search([0, 0], { k: 50 });
      expect(hits.map((hit) => [hit.chunk.id, hit.score])).toEqual([
        ['a', 1],
        ['b', 1 / 6],
      ]);
    }
  });

  it('saves atomically: a failed save leaves the previous file; damage is detected on load', async () => {
    const store = new FaissVectorStore({ metric: 'ip' });
    await store.add([chunk('a', [1, 2]), chunk('b', [2, 1])]);
    const path = join(directory, 'atomic.zfaiss');
    await store.save(path);
    const before = await readFile(path);
    // Saving "inside" a regular file fails; the earlier file is untouched and no temporary file stays behind.
    const failed = await expectZerdaError(() => store.save(join(path, 'nested.zfaiss')));
    expect(failed.code).toBe('ZERDA_STORE_IO');
    expect((await readFile(path)).equals(before)).toBe(true);
    expect((await readdir(directory)).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    const damaged = Buffer.from(before);
    damaged[damaged.length - 3]! ^= 0xff;
    await writeFile(join(directory, 'damaged.zfaiss'), damaged);
    expect((await expectZerdaError(() => FaissVectorStore.load(join(directory, 'damaged.zfaiss')))).message).toMatch(/checksum/);
    await writeFile(join(directory, 'truncated.zfaiss'), before.subarray(0, before.length - 10));
    expect((await expectZerdaError(() => FaissVectorStore.load(join(directory, 'truncated.zfaiss')))).code).toBe('ZERDA_STORE_CORRUPT');
    await writeFile(join(directory, 'other.zfaiss'), 'not a store');
    expect((await expectZerdaError(() => FaissVectorStore.load(join(directory, 'other.zfaiss')))).message).toMatch(/not a zerda FAISS store file/);
    expect((await expectZerdaError(() => FaissVectorStore.load(join(directory, 'missing.zfaiss')))).code).toBe('ZERDA_STORE_IO');

    const loaded = await FaissVectorStore.load(path);
    expect(loaded.metric).toBe('ip');
    expect((await loaded.search([1, 0], { k: 1 }))[0]).toMatchObject({ chunk: { id: 'b' }, score: 2 });
  });

  it('an empty store saves and loads; options are validated with the field named', async () => {
    const path = join(directory, 'empty.zfaiss');
    await new FaissVectorStore({ index: 'hnsw', hnsw: { m: 8 } }).save(path);
    const loaded = await FaissVectorStore.load(path);
    expect(loaded.indexType).toBe('hnsw');
    expect(await loaded.count()).toBe(0);
    await loaded.add([chunk('x', [1, 0, 0])]);
    expect(loaded.dimensions).toBe(3);
    expect(() => new FaissVectorStore({ index: 'ivf' as never })).toThrow(/options\.index must be one of "flat", "hnsw"/);
    expect(() => new FaissVectorStore({ hnsw: { m: 1 } })).toThrow(/options\.hnsw\.m/);
    expect(() => new FaissVectorStore({ autoCompact: 2 })).toThrow(/options\.autoCompact must be a number from 0 to 1/);
    expect(() => new FaissVectorStore({ nprobe: 2 } as never)).toThrow(/options\.nprobe must be a known option/);
    expect((await expectZerdaError(() => new FaissVectorStore().save())).details.field).toBe('path');
  });
});

describe.skipIf(availability.available)('FaissVectorStore without faiss-node', () => {
  it('says how to install it', () => {
    expect(() => new FaissVectorStore()).toThrow(/apt-get install -y --no-install-recommends libfaiss-dev libopenblas-dev/);
  });
});
