// The shared conformance suite against YOUR Pinecone index. Skipped unless both are set:
//   PINECONE_API_KEY (or ZERDA_PINECONE_API_KEY)  an API key
//   ZERDA_PINECONE_INDEX                          an existing dense index (any metric and dimension)
// Every test writes to a fresh namespace `zerda-conformance-<time>-<n>` and clears it afterwards.
// Pinecone is eventually consistent: the store waits for its writes to be fetchable, but
// `describeIndexStats` counts (and occasionally queries) can lag a little behind; rerun a test
// that fails on a count right after a write before suspecting the store.
import { testVectorStore } from '@zerda/vector-conformance';
import { createPineconeStore } from './create-store.js';
import type { PineconeVectorStore } from './pinecone-vector-store.js';

const apiKey = process.env.PINECONE_API_KEY ?? process.env.ZERDA_PINECONE_API_KEY;
const indexName = process.env.ZERDA_PINECONE_INDEX;
const run = `zerda-conformance-${Date.now()}`;
let counter = 0;

const probe = apiKey && indexName ? await createPineconeStore({ apiKey, indexName }) : undefined;

testVectorStore({
  name: `PineconeVectorStore against a live index${indexName ? ` (${indexName})` : ''}`,
  skip: probe ? false : 'set PINECONE_API_KEY and ZERDA_PINECONE_INDEX to run against your own Pinecone index',
  dimensions: probe?.dimensions ?? 8,
  create: () => createPineconeStore({ apiKey: apiKey!, indexName: indexName!, namespace: `${run}-${++counter}`, waitForWrites: { timeoutMs: 60_000, intervalMs: 500 } }),
  reopen: (store) => createPineconeStore({ apiKey: apiKey!, indexName: indexName!, namespace: (store as PineconeVectorStore).namespace, waitForWrites: true }),
});
