import { Embeddings } from '@langchain/core/embeddings';
import { MemoryVectorStore as LangChainMemoryVectorStore } from '@langchain/classic/vectorstores/memory';
import { MemoryVectorStore } from '@zerda/vector-memory';
import { ZerdaError, type DocumentChunk, type Embedding, type VectorSearchOptions, type VectorStore } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { HashingEmbedder, embedText } from './__fixtures__/hashing-embedder.js';
import { detectLangChainScoreType, langChainDocumentToChunk, chunkToLangChainDocument, type LangChainDocument } from './langchain-adapter.js';
import { VectorRetriever } from './vector-retriever.js';

const corpus = [
  { id: 'cat', docId: 'pets', text: 'cats purr and sleep on warm windows', metadata: { lang: 'en', topic: 'pets' } },
  { id: 'dog', docId: 'pets', text: 'dogs bark and fetch sticks in the park', metadata: { lang: 'en', topic: 'pets' } },
  { id: 'rain', docId: 'weather', text: 'heavy rain and storms flood the valley', metadata: { lang: 'en', topic: 'weather' } },
  { id: 'maktaba', docId: 'ar', text: 'المكتبة تضم الكتب والمخطوطات', metadata: { lang: 'ar', topic: 'books' } },
  { id: 'jamia', docId: 'ar', text: 'الجامعة تدرس علوم الحاسوب', metadata: { lang: 'ar', topic: 'science' } },
] as unknown as DocumentChunk[];

async function rejection(promise: Promise<unknown>): Promise<ZerdaError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(ZerdaError.isInstance(error), `expected a ZerdaError, got ${String(error)}`).toBe(true);
  return error as ZerdaError;
}

/** A store that cannot filter natively (and refuses filters), recording the k of every search. */
class PlainStore implements VectorStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'plain';
  readonly metric = 'cosine' as const;
  readonly capabilities = { persistence: false, nativeFilter: false, textSearch: false, embeds: false };
  readonly requested: number[] = [];
  readonly inner = new MemoryVectorStore();
  get dimensions(): number | undefined {
    return this.inner.dimensions;
  }
  add(chunks: DocumentChunk[]): Promise<void> {
    return this.inner.add(chunks);
  }
  search(vector: Embedding, options: VectorSearchOptions) {
    if (options.filter) throw new Error('PlainStore cannot filter');
    this.requested.push(options.k);
    return this.inner.search(vector, options);
  }
  delete(ids: string[]): Promise<void> {
    return this.inner.delete(ids);
  }
  count(): Promise<number> {
    return this.inner.count();
  }
}

