import { fnv1a } from '@zerda/text';
import {
  createError,
  invalidArgument,
  matchesFilter,
  similarityFromDistance,
  toDocumentChunk,
  type DocumentChunk,
  type Embedding,
  type Metadata,
  type MetadataFilter,
  type VectorMetric,
  type VectorSearchHit,
  type VectorSearchOptions,
  type VectorStore,
  type VectorStoreCapabilities,
} from '@zerda/types';

/** The LangChain.js `Document` shape (`@langchain/core/documents`). */
export interface LangChainDocument {
  pageContent: string;
  metadata: Record<string, unknown>;
  id?: string;
}

/**
 * The parts of a LangChain.js `VectorStore` this adapter uses (structural: no LangChain import).
 * At least one of the two search methods is required.
 */
export interface LangChainVectorStoreLike {
  similaritySearchVectorWithScore?(query: number[], k: number, filter?: unknown): Promise<Array<[LangChainDocument, number]>>;
  similaritySearchWithScore?(query: string, k?: number, filter?: unknown): Promise<Array<[LangChainDocument, number]>>;
  addVectors?(vectors: number[][], documents: LangChainDocument[], options?: { ids?: string[] }): Promise<unknown>;
  addDocuments?(documents: LangChainDocument[], options?: { ids?: string[] }): Promise<unknown>;
  delete?(params?: { ids?: string[] } & Record<string, unknown>): Promise<unknown>;
  _vectorstoreType?(): string;
  embeddings?: unknown;
}

/**
 * What a LangChain store's score means, and how it becomes a zerda similarity:
 * - `similarity`: already higher-is-better (kept as is);
 * - `cosine-distance`: 1 − cos, converted to cos;
 * - `l2-distance` / `squared-l2-distance`: euclidean (or squared) distance d, converted to 1 / (1 + d);
 * - `inner-product-distance`: 1 − ⟨a, b⟩ (hnswlib's `ip` space), converted to ⟨a, b⟩;
 * - `negative-inner-product`: −⟨a, b⟩ (pgvector's `<#>`), converted to ⟨a, b⟩.
 */
export type LangChainScoreType = 'similarity' | 'cosine-distance' | 'l2-distance' | 'squared-l2-distance' | 'inner-product-distance' | 'negative-inner-product';

/** Options of {@link LangChainVectorStoreAdapter} (and `VectorRetriever.fromLangChain`). */
export interface LangChainAdapterOptions {
  /** How to read the store's scores; detected from `_vectorstoreType()` when omitted (see {@link detectLangChainScoreType}). A function converts a raw score itself. */
  scoreType?: LangChainScoreType | ((rawScore: number) => number);
  /**
   * Translates a zerda filter into the store's own filter argument. With it, filters are passed to
   * the store (results are still checked against the zerda filter); without it, the retriever
   * over-fetches and filters afterwards. LangChain's MemoryVectorStore needs none (a predicate is built).
   */
  translateFilter?: (filter: MetadataFilter) => unknown;
}

const SCORE_TYPES: readonly LangChainScoreType[] = ['similarity', 'cosine-distance', 'l2-distance', 'squared-l2-distance', 'inner-product-distance', 'negative-inner-product'];

/**
 * The score convention of well-known LangChain.js stores, by `_vectorstoreType()`, with the reason.
 * Assumptions (LangChain.js 0.3/1.x):
 * - `memory`: cosine similarity;
 * - `faiss`: squared L2 distance (IndexFlatL2);
 * - `hnswlib`: hnswlib's distance for the configured `args.space` (cosine → 1 − cos, ip → 1 − ip, l2 → squared L2);
 * - `chroma`: the collection's `hnsw:space` distance (default squared L2);
 * - `pgvector`: the `distanceStrategy` operator (cosine `<=>` by default, euclidean `<->`, innerProduct `<#>`);
 * - `lancedb`: squared L2 `_distance`;
 * - `pinecone`, `qdrant`, `supabase`, `weaviate`, `elasticsearch`, `mongodb_atlas`: similarity;
 * - anything else: assumed to be a similarity — pass `scoreType` when it is not.
 */
