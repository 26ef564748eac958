import { defaultAnalyzer } from '@zerda/text';
import { ZerdaError, matchesFilter, toDocumentChunk, type DocumentChunk, type VectorSearchHit, type VectorSearchOptions } from '@zerda/types';
import { MemoryVectorStore } from '@zerda/vector-memory';
import { describe, expect, it } from 'vitest';
import { HashingEmbedder } from './__fixtures__/hashing-embedder.js';
import { HybridRetriever } from './hybrid-retriever.js';
import { StoreTextRetriever } from './store-text-retriever.js';
import { VectorRetriever } from './vector-retriever.js';

/** A store with its own full-text search (query terms found in the chunk, analysed like zerda's BM25), as LanceDB or pgvector have. */
class TextSearchingStore extends MemoryVectorStore {
  override readonly capabilities = Object.freeze({ persistence: true, nativeFilter: true, textSearch: true, embeds: false });
  readonly textQueries: Array<{ query: string; options: VectorSearchOptions }> = [];

  async textSearch(query: string, options: VectorSearchOptions): Promise<VectorSearchHit[]> {
    this.textQueries.push({ query, options });
    const terms = new Set(defaultAnalyzer.analyze(query));
    const all = await this.search(new Float32Array(this.dimensions ?? 64).fill(1), { k: 1_000 });
    return all
      .filter((hit) => !options.filter || matchesFilter(hit.chunk, options.filter))
      .map((hit) => ({ chunk: hit.chunk, score: defaultAnalyzer.analyze(hit.chunk.text).filter((term) => terms.has(term)).length }))
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score || (a.chunk.id < b.chunk.id ? -1 : 1))
      .slice(0, options.k);
  }
}

const chunks: DocumentChunk[] = [
  toDocumentChunk({ id: 'nile', docId: 'nile', text: 'يَمُرُّ نهرُ النيل بإحدى عشرة دولة إفريقية، وطوله نحو ٦٦٥٠ كيلومترا.', metadata: { lang: 'ar' } }),
  toDocumentChunk({ id: 'amazon', docId: 'amazon', text: 'The Amazon is the largest river by discharge of water in the world.', metadata: { lang: 'en' } }),
  toDocumentChunk({ id: 'cairo', docId: 'cairo', text: 'القاهرة عاصمة مصر وأكبر مدنها؛ يعبرها النيل من الجنوب إلى الشمال.', metadata: { lang: 'ar' } }),
];

describe('StoreTextRetriever', () => {
  it('answers keyword queries from the store that a VectorRetriever fills, alone and fused in a HybridRetriever (Arabic and English)', async () => {
    const store = new TextSearchingStore();
    const vector = new VectorRetriever({ store, embedder: new HashingEmbedder(64) });
    const text = new StoreTextRetriever({ store });
    const hybrid = new HybridRetriever({ retrievers: [vector, text] });
    await hybrid.index(chunks);
    expect(await text.size()).toBe(3);

    // Spelling variants (no harakat, alef forms) still match: the store analyses like zerda.
    const arabic = await text.retrieve('ما طول نهر النيل؟');
    expect(arabic.map((hit) => hit.chunk.id)).toEqual(['nile', 'cairo']);
    expect(arabic[0]).toMatchObject({ retrievers: ['keyword'], scores: { keyword: arabic[0]!.score } });
    expect((await text.retrieve('largest river', { topK: 1 })).map((hit) => hit.chunk.id)).toEqual(['amazon']);

    const fused = await hybrid.retrieve('النيل', { topK: 2, filter: { lang: 'ar' } });
    expect(fused.map((hit) => hit.chunk.id).sort()).toEqual(['cairo', 'nile']);
    expect(fused.every((hit) => hit.retrievers?.includes('keyword'))).toBe(true);
    // The filter and depth reach the store.
    expect(store.textQueries.at(-1)?.options).toMatchObject({ filter: { lang: 'ar' } });
    expect(store.textQueries.at(-1)!.options.k).toBeGreaterThanOrEqual(2);

    await hybrid.remove(['cairo']);
    expect((await text.retrieve('النيل')).map((hit) => hit.chunk.id)).toEqual(['nile']);
    expect(await text.retrieve('   ')).toEqual([]);
    expect(await text.retrieve('النيل', { topK: 0 })).toEqual([]);
  });

  it('refuses a store without text search, and bad options, naming what is wrong', async () => {
    const error = (() => {
      try {
        new StoreTextRetriever({ store: new MemoryVectorStore() });
      } catch (caught) {
        return caught as ZerdaError;
      }
      throw new Error('expected an error');
    })();
    expect(ZerdaError.isInstance(error)).toBe(true);
    expect(error.code).toBe('ZERDA_UNSUPPORTED');
    expect(error.message).toMatch(/textSearch/);
    expect(() => new StoreTextRetriever({ store: {} as never })).toThrow(/options\.store/);
    expect(() => new StoreTextRetriever({ store: new TextSearchingStore(), topK: 0 })).toThrow(/options\.topK/);
    expect(() => new StoreTextRetriever({ store: new TextSearchingStore(), limit: 3 } as never)).toThrow(/options\.limit/);
    await expect(new StoreTextRetriever({ store: new TextSearchingStore() }).retrieve(42 as never)).rejects.toThrow(/query/);
  });
});
