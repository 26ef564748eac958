import { HybridRetriever, KeywordRetriever, StoreTextRetriever, VectorRetriever } from '@zerda/retriever';
import type { DatasetDocument } from '@zerda/retriever/datasets';
import type { DocumentChunk, Embedder, VectorStore } from '@zerda/types';
import { SystemUnavailableError, type BuildInput, type SearchSystem } from './search-system.js';

/** One chunk per document: id and docId are the document id, the title goes to the title field. */
export function documentsToChunks(documents: readonly DatasetDocument[], vectors?: readonly Float32Array[]): DocumentChunk[] {
  return documents.map((document, index) => {
    const chunk: DocumentChunk = {
      id: document.id,
      docId: document.id,
      text: document.text,
      source: document.id,
      metadata: {},
      position: { index: 0, total: 1 },
    };
    if (document.title) chunk.title = document.title;
    const vector = vectors?.[index];
    if (vector) chunk.embedding = vector;
    return chunk;
  });
}

function requireEmbedder(embedder: Embedder | undefined, id: string): Embedder {
  if (!embedder) throw new SystemUnavailableError(`${id} needs an embedding model for this language (none available)`);
  return embedder;
}

function requireVectors(input: BuildInput, id: string): readonly Float32Array[] {
  if (!input.vectors) throw new SystemUnavailableError(`${id} needs document embeddings`);
  return input.vectors;
}

/** zerda's BM25 KeywordRetriever with its defaults (the settings string names them). */
export class ZerdaKeywordSystem implements SearchSystem {
  readonly id = 'zerda-keyword';
  readonly settings: string;
  private readonly retriever = new KeywordRetriever();

  constructor() {
    const { k1, b, titleWeight } = this.retriever.parameters;
    this.settings = `defaults: BM25 k1 ${k1}, b ${b}, titleWeight ${titleWeight}, the default Analyzer (per-script normalisation, stopwords, stemming)`;
  }

  async build(input: BuildInput): Promise<void> {
    await this.retriever.index(documentsToChunks(input.documents));
  }

  async search(query: string, k: number): Promise<string[]> {
    return (await this.retriever.retrieve(query, { topK: k })).map((hit) => hit.chunk.docId);
  }
}

/** zerda's VectorRetriever over its default exact MemoryVectorStore (cosine), documents pre-embedded. */
export class ZerdaVectorSystem implements SearchSystem {
  readonly id = 'zerda-vector';
  readonly settings: string;
  private readonly retriever: VectorRetriever;

  constructor(embedder: Embedder | undefined) {
    const model = requireEmbedder(embedder, this.id);
    this.settings = `${model.modelId}, exact MemoryVectorStore, cosine`;
    this.retriever = new VectorRetriever({ embedder: model });
  }

  async build(input: BuildInput): Promise<void> {
    await this.retriever.index(documentsToChunks(input.documents, requireVectors(input, this.id)));
  }

  async search(query: string, k: number): Promise<string[]> {
    return (await this.retriever.retrieve(query, { topK: k })).map((hit) => hit.chunk.docId);
  }
}

/** zerda's HybridRetriever (keyword + vector) with its defaults (the settings string names them). */
export class ZerdaHybridSystem implements SearchSystem {
  readonly id = 'zerda-hybrid';
  readonly settings: string;
  private readonly keyword = new KeywordRetriever();
  private readonly vector: VectorRetriever;
  private readonly hybrid: HybridRetriever;

  constructor(embedder: Embedder | undefined) {
    const model = requireEmbedder(embedder, this.id);
    this.vector = new VectorRetriever({ embedder: model });
    this.hybrid = new HybridRetriever({ retrievers: [this.vector, this.keyword] });
    const hybrid = this.hybrid;
    const fusion = hybrid.fusion === 'rrf' ? `RRF k ${hybrid.rrfK}` : 'weighted (min-max normalised scores × weight)';
    const weights = Object.entries(hybrid.weights).map(([name, weight]) => `${name} ${weight}`).join(', ');
    this.settings = `KeywordRetriever + VectorRetriever (${model.modelId}, exact) with the HybridRetriever defaults: ${fusion}, weights ${weights}, candidateMultiplier ${hybrid.candidateMultiplier}`;
  }

  async build(input: BuildInput): Promise<void> {
    const chunks = documentsToChunks(input.documents, requireVectors(input, this.id));
    await this.hybrid.index(chunks);
  }

  async search(query: string, k: number): Promise<string[]> {
    return (await this.hybrid.retrieve(query, { topK: k })).map((hit) => hit.chunk.docId);
  }
}

/**
 * Keyword retrieval inside a database: a StoreTextRetriever over a store's own full-text index
 * (what `ContextEngine.index(…, { keywordSearch: 'store' })` uses). The stores require a vector per
 * chunk; a one-dimension placeholder is stored, since only `textSearch` is measured.
 */
export class ZerdaStoreTextSystem implements SearchSystem {
  private retriever: StoreTextRetriever | undefined;

  constructor(
    readonly id: 'zerda-pgvector-text' | 'zerda-pgvector-server-text' | 'zerda-pgvector-tsrank-text' | 'zerda-lancedb-text',
    readonly settings: string,
    private readonly open: () => Promise<{ store: VectorStore; close: () => Promise<void> }>,
    /** Clients the store serves at once (a server's connection pool): the job also measures their throughput. */
    readonly concurrentClients?: number,
  ) {}

  private closeStore: (() => Promise<void>) | undefined;

  async build(input: BuildInput): Promise<void> {
    const { store, close } = await this.open();
    this.closeStore = close;
    const placeholder = new Float32Array([1]);
    const chunks = documentsToChunks(input.documents).map((chunk) => ({ ...chunk, embedding: placeholder }));
    for (let start = 0; start < chunks.length; start += 5000) await store.add(chunks.slice(start, start + 5000));
    // LanceDB folds new rows into its text index at the first text query; do it here, inside the build.
    const optimize = (store as { optimize?: () => Promise<void> }).optimize;
    if (typeof optimize === 'function') await optimize.call(store);
    this.retriever = new StoreTextRetriever({ store });
  }

  async search(query: string, k: number): Promise<string[]> {
    if (!this.retriever) throw new Error(`${this.id}: build() first`);
    return (await this.retriever.retrieve(query, { topK: k })).map((hit) => hit.chunk.docId);
  }

  async close(): Promise<void> {
    await this.closeStore?.();
  }
}
