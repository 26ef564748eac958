import { ContextEngine, MemoryVectorStore, type ContextResult, type MetadataFilter, type VectorStore } from '@zerda/context';
import { documents } from '@zerda/example-quickstart';
import { HnswVectorStore } from '@zerda/vector-hnswlib';
import { createPGliteStore } from '@zerda/vector-pgvector';
import { LanceDbVectorStore } from '@zerda/vector-lancedb';
import { FaissVectorStore, faissAvailability } from '@zerda/vector-faiss';
import { TrigramHashingEmbedder } from './trigram-embedder.js';

export { TrigramHashingEmbedder } from './trigram-embedder.js';

const embedder = new TrigramHashingEmbedder(256);

/**
 * The backends that run on this machine. Switching between them is one import and one constructor;
 * the engine code (`runOn`) is the same for all of them. FAISS joins when its native addon loads
 * (it builds against Debian's libfaiss-dev; see @zerda/vector-faiss).
 */
export const backends: ReadonlyArray<{ name: string; open: () => Promise<VectorStore> }> = [
  { name: 'memory', open: async () => new MemoryVectorStore({ dimensions: embedder.dimensions }) }, // exact, in process (@zerda/context's default)
  { name: 'hnsw', open: async () => new HnswVectorStore({ dimensions: embedder.dimensions }) }, // approximate graph, native (@zerda/vector-hnswlib)
  { name: 'pgvector', open: () => createPGliteStore({ dimensions: embedder.dimensions }) }, // PostgreSQL + pgvector, embedded PGlite (@zerda/vector-pgvector)
  { name: 'lancedb', open: async () => new LanceDbVectorStore({ uri: 'memory://', dimensions: embedder.dimensions }) }, // LanceDB, embedded (@zerda/vector-lancedb)
  ...(faissAvailability().available
    ? [{ name: 'faiss', open: async () => new FaissVectorStore({ dimensions: embedder.dimensions }) }] // FAISS flat (@zerda/vector-faiss)
    : []),
];

/** The questions every backend answers: English, Arabic, one full of typos, and one with a metadata filter. */
export const queries: ReadonlyArray<{ query: string; metadataFilters?: MetadataFilter }> = [
  { query: 'How do approximate nearest neighbour indexes like HNSW work?' },
  { query: 'كيف تُعالَج النصوص العربية قبل الفهرسة؟' },
  { query: 'tokenizaton, normalizaton and steming' },
  { query: 'vector databases and PostgreSQL', metadataFilters: { lang: 'ar' } },
];

export interface QueryOutcome {
  query: string;
  result: ContextResult;
  /** The store's own top 3 for the query's vector: chunk id and similarity. */
  vectorHits: Array<{ id: string; score: number }>;
}

export interface BackendRun {
  backend: string;
  storeName: string;
  outcomes: QueryOutcome[];
}

const rule = (character = '─') => character.repeat(100);

/**
 * The engine code: identical for every backend. `keywordSearch: 'store'` moves keyword retrieval
 * into the store's own full-text index (pgvector, LanceDB), so vectors and text both live there.
 */
async function runOn(store: VectorStore, keywordSearch: 'memory' | 'store' = 'memory'): Promise<QueryOutcome[]> {
  const engine = new ContextEngine({ config: { composer: { maxContextLength: 800 } } });
  await engine.index(documents, { embedder, vectorDb: store, keywordSearch });
  const outcomes: QueryOutcome[] = [];
  for (const { query, metadataFilters } of queries) {
    const result = await engine.run(query, { metadataFilters, useHistory: false });
    const [vector] = await embedder.embed([query]);
    const hits = await store.search(vector!, { k: 3, ...(metadataFilters ? { filter: metadataFilters } : {}) });
    outcomes.push({ query, result, vectorHits: hits.map((hit) => ({ id: hit.chunk.id, score: hit.score })) });
  }
  return outcomes;
}

/**
 * Runs the same engine code on the in-memory store, the HNSW store and PostgreSQL with pgvector
 * (embedded PGlite), with a deterministic offline embedder (character 3-gram hashing), and prints
 * the chunks each backend puts in the context and its own vector top 3 — they agree.
 */
export async function runSwapBackendExample(print: (line: string) => void = console.log): Promise<BackendRun[]> {
  const runs: BackendRun[] = [];
  for (const backend of backends) {
    const store = await backend.open();
    try {
      runs.push({ backend: backend.name, storeName: store.name, outcomes: await runOn(store) });
    } finally {
      await store.close?.();
    }
  }

  print(`embedder: ${embedder.modelId} (lexical character 3-grams, not semantic), hybrid retrieval = vectors + BM25 (weighted fusion, the default)`);
  queries.forEach(({ query, metadataFilters }, i) => {
    print(`\n${rule('═')}\n${query}${metadataFilters ? `   filter: ${JSON.stringify(metadataFilters)}` : ''}\n${rule()}`);
    print('| backend | store | chunks in the context (retrievers) | vector top 3 (similarity) |');
    print('|---|---|---|---|');
    for (const run of runs) {
      const outcome = run.outcomes[i]!;
      const chunks = outcome.result.chunks.map((chunk) => `${chunk.chunk.id} (${(chunk.retrievers ?? []).join('+')})`).join(', ');
      const hits = outcome.vectorHits.map((hit) => `${hit.id} ${hit.score.toFixed(4)}`).join(', ');
      print(`| ${run.backend} | ${run.storeName} | ${chunks || '–'} | ${hits} |`);
    }
    const signatures = new Set(runs.map((run) => run.outcomes[i]!.result.chunks.map((chunk) => chunk.chunk.id).join()));
    print(signatures.size === 1 ? 'all backends agree' : 'the backends DISAGREE');
  });
  return runs;
}

/** The backends whose store has its own full-text index (`capabilities.textSearch`). */
export const textSearchBackends = backends.filter((backend) => backend.name === 'pgvector' || backend.name === 'lancedb');

/**
 * The same engine code with `keywordSearch: 'store'`: BM25 keyword retrieval runs inside
 * PostgreSQL (its BM25 keyword index over text analysed by @zerda/text) or LanceDB (its inverted index),
 * fused with the vectors as before — nothing per chunk stays in this process.
 */
export async function runInDatabaseHybrid(print: (line: string) => void = console.log): Promise<BackendRun[]> {
  const runs: BackendRun[] = [];
  for (const backend of textSearchBackends) {
    const store = await backend.open();
    try {
      runs.push({ backend: backend.name, storeName: store.name, outcomes: await runOn(store, 'store') });
    } finally {
      await store.close?.();
    }
  }
  print(`\n${rule('═')}\nkeyword search inside the database: engine.index(chunks, { embedder, vectorDb, keywordSearch: 'store' })\n${rule()}`);
  print('| backend | query | chunks in the context (retrievers) |');
  print('|---|---|---|');
  for (const run of runs) {
    for (const outcome of run.outcomes) {
      const chunks = outcome.result.chunks.map((chunk) => `${chunk.chunk.id} (${(chunk.retrievers ?? []).join('+')})`).join(', ');
      print(`| ${run.backend} | ${outcome.query} | ${chunks || '–'} |`);
    }
  }
  return runs;
}
