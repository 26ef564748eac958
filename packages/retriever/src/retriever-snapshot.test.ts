import { MemoryVectorStore } from '@zerda/vector-memory';
import { createError, InMemorySnapshot, type DocumentChunk, type Embedding, type SnapshotCheck, type VectorSearchOptions, type VectorStore } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { HashingEmbedder } from './__fixtures__/hashing-embedder.js';
import { HybridRetriever } from './hybrid-retriever.js';
import { KeywordRetriever } from './keyword-retriever.js';
import { VectorRetriever } from './vector-retriever.js';

const fail = (file: string, check: SnapshotCheck, reason: string) => createError('ZERDA_CORRUPT_SNAPSHOT', { file, check, reason });

const corpus: DocumentChunk[] = [
  ['cats', 'Cats purr and sleep in the sun.', 'en'],
  ['dogs', 'Dogs bark at the mail carrier.', 'en'],
  ['library', 'المكتبة تضم آلاف الكتب العربية القديمة', 'ar'],
  ['rag', 'التوليد المعزز بالاسترجاع يمنح النموذج الوثائق', 'ar'],
  ['mixed', 'Python و البرمجة للمبتدئين', 'mixed'],
].map(([docId, text, lang]) => ({ id: `${docId}#0`, docId: docId!, text: text!, source: docId!, metadata: { lang: lang! }, position: { index: 0 } }));
const queries = ['sleeping cats', 'المكتبة والكتب', 'Python البرمجة', 'mail', 'النموذج'];

function hybrid(vector: VectorRetriever): HybridRetriever {
  return new HybridRetriever({ retrievers: [vector, new KeywordRetriever()] });
}

/** A database-like store: keeps its data itself (no snapshot capability), known by a location. */
class ExternalStore implements VectorStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'fake-db';
  readonly metric = 'cosine' as const;
  readonly capabilities = { persistence: true, nativeFilter: true, textSearch: false, embeds: false };
  private readonly inner = new MemoryVectorStore();
  constructor(readonly location: string) {}
  get dimensions() {
    return this.inner.dimensions;
  }
  add(chunks: DocumentChunk[]) {
    return this.inner.add(chunks);
  }
  search(vector: Embedding, options: VectorSearchOptions) {
    return this.inner.search(vector, options);
  }
  delete(ids: string[]) {
    return this.inner.delete(ids);
  }
  deleteByDocIds(docIds: string[]) {
    return this.inner.deleteByDocIds(docIds);
  }
  clear() {
    return this.inner.clear();
  }
  count() {
    return this.inner.count();
  }
}

