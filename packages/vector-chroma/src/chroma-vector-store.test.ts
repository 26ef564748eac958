import { expectZerdaError } from '@zerda/vector-conformance';
import { ChromaClient } from 'chromadb';
import type { DocumentChunk } from '@zerda/types';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { temporaryServer, uniqueCollection } from './__fixtures__/server.js';
import { startChromaServer } from './chroma-server.js';
import { ChromaVectorStore } from './chroma-vector-store.js';

let fixture: Awaited<ReturnType<typeof temporaryServer>>;

beforeAll(async () => {
  fixture = await temporaryServer();
});

afterAll(async () => {
  await fixture?.dispose();
});

function chunk(id: string, embedding: number[], extra: Partial<DocumentChunk> = {}): DocumentChunk {
  return { id, docId: id.split('#')[0]!, text: `نص ${id}`, source: 'test', metadata: {}, position: { index: 0 }, embedding, ...extra };
}

describe('persistence', () => {
  it('keeps chunks, vectors and filters across a server restart', async () => {
    const collection = uniqueCollection('restart');
    const store = new ChromaVectorStore({ url: fixture.server.url, collection, metric: 'l2' });
    await store.add([chunk('a#0', [3, 4], { metadata: { lang: 'ar', year: 2020 }, title: 'عنوان', timestamp: 5 }), chunk('b#0', [0, 1], { metadata: { lang: 'en' } })]);
    const server = await fixture.restart();
    const reopened = await ChromaVectorStore.open({ url: server.url, collection });
    expect(reopened.metric).toBe('l2');
    expect(reopened.dimensions).toBe(2);
    const hits = await reopened.search([3, 4], { k: 5, filter: { lang: 'ar', year: { $gte: 2020 } } });
    expect(hits.map((hit) => hit.chunk)).toEqual([{ id: 'a#0', docId: 'a', text: 'نص a#0', source: 'test', title: 'عنوان', timestamp: 5, metadata: { lang: 'ar', year: 2020 }, position: { index: 0 }, embedding: Float32Array.from([3, 4]) }]);
    expect(hits[0]!.score).toBeCloseTo(1, 6);
  });
});

describe('opening collections', () => {
  it('refuses another metric, another dimension, and a collection zerda did not create', async () => {
    const collection = uniqueCollection('open');
    const store = new ChromaVectorStore({ url: fixture.server.url, collection, metric: 'ip' });
    await store.add([chunk('a', [1, 2, 3])]);
    expect((await ChromaVectorStore.open({ url: fixture.server.url, collection })).metric).toBe('ip');
    expect((await expectZerdaError(() => ChromaVectorStore.open({ url: fixture.server.url, collection, metric: 'cosine' }))).message).toMatch(/options\.metric must be "ip"/);
    expect((await expectZerdaError(() => ChromaVectorStore.open({ url: fixture.server.url, collection, dimensions: 4 }))).code).toBe('ZERDA_DIMENSION_MISMATCH');
    const foreign = uniqueCollection('foreign');
    await new ChromaClient({ host: fixture.server.host, port: fixture.server.port }).createCollection({ name: foreign, embeddingFunction: null });
    const error = await expectZerdaError(() => ChromaVectorStore.open({ url: fixture.server.url, collection: foreign }));
    expect(error.code).toBe('ZERDA_UNSUPPORTED');
    expect(error.message).toMatch(/not created by zerda/);
  });

  it('drop deletes the collection; the next add creates it again', async () => {
    const store = new ChromaVectorStore({ url: fixture.server.url, collection: uniqueCollection('drop') });
    await store.add([chunk('a', [1, 0])]);
    await store.drop();
    expect(await store.count()).toBe(0);
    expect(store.dimensions).toBeUndefined();
    await store.add([chunk('b', [1, 0, 0])]);
    expect(store.dimensions).toBe(3);
    await store.close();
    expect((await expectZerdaError(() => store.count())).code).toBe('ZERDA_NOT_READY');
  });
});