describe('VectorRetriever with an embedder (default MemoryVectorStore)', () => {
  it('embeds chunks in batches with progress, and queries with kind "query"', async () => {
    const embedder = new HashingEmbedder();
    const retriever = new VectorRetriever({ embedder });
    const progress: Array<{ embedded: number; total: number; batches: number }> = [];
    await retriever.index(corpus, { batchSize: 2, onProgress: (update) => progress.push(update) });
    expect(progress).toEqual([
      { embedded: 2, total: 5, batches: 1 },
      { embedded: 4, total: 5, batches: 2 },
      { embedded: 5, total: 5, batches: 3 },
    ]);
    expect(embedder.calls.map((call) => call.texts.length)).toEqual([2, 2, 1]);
    expect(embedder.calls.every((call) => call.kind === 'document')).toBe(true);
    expect(retriever.store).toBeInstanceOf(MemoryVectorStore);
    expect(await retriever.size()).toBe(5);

    const results = await retriever.retrieve('purring cats', { topK: 2 });
    expect(embedder.textsOf('query')).toEqual(['purring cats']);
    expect(results[0]!.chunk.id).toBe('cat');
    expect(results[0]!.retrievers).toEqual(['vector']);
    expect(results[0]!.scores.vector).toBe(results[0]!.score);
    const cosine = Array.from(embedText('purring cats')).reduce((sum, value, index) => sum + value * embedText(corpus[0]!.text)[index]!, 0);
    expect(results[0]!.score).toBeCloseTo(cosine, 5);
    expect(results[0]!.score).toBeGreaterThan(results[1]!.score);
  });

  it('does not re-embed chunks that carry an embedding', async () => {
    const embedder = new HashingEmbedder();
    const retriever = new VectorRetriever({ embedder });
    const given = { ...corpus[0]!, embedding: Array.from(embedText('completely different words')) };
    await retriever.index([given, corpus[1]!]);
    expect(embedder.textsOf('document')).toEqual([corpus[1]!.text]);
    expect((await retriever.retrieve('completely different words', { topK: 1 }))[0]!.chunk.id).toBe('cat');
  });

  it('accepts a plain embedding function', async () => {
    const kinds: number[] = [];
    const retriever = new VectorRetriever({ embedder: (texts: string[]) => (kinds.push(texts.length), texts.map((text) => embedText(text))) });
    await retriever.index(corpus);
    expect((await retriever.retrieve('الكتب في المكتبة', { topK: 1 }))[0]!.chunk.id).toBe('maktaba');
    expect(kinds).toEqual([5, 1]);
  });

  it('finds Arabic and mixed-language queries', async () => {
    const retriever = new VectorRetriever({ embedder: new HashingEmbedder() });
    await retriever.index(corpus);
    expect((await retriever.retrieve('الجَامِعَة والحاسوب', { topK: 1 }))[0]!.chunk.id).toBe('jamia');
    const mixed = (await retriever.retrieve('المكتبة dogs', { topK: 2 })).map((result) => result.chunk.id);
    expect(mixed.sort()).toEqual(['dog', 'maktaba']);
  });

  it('passes filters to the store and never returns a chunk that fails them', async () => {
    const retriever = new VectorRetriever({ embedder: new HashingEmbedder() });
    await retriever.index(corpus);
    const results = await retriever.retrieve('cats dogs rain books', { topK: 10, filter: { topic: { $in: ['pets', 'books'] }, docId: { $ne: 'ar' } } });
    expect(results.map((result) => result.chunk.id).sort()).toEqual(['cat', 'dog']);
  });

  it('returns [] for an empty or blank query without embedding it', async () => {
    const embedder = new HashingEmbedder();
    const retriever = new VectorRetriever({ embedder });
    await retriever.index(corpus);
    expect(await retriever.retrieve('')).toEqual([]);
    expect(await retriever.retrieve('  \n')).toEqual([]);
    expect(await retriever.retrieve('cats', { topK: 0 })).toEqual([]);
    expect(embedder.textsOf('query')).toEqual([]);
  });

  it('index() replaces the corpus; add() updates by id; remove() drops documents', async () => {
    const retriever = new VectorRetriever({ embedder: new HashingEmbedder() });
    await retriever.index(corpus);
    await retriever.index(corpus.slice(0, 2));
    expect(await retriever.size()).toBe(2);
    await retriever.add([{ ...corpus[0]!, text: 'storms and thunder', embedding: undefined }] as DocumentChunk[]);
    expect(await retriever.size()).toBe(2);
    expect((await retriever.retrieve('thunder storms', { topK: 1 }))[0]!.chunk.id).toBe('cat');
    await retriever.remove(['pets']);
    expect(await retriever.size()).toBe(0);
  });

  it('a failed index or add leaves the previous corpus intact', async () => {
    let poison = false;
    const retriever = new VectorRetriever({ embedder: (texts: string[]) => texts.map((text) => (poison && text.includes('bad') ? [Number.NaN, ...embedText(text).slice(1)] : embedText(text))) });
    await retriever.index(corpus);
    poison = true;
    const error = await rejection(retriever.index([corpus[0]!, { id: 'x', docId: 'x', text: 'bad text' }] as DocumentChunk[]));
    expect(error.code).toBe('ZERDA_INVALID_EMBEDDING');
    expect(error.message).toContain('chunks[1].embedding[0]');
    await rejection(retriever.add([{ id: 'y', docId: 'y', text: 'bad again' }] as DocumentChunk[]));
    expect(await retriever.size()).toBe(5);
    expect((await retriever.retrieve('cats', { topK: 1 }))[0]!.chunk.id).toBe('cat');
  });

  it('reports embedder failures and wrong outputs as ZerdaErrors', async () => {
    const throwing = new VectorRetriever({ embedder: () => Promise.reject(new Error('model offline')) });
    const failure = await rejection(throwing.index(corpus));
    expect(failure.code).toBe('ZERDA_BACKEND_ERROR');
    expect(failure.message).toContain('model offline');
    const short = new VectorRetriever({ embedder: (texts: string[]) => texts.slice(1).map((text) => embedText(text)) });
    expect((await rejection(short.index(corpus))).message).toMatch(/expected 5 embeddings, got 4/);
    const mixedDimensions = new VectorRetriever({ embedder: (texts: string[]) => texts.map((text, index) => embedText(text, index === 0 ? 8 : 16)) });
    const mismatch = await rejection(mixedDimensions.index(corpus));
    expect(mismatch.code).toBe('ZERDA_DIMENSION_MISMATCH');
    expect(mismatch.message).toContain('chunks[1].embedding');
  });
});