describe('retriever snapshots', () => {
  it('a hybrid of keyword and in-memory vectors restores to the same results', async () => {
    const saved = hybrid(new VectorRetriever({ embedder: new HashingEmbedder(32) }));
    await saved.index(corpus);
    await saved.remove(['dogs']);
    const snapshot = new InMemorySnapshot();
    await saved.writeSnapshot(snapshot.writer('retriever'));
    expect([...snapshot.files.keys()]).toEqual(expect.arrayContaining(['retriever/hybrid.json', 'retriever/retrievers/0/vector.json', 'retriever/retrievers/0/store/vectors.f32', 'retriever/retrievers/1/keyword.json']));
    const opened = hybrid(new VectorRetriever({ embedder: new HashingEmbedder(32) }));
    await opened.readSnapshot(snapshot.reader(fail, 'retriever'));
    expect(await opened.size()).toBe(4);
    for (const query of queries) {
      expect(await opened.retrieve(query, { topK: 5 })).toEqual(await saved.retrieve(query, { topK: 5 }));
      expect(await opened.retrieve(query, { topK: 5, filter: { lang: 'ar' } })).toEqual(await saved.retrieve(query, { topK: 5, filter: { lang: 'ar' } }));
    }
    // The restored retriever keeps working incrementally.
    await opened.add([{ ...corpus[1]!, id: 'dogs#1' }]);
    expect(await opened.size()).toBe(5);
  });

  it('refuses another embedder, a missing one, or other retrievers', async () => {
    const saved = hybrid(new VectorRetriever({ embedder: new HashingEmbedder(32) }));
    await saved.index(corpus);
    const snapshot = new InMemorySnapshot();
    await saved.writeSnapshot(snapshot.writer());
    const other = new HashingEmbedder(16);
    await expect(hybrid(new VectorRetriever({ embedder: other })).readSnapshot(snapshot.reader(fail))).rejects.toThrow(
      /embedder must be the model the snapshot's vectors were made with, hashing-test \(32 dimensions\), got hashing-test \(16 dimensions\)/,
    );
    const renamed = Object.assign(new HashingEmbedder(32), { modelId: 'another-model' });
    await expect(hybrid(new VectorRetriever({ embedder: renamed })).readSnapshot(snapshot.reader(fail))).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', details: { field: 'embedder' } });
    await expect(hybrid(new VectorRetriever({ store: new MemoryVectorStore() })).readSnapshot(snapshot.reader(fail))).rejects.toThrow(/embedder must be an embedder for hashing-test/);
    await expect(new HybridRetriever({ retrievers: [new KeywordRetriever(), new VectorRetriever({ embedder: new HashingEmbedder(32) })] }).readSnapshot(snapshot.reader(fail))).rejects.toThrow(
      /the snapshot's retrievers \["vector","keyword"\], in that order/,
    );
  });

  it('records a database store by identity and accepts only that store back', async () => {
    const store = new ExternalStore('db.public.chunks');
    const saved = hybrid(new VectorRetriever({ store, embedder: new HashingEmbedder(32) }));
    await saved.index(corpus);
    const snapshot = new InMemorySnapshot();
    await saved.writeSnapshot(snapshot.writer());
    expect([...snapshot.files.keys()].some((name) => name.startsWith('retrievers/0/store/'))).toBe(false);
    const opened = hybrid(new VectorRetriever({ store, embedder: new HashingEmbedder(32) }));
    await opened.readSnapshot(snapshot.reader(fail));
    for (const query of queries) expect(await opened.retrieve(query, { topK: 3 })).toEqual(await saved.retrieve(query, { topK: 3 }));
    await expect(hybrid(new VectorRetriever({ store: new ExternalStore('db.public.other'), embedder: new HashingEmbedder(32) })).readSnapshot(snapshot.reader(fail))).rejects.toThrow(
      /store must be the store the snapshot was saved with: fake-db db\.public\.chunks \(cosine, 32 dimensions, 5 chunks\), got fake-db db\.public\.other \(cosine, unknown dimensions, 0 chunks\)/,
    );
    // The database changed since the snapshot: its keyword index would no longer match.
    await store.delete(['cats#0']);
    await expect(hybrid(new VectorRetriever({ store, embedder: new HashingEmbedder(32) })).readSnapshot(snapshot.reader(fail))).rejects.toThrow(/5 chunks\), got .* 4 chunks\)/);
    await expect(hybrid(new VectorRetriever({ embedder: new HashingEmbedder(32) })).readSnapshot(snapshot.reader(fail))).rejects.toMatchObject({ details: { field: 'store' } });
  });

  it('a snapshot taken while writes are issued holds one corpus in every sub-retriever', async () => {
    const retriever = hybrid(new VectorRetriever({ embedder: new HashingEmbedder(32) }));
    await retriever.index(corpus);
    const batches = Array.from({ length: 6 }, (_, batch) => Array.from({ length: 50 }, (_, index) => ({ ...corpus[index % corpus.length]!, id: `b${batch}-${index}`, docId: `b${batch}` })));
    const snapshots = Array.from({ length: 3 }, () => new InMemorySnapshot());
    await Promise.all([
      ...batches.map((batch, index) => (index % 2 === 0 ? retriever.add(batch) : retriever.remove([`b${index - 1}`]))),
      ...snapshots.map((snapshot) => retriever.writeSnapshot(snapshot.writer())),
    ]);
    for (const snapshot of snapshots) {
      const opened = hybrid(new VectorRetriever({ embedder: new HashingEmbedder(32) }));
      await opened.readSnapshot(snapshot.reader(fail));
      const [vector, keyword] = opened.retrievers as [VectorRetriever, KeywordRetriever];
      const keywordIds = keyword.chunks().map((chunk) => chunk.id).sort();
      const vectorIds = (await (vector.store as MemoryVectorStore).get(keywordIds)).map((chunk) => chunk.id).sort();
      expect(vectorIds).toEqual(keywordIds);
      expect(await vector.size()).toBe(keywordIds.length);
    }
  });
});