describe('requests', () => {
  it('writes in batches of batchSize and replaces chunks in place', async () => {
    const store = new ChromaVectorStore({ url: fixture.server.url, collection: uniqueCollection('batches'), batchSize: 4 });
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    try {
      await store.add(Array.from({ length: 10 }, (_, i) => chunk(`c${i}`, [1, i])));
      const upserts = fetchSpy.mock.calls.filter(([input]) => String(input instanceof Request ? input.url : input).endsWith('/upsert'));
      expect(upserts).toHaveLength(3);
    } finally {
      fetchSpy.mockRestore();
    }
    expect(await store.count()).toBe(10);
    await store.add([chunk('c3', [0, 1], { metadata: { replaced: true } })]);
    expect(await store.count()).toBe(10);
    expect((await store.get(['c3']))[0]!.metadata).toEqual({ replaced: true });
  });

  it('scores a zero vector 0 under cosine', async () => {
    const store = new ChromaVectorStore({ url: fixture.server.url, collection: uniqueCollection('zero') });
    await store.add([chunk('same', [1, 0]), chunk('zero', [0, 0]), chunk('opposite', [-1, 0])]);
    const hits = await store.search([1, 0], { k: 3 });
    expect(hits.map((hit) => [hit.chunk.id, hit.score])).toEqual([
      ['same', 1],
      ['zero', 0],
      ['opposite', -1],
    ]);
  });

  it('refuses text Chroma cannot store, naming the field, before sending anything', async () => {
    const store = new ChromaVectorStore({ url: fixture.server.url, collection: uniqueCollection('surrogate') });
    await store.add([chunk('ok', [1, 0])]);
    expect((await expectZerdaError(() => store.add([chunk('bad', [1, 0], { text: 'a \uD800 b' })]))).details.field).toBe('chunks[0].text');
    expect((await expectZerdaError(() => store.add([chunk('bad', [1, 0], { metadata: { tags: ['x', '\uDFFF'] } })]))).details.field).toBe('chunks[0].metadata.tags[1]');
    expect(await store.count()).toBe(1);
    expect(await store.search([1, 0], { k: 3, filter: { docId: '\uD800' } })).toEqual([]);
  });
});

describe('options and the server helper', () => {
  it('rejects bad options with the field named', () => {
    expect(() => new ChromaVectorStore({ collection: 'a' })).toThrow(/options\.collection must be a Chroma collection name/);
    expect(() => new ChromaVectorStore({ collection: 'bad name' })).toThrow(/options\.collection/);
    expect(() => new ChromaVectorStore({ url: 'not a url' })).toThrow(/options\.url must be a URL/);
    expect(() => new ChromaVectorStore({ metric: 'dot' as never })).toThrow(/options\.metric/);
    expect(() => new ChromaVectorStore({ client: {} as never })).toThrow(/options\.client must be a ChromaClient/);
    expect(() => new ChromaVectorStore({ hnsw: { efSearch: 0 } })).toThrow(/options\.hnsw\.efSearch/);
    expect(() => new ChromaVectorStore({ embeddingFunction: null } as never)).toThrow(/options\.embeddingFunction must be a known option/);
  });

  it('startChromaServer reports a server that cannot start', async () => {
    const error = await expectZerdaError(() => startChromaServer({ path: fixture.directory, port: fixture.server.port, startTimeoutMs: 20_000 }));
    expect(error.code).toBe('ZERDA_BACKEND_ERROR');
    expect(error.message).toMatch(/Chroma server failed during start on .* port \d+ is already in use/);
    // The running server is untouched.
    expect((await fetch(`${fixture.server.url}/api/v2/heartbeat`)).ok).toBe(true);
  });
});

describe('startChromaServer', () => {
  it('reports a server that does not come up (exits, or no heartbeat in time)', async () => {
    const error = await expectZerdaError(() => startChromaServer({ path: '/proc/zerda-cannot-write-here', startTimeoutMs: 3000 }));
    expect(error.code).toBe('ZERDA_BACKEND_ERROR');
  });
});
