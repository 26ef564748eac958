import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { MemoryVectorStore } from '@zerda/vector-memory';
import { ZerdaError, type ContextResult } from '@zerda/types';
import { charCounter, wordCounter } from '@zerda/text';
import { ContextEngine } from './engine.js';
import { bagOfWordsEmbed, corpus } from './__fixtures__/corpus.js';

async function indexedEngine(options: ConstructorParameters<typeof ContextEngine>[0] = {}) {
  const engine = new ContextEngine(options);
  await engine.index(corpus);
  return engine;
}

function expectZerdaError(action: () => unknown, message: string | RegExp) {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(ZerdaError.isInstance(thrown), `expected a ZerdaError, got ${String(thrown)}`).toBe(true);
  expect((thrown as Error).message).toMatch(message);
}

async function expectRejects(promise: Promise<unknown>, message: string | RegExp) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ZerdaError.isInstance(error), `expected a ZerdaError, got ${String(error)}`).toBe(true);
  expect((error as Error).message).toMatch(message);
}

describe('ContextEngine.run — the whole pipeline', () => {
  it('answers an English query with the English document first, within the budget, with diagnostics', async () => {
    const engine = await indexedEngine();
    const result = await engine.run('What is retrieval-augmented generation?', { overrideBudget: 600 });
    expect(result.chunks[0]?.chunk.docId).toBe('rag-en');
    expect(result.context).toContain('Retrieval-augmented generation gives a language model');
    expect(charCounter(result.context)).toBeLessThanOrEqual(600);
    expect(result.budget).toMatchObject({ limit: 600, unit: 'chars' });
    expect(result.counts.retrieved).toBeGreaterThanOrEqual(result.counts.afterFilter);
    expect(result.counts.afterFilter).toBeGreaterThanOrEqual(result.counts.afterRank);
    expect(result.counts.used).toBe(result.chunks.length);
    expect(Object.keys(result.timings).sort()).toEqual(['analyze', 'cache', 'compose', 'filter', 'guard', 'rank', 'rerank', 'retrieve', 'total']);
    const best = result.chunks[0]!;
    for (const factor of ['keyword', 'retrieval', 'keywordBoost', 'sourceQuality', 'recency', 'position', 'composite'] as const) {
      expect(typeof best.scores[factor], factor).toBe('number');
    }
    expect(result.guardPassed).toBe(true);
    expect(result.fromCache).toBe(false);
    expect(result.analysis.language).toBe('en');
  });

  it('answers Arabic queries with Arabic documents, whatever the diacritics, tatweel or alef forms', async () => {
    const engine = await indexedEngine();
    for (const query of ['ما هو التوليد المعزز بالاسترجاع؟', 'ما هو التَّوليد المُعزَّز بالاسترجـــاع؟', 'كيف نعالج النصوص العربيه قبل الفهرسه؟']) {
      const result = await engine.run(query, { useHistory: false });
      expect(result.analysis.language, query).toBe('ar');
      expect(result.chunks[0]?.chunk.metadata.lang, query).toBe('ar');
      expect(result.warnings.find((warning) => warning.code === 'language_mismatch')).toBeUndefined();
    }
  });

  it('handles mixed Arabic/English queries', async () => {
    const engine = await indexedEngine();
    const result = await engine.run('شرح BM25 و k1 في البحث', { useHistory: false });
    expect(result.analysis.language === 'mixed' || result.analysis.language === 'ar').toBe(true);
    expect(result.chunks.map((chunk) => chunk.chunk.docId)).toContain('bm25-en');
  });

  it('never returns a chunk that fails the metadata filter', async () => {
    const engine = await indexedEngine();
    const result = await engine.run('search and retrieval', { metadataFilters: { tenant: 'globex' } });
    expect(result.chunks.length).toBeGreaterThan(0);
    for (const chunk of result.chunks) expect(chunk.chunk.metadata.tenant).toBe('globex');
    const none = await engine.run('search', { metadataFilters: { tenant: 'nobody' } });
    expect(none.chunks).toEqual([]);
    expect(none.guardPassed).toBe(false);
  });

  it('respects maxChunks and counts tokens-like units through a custom counter', async () => {
    const engine = await indexedEngine({ lengthCounter: wordCounter });
    const result = await engine.run('search documents vectors chunks', { maxChunks: 2, overrideBudget: 60 });
    expect(result.chunks.length).toBeLessThanOrEqual(2);
    expect(wordCounter(result.context)).toBeLessThanOrEqual(60);
    expect(result.budget.unit).toBe('words');
  });

  it('awaits the counter\'s load() before it counts (a tokenizer whose table loads asynchronously)', async () => {
    let ready = false;
    const loads: number[] = [];
    const counter = Object.assign(
      (text: string) => {
        if (!ready) throw new Error('counted before load()');
        return wordCounter(text);
      },
      { unit: 'words', counterName: 'lazy-words', load: async () => { loads.push(1); await new Promise((resolve) => setTimeout(resolve, 5)); ready = true; } },
    );
    const engine = await indexedEngine({ lengthCounter: counter });
    const result = await engine.run('search documents vectors chunks', { overrideBudget: 60 });
    expect(result.context.length).toBeGreaterThan(0);
    expect(wordCounter(result.context)).toBeLessThanOrEqual(60);
    expect(await engine.runMulti(['retrieval', 'البحث عن المقاطع'], { globalBudget: 80 })).not.toBe('');
    expect(loads.length).toBeGreaterThanOrEqual(1);
    expectZerdaError(() => new ContextEngine({ lengthCounter: Object.assign(() => 1, { load: 'soon' }) as never }), /options\.lengthCounter\.load must be a function/);
  });

  it('never exceeds the budget, for any query and budget (property)', async () => {
    const engine = await indexedEngine({ config: { cache: { enabled: false } } });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.constantFrom('retrieval', 'البحث عن المقاطع', 'BM25 k1', 'vector search HNSW', 'النصوص العربية')),
        fc.integer({ min: 0, max: 1500 }),
        async (query, budget) => {
          const result = await engine.run(query, { overrideBudget: budget, recordTurn: false, useHistory: false });
          expect(charCounter(result.context)).toBeLessThanOrEqual(budget);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('answers with an empty, failed-guard result when nothing is indexed (index([]) only warns)', async () => {
    const warn = vi.fn();
    const engine = new ContextEngine({ logger: { warn } });
    await engine.index([]);
    expect(warn).toHaveBeenCalledOnce();
    const result = await engine.run('anything');
    expect(result.context).toBe('');
    expect(result.guardPassed).toBe(false);
    expect(result.guardWarnings).toEqual(['context is empty ⚠']);
  });

  it('logs structured events to an injected logger and nothing by default', async () => {
    const info = vi.fn();
    const engine = new ContextEngine({ logger: { info } });
    await engine.index(corpus);
    await engine.run('vector search');
    const events = info.mock.calls.map((call) => (call[0] as { event: string }).event);
    expect(events).toEqual(['ready', 'indexed', 'run']);
    expect(info.mock.calls[1]![0]).toMatchObject({ chunks: corpus.length });
  });
});

describe('ContextEngine indexing', () => {
  it('index() replaces the corpus; add() and remove() change it incrementally', async () => {
    const engine = await indexedEngine({ config: { cache: { enabled: false } } });
    expect(engine.size).toBe(corpus.length);
    await engine.index([{ docId: 'only', text: 'A single document about gardening tomatoes in spring and summer.' }]);
    expect((await engine.run('retrieval augmented generation')).chunks).toEqual([]);
    await engine.add([{ docId: 'late', text: 'Retrieval augmented generation added later, about retrieval.' }]);
    expect((await engine.run('retrieval augmented generation')).chunks[0]?.chunk.docId).toBe('late');
    await engine.remove(['late']);
    expect((await engine.run('retrieval augmented generation')).chunks).toEqual([]);
  });

  it('a failed index() leaves the previous corpus intact', async () => {
    const engine = await indexedEngine();
    await expectRejects(engine.index([{ docId: 'ok', text: 'fine' }, { docId: 'bad', text: 42 }]), /chunks\[1\]\.text must be a string, got number 42/);
    const result = await engine.run('BM25 ranks documents');
    expect(result.chunks[0]?.chunk.docId).toBe('bm25-en');
    const store = new MemoryVectorStore({ dimensions: 10 });
    await expectRejects(
      engine.index(corpus, { vectorDb: store, embedder: () => corpus.map(() => [Number.NaN]) }),
      /embedding/,
    );
    expect((await engine.run('BM25 ranks documents', { useHistory: false })).chunks[0]?.chunk.docId).toBe('bm25-en');
    expect(await store.count()).toBe(0);
  });

  it('indexes into a vector store with an embedder and fuses keyword and vector results', async () => {
    const store = new MemoryVectorStore();
    const engine = new ContextEngine();
    await engine.index(corpus, { vectorDb: store, embedder: bagOfWordsEmbed });
    expect(await store.count()).toBe(corpus.length);
    const result = await engine.run('vector search', { useHistory: false });
    const top = result.chunks[0]!;
    expect(top.retrievers?.sort()).toEqual(['keyword', 'vector']);
    expect(typeof top.scores.vector).toBe('number');
    expect(typeof top.scores.fused).toBe('number');
  });

  it("keywordSearch: 'store' needs a vectorDb with text search, says so, and leaves the previous corpus intact", async () => {
    const engine = await indexedEngine();
    await expectRejects(engine.index(corpus, { keywordSearch: 'store', embedder: bagOfWordsEmbed }), /options\.keywordSearch/);
    const store = new MemoryVectorStore();
    await expectRejects(engine.index(corpus, { keywordSearch: 'store', vectorDb: store, embedder: bagOfWordsEmbed }), /textSearch/);
    await expectRejects(engine.index(corpus, { keywordSearch: 'database' as never }), /keywordSearch/);
    expect(await store.count()).toBe(0);
    expect((await engine.run('BM25 ranks documents', { useHistory: false })).chunks[0]?.chunk.docId).toBe('bm25-en');
  });

  it('with addToVectorDb: false points at an already populated store without writing', async () => {
    const store = new MemoryVectorStore();
    const embeddings = bagOfWordsEmbed(corpus.map((chunk) => chunk.text));
    await store.add(corpus.map((chunk, i) => ({ id: `${chunk.docId}#0`, docId: chunk.docId, text: chunk.text, source: chunk.source ?? chunk.docId, metadata: {}, position: { index: 0 }, embedding: embeddings[i] })));
    const add = vi.spyOn(store, 'add');
    const engine = new ContextEngine();
    await engine.index(corpus, { vectorDb: store, addToVectorDb: false, embedder: bagOfWordsEmbed });
    expect(add).not.toHaveBeenCalled();
    expect((await engine.run('vector search')).chunks.length).toBeGreaterThan(0);
  });

  it('indexDocuments chunks raw texts with default ids and sources, and retries legacy chunkers', async () => {
    const modern = { chunk: (text: string, options?: unknown) => [{ id: `${(options as { docId: string }).docId}#0`, docId: (options as { docId: string }).docId, text, source: (options as { source: string }).source, metadata: {}, position: { index: 0 } }] };
    const engine = new ContextEngine();
    await engine.indexDocuments(['Tomatoes grow in summer.', 'الطماطم تنمو في الصيف.'], modern);
    const result = await engine.run('tomatoes summer');
    expect(result.chunks[0]?.chunk.docId).toBe('doc_0');
    expect(result.chunks[0]?.chunk.source).toBe('doc_0');

    const legacy = {
      chunk(text: string, docId: unknown) {
        if (typeof docId !== 'string') throw new TypeError('docId must be a string');
        return [{ id: `${docId}-0`, docId, text, source: '', metadata: {}, position: { index: 0 } }];
      },
    };
    const second = new ContextEngine();
    await second.indexDocuments(['Cucumbers like water.'], legacy, { docIds: ['cucumber'], sources: ['garden.md'] });
    const found = await second.run('cucumbers water');
    expect(found.chunks[0]?.chunk).toMatchObject({ docId: 'cucumber', source: 'garden.md' });
  });
});

describe('ContextEngine templates and document options', () => {
  it('accepts a template function or a template name as an option', async () => {
    const jsonLines = (passages: Array<{ chunk: { id: string }; text: string }>) => passages.map((passage) => JSON.stringify({ id: passage.chunk.id, text: passage.text })).join('\n');
    const engine = new ContextEngine({ template: jsonLines });
    await engine.index(corpus);
    const result = await engine.run('BM25 ranks documents', { overrideBudget: 800 });
    const first = JSON.parse(result.context.split('\n')[0]!);
    expect(first.id).toBe('bm25-en#0');
    const xml = new ContextEngine({ template: 'xml' });
    await xml.index(corpus);
    expect((await xml.run('BM25 ranks documents')).context).toContain('<document source="docs/search.md" id="bm25-en#0">');
    expectZerdaError(() => new ContextEngine({ template: 'fancy' as never }), /options\.template must be a template function or one of default, numbered, markdown, xml, citations/);
  });

  it('indexDocuments attaches titles and metadata per text, so they can be cited and filtered', async () => {
    const splitter = { chunk: (text: string, options?: unknown) => text.split('. ').map((part, index) => ({ id: `${(options as { docId: string }).docId}#${index}`, docId: (options as { docId: string }).docId, text: part, source: '', metadata: { part: index }, position: { index } })) };
    const engine = new ContextEngine({ config: { composer: { template: 'citations' } } });
    await engine.indexDocuments(['Tomatoes grow in summer. They need sun.', 'الطماطم تنمو في الصيف. وتحتاج إلى الشمس.'], splitter, {
      titles: ['Tomatoes', 'الطماطم'],
      metadata: [{ lang: 'en' }, { lang: 'ar' }],
    });
    const result = await engine.run('الطماطم في الصيف', { metadataFilters: { lang: 'ar' } });
    expect(result.chunks[0]?.chunk).toMatchObject({ docId: 'doc_1', title: 'الطماطم', metadata: { lang: 'ar', part: 0 } });
    expect(result.context).toContain('الطماطم');
    await expectRejects(engine.indexDocuments(['a'], splitter, { titles: ['x', 'y'] }), /options\.titles must be an array of 1 entries/);
  });
});

describe('ContextEngine bad input', () => {
  it('rejects bad arguments with ZerdaErrors naming the field', async () => {
    const engine = await indexedEngine();
    await expectRejects(engine.run(42 as unknown as string), /query must be a string, got number 42/);
    await expectRejects(engine.run('q', { maxChunks: 0 }), /options\.maxChunks must be > 0/);
    await expectRejects(engine.run('q', { overrideBudget: -5 }), /options\.overrideBudget must be >= 0, got number -5/);
    await expectRejects(engine.run('q', { metadataFilters: { lang: { $regex: 'a' } } as never }), /options\.metadataFilters\.lang\.\$regex/);
    await expectRejects(engine.run('q', { unknown: true } as never), /options\.unknown must be a known option/);
    await expectRejects(engine.index('nope'), /chunks must be an array/);
    await expectRejects(engine.runMulti('nope'), /queries must be an array/);
    await expectRejects(engine.remove([1]), /docIds must be an array of document ids/);
    expectZerdaError(() => new ContextEngine({ config: { composer: { maxContextLength: -1 } } }), /config\.composer\.maxContextLength must be > 0/);
    expectZerdaError(() => engine.compressContext('text', -1), /targetLength must be a non-negative integer/);
    expectZerdaError(() => engine.getContextStats(5), /context must be a string, got number 5/);
  });
});

describe('ContextEngine state', () => {
  it('records turns with the literal query and enriches follow-ups', async () => {
    const engine = await indexedEngine();
    await engine.run('How does BM25 ranking work?');
    const followUp = await engine.run('and what does k1 control in it?');
    expect(followUp.query).toBe('and what does k1 control in it?');
    expect(followUp.analysis.query).toBe('and what does k1 control in it?');
    expect(followUp.effectiveQuery).not.toBe(followUp.query);
    expect(engine.getHistory()?.turns.map((turn) => turn.query)).toEqual(['How does BM25 ranking work?', 'and what does k1 control in it?']);
    const saved = JSON.parse(JSON.stringify(engine.getHistory()!.toJSON()));
    const restored = await indexedEngine();
    restored.setConversation(saved);
    expect(restored.getHistory()?.turns.map((turn) => turn.query)).toEqual(['How does BM25 ranking work?', 'and what does k1 control in it?']);
  });

  it('reports performance with cache statistics and clears the cache', async () => {
    const engine = await indexedEngine();
    await engine.run('vector search', { recordTurn: false });
    const hit = await engine.run('vector search', { recordTurn: false });
    expect(hit.fromCache).toBe(true);
    const report = engine.getPerformanceReport() as { totalQueries: number; cache: { hits: number; misses: number } };
    expect(report.totalQueries).toBe(2);
    expect(report.cache).toMatchObject({ hits: 1, misses: 1 });
    engine.clearCache();
    expect((await engine.run('vector search', { recordTurn: false })).fromCache).toBe(false);
  });

  it('getContextStats and compressContext go through the composer', async () => {
    const engine = await indexedEngine();
    const { context } = await engine.run('retrieval');
    const stats = engine.getContextStats(context) as { characters: number };
    expect(stats.characters).toBe(context.length);
    const short = engine.compressContext('تقنية التوليد المعزز بالاسترجاع تمنح النموذج الوثائق', 20);
    expect(charCounter(short)).toBeLessThanOrEqual(20);
    expect('تقنية التوليد المعزز بالاسترجاع'.startsWith(short.replace(/…$/, '').trimEnd())).toBe(true);
  });
});

describe('ContextEngine.runMulti', () => {
  it('allocates the global budget, punctuates headers the same way in every language, and never exceeds it', async () => {
    const engine = await indexedEngine();
    const combined = await engine.runMulti(['What is BM25?', 'ما هي معالجة النصوص العربية؟'], { globalBudget: 700 });
    expect(charCounter(combined)).toBeLessThanOrEqual(700);
    expect(combined).toContain('--- Query 1: What is BM25? ---');
    expect(combined).toContain('--- السؤال 2: ما هي معالجة النصوص العربية؟ ---');
    expect(combined).not.toMatch(/: \d+:/);
    expect(await engine.runMulti([])).toBe('');
    const history = engine.getHistory()?.size ?? 0;
    expect(history).toBe(0);
  });

  it('forwards run options such as metadata filters to every query', async () => {
    const engine = await indexedEngine();
    const detailed = await engine.runMultiDetailed(['search', 'retrieval'], { metadataFilters: { tenant: 'globex' }, useWeighted: false });
    expect(detailed.allocations[0]).toBe(detailed.allocations[1]);
    for (const result of detailed.results) for (const chunk of result.chunks) expect(chunk.chunk.metadata.tenant).toBe('globex');
  });
});

describe('ContextEngine concurrency', () => {
  it('200 concurrent runs give the same results as sequential runs and keep counters consistent', async () => {
    const queries = ['What is retrieval-augmented generation?', 'ما هو التوليد المعزز بالاسترجاع؟', 'BM25 k1 saturation', 'vector search HNSW', 'chunk overlap', 'النصوص العربية والتطبيع'];
    const sequentialEngine = await indexedEngine({ config: { cache: { enabled: false } } });
    const expected = new Map<string, string>();
    for (const query of queries) expected.set(query, (await sequentialEngine.run(query, { useHistory: false, recordTurn: false })).context);

    const engine = await indexedEngine({ config: { multiTurn: { maxTurns: 500 } } });
    const all = Array.from({ length: 200 }, (_, i) => queries[i % queries.length]!);
    const results: ContextResult[] = await Promise.all(all.map((query) => engine.run(query, { useHistory: false })));
    results.forEach((result, i) => expect(result.context).toBe(expected.get(all[i]!)));
    const report = engine.getPerformanceReport() as { totalQueries: number; cache: { hits: number; misses: number } };
    expect(report.totalQueries).toBe(200);
    expect(report.cache.hits + report.cache.misses).toBe(200);
    expect(engine.getHistory()?.size).toBe(200);
    expect(engine.getHistory()?.turns.map((turn) => turn.query).sort()).toEqual([...all].sort());
  });
});

describe('explainResult', () => {
  it('explains every chunk with its factors, the stage counts, guard and timings', async () => {
    const { explainResult } = await import('./diagnostics.js');
    const engine = await indexedEngine();
    const result = await engine.run('ما هو التوليد المعزز بالاسترجاع؟');
    const text = explainResult(result);
    expect(text).toContain('language=ar');
    expect(text).toContain(result.chunks[0]!.chunk.id);
    expect(text).toMatch(/\| # \| chunk +\| source/);
    expect(text).toMatch(/stages: retrieved \d+ → after filter \d+ → after rank \d+ → used \d+/);
    expect(text).toContain('guard: passed');
    expect(() => explainResult({} as never)).toThrow(/result must be a ContextResult/);
  });

  it('says, per chunk, which sentences were kept and why when the budget made the composer choose (Arabic and English)', async () => {
    const { explainResult } = await import('./diagnostics.js');
    const engine = await indexedEngine();
    for (const query of ['ما هو التوليد المعزز بالاسترجاع؟', 'What is retrieval-augmented generation?']) {
      const result = await engine.run(query, { overrideBudget: 120 });
      const chosen = result.chunks.filter((chunk) => chunk.sentences);
      expect(chosen.length).toBeGreaterThan(0);
      const text = explainResult(result);
      expect(text).toContain('sentences kept ✓');
      expect(text).toMatch(/answerType=(definition|other)/);
      for (const chunk of chosen) {
        for (const sentence of chunk.sentences!) {
          expect(text).toContain(sentence.value.toFixed(3));
          if (sentence.reasons.includes('lead')) expect(text).toMatch(/\[lead/);
        }
      }
    }
  });
});

describe('small-to-big: neighbouring chunks when budget remains (config.composer.neighbors)', () => {
  const chunked = [
    { id: 'nile#0', docId: 'nile', text: 'The Nile delta is fertile farmland.', source: 'nile.md', metadata: { tenant: 'a' }, position: { index: 0 } },
    { id: 'nile#1', docId: 'nile', text: 'Every summer the river flooded the valley and left black silt behind.', source: 'nile.md', metadata: { tenant: 'a' }, position: { index: 1 } },
    { id: 'nile#2', docId: 'nile', text: 'Secret notes of tenant b about the same river.', source: 'nile.md', metadata: { tenant: 'b' }, position: { index: 2 } },
    { id: 'النيل#0', docId: 'النيل', text: 'دلتا النيل أرض زراعية خصبة.', source: 'nile-ar.md', metadata: { tenant: 'a' }, position: { index: 0 } },
    { id: 'النيل#1', docId: 'النيل', text: 'كان النهر يفيض كل صيف ويترك الطمي الأسود.', source: 'nile-ar.md', metadata: { tenant: 'a' }, position: { index: 1 } },
  ];

  it('is off by default, and with neighbors: 1 widens a used chunk into its document (English and Arabic)', async () => {
    const plain = new ContextEngine({ config: { cache: { enabled: false } } });
    await plain.index(chunked);
    expect((await plain.run('delta fertile', { overrideBudget: 500 })).context).not.toContain('flooded');
    const engine = new ContextEngine({ config: { cache: { enabled: false }, composer: { neighbors: 1, ordering: 'document' } } });
    await engine.index(chunked);
    const english = await engine.run('delta fertile', { overrideBudget: 500, metadataFilters: { tenant: 'a' } });
    expect(english.context).toContain('The Nile delta is fertile farmland. Every summer the river flooded');
    expect(english.chunks.find((chunk) => chunk.chunk.id === 'nile#1')?.retrievers).toEqual(['neighbors']);
    const arabic = await engine.run('دلتا خصبة', { overrideBudget: 500, metadataFilters: { tenant: 'a' } });
    expect(arabic.context).toContain('يفيض');
    expect(charCounter(arabic.context)).toBeLessThanOrEqual(500);
  });

  it('never adds a neighbour outside the run filter, and stays within the budget', async () => {
    const engine = new ContextEngine({ config: { cache: { enabled: false }, composer: { neighbors: 2, ordering: 'document' } } });
    await engine.index(chunked);
    const result = await engine.run('river flooded silt', { overrideBudget: 1000, metadataFilters: { tenant: 'a' } });
    expect(result.context).not.toContain('tenant b');
    expect(result.chunks.every((chunk) => chunk.chunk.metadata.tenant === 'a')).toBe(true);
    const tight = await engine.run('river flooded silt', { overrideBudget: 80, metadataFilters: { tenant: 'a' } });
    expect(charCounter(tight.context)).toBeLessThanOrEqual(80);
  });
});

describe('citationsOf', () => {
  it('lists the context chunks in order as JSON-safe citations (numbers with the citations template)', async () => {
    const { citationsOf } = await import('./diagnostics.js');
    const engine = await indexedEngine({ template: 'citations' });
    const result = await engine.run('ما هو التوليد المعزز بالاسترجاع؟');
    const citations = citationsOf(result);
    expect(citations.map((citation) => citation.chunkId)).toEqual(result.chunks.map((used) => used.chunk.id));
    expect(citations[0]).toMatchObject({ number: 1, docId: result.chunks[0]!.chunk.docId, source: result.chunks[0]!.chunk.source, rank: 1, text: result.chunks[0]!.keptText });
    expect(citations[0]!.title).toBe(result.chunks[0]!.chunk.title);
    expect(JSON.parse(JSON.stringify(citations))).toEqual(citations);
    for (const citation of citations) for (const value of Object.values(citation.scores)) expect(Number.isFinite(value)).toBe(true);
    const plain = citationsOf(await (await indexedEngine({ template: 'default' })).run('BM25 ranking'));
    expect(plain.every((citation) => !('number' in citation))).toBe(true);
    expect(() => citationsOf(null as never)).toThrow(/result must be a ContextResult/);
  });

  it('summarizeResult: the context, its citations, the budget and the guard, JSON-safe', async () => {
    const { citationsOf, summarizeResult } = await import('./diagnostics.js');
    const result = await (await indexedEngine({ template: 'citations' })).run('vector search');
    const summary = summarizeResult(result);
    expect(summary).toEqual({ query: 'vector search', context: result.context, citations: citationsOf(result), budget: result.budget, guardPassed: result.guardPassed, warnings: result.guardWarnings, fromCache: false, matched: result.counts.afterRank });
    expect(JSON.parse(JSON.stringify(summary))).toEqual(summary);
  });
});

describe('assertContextRunner', () => {
  it('accepts an engine or anything with run(), and names the field otherwise', async () => {
    const { assertContextRunner } = await import('./runner.js');
    expect(() => assertContextRunner(new ContextEngine())).not.toThrow();
    expect(() => assertContextRunner({ run: async () => ({}) })).not.toThrow();
    for (const value of [undefined, null, 5, {}, { run: 'no' }]) expect(() => assertContextRunner(value, 'retriever.engine')).toThrow(/retriever\.engine must be a ContextEngine/);
  });
});
