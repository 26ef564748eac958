import type { Embedder } from '@zerda/types';
import { queryEmbedderOf } from '../embedding.js';
import type { SearchSystem } from './search-system.js';

/** Every system of the retrieval benchmark, zerda's first. */
export const SYSTEM_IDS = [
  'zerda-keyword',
  'zerda-vector',
  'zerda-hybrid',
  'zerda-pgvector-text',
  'zerda-pgvector-server-text',
  'zerda-pgvector-tsrank-text',
  'zerda-lancedb-text',
  'minisearch',
  'orama-fulltext',
  'orama-hybrid',
  'wink-bm25',
  'langchain-bm25',
  'langchain-ensemble',
] as const;

export type SystemId = (typeof SYSTEM_IDS)[number];

/** How a system is shown in the tables. */
export interface SystemInfo {
  label: string;
  /** True for the systems zerda is compared against. */
  peer: boolean;
  kind: 'keyword' | 'vector' | 'hybrid';
  /** False for a system that builds no search index (it scores every document per query: LangChain's BM25 side, and its exact vector scan): its build time and memory are no reference. */
  indexes: boolean;
}

export const SYSTEM_INFO: Readonly<Record<SystemId, SystemInfo>> = {
  'zerda-keyword': { label: 'zerda KeywordRetriever', peer: false, kind: 'keyword', indexes: true },
  'zerda-vector': { label: 'zerda VectorRetriever', peer: false, kind: 'vector', indexes: true },
  'zerda-hybrid': { label: 'zerda HybridRetriever', peer: false, kind: 'hybrid', indexes: true },
  'zerda-pgvector-text': { label: 'zerda StoreTextRetriever on PostgreSQL BM25 (PGlite)', peer: false, kind: 'keyword', indexes: true },
  'zerda-pgvector-server-text': { label: 'zerda StoreTextRetriever on PostgreSQL BM25 (PostgreSQL server)', peer: false, kind: 'keyword', indexes: true },
  'zerda-pgvector-tsrank-text': { label: 'zerda StoreTextRetriever on PostgreSQL ts_rank_cd (PGlite)', peer: false, kind: 'keyword', indexes: true },
  'zerda-lancedb-text': { label: 'zerda StoreTextRetriever on LanceDB BM25', peer: false, kind: 'keyword', indexes: true },
  minisearch: { label: 'MiniSearch 7.2.0', peer: true, kind: 'keyword', indexes: true },
  'orama-fulltext': { label: 'Orama 3.1.18 full-text', peer: true, kind: 'keyword', indexes: true },
  'orama-hybrid': { label: 'Orama 3.1.18 hybrid', peer: true, kind: 'hybrid', indexes: true },
  'wink-bm25': { label: 'wink-bm25-text-search 3.1.2', peer: true, kind: 'keyword', indexes: true },
  'langchain-bm25': { label: 'LangChain.js BM25Retriever', peer: true, kind: 'keyword', indexes: false },
  'langchain-ensemble': { label: 'LangChain.js EnsembleRetriever', peer: true, kind: 'hybrid', indexes: false },
};

/** Systems that need document embeddings (vector and hybrid). */
export const VECTOR_SYSTEMS: ReadonlySet<SystemId> = new Set(SYSTEM_IDS.filter((id) => SYSTEM_INFO[id].kind !== 'keyword'));

/** Makes a system once its library is loaded. */
export type SystemFactory = (context: { language: string; embedder: Embedder | undefined }) => SearchSystem;

/**
 * Loads one system's library and returns its factory. Each library is imported only here, on
 * demand, so a child process that measures one system loads no other system's code; loading is
 * kept apart from construction so that build times and index memory exclude module loading.
 */