describe('VectorRetriever over a native VectorStore', () => {
  it('adds to the given store, or points at a populated one with addToStore: false', async () => {
    const store = new MemoryVectorStore();
    const embedder = new HashingEmbedder();
    const writer = new VectorRetriever({ store, embedder });
    await writer.index(corpus);
    expect(await store.count()).toBe(5);
    const reader = new VectorRetriever({ store, embedder, addToStore: false, name: 'dense' });
    await reader.index(corpus.slice(0, 1));
    await reader.add(corpus.slice(0, 1));
    expect(await store.count()).toBe(5);
    const [best] = await reader.retrieve('storm flood', { topK: 1 });
    expect(best!.chunk.id).toBe('rain');
    expect(best!.retrievers).toEqual(['dense']);
    await reader.remove(['weather']);
    expect(await store.count()).toBe(4);
  });

  it('over-fetches and post-filters for stores that cannot filter, growing k until enough pass', async () => {
    const store = new PlainStore();
    const many = Array.from({ length: 200 }, (_, index) => ({ id: `n${index}`, docId: `d${index}`, text: `note ${index % 7} about cats`, metadata: { rare: index % 50 === 0 } })) as unknown as DocumentChunk[];
    const retriever = new VectorRetriever({ store, embedder: new HashingEmbedder() });
    await retriever.index(many);
    const results = await retriever.retrieve('cats', { topK: 3, filter: { rare: true } });
    expect(results.map((result) => result.chunk.metadata.rare)).toEqual([true, true, true]);
    // 3 × 4 first, then × 4 per round until three rare chunks turned up.
    expect(store.requested[0]).toBe(12);
    expect(store.requested.length).toBeGreaterThan(1);
    store.requested.forEach((k, index) => index > 0 && expect(k).toBe(4 * store.requested[index - 1]!));
    store.requested.length = 0;
    const capped = new VectorRetriever({ store, embedder: new HashingEmbedder(), maxFetch: 50, addToStore: false });
    const cappedResults = await capped.retrieve('cats', { topK: 10, filter: { rare: true } });
    expect(cappedResults.length).toBeLessThan(10); // only 4 rare chunks exist, and the search stops at maxFetch
    expect(cappedResults.every((result) => result.chunk.metadata.rare === true)).toBe(true);
    expect(store.requested).toEqual([40, 50]);
  });

  it('tracks the ids it added when the store cannot delete by docId or clear', async () => {
    const store = new PlainStore();
    const retriever = new VectorRetriever({ store, embedder: new HashingEmbedder() });
    await retriever.index(corpus);
    await retriever.add([{ ...corpus[0]!, docId: 'moved' }]);
    await retriever.remove(['pets']);
    expect((await store.inner.get(['cat', 'dog'])).map((chunk) => chunk.id)).toEqual(['cat']);
    await retriever.index(corpus.slice(2));
    expect(await store.count()).toBe(3);
  });

  it('lets a store that embeds take chunks without embeddings, but needs an embedder for queries', async () => {
    const store = new MemoryVectorStore({ embedder: new HashingEmbedder() });
    const retriever = new VectorRetriever({ store });
    await retriever.index(corpus);
    expect(await store.count()).toBe(5);
    expect((await rejection(retriever.retrieve('cats'))).code).toBe('ZERDA_NOT_READY');
  });

  it('refuses chunks without embeddings when nothing can embed them', async () => {
    const retriever = new VectorRetriever({ store: new MemoryVectorStore() });
    const error = await rejection(retriever.index(corpus));
    expect(error.message).toContain('chunks[0].embedding');
  });
});

