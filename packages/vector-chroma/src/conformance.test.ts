// The shared conformance suite against a real Chroma server: the one the chromadb package ships,
// started by this file on 127.0.0.1 with a temporary directory and stopped afterwards.
import { testVectorStore } from '@zerda/vector-conformance';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { temporaryServer, uniqueCollection } from './__fixtures__/server.js';
import { ChromaVectorStore } from './chroma-vector-store.js';

let fixture: Awaited<ReturnType<typeof temporaryServer>>;

beforeAll(async () => {
  fixture = await temporaryServer();
});

afterAll(async () => {
  await fixture?.dispose();
});

for (const metric of ['cosine', 'ip', 'l2'] as const) {
  testVectorStore({
    name: `ChromaVectorStore on a local Chroma server (${metric})`,
    create: () => new ChromaVectorStore({ url: fixture.server.url, collection: uniqueCollection(metric), metric }),
    // A new client and store on the same collection, as another process would open it.
    reopen: (store) => ChromaVectorStore.open({ url: fixture.server.url, collection: (store as ChromaVectorStore).collectionName }),
    additionalTests: (getStore) => {
      it('declares persistence and native filters, no text search', () => {
        expect(getStore().capabilities).toEqual({ persistence: true, nativeFilter: true, textSearch: false, embeds: false });
      });
    },
  });
}

testVectorStore({
  name: 'ChromaVectorStore (fixed dimensions, small batches, no embeddings returned)',
  create: () => new ChromaVectorStore({ url: fixture.server.url, collection: uniqueCollection('fixed'), dimensions: 8, batchSize: 3, includeEmbeddings: false }),
  reopen: (store) => ChromaVectorStore.open({ url: fixture.server.url, collection: (store as ChromaVectorStore).collectionName, includeEmbeddings: false }),
  additionalTests: (getStore) => {
    it('keeps its configured dimension before anything is added', () => {
      expect(getStore().dimensions).toBe(8);
    });
  },
});