export function detectLangChainScoreType(store: LangChainVectorStoreLike): { scoreType: LangChainScoreType; reason: string } {
  const type = typeof store._vectorstoreType === 'function' ? String(store._vectorstoreType()) : 'unknown';
  const record = store as Record<string, unknown>;
  switch (type) {
    case 'memory':
      return { scoreType: 'similarity', reason: 'LangChain MemoryVectorStore returns cosine similarity' };
    case 'faiss':
      return { scoreType: 'squared-l2-distance', reason: 'FaissStore returns IndexFlatL2 squared distances' };
    case 'hnswlib': {
      const space = (record.args as Record<string, unknown> | undefined)?.space ?? 'cosine';
      if (space === 'l2') return { scoreType: 'squared-l2-distance', reason: 'hnswlib l2 space returns squared distances' };
      if (space === 'ip') return { scoreType: 'inner-product-distance', reason: 'hnswlib ip space returns 1 - inner product' };
      return { scoreType: 'cosine-distance', reason: 'hnswlib cosine space returns 1 - cosine' };
    }
    case 'chroma': {
      const space = (record.collectionMetadata as Record<string, unknown> | undefined)?.['hnsw:space'] ?? 'l2';
      if (space === 'cosine') return { scoreType: 'cosine-distance', reason: 'Chroma cosine space returns 1 - cosine' };
      if (space === 'ip') return { scoreType: 'inner-product-distance', reason: 'Chroma ip space returns 1 - inner product' };
      return { scoreType: 'squared-l2-distance', reason: 'Chroma l2 space (the default) returns squared distances' };
    }
    case 'pgvector': {
      const strategy = record.distanceStrategy ?? 'cosine';
      if (strategy === 'euclidean') return { scoreType: 'l2-distance', reason: 'PGVectorStore euclidean strategy uses <->' };
      if (strategy === 'innerProduct') return { scoreType: 'negative-inner-product', reason: 'PGVectorStore innerProduct strategy uses <#>' };
      return { scoreType: 'cosine-distance', reason: 'PGVectorStore cosine strategy uses <=>' };
    }
    case 'lancedb':
      return { scoreType: 'squared-l2-distance', reason: 'LanceDB returns the squared L2 _distance' };
    case 'pinecone':
    case 'qdrant':
    case 'supabase':
    case 'weaviate':
    case 'elasticsearch':
    case 'mongodb_atlas':
      return { scoreType: 'similarity', reason: `${type} returns a similarity` };
    default:
      return { scoreType: 'similarity', reason: `unknown store type "${type}": assumed to return a similarity` };
  }
}

/** Converts a raw LangChain score to a zerda similarity (higher is better). */
export function langChainScoreToSimilarity(scoreType: LangChainScoreType, raw: number): number {
  switch (scoreType) {
    case 'similarity':
      return raw;
    case 'cosine-distance':
    case 'inner-product-distance':
      // Both are 1 − similarity, which the cosine conversion undoes.
      return similarityFromDistance('cosine', raw);
    case 'l2-distance':
      return similarityFromDistance('l2', raw);
    case 'squared-l2-distance':
      return similarityFromDistance('l2', raw, { squared: true });
    case 'negative-inner-product':
      return similarityFromDistance('ip', raw);
  }
}

function jsonSafe(value: Record<string, unknown>): Metadata {
  // LangChain metadata may hold Dates, undefined or class instances; keep what JSON can carry.
  return JSON.parse(JSON.stringify(value, (_key, item: unknown) => (typeof item === 'number' && !Number.isFinite(item) ? null : item))) as Metadata;
}

/** FNV-1a (32-bit) of a text, as 8 hex digits: a stable id for documents that carry none. */
function contentHash(text: string): string {
  return fnv1a(text).toString(16).padStart(8, '0');
}

/** The key under which zerda records a chunk's own fields in LangChain metadata. */
export const ZERDA_METADATA_KEY = 'zerda';

/**
 * A zerda chunk as a LangChain Document: `pageContent` = text; metadata = the chunk's metadata
 * plus `zerda: { id, docId, source, title?, position, timestamp? }`, so the chunk reads back exactly.
 */
export function chunkToLangChainDocument(input: DocumentChunk): LangChainDocument {
  const chunk = toDocumentChunk(input, 0, 'chunk');
  const own: Record<string, unknown> = { id: chunk.id, docId: chunk.docId, source: chunk.source, position: { ...chunk.position } };
  if (chunk.title !== undefined) own.title = chunk.title;
  if (chunk.timestamp !== undefined) own.timestamp = chunk.timestamp;
  return { pageContent: chunk.text, metadata: { ...chunk.metadata, [ZERDA_METADATA_KEY]: own }, id: chunk.id };
}

/**
 * A LangChain Document as a zerda chunk. Documents written by zerda carry their fields under
 * `metadata.zerda`. Others are mapped by convention: id = `document.id` ?? `metadata.id` ??
 * `metadata.chunkId` ?? `langchain:<hash of the text>` (stable across queries, so fusion can
 * de-duplicate); docId = `metadata.docId` ??
 * `metadata.source` ?? id; source = `metadata.source` ?? docId; title = `metadata.title` when a
 * string; metadata = the document's metadata made JSON-safe.
 */
