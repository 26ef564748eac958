import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextEngine } from '@zerda/context';
import type { Embedder, Embedding } from '@zerda/types';
import { LanceDbVectorStore } from './lancedb-vector-store.js';

// Engine snapshots with a real database store (issue 17): LanceDB keeps its own data, so the snapshot
// records it by identity (backend, metric, dimension, uri and table, size) and `open` needs it back.
let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'zerda-lancedb-snapshot-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

class WordEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly modelId = 'word-buckets';
  readonly dimensions = 16;
  async embed(texts: string[]): Promise<Embedding[]> {
    return texts.map((text) => {
      const vector = new Float32Array(this.dimensions);
      for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)) vector[[...word].reduce((hash, character) => (hash * 31 + character.charCodeAt(0)) >>> 0, 7) % this.dimensions]! += 1;
      vector[0]! += 0.01;
      return vector;
    });
  }
}

const chunks = [
  { docId: 'rag', text: 'Retrieval-augmented generation gives a model the documents it needs.', metadata: { lang: 'en' } },
  { docId: 'rag-ar', text: 'التوليد المعزز بالاسترجاع يمنح النموذج الوثائق التي يحتاجها', metadata: { lang: 'ar' } },
  { docId: 'bm25', text: 'BM25 ranks documents by term frequency and inverse document frequency.', metadata: { lang: 'en' } },
  { docId: 'library', text: 'المكتبة تضم آلاف الكتب العربية القديمة والحديثة', metadata: { lang: 'ar' } },
];

describe('ContextEngine snapshots over LanceDB', () => {
  for (const keywordSearch of ['memory', 'store'] as const) {
    it(`open needs the same table back and answers as before (keyword search: ${keywordSearch})`, { timeout: 120_000 }, async () => {
      const uri = join(directory, `db-${keywordSearch}`);
      const queries = ['What is retrieval-augmented generation?', 'ما هي المكتبة؟', 'BM25 term frequency'];
      const answers = async (engine: ContextEngine) => {
        const out = [];
        for (const query of queries) {
          const result = await engine.run(query);
          out.push({ context: result.context, ids: result.chunks.map((used) => used.chunk.id) });
        }
        return out;
      };
      const store = await LanceDbVectorStore.open({ uri, table: 'chunks' });
      const engine = new ContextEngine();
      await engine.index(chunks, { embedder: new WordEmbedder(), vectorDb: store, keywordSearch });
      const snapshot = join(directory, `snapshot-${keywordSearch}`);
      await engine.save(snapshot);
      const before = await answers(engine);
      // A restart: the process that saved is gone (and with it its connection to the table).
      await store.close();
      const opened = await ContextEngine.open(snapshot, { embedder: new WordEmbedder(), vectorDb: await LanceDbVectorStore.open({ uri, table: 'chunks' }) });
      expect(await answers(opened)).toEqual(before);
      const other = await LanceDbVectorStore.open({ uri, table: 'other' });
      await expect(ContextEngine.open(snapshot, { embedder: new WordEmbedder(), vectorDb: other })).rejects.toThrow(/options\.vectorDb must be the store the snapshot was saved with: lancedb .*table chunks/);
      await expect(ContextEngine.open(snapshot, { embedder: new WordEmbedder() })).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', details: { field: 'options.vectorDb' } });
    });
  }
});
