import { createError, invalidArgument, type Retriever, type RetrieveOptions, type ScoredChunk, type VectorStore } from '@zerda/types';
import { parseRetrieveOptions, RETRIEVAL_DEFAULTS } from './retrieve-options.js';
import { isVectorStore } from './vector-retriever.js';

/** Options of {@link StoreTextRetriever}. */
export interface StoreTextRetrieverOptions {
  /** A store whose `capabilities.textSearch` is true (LanceDB, pgvector …), filled by a `VectorRetriever` or by you. */
  store: VectorStore;
  /** Name recorded in `ScoredChunk.retrievers` and used for fusion weights. Default `'keyword'`. */
  name?: string;
  /** Default `topK` of `retrieve`. Default `retrieval.topK` (30). */
  topK?: number;
}

const OPTION_KEYS = ['store', 'name', 'topK'];

/**
 * Keyword retrieval answered by the vector store's own full-text index (`store.textSearch`)
 * instead of an in-process BM25 index: with a database backend, the whole corpus — vectors and
 * text — then lives in the database, and a `HybridRetriever` of this and a `VectorRetriever` over
 * the same store keeps nothing per chunk in the application's memory. Scores are the store's
 * (BM25 for LanceDB, `ts_rank` for pgvector), recorded as `scores.keyword`.
 *
 * It only reads: the chunks reach the store through whoever writes it (the `VectorRetriever`
 * sharing the store, or your own `store.add`), so it has no `index`/`add`/`remove`.
 */
export class StoreTextRetriever implements Retriever {
  readonly name: string;
  readonly store: VectorStore;
  private readonly topK: number;

  constructor(options: StoreTextRetrieverOptions) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('options', 'an options object { store, name?, topK? }', options);
    for (const key of Object.keys(options)) {
      if (!OPTION_KEYS.includes(key)) throw invalidArgument(`options.${key}`, `a known option (one of ${OPTION_KEYS.join(', ')})`, `unknown key "${key}"`);
    }
    if (!isVectorStore(options.store)) throw invalidArgument('options.store', 'a zerda VectorStore', options.store);
    const store = options.store;
    if (store.capabilities.textSearch !== true || typeof store.textSearch !== 'function') {
      throw createError('ZERDA_UNSUPPORTED', { operation: 'textSearch', component: `store ${store.name}`, reason: 'its capabilities.textSearch is not true (use the in-process KeywordRetriever instead)' });
    }
    if (options.name !== undefined && (typeof options.name !== 'string' || options.name.length === 0)) throw invalidArgument('options.name', 'a non-empty string', options.name);
    if (options.topK !== undefined && (typeof options.topK !== 'number' || !Number.isInteger(options.topK) || options.topK < 1)) throw invalidArgument('options.topK', 'a positive integer', options.topK);
    this.store = store;
    this.name = options.name ?? 'keyword';
    this.topK = options.topK ?? RETRIEVAL_DEFAULTS.topK;
  }

  /** The store's best `topK` text matches for `query` (with the filter applied by the store). */
  async retrieve(query: string, options?: RetrieveOptions): Promise<ScoredChunk[]> {
    const { topK, filter, signal } = parseRetrieveOptions(query, options, this.topK);
    if (topK === 0 || query.trim() === '') return [];
    const hits = await this.store.textSearch!(query, filter === undefined ? { k: topK } : { k: topK, filter });
    // parseRetrieveOptions already threw for a signal aborted before the call; this covers one aborted during it.
    signal?.throwIfAborted();
    return hits.map((hit): ScoredChunk => ({ chunk: hit.chunk, score: hit.score, scores: { keyword: hit.score }, retrievers: [this.name] }));
  }

  /** Number of chunks in the store. */
  async size(): Promise<number> {
    return this.store.count();
  }
}
