// One test per defect that the spec documents and DESIGN.md says we fix, named after it.
import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { GreedyCompression, HashDeduplication, ScoreRanking } from '@zerda/legacy-compat';
import { SmartContextComposer } from '@zerda/composer';
import { MemoryVectorStore } from '@zerda/vector-memory';
import { charCounter, truncateAtWordBoundary } from '@zerda/text';
import type { ContextComposer, Retriever, ScoredChunk } from '@zerda/types';
import { ContextEngine } from './engine.js';
import { ContextManager } from './manager.js';
import { bagOfWordsEmbed, corpus } from './__fixtures__/corpus.js';

describe('defect 2: index() with an injected retriever builds and embeds nothing it would discard', () => {
  it('hands the chunks to the injected retriever and never calls the embedder or the vector database', async () => {
    const index = vi.fn(async () => {});
    const retriever: Retriever = { name: 'mine', retrieve: async () => [], index };
    const embed = vi.fn(bagOfWordsEmbed);
    const store = new MemoryVectorStore();
    const add = vi.spyOn(store, 'add');
    const engine = new ContextEngine({ retriever });
    await engine.index(corpus, { embedder: embed, vectorDb: store });
    expect(index).toHaveBeenCalledOnce();
    expect((index.mock.calls[0] as unknown as [unknown[]])[0]).toHaveLength(corpus.length);
    expect(embed).not.toHaveBeenCalled();
    expect(add).not.toHaveBeenCalled();
  });

  it('re-indexing replaces the corpus instead of leaving stale chunks behind', async () => {
    const engine = new ContextEngine({ config: { cache: { enabled: false } } });
    await engine.index(corpus);
    await engine.index([{ docId: 'new', text: 'Completely different text about sourdough bread baking.' }]);
    expect((await engine.run('BM25 ranks documents')).chunks).toEqual([]);
    expect((await engine.run('sourdough bread')).chunks[0]?.chunk.docId).toBe('new');
  });
});

describe('defect 3: a cache hit returns the full original result, never zeros', () => {
  it('keeps counts, chunks and analysis and flags fromCache', async () => {
    const engine = new ContextEngine();
    await engine.index(corpus);
    const first = await engine.run('vector search HNSW', { recordTurn: false });
    const second = await engine.run('vector search HNSW', { recordTurn: false });
    expect(second.fromCache).toBe(true);
    expect(second.counts).toEqual(first.counts);
    expect(second.counts.retrieved).toBeGreaterThan(0);
    expect(second.chunks).toEqual(first.chunks);
    expect(second.analysis).toEqual(first.analysis);
    expect(second.context).toBe(first.context);
  });
});

describe('defect 4: the analysis exposes the literal query and the effective query; history records the literal one', () => {
  it('keeps both apart when history enriches a follow-up', async () => {
    const engine = new ContextEngine();
    await engine.index(corpus);
    await engine.run('How does BM25 ranking work?');
    const followUp = await engine.run('what about it in Arabic?');
    expect(followUp.analysis.query).toBe('what about it in Arabic?');
    expect(followUp.analysis.effectiveQuery).toBe(followUp.effectiveQuery);
    expect(followUp.effectiveQuery).not.toBe('what about it in Arabic?');
    expect(engine.getHistory()?.turns.at(-1)?.query).toBe('what about it in Arabic?');
  });
});