export function langChainDocumentToChunk(document: LangChainDocument, fallbackIndex = 0): DocumentChunk {
  if (typeof document !== 'object' || document === null || typeof document.pageContent !== 'string') {
    throw invalidArgument('document', 'a LangChain Document ({ pageContent: string, metadata })', document);
  }
  const metadata = jsonSafe(document.metadata ?? {});
  const own = metadata[ZERDA_METADATA_KEY];
  if (own && typeof own === 'object' && !Array.isArray(own) && typeof own.id === 'string' && typeof own.docId === 'string') {
    const rest = { ...metadata };
    delete rest[ZERDA_METADATA_KEY];
    return toDocumentChunk({ ...own, text: document.pageContent, metadata: rest }, fallbackIndex, 'document');
  }
  const asString = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);
  const id = asString(document.id) ?? asString(metadata.id) ?? asString(metadata.chunkId) ?? `langchain:${contentHash(document.pageContent)}`;
  const docId = asString(metadata.docId) ?? asString(metadata.source) ?? id;
  const input: Record<string, unknown> = { id, docId, text: document.pageContent, source: asString(metadata.source) ?? docId, metadata };
  const title = asString(metadata.title);
  if (title !== undefined) input.title = title;
  return toDocumentChunk(input, fallbackIndex, 'document');
}

/**
 * A LangChain.js vector store seen as a zerda `VectorStore` v1. Scores are converted to
 * similarities per {@link LangChainScoreType}; documents are mapped with
 * {@link langChainDocumentToChunk}. `count()` counts what was added through this adapter (LangChain
 * stores have no count) — or the store's own list for MemoryVectorStore.
 */
export class LangChainVectorStoreAdapter implements VectorStore {
  readonly specificationVersion = 'v1' as const;
  readonly name: string;
  readonly metric: VectorMetric;
  readonly dimensions: number | undefined = undefined;
  readonly capabilities: VectorStoreCapabilities;
  /** The score convention in use and why it was chosen. */
  readonly scoreType: LangChainScoreType | 'custom';
  readonly scoreTypeReason: string;
  private readonly convert: (raw: number) => number;
  private readonly translateFilter: ((filter: MetadataFilter) => unknown) | undefined;
  private readonly added = new Set<string>();

  constructor(readonly store: LangChainVectorStoreLike, options: LangChainAdapterOptions = {}) {
    if (typeof store !== 'object' || store === null || (typeof store.similaritySearchVectorWithScore !== 'function' && typeof store.similaritySearchWithScore !== 'function')) {
      throw invalidArgument('vectorStore', 'a LangChain.js vector store (with similaritySearchVectorWithScore or similaritySearchWithScore)', store);
    }
    if (typeof options !== 'object' || options === null) throw invalidArgument('options', 'an options object', options);
    const type = typeof store._vectorstoreType === 'function' ? String(store._vectorstoreType()) : 'unknown';
    this.name = `langchain:${type}`;
    const scoreType = options.scoreType;
    if (typeof scoreType === 'function') {
      this.scoreType = 'custom';
      this.scoreTypeReason = 'options.scoreType function';
      this.convert = scoreType;
    } else if (scoreType !== undefined) {
      if (!SCORE_TYPES.includes(scoreType)) throw invalidArgument('options.scoreType', `one of ${SCORE_TYPES.map((entry) => `"${entry}"`).join(', ')} or a function`, scoreType);
      this.scoreType = scoreType;
      this.scoreTypeReason = 'options.scoreType';
      this.convert = (raw) => langChainScoreToSimilarity(scoreType, raw);
    } else {
      const detected = detectLangChainScoreType(store);
      this.scoreType = detected.scoreType;
      this.scoreTypeReason = detected.reason;
      this.convert = (raw) => langChainScoreToSimilarity(detected.scoreType, raw);
    }
    this.metric = this.scoreType === 'l2-distance' || this.scoreType === 'squared-l2-distance' ? 'l2' : this.scoreType === 'inner-product-distance' || this.scoreType === 'negative-inner-product' ? 'ip' : 'cosine';
    if (options.translateFilter !== undefined && typeof options.translateFilter !== 'function') {
      throw invalidArgument('options.translateFilter', 'a function (filter) => store filter', options.translateFilter);
    }
    // LangChain's MemoryVectorStore filters with a predicate over Documents: the zerda evaluator is one.
    this.translateFilter =
      options.translateFilter ??
      (type === 'memory' ? (filter: MetadataFilter) => (document: LangChainDocument) => matchesFilter(langChainDocumentToChunk(document), filter) : undefined);
    this.capabilities = Object.freeze({
      persistence: false,
      nativeFilter: this.translateFilter !== undefined,
      textSearch: false,
      embeds: store.embeddings !== undefined && typeof store.addDocuments === 'function',
    });
  }

