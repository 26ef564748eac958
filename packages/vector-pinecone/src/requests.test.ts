import { expectZerdaError } from '@zerda/vector-conformance';
// Every request the store makes, as the official client puts it on the wire (captured through the
// client's `fetchApi` option; nothing leaves the process), checked against Pinecone's documented
// REST shapes and limits.
import { Pinecone } from '@pinecone-database/pinecone';
import type { DocumentChunk } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { createFakePinecone, type RecordedRequest } from './__fixtures__/fake-pinecone.js';
import { createPineconeStore } from './create-store.js';
import { PineconeVectorStore } from './pinecone-vector-store.js';
import { CHUNK_FIELD, DOC_ID_FIELD, SOURCE_FIELD, TERMS_FIELD, numberField } from './pinecone-records.js';

function setup(options: { dimension?: number; metric?: 'cosine' | 'dotproduct' | 'euclidean' } = {}) {
  const fake = createFakePinecone({ dimension: options.dimension ?? 3, metric: options.metric ?? 'cosine' });
  const client = new Pinecone({ apiKey: 'test-key', fetchApi: fake.fetchApi as typeof fetch, maxRetries: 0 });
  const index = client.index({ host: fake.host });
  return { fake, client, index };
}

function chunk(id: string, embedding: number[], extra: Partial<DocumentChunk> = {}): DocumentChunk {
  return { id, docId: id.split('#')[0]!, text: `text ${id}`, source: 'src', metadata: {}, position: { index: 0 }, embedding, ...extra };
}

function dataRequests(requests: RecordedRequest[], path: string): RecordedRequest[] {
  return requests.filter((request) => request.path === path);
}