describe('defect 5: multi-query headers are punctuated the same in every language and buildMultiQueryContext honours globalBudget', () => {
  it('uses "--- Label N: query ---" for Arabic and English alike', async () => {
    const engine = new ContextEngine();
    await engine.index(corpus);
    const context = await engine.runMulti(['What is BM25?', 'ما هو التوليد المعزز بالاسترجاع؟'], { globalBudget: 900 });
    const headers = context.split('\n').filter((line) => line.startsWith('--- '));
    expect(headers).toEqual(['--- Query 1: What is BM25? ---', '--- السؤال 2: ما هو التوليد المعزز بالاسترجاع؟ ---']);
    for (const header of headers) expect(header.match(/:/g)).toHaveLength(1);
  });

  it('clamps buildMultiQueryContext to globalBudget', async () => {
    const engine = new ContextEngine();
    const tuples = corpus.map((chunk, i) => [{ docId: chunk.docId, text: chunk.text }, 1 - i / 10] as const);
    for (const budget of [0, 150, 400, 900]) {
      const context = await engine.buildMultiQueryContext(['retrieval', 'النصوص العربية'], [tuples, tuples], { globalBudget: budget });
      expect(charCounter(context), `budget ${budget}`).toBeLessThanOrEqual(budget);
    }
  });
});

describe('defect 6: compressContext works with any composer', () => {
  it('goes through the composer interface, not a private method of the default composer', () => {
    const truncate = vi.fn((text: string, budget: number) => text.slice(0, budget));
    const custom: ContextComposer = {
      compose: async () => ({ context: '', chunks: [], skipped: [], truncated: false, template: 'custom', stats: { length: 0, unit: 'chars', characters: 0, chunkCount: 0, averageChunkLength: 0, language: { arabic: 0, latin: 0, other: 0 } } }),
      truncate,
      getStats: () => ({ length: 0, unit: 'chars', characters: 0, chunkCount: 0, averageChunkLength: 0, language: { arabic: 0, latin: 0, other: 0 } }),
    };
    const engine = new ContextEngine({ composer: custom });
    expect(engine.compressContext('abcdefgh', 3)).toBe('abc');
    expect(truncate).toHaveBeenCalledOnce();
  });
});

describe('defect 7: ContextManager legacy dedupStrategy, rankingStrategy and compressionStrategy take effect', () => {
  it('routes the filter, ranking and composition stages through the legacy strategies', async () => {
    const dedup = new HashDeduplication();
    const ranking = new ScoreRanking();
    const compression = new GreedyCompression();
    const deduplicate = vi.spyOn(dedup, 'deduplicate');
    const rank = vi.spyOn(ranking, 'rank');
    const compress = vi.spyOn(compression, 'compress');
    const manager = new ContextManager(undefined, { dedupStrategy: dedup, rankingStrategy: ranking, compressionStrategy: compression });
    await manager.index([...corpus, { ...corpus[0]!, docId: 'copy-of-rag-en' }]);
    const result = await manager.run('retrieval augmented generation', { overrideBudget: 300 });
    expect(deduplicate).toHaveBeenCalled();
    expect(rank).toHaveBeenCalled();
    expect(compress).toHaveBeenCalled();
    expect(result.template).toBe('legacy-compression');
    expect(charCounter(result.context)).toBeLessThanOrEqual(300);
    const docIds = result.chunks.map((chunk) => chunk.chunk.docId);
    expect(docIds.includes('rag-en') && docIds.includes('copy-of-rag-en')).toBe(false);
  });

  it('passes budgetStrategy through as the budget allocator', async () => {
    const allocate = vi.fn((analyses: unknown[], budget: number) => analyses.map(() => Math.floor(budget / analyses.length)));
    const manager = new ContextManager(undefined, { budgetStrategy: { allocate } });
    await manager.index(corpus);
    await manager.runMulti(['a', 'b'], { globalBudget: 500 });
    expect(allocate).toHaveBeenCalledOnce();
  });
});

describe('defect 8: passing both an embedder and a vector database is not silently ambiguous', () => {
  it('stores vectors in the vector database, uses the embedder for chunks without embeddings and queries, and warns', async () => {
    const warn = vi.fn();
    const store = new MemoryVectorStore();
    const engine = new ContextEngine({ logger: { warn } });
    await engine.index(corpus, { vectorDb: store, embedder: bagOfWordsEmbed });
    expect(await store.count()).toBe(corpus.length);
    expect(warn).toHaveBeenCalledOnce();
    expect(warn.mock.calls[0]![0]).toMatchObject({ event: 'embedder_and_vector_db', store: 'memory' });
    expect(String(warn.mock.calls[0]![1])).toMatch(/vectors are stored in memory/);
  });
});