  /** True when the store can search with a vector (otherwise only with the query text). */
  get searchesByVector(): boolean {
    return typeof this.store.similaritySearchVectorWithScore === 'function';
  }

  /** True when the store can embed and search a query text itself. */
  get searchesByText(): boolean {
    return typeof this.store.similaritySearchWithScore === 'function';
  }

  /** Adds chunks: with their vectors (`addVectors`) when all have embeddings, else as documents the store embeds. */
  async add(chunks: DocumentChunk[]): Promise<void> {
    if (chunks.length === 0) return;
    const documents = chunks.map(chunkToLangChainDocument);
    const ids = chunks.map((chunk) => chunk.id);
    const allEmbedded = chunks.every((chunk) => chunk.embedding !== undefined);
    if (allEmbedded && typeof this.store.addVectors === 'function') {
      await this.call('addVectors', () => this.store.addVectors!(chunks.map((chunk) => Array.from(chunk.embedding!)), documents, { ids }));
    } else if (typeof this.store.addDocuments === 'function') {
      await this.call('addDocuments', () => this.store.addDocuments!(documents, { ids }));
    } else {
      throw createError('ZERDA_UNSUPPORTED', { operation: 'add', component: this.name, reason: 'the store has neither addVectors nor addDocuments' });
    }
    for (const id of ids) this.added.add(id);
  }

  async search(vector: Embedding, options: VectorSearchOptions): Promise<VectorSearchHit[]> {
    if (!this.searchesByVector) {
      throw createError('ZERDA_UNSUPPORTED', { operation: 'search by vector', component: this.name, reason: 'the store has no similaritySearchVectorWithScore' });
    }
    const filter = options.filter && this.translateFilter ? this.translateFilter(options.filter) : undefined;
    const results = await this.call('similaritySearchVectorWithScore', () => this.store.similaritySearchVectorWithScore!(Array.from(vector), options.k, filter));
    return this.toHits(results, options.filter);
  }

  /** Searches with the query text (the store embeds it with its own embeddings). */
  async searchQuery(query: string, options: VectorSearchOptions): Promise<VectorSearchHit[]> {
    if (!this.searchesByText) {
      throw createError('ZERDA_UNSUPPORTED', { operation: 'search by text', component: this.name, reason: 'the store has no similaritySearchWithScore' });
    }
    const filter = options.filter && this.translateFilter ? this.translateFilter(options.filter) : undefined;
    const results = await this.call('similaritySearchWithScore', () => this.store.similaritySearchWithScore!(query, options.k, filter));
    return this.toHits(results, options.filter);
  }

  async delete(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    if (typeof this.store.delete !== 'function') {
      throw createError('ZERDA_UNSUPPORTED', { operation: 'delete', component: this.name, reason: 'the store has no delete({ ids })' });
    }
    await this.call('delete', () => this.store.delete!({ ids }));
    for (const id of ids) this.added.delete(id);
  }

  async count(): Promise<number> {
    const memoryVectors = (this.store as { memoryVectors?: unknown }).memoryVectors;
    return Array.isArray(memoryVectors) ? memoryVectors.length : this.added.size;
  }

  private toHits(results: unknown, filter: MetadataFilter | undefined): VectorSearchHit[] {
    if (!Array.isArray(results)) {
      throw createError('ZERDA_BACKEND_ERROR', { component: this.name, operation: 'search', reason: `expected an array of [Document, score] pairs, got ${typeof results}` });
    }
    const hits: VectorSearchHit[] = [];
    results.forEach((pair: unknown, index) => {
      if (!Array.isArray(pair) || typeof pair[1] !== 'number') {
        throw createError('ZERDA_BACKEND_ERROR', { component: this.name, operation: 'search', reason: `result ${index} is not a [Document, score] pair` });
      }
      const chunk = langChainDocumentToChunk(pair[0] as LangChainDocument, index);
      if (filter && !matchesFilter(chunk, filter)) return;
      const score = this.convert(pair[1]);
      if (!Number.isFinite(score)) return;
      hits.push({ chunk, score });
    });
    // Conversions are monotonic, but a store's own order may be by distance or unsorted; sort by similarity.
    return hits.sort((a, b) => b.score - a.score);
  }

  private async call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw createError('ZERDA_BACKEND_ERROR', { component: this.name, operation, reason: error instanceof Error ? error.message : String(error) }, error);
    }
  }
}