describe('VectorRetriever options', () => {
  it('rejects bad options naming the field', () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'options'],
      [{ embedder: 5 }, 'options.embedder'],
      [{ store: {} }, 'options.store'],
      [{ store: new MemoryVectorStore(), metric: 'cosine' }, 'options.metric'],
      [{ embedder: new HashingEmbedder(), metric: 'manhattan' }, 'options.metric'],
      [{ embedder: new HashingEmbedder(), batchSize: 0 }, 'options.batchSize'],
      [{ embedder: new HashingEmbedder(), overFetch: 1 }, 'options.overFetch'],
      [{ embedder: new HashingEmbedder(), addToStore: 'yes' }, 'options.addToStore'],
      [{ embedder: new HashingEmbedder(), topk: 3 }, 'options.topk'],
    ];
    for (const [options, field] of cases) {
      try {
        new VectorRetriever(options as never);
        throw new Error(`accepted ${JSON.stringify(options)}`);
      } catch (error) {
        expect(ZerdaError.isInstance(error), String(error)).toBe(true);
        expect((error as Error).message).toContain(field);
      }
    }
  });

  it('rejects bad call arguments naming the field', async () => {
    const retriever = new VectorRetriever({ embedder: new HashingEmbedder() });
    expect((await rejection(retriever.retrieve(undefined as never))).message).toContain('query');
    expect((await rejection(retriever.retrieve('x', { filter: { $and: [] } }))).message).toContain('options.filter.$and');
    expect((await rejection(retriever.index(corpus, { batchSize: -2 }))).message).toContain('options.batchSize');
    expect((await rejection(retriever.index(corpus, { onProgress: 'log' as never }))).message).toContain('options.onProgress');
    expect((await rejection(retriever.index([{ docId: 'x', text: 'x', embedding: 'vector' }] as never))).message).toContain('chunks[0].embedding');
  });
});

/** LangChain Embeddings over the same hashing embedding. */
class HashingLangChainEmbeddings extends Embeddings {
  queries: string[] = [];
  constructor() {
    super({});
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((text) => Array.from(embedText(text)));
  }
  async embedQuery(text: string): Promise<number[]> {
    this.queries.push(text);
    return Array.from(embedText(text));
  }
}

/** A FAISS-like LangChain store: squared L2 distances, ascending, no filters, no ids of its own. */
class FakeFaissStore {
  readonly rows: Array<{ vector: number[]; document: LangChainDocument }> = [];
  readonly requested: number[] = [];
  _vectorstoreType(): string {
    return 'faiss';
  }
  async addVectors(vectors: number[][], documents: LangChainDocument[]): Promise<void> {
    vectors.forEach((vector, index) => this.rows.push({ vector, document: documents[index]! }));
  }
  async similaritySearchVectorWithScore(query: number[], k: number): Promise<Array<[LangChainDocument, number]>> {
    this.requested.push(k);
    return this.rows
      .map(({ vector, document }) => [document, vector.reduce((sum, value, index) => sum + (value - query[index]!) ** 2, 0)] as [LangChainDocument, number])
      .sort((a, b) => a[1] - b[1])
      .slice(0, k);
  }
}