describe('upsert requests', () => {
  it('POST /vectors/upsert with id, values and the documented metadata types, in the namespace, authenticated', async () => {
    const { fake, index } = setup();
    const store = new PineconeVectorStore({ index, namespace: 'tenant-a', dimensions: 3 });
    await store.add([
      chunk('a#0', [1, 0, 0], { title: 'عنوان', metadata: { lang: 'ar', year: 2020, tags: ['x', 1, null], nested: { deep: true }, empty: null }, timestamp: 1700000000000 }),
    ]);
    const [request] = dataRequests(fake.requests, '/vectors/upsert');
    expect(request!.method).toBe('POST');
    expect(request!.headers['api-key']).toBe('test-key');
    expect(request!.headers['x-pinecone-api-version']).toMatch(/^\d{4}-\d{2}$/);
    const body = request!.body as { vectors: Array<{ id: string; values: number[]; metadata: Record<string, unknown> }>; namespace: string };
    expect(body.namespace).toBe('tenant-a');
    expect(body.vectors).toHaveLength(1);
    const [vector] = body.vectors;
    expect(vector!.id).toBe('a#0');
    expect(vector!.values).toEqual([1, 0, 0]);
    // Only strings, numbers, booleans and lists of strings: what Pinecone metadata accepts.
    for (const value of Object.values(vector!.metadata)) {
      expect(typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || (Array.isArray(value) && value.every((item) => typeof item === 'string'))).toBe(true);
    }
    expect(vector!.metadata[DOC_ID_FIELD]).toBe('a');
    expect(vector!.metadata[SOURCE_FIELD]).toBe('src');
    expect(vector!.metadata[numberField('year')]).toBe(2020);
    expect(vector!.metadata[TERMS_FIELD]).toEqual(['[]', '["lang"]', '["lang","ar"]', '["year"]', '["year",2020]', '["tags"]', '["tags","x"]', '["tags",1]', '["tags",null]', '["nested"]', '["empty"]', '["empty",null]']);
    expect(JSON.parse(vector!.metadata[CHUNK_FIELD] as string)).toEqual({ text: 'text a#0', title: 'عنوان', metadata: { lang: 'ar', year: 2020, tags: ['x', 1, null], nested: { deep: true }, empty: null }, position: { index: 0 }, timestamp: 1700000000000 });
  });

  it('batches by batchSize and keeps every request under 2 MB', async () => {
    const { fake, index } = setup({ dimension: 4 });
    const store = new PineconeVectorStore({ index, dimensions: 4, batchSize: 100 });
    await store.add(Array.from({ length: 250 }, (_, i) => chunk(`c${i}`, [1, i, 0, 0])));
    expect(dataRequests(fake.requests, '/vectors/upsert').map((request) => (request.body as { vectors: unknown[] }).vectors.length)).toEqual([100, 100, 50]);

    fake.requests.length = 0;
    // ~37 KB of text per chunk: about 50 fit in 2 MB, whatever batchSize says.
    const big = 'نص '.repeat(7_500);
    const large = new PineconeVectorStore({ index, namespace: 'large', dimensions: 4, batchSize: 1000 });
    await large.add(Array.from({ length: 120 }, (_, i) => chunk(`big${i}`, [1, 0, i, 0], { text: big })));
    const upserts = dataRequests(fake.requests, '/vectors/upsert');
    expect(upserts.length).toBeGreaterThanOrEqual(3);
    for (const request of upserts) expect(Buffer.byteLength(JSON.stringify(request.body))).toBeLessThan(2 * 1024 * 1024);
    expect(upserts.reduce((total, request) => total + (request.body as { vectors: unknown[] }).vectors.length, 0)).toBe(120);
    expect(await large.count()).toBe(120);
  });

  it('refuses a chunk over the 40 KB metadata limit before sending anything', async () => {
    const { fake, index } = setup();
    const store = new PineconeVectorStore({ index, dimensions: 3 });
    const error = await expectZerdaError(() => store.add([chunk('ok', [1, 0, 0]), chunk('huge', [0, 1, 0], { text: 'x'.repeat(41_000) })]));
    expect(error.details.field).toBe('chunks[1]');
    expect(error.message).toMatch(/40960 bytes/);
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses text Pinecone cannot store (a lone surrogate) before sending anything, and never asks for such an id', async () => {
    const { fake, index } = setup();
    const store = new PineconeVectorStore({ index, dimensions: 3 });
    const error = await expectZerdaError(() => store.add([chunk('ok', [1, 0, 0]), chunk('bad', [0, 1, 0], { text: 'half \ud800 pair' })]));
    expect(error.code).toBe('ZERDA_INVALID_ARGUMENT');
    expect(error.details.field).toBe('chunks[1].text');
    expect(fake.requests).toHaveLength(0);
    expect(await store.get(['\udc00'])).toEqual([]);
    await store.delete(['\udc00']);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('query requests', () => {
  it('POST /query with vector, topK, filter, includeMetadata, includeValues and namespace', async () => {
    const { fake, index } = setup();
    const store = new PineconeVectorStore({ index, namespace: 'n1', dimensions: 3 });
    await store.add([chunk('a', [1, 0, 0], { metadata: { lang: 'ar' } })]);
    await store.search([1, 0, 0], { k: 5, filter: { lang: 'ar', year: { $gte: 2020 } } });
    const [request] = dataRequests(fake.requests, '/query');
    expect(request!.method).toBe('POST');
    expect(request!.body).toEqual({
      vector: [1, 0, 0],
      topK: 5,
      includeMetadata: true,
      includeValues: true,
      namespace: 'n1',
      filter: { $and: [{ [TERMS_FIELD]: { $in: ['["lang","ar"]'] } }, { [numberField('year')]: { $gte: 2020 } }] },
    });
  });

  it('caps topK at 1,000, sends no filter for none, and no request for an impossible one', async () => {
    const { fake, index } = setup();
    const store = new PineconeVectorStore({ index, dimensions: 3, includeEmbeddings: false });
    await store.add([chunk('a', [1, 0, 0])]);
    await store.search([1, 0, 0], { k: 5000 });
    const [request] = dataRequests(fake.requests, '/query');
    // The client itself names Pinecone's default namespace "__default__" on the wire.
    expect(request!.body).toEqual({ vector: [1, 0, 0], topK: 1000, includeMetadata: true, includeValues: false, namespace: '__default__' });
    expect(await store.search([1, 0, 0], { k: 3, filter: { docId: 42 } })).toEqual([]);
    expect(dataRequests(fake.requests, '/query')).toHaveLength(1);
  });

  it('over-fetches, growing topK, when a string range is checked after the query', async () => {
    const { fake, index } = setup();
    const store = new PineconeVectorStore({ index, dimensions: 3, overFetch: 2 });
    // 40 chunks; only the 3 farthest have a name at or after "m".
    await store.add(Array.from({ length: 40 }, (_, i) => chunk(`c${i}`, [1, i / 10, 0], { metadata: { name: i >= 37 ? 'zeta' : 'alpha' } })));
    const hits = await store.search([1, 0, 0], { k: 2, filter: { name: { $gte: 'm' } } });
    expect(hits.map((hit) => hit.chunk.id)).toEqual(['c37', 'c38']);
    expect(dataRequests(fake.requests, '/query').map((request) => (request.body as { topK: number; filter?: unknown }).topK)).toEqual([4, 16, 64]);
    for (const request of dataRequests(fake.requests, '/query')) expect((request.body as { filter?: unknown }).filter).toBeUndefined();
  });

  it('converts Pinecone scores: cosine and dotproduct as similarities, euclidean (squared distance) to 1 / (1 + distance)', async () => {
    for (const [pineconeMetric, metric, expected] of [
      ['cosine', 'cosine', 0.6],
      ['dotproduct', 'ip', 1.2],
      ['euclidean', 'l2', 1 / (1 + Math.sqrt(0.8))],
    ] as const) {
      const { index } = setup({ metric: pineconeMetric });
      const store = new PineconeVectorStore({ index, metric, dimensions: 3 });
      await store.add([chunk('a', [1.2, 1.6, 0])]);
      const [hit] = await store.search(pineconeMetric === 'cosine' ? [1, 0, 0] : [1, 0, 0], { k: 1 });
      const reference = pineconeMetric === 'euclidean' ? 1 / (1 + Math.sqrt(0.04 + 2.56)) : expected;
      expect(hit!.score).toBeCloseTo(reference, 5);
    }
  });
});

describe('fetch, delete, stats', () => {
  it('GET /vectors/fetch with ids (100 per request) and namespace; get keeps the order asked', async () => {
    const { fake, index } = setup();
    const store = new PineconeVectorStore({ index, namespace: 'n2', dimensions: 3 });
    await store.add(Array.from({ length: 150 }, (_, i) => chunk(`c${i}`, [1, 0, i])));
    const got = await store.get([...Array.from({ length: 150 }, (_, i) => `c${149 - i}`), 'missing']);
    expect(got.map((c) => c.id)).toEqual(Array.from({ length: 150 }, (_, i) => `c${149 - i}`));
    const fetches = dataRequests(fake.requests, '/vectors/fetch');
    expect(fetches.map((request) => request.method)).toEqual(['GET', 'GET']);
    expect(fetches.map((request) => request.query.ids!.length)).toEqual([100, 51]);
    expect(fetches[0]!.query.namespace).toEqual(['n2']);
  });

  it('POST /vectors/delete by ids (1,000 per request), by document filter, and deleteAll for clear', async () => {
    const { fake, index } = setup();
    const store = new PineconeVectorStore({ index, namespace: 'n3', dimensions: 3 });
    await store.delete(Array.from({ length: 1500 }, (_, i) => `id${i}`));
    await store.deleteByDocIds(['doc-a', 'doc-b']);
    await store.clear();
    const deletes = dataRequests(fake.requests, '/vectors/delete').map((request) => request.body as Record<string, unknown>);
    expect(deletes.map((body) => (body.ids as string[] | undefined)?.length)).toEqual([1000, 500, undefined, undefined]);
    expect(deletes[2]).toEqual({ filter: { [DOC_ID_FIELD]: { $in: ['doc-a', 'doc-b'] } }, namespace: 'n3' });
    expect(deletes[3]).toEqual({ deleteAll: true, namespace: 'n3' });
    await store.delete([]);
    await store.deleteByDocIds([]);
    expect(dataRequests(fake.requests, '/vectors/delete')).toHaveLength(4);
  });

  it('counts from POST /describe_index_stats, per namespace, including the default one', async () => {
    const { fake, index } = setup();
    const tenantA = new PineconeVectorStore({ index, namespace: 'a', dimensions: 3 });
    const tenantB = tenantA.withNamespace('b');
    const defaultNamespace = tenantA.withNamespace('');
    await tenantA.add([chunk('x', [1, 0, 0]), chunk('y', [0, 1, 0])]);
    await tenantB.add([chunk('x', [0, 0, 1])]);
    expect([await tenantA.count(), await tenantB.count(), await defaultNamespace.count()]).toEqual([2, 1, 0]);
    await defaultNamespace.add([chunk('z', [1, 1, 0])]);
    expect(await defaultNamespace.count()).toBe(1);
    expect(dataRequests(fake.requests, '/describe_index_stats')[0]!.method).toBe('POST');
    // Tenants never see each other's records.
    expect((await tenantB.search([1, 0, 0], { k: 10 })).map((hit) => hit.chunk.id)).toEqual(['x']);
    expect((await tenantB.get(['y'])).length).toBe(0);
  });
});

describe('failures and freshness', () => {
  it('reports a Pinecone error as ZERDA_BACKEND_ERROR naming the namespace and operation', async () => {
    const { index } = setup({ dimension: 4 });
    // The store was told the wrong dimension; Pinecone refuses the upsert.
    const store = new PineconeVectorStore({ index, namespace: 'oops', dimensions: 3, label: 'pinecone index docs' });
    const error = await expectZerdaError(() => store.add([chunk('a', [1, 0, 0])]));
    expect(error.code).toBe('ZERDA_BACKEND_ERROR');
    expect(error.message).toMatch(/Pinecone \(pinecone index docs, namespace "oops"\) failed during upsert/);
  });

  it('waitForWrites polls fetch until the write is visible', async () => {
    const { fake, index } = setup();
    const store = new PineconeVectorStore({ index, dimensions: 3, waitForWrites: { timeoutMs: 1000, intervalMs: 1 } });
    await store.add([chunk('a', [1, 0, 0])]);
    await store.delete(['a']);
    const paths = fake.requests.map((request) => request.path);
    expect(paths).toEqual(['/vectors/upsert', '/vectors/fetch', '/vectors/delete', '/vectors/fetch']);
  });

  it('rejects bad options with the field named', () => {
    const { index } = setup();
    expect(() => new PineconeVectorStore({} as never)).toThrow(/options\.index must be a Pinecone Index/);
    expect(() => new PineconeVectorStore({ index, metric: 'dotproduct' as never })).toThrow(/options\.metric/);
    expect(() => new PineconeVectorStore({ index, batchSize: 5000 })).toThrow(/options\.batchSize must be an integer from 1 to 1000/);
    expect(() => new PineconeVectorStore({ index, waitForWrites: { every: 1 } as never })).toThrow(/options\.waitForWrites\.every/);
    expect(() => new PineconeVectorStore({ index, apiKey: 'x' } as never)).toThrow(/options\.apiKey must be a known option/);
  });
});

describe('createPineconeStore', () => {
  it('reads metric and dimension with describeIndex (GET /indexes/{name}) and then talks to the index host', async () => {
    const fake = createFakePinecone({ indexName: 'docs', dimension: 3, metric: 'dotproduct' });
    const client = new Pinecone({ apiKey: 'test-key', fetchApi: fake.fetchApi as typeof fetch, maxRetries: 0 });
    const store = await createPineconeStore({ client, indexName: 'docs', namespace: 'tenant' });
    expect(store.metric).toBe('ip');
    expect(store.dimensions).toBe(3);
    expect(store.namespace).toBe('tenant');
    await store.add([chunk('a', [1, 2, 3])]);
    expect(fake.requests[0]).toMatchObject({ method: 'GET', path: '/indexes/docs' });
    expect(fake.requests[1]).toMatchObject({ method: 'POST', path: '/vectors/upsert' });
    expect((await store.search([1, 0, 0], { k: 1 }))[0]!.score).toBeCloseTo(1, 6);
  });

  it('needs an index name and an API key', async () => {
    expect((await expectZerdaError(() => createPineconeStore({ indexName: '' }))).details.field).toBe('options.indexName');
    const saved = process.env.PINECONE_API_KEY;
    delete process.env.PINECONE_API_KEY;
    try {
      expect((await expectZerdaError(() => createPineconeStore({ indexName: 'docs' }))).details.field).toBe('options.apiKey');
    } finally {
      if (saved !== undefined) process.env.PINECONE_API_KEY = saved;
    }
  });
});