describe("defect 9: the cache key covers everything that changes the answer, so one tenant's filtered context is never served to another", () => {
  it('misses the cache when the filter, budget, chunk limit or corpus differ', async () => {
    const engine = new ContextEngine();
    await engine.index(corpus);
    const acme = await engine.run('search', { metadataFilters: { tenant: 'acme' }, recordTurn: false });
    const globex = await engine.run('search', { metadataFilters: { tenant: 'globex' }, recordTurn: false });
    expect(globex.fromCache).toBe(false);
    for (const chunk of acme.chunks) expect(chunk.chunk.metadata.tenant).toBe('acme');
    for (const chunk of globex.chunks) expect(chunk.chunk.metadata.tenant).toBe('globex');
    expect((await engine.run('search', { metadataFilters: { tenant: 'acme' }, recordTurn: false })).fromCache).toBe(true);
    expect((await engine.run('search', { metadataFilters: { tenant: 'acme' }, overrideBudget: 100, recordTurn: false })).fromCache).toBe(false);
    expect((await engine.run('search', { metadataFilters: { tenant: 'acme' }, maxChunks: 1, recordTurn: false })).fromCache).toBe(false);
    await engine.add([{ docId: 'more', text: 'More text about search engines.', metadata: { tenant: 'acme' } }]);
    expect((await engine.run('search', { metadataFilters: { tenant: 'acme' }, recordTurn: false })).fromCache).toBe(false);
  });
});

describe('defect 10: the three copies of word-boundary truncation are one function', () => {
  it('the composer, the engine and the legacy compression truncate exactly like truncateAtWordBoundary', () => {
    const composer = new SmartContextComposer();
    const engine = new ContextEngine({ composer });
    const legacy = new GreedyCompression();
    fc.assert(
      fc.property(fc.array(fc.constantFrom('alpha', 'بيتا', 'gamma', 'دلتا', 'epsilon', 'زيتا'), { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 120 }), (words, budget) => {
        const text = words.join(' ');
        const expected = truncateAtWordBoundary(text, budget, charCounter);
        expect(composer.truncate(text, budget, charCounter)).toBe(expected);
        expect(engine.compressContext(text, budget)).toBe(expected);
        // Two parts or fewer: GreedyCompression falls back to the shared truncation (spec step 3).
        expect(legacy.compress(text, budget, charCounter, '\n---\n')).toBe(expected);
      }),
    );
  });
});

describe('ScoredChunk wiring', () => {
  it('build() takes legacy [chunk, score] tuples and skips retrieval and the guard', async () => {
    const engine = new ContextEngine();
    const tuples = [
      [{ doc_id: 'a', text: 'Retrieval augmented generation uses retrieved passages as context.' }, 0.9],
      [{ docId: 'b', text: 'Gardening tomatoes needs sun and water every day of summer.' }, 0.2],
    ];
    const context = await engine.build('retrieval augmented generation', tuples, { maxLength: 200 });
    expect(context).toContain('Retrieval augmented generation uses retrieved passages');
    expect(charCounter(context)).toBeLessThanOrEqual(200);
    await expect(engine.build('q', [[{ docId: 'a', text: 1 }, 0.5]])).rejects.toThrow(/chunks\[0\]\[0\]\.text must be a string/);
    await expect(engine.build('q', [[{ docId: 'a', text: 'x' }, Number.NaN]])).rejects.toThrow(/chunks\[0\]\[1\] must be a finite number/);
  });

  it('keeps ScoredChunk types intact for custom rankers', async () => {
    const seen: ScoredChunk[][] = [];
    const engine = new ContextEngine({ ranker: { rank: (chunks) => (seen.push(chunks), [...chunks].reverse()) } });
    await engine.index(corpus);
    await engine.run('search');
    expect(seen).toHaveLength(1);
  });
});