describe('VectorRetriever.fromLangChain', () => {
  it('works with LangChain MemoryVectorStore: addVectors, cosine scores, native predicate filter, exact chunk round-trip', async () => {
    const embeddings = new HashingLangChainEmbeddings();
    const store = new LangChainMemoryVectorStore(embeddings);
    const retriever = VectorRetriever.fromLangChain(store, { embedder: new HashingEmbedder() });
    await retriever.index(corpus);
    expect(store.memoryVectors).toHaveLength(5);
    expect(retriever.store.capabilities.nativeFilter).toBe(true);
    const results = await retriever.retrieve('cats and dogs in the park', { topK: 5 });
    expect(results[0]!.chunk.id).toBe('dog');
    const original = corpus.find((chunk) => chunk.id === 'dog')!;
    expect(results[0]!.chunk).toEqual({ ...original, source: 'pets', position: { index: 1 } });
    for (let index = 1; index < results.length; index++) expect(results[index - 1]!.score).toBeGreaterThanOrEqual(results[index]!.score);
    expect(results[0]!.score).toBeLessThanOrEqual(1);
    const filtered = await retriever.retrieve('cats and dogs', { topK: 5, filter: { lang: 'ar' } });
    expect(filtered.map((result) => result.chunk.id).sort()).toEqual(['jamia', 'maktaba']);
  });

  it('without an embedder, searches by text with the store embeddings', async () => {
    const embeddings = new HashingLangChainEmbeddings();
    const store = new LangChainMemoryVectorStore(embeddings);
    await store.addDocuments(corpus.map(chunkToLangChainDocument));
    const retriever = VectorRetriever.fromLangChain(store, { addToStore: false });
    const [best] = await retriever.retrieve('flooded valley rain', { topK: 1 });
    expect(best!.chunk.id).toBe('rain');
    expect(embeddings.queries).toEqual(['flooded valley rain']);
  });

  it('converts distances to similarities and over-fetches for stores that cannot filter', async () => {
    const store = new FakeFaissStore();
    const retriever = VectorRetriever.fromLangChain(store, { embedder: new HashingEmbedder() });
    await retriever.index(corpus);
    const results = await retriever.retrieve('warm cats purr', { topK: 2 });
    const query = embedText('warm cats purr');
    const squared = Array.from(embedText(corpus[0]!.text)).reduce((sum, value, index) => sum + (value - query[index]!) ** 2, 0);
    expect(results[0]!.chunk.id).toBe('cat');
    expect(results[0]!.score).toBeCloseTo(1 / (1 + Math.sqrt(squared)), 5);
    expect(results[0]!.score).toBeGreaterThan(results[1]!.score);
    store.requested.length = 0;
    const filtered = await retriever.retrieve('warm cats purr', { topK: 1, filter: { topic: 'science' } });
    expect(filtered.map((result) => result.chunk.id)).toEqual(['jamia']);
    expect(store.requested).toEqual([4, 16]); // the first 4 candidates held no science chunk; the second round exhausted the store
  });

  it('maps foreign LangChain documents by convention, with stable ids', () => {
    const chunk = langChainDocumentToChunk({ pageContent: 'text', metadata: { source: 'a.pdf', title: 'A', page: 3, when: new Date(0) } });
    expect(chunk.docId).toBe('a.pdf');
    expect(chunk.source).toBe('a.pdf');
    expect(chunk.title).toBe('A');
    expect(chunk.metadata).toEqual({ source: 'a.pdf', title: 'A', page: 3, when: '1970-01-01T00:00:00.000Z' });
    expect(chunk.id).toBe(langChainDocumentToChunk({ pageContent: 'text', metadata: {} }).id);
    expect(langChainDocumentToChunk({ pageContent: 'x', metadata: {}, id: 'own' }).id).toBe('own');
  });

  it('detects score conventions per store type and accepts overrides', () => {
    expect(detectLangChainScoreType({ _vectorstoreType: () => 'memory' }).scoreType).toBe('similarity');
    expect(detectLangChainScoreType({ _vectorstoreType: () => 'hnswlib', args: { space: 'ip' } } as never).scoreType).toBe('inner-product-distance');
    expect(detectLangChainScoreType({ _vectorstoreType: () => 'chroma', collectionMetadata: { 'hnsw:space': 'cosine' } } as never).scoreType).toBe('cosine-distance');
    expect(detectLangChainScoreType({ _vectorstoreType: () => 'pgvector', distanceStrategy: 'innerProduct' } as never).scoreType).toBe('negative-inner-product');
    expect(detectLangChainScoreType({}).reason).toMatch(/unknown store type/);
    const store = { similaritySearchVectorWithScore: async () => [[{ pageContent: 'p', metadata: {} }, 0.25]] as Array<[LangChainDocument, number]> };
    const custom = VectorRetriever.fromLangChain(store, { embedder: new HashingEmbedder(), scoreType: (raw) => 10 * raw });
    return custom.retrieve('p').then((results) => expect(results[0]!.score).toBe(2.5));
  });

  it('rejects things that are not LangChain stores and bad adapter options', () => {
    expect(() => VectorRetriever.fromLangChain({} as never)).toThrow(/vectorStore/);
    expect(() => VectorRetriever.fromLangChain(new FakeFaissStore(), { scoreType: 'distance' as never })).toThrow(/options\.scoreType/);
    expect(() => VectorRetriever.fromLangChain(new FakeFaissStore(), { filters: {} } as never)).toThrow(/options\.filters/);
  });

  it('names the backend when the LangChain store fails', async () => {
    const store = { _vectorstoreType: () => 'qdrant', similaritySearchVectorWithScore: () => Promise.reject(new Error('connection refused')) };
    const retriever = VectorRetriever.fromLangChain(store, { embedder: new HashingEmbedder() });
    const error = await rejection(retriever.retrieve('x'));
    expect(error.code).toBe('ZERDA_BACKEND_ERROR');
    expect(error.message).toContain('langchain:qdrant');
    expect(error.message).toContain('connection refused');
  });
});
