// CONTRACT TEST, not a test against Pinecone: the shared conformance suite runs through the
// official client (its real request building, serialisation and response parsing) against an
// in-process fake of Pinecone's documented REST semantics (src/__fixtures__/fake-pinecone.ts). The
// fake refuses filters that depend on undocumented behaviour, so passing here shows the store
// relies only on what Pinecone documents. See conformance-live.test.ts for a real index.
import { Pinecone } from '@pinecone-database/pinecone';
import { testVectorStore } from '@zerda/vector-conformance';
import { expect, it } from 'vitest';
import { createFakePinecone } from './__fixtures__/fake-pinecone.js';
import { PineconeVectorStore } from './pinecone-vector-store.js';

const METRICS = { cosine: 'cosine', ip: 'dotproduct', l2: 'euclidean' } as const;
let counter = 0;

for (const metric of ['cosine', 'ip', 'l2'] as const) {
  const fake = createFakePinecone({ dimension: 8, metric: METRICS[metric] });
  const index = new Pinecone({ apiKey: 'contract-test-key', fetchApi: fake.fetchApi as typeof fetch, maxRetries: 0 }).index({ host: fake.host });
  testVectorStore({
    name: `PineconeVectorStore through the official client against the documented-semantics fake (${metric})`,
    create: () => new PineconeVectorStore({ index, namespace: `tenant-${++counter}`, metric, dimensions: 8 }),
    reopen: async (store) => new PineconeVectorStore({ index, namespace: (store as PineconeVectorStore).namespace, metric, dimensions: 8 }),
    additionalTests: (getStore) => {
      it('declares persistence and native filters, no text search', () => {
        expect(getStore().capabilities).toEqual({ persistence: true, nativeFilter: true, textSearch: false, embeds: false });
      });
    },
  });
}

{
  const fake = createFakePinecone({ dimension: 8, metric: 'cosine' });
  const index = new Pinecone({ apiKey: 'contract-test-key', fetchApi: fake.fetchApi as typeof fetch, maxRetries: 0 }).index({ host: fake.host });
  testVectorStore({
    name: "PineconeVectorStore in Pinecone's default namespace, dimension learnt from the first vector, no embeddings returned",
    create: () => new PineconeVectorStore({ index, includeEmbeddings: false }),
    reopen: async () => new PineconeVectorStore({ index, dimensions: 8, includeEmbeddings: false }),
  });
}