export async function loadSystem(id: SystemId): Promise<SystemFactory> {
  switch (id) {
    case 'zerda-keyword': {
      const { ZerdaKeywordSystem } = await import('./zerda-systems.js');
      return () => new ZerdaKeywordSystem();
    }
    case 'zerda-vector': {
      const { ZerdaVectorSystem } = await import('./zerda-systems.js');
      return (context) => new ZerdaVectorSystem(context.embedder);
    }
    case 'zerda-hybrid': {
      const { ZerdaHybridSystem } = await import('./zerda-systems.js');
      return (context) => new ZerdaHybridSystem(context.embedder);
    }
    case 'zerda-pgvector-text': {
      const [{ ZerdaStoreTextSystem }, { createPGliteStore }] = await Promise.all([import('./zerda-systems.js'), import('@zerda/vector-pgvector')]);
      return () =>
        new ZerdaStoreTextSystem(
          'zerda-pgvector-text',
          'PgVectorStore on PGlite 0.5.14 (PostgreSQL in WASM): textSearch with BM25 inside PostgreSQL (text analysed by @zerda/text as KeywordRetriever does; postings and collection statistics tables kept by triggers; k1 1.2, b 0.75, titleWeight 1 — the defaults), read by StoreTextRetriever',
          async () => {
            const store = await createPGliteStore({ dimensions: 1, includeEmbeddings: false, hnsw: false });
            return { store, close: () => store.close() };
          },
        );
    }
    case 'zerda-pgvector-tsrank-text': {
      const [{ ZerdaStoreTextSystem }, { createPGliteStore }] = await Promise.all([import('./zerda-systems.js'), import('@zerda/vector-pgvector')]);
      return () =>
        new ZerdaStoreTextSystem(
          'zerda-pgvector-tsrank-text',
          "PgVectorStore on PGlite 0.5.14 with textRanking: 'ts_rank_cd' (the previous default): PostgreSQL full-text search (tsvector per chunk in its language's configuration — 'arabic', 'english' or 'simple' — GIN index, ts_rank_cd, no IDF), read by StoreTextRetriever",
          async () => {
            const store = await createPGliteStore({ dimensions: 1, includeEmbeddings: false, hnsw: false, textRanking: 'ts_rank_cd' });
            return { store, close: () => store.close() };
          },
        );
    }
    case 'zerda-pgvector-server-text': {
      const [{ ZerdaStoreTextSystem }, { acquirePostgres, openServerStore }] = await Promise.all([import('./zerda-systems.js'), import('../postgres-server.js')]);
      // The server starts outside the measured build (here, while loading the system).
      const server = await acquirePostgres();
      const clients = 8;
      return () =>
        new ZerdaStoreTextSystem(
          'zerda-pgvector-server-text',
          `PgVectorStore on a native PostgreSQL server over node-postgres (${server.description}, 127.0.0.1, pool of ${clients}): textSearch with BM25 inside PostgreSQL (as the PGlite row), read by StoreTextRetriever`,
          () => openServerStore(server, clients, { collection: `bench_text_${process.pid}`, dimensions: 1, includeEmbeddings: false, hnsw: false }),
          clients,
        );
    }
    case 'zerda-lancedb-text': {
      const [{ ZerdaStoreTextSystem }, { LanceDbVectorStore }, { mkdtemp, rm }, { tmpdir }, { join }] = await Promise.all([
        import('./zerda-systems.js'),
        import('@zerda/vector-lancedb'),
        import('node:fs/promises'),
        import('node:os'),
        import('node:path'),
      ]);
      return () =>
        new ZerdaStoreTextSystem(
          'zerda-lancedb-text',
          'LanceDbVectorStore (@lancedb/lancedb 0.31.0, local directory): textSearch through its BM25 inverted index over text analysed by @zerda/text (Arabic normalised and stemmed, English Porter2), read by StoreTextRetriever',
          async () => {
            const directory = await mkdtemp(join(tmpdir(), 'zerda-bench-lancedb-text-'));
            const store = new LanceDbVectorStore({ uri: directory, table: 'bench', dimensions: 1, includeEmbeddings: false });
            return { store, close: async () => {
              await store.close();
              await rm(directory, { recursive: true, force: true });
            } };
          },
        );
    }
    case 'minisearch': {
      const { MiniSearchSystem } = await import('./minisearch-system.js');
      return () => new MiniSearchSystem();
    }
    case 'orama-fulltext': {
      const { OramaFullTextSystem } = await import('./orama-systems.js');
      return (context) => new OramaFullTextSystem(context.language);
    }
    case 'orama-hybrid': {
      const { OramaHybridSystem } = await import('./orama-systems.js');
      return (context) => new OramaHybridSystem(context.language, queryEmbedderOf(context.embedder), context.embedder?.modelId ?? 'none');
    }
    case 'wink-bm25': {
      const { WinkBm25System } = await import('./wink-system.js');
      return () => new WinkBm25System();
    }
    case 'langchain-bm25': {
      const { LangChainBm25System } = await import('./langchain-systems.js');
      return () => new LangChainBm25System();
    }
    case 'langchain-ensemble': {
      const { LangChainEnsembleSystem } = await import('./langchain-systems.js');
      return (context) => new LangChainEnsembleSystem(queryEmbedderOf(context.embedder), context.embedder?.modelId ?? 'none');
    }
  }
}

/** Loads and creates one system. */
export async function createSystem(id: SystemId, context: { language: string; embedder: Embedder | undefined }): Promise<SearchSystem> {
  return (await loadSystem(id))(context);
}
