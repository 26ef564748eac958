import { describe, expect, it } from 'vitest';
import { ZerdaError, type Reranker, type RerankOptions, type ScoredChunk } from '@zerda/types';
import { ContextEngine } from './engine.js';
import { explainResult } from './diagnostics.js';
import { corpus } from './__fixtures__/corpus.js';

/** Records what it was given and scores one document first, everything else by its text length. */
function recordingReranker(favourite: string) {
  const calls: Array<{ query: string; ids: string[]; options: RerankOptions }> = [];
  const reranker: Reranker = {
    name: 'favourite',
    rerank(query: string, candidates: ScoredChunk[], options: RerankOptions) {
      calls.push({ query, ids: candidates.map((candidate) => candidate.chunk.docId), options });
      return candidates
        .map((candidate, index) => ({ index, score: candidate.chunk.docId === favourite ? 0.99 : 1 / (1 + candidate.chunk.text.length) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, options.topN);
    },
  };
  return { reranker, calls };
}

async function engineWith(reranker: unknown, config: ConstructorParameters<typeof ContextEngine>[0] = {}) {
  const engine = new ContextEngine({ ...config, reranker: reranker as Reranker });
  await engine.index(corpus);
  return engine;
}

describe('ContextEngine: the reranker stage (between ranking and composition)', () => {
  it('orders the context by the reranker and records a rerank factor on every chunk', async () => {
    const { reranker, calls } = recordingReranker('chunking-en');
    const engine = await engineWith(reranker, { config: { composer: { maxContextLength: 3000 } } });
    const result = await engine.run('how does retrieval augmented generation use chunks and search', { maxChunks: 3 });
    expect(calls).toHaveLength(1);
    expect(result.chunks[0]?.chunk.docId).toBe('chunking-en');
    expect(result.chunks.length).toBeGreaterThan(1);
    for (const used of result.chunks) {
      expect(used.scores.rerank).toBeTypeOf('number');
      expect(used.score).toBe(used.scores.rerank);
      expect(used.scores.composite, 'the ranking factors stay beside it').toBeTypeOf('number');
    }
    expect(result.chunks.map((used) => used.rank)).toEqual(result.chunks.map((_, i) => i + 1));
    expect(result.reranker).toBe('favourite');
    expect(result.counts.afterRerank).toBeLessThanOrEqual(3);
    expect(result.counts.afterRank).toBe(calls[0]?.ids.length);
    expect(result.timings.rerank).toBeGreaterThanOrEqual(0);
    const explained = explainResult(result);
    expect(explained).toMatch(/\| rerank \|/);
    expect(explained).toMatch(/after rerank \d+ → used/);
    expect(explained).toMatch(/reranked by favourite/);
    expect(explained).toMatch(/rerank \d+\.\d\d, compose/);
  });

  it('gives the reranker up to rerank.candidates ranked chunks and keeps maxChunks: it can promote a chunk the ranker cut', async () => {
    const maxChunks = 1;
    const query = 'retrieval augmented generation documents';
    const plain = new ContextEngine();
    await plain.index(corpus);
    const baseline = await plain.run(query, { maxChunks });

    const seen: string[][] = [];
    const lastFirst: Reranker = {
      rerank(_query, candidates, options) {
        seen.push(candidates.map((candidate) => candidate.chunk.docId));
        return [{ index: candidates.length - 1, score: 1 }].slice(0, options.topN);
      },
    };
    const engine = await engineWith(lastFirst, { config: { rerank: { candidates: corpus.length } } });
    const result = await engine.run(query, { maxChunks });
    const given = seen[0]!;
    expect(given.length).toBeGreaterThan(maxChunks);
    expect(given[0]).toBe(baseline.chunks[0]?.chunk.docId);
    expect(result.chunks.map((used) => used.chunk.docId)).toEqual([given[given.length - 1]]);
    expect(baseline.chunks.map((used) => used.chunk.docId)).not.toContain(given[given.length - 1]);

    const narrow = await engineWith(lastFirst, { config: { rerank: { candidates: 2 } } });
    await narrow.run(query, { maxChunks });
    expect(seen[1]).toEqual(given.slice(0, 2));
  });

  it('hands the reranker the effective query, the analysis and the run signal (Arabic like English)', async () => {
    const { reranker, calls } = recordingReranker('rag-ar');
    const engine = await engineWith(reranker);
    const controller = new AbortController();
    const result = await engine.run('ما هو التوليد المعزز بالاسترجاع؟', { signal: controller.signal, metadataFilters: { lang: 'ar' } });
    expect(calls[0]?.query).toBe('ما هو التوليد المعزز بالاسترجاع؟');
    expect(calls[0]?.options.signal).toBe(controller.signal);
    expect(calls[0]?.options.analysis?.language).toBe('ar');
    expect(calls[0]?.ids.every((docId) => docId.endsWith('-ar'))).toBe(true);
    expect(result.chunks[0]?.chunk.docId).toBe('rag-ar');
  });

  it('a plain scoring function is a reranker too (an LLM judge, a heuristic)', async () => {
    const engine = await engineWith((_query: string, candidates: ScoredChunk[]) => candidates.map((candidate) => (candidate.chunk.docId === 'bm25-en' ? 1 : 0)));
    const result = await engine.run('search ranking documents', { maxChunks: 2 });
    expect(result.chunks[0]?.chunk.docId).toBe('bm25-en');
    expect(result.chunks[0]?.scores.rerank).toBe(1);
    expect(result.reranker).toMatch(/^function:/);
  });

  it('a run whose signal is aborted fails before any stage, even with its result in the cache', async () => {
    let called = 0;
    const controller = new AbortController();
    const engine = await engineWith({
      rerank(_query: string, candidates: ScoredChunk[]) {
        called += 1;
        controller.abort(new Error('user left'));
        return candidates.map((_, index) => ({ index, score: 1 }));
      },
    });
    await expect(engine.run('vector search', { signal: controller.signal })).resolves.toBeDefined();
    await expect(engine.run('vector search', { signal: controller.signal })).rejects.toThrow('user left');
    expect(called).toBe(1);
  });

  it('a reranker that breaks its contract fails the run with a ZerdaError naming it', async () => {
    const engine = await engineWith({ name: 'broken', rerank: () => [{ index: 999, score: 1 }] });
    await expect(engine.run('vector search')).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', message: expect.stringMatching(/broken\.rerank\(\)\[0\]\.index must be an integer from 0 to/) });
  });

  it('rejects a reranker option that is neither a reranker nor a function', () => {
    for (const value of [5, {}, [], 'cross-encoder', { rerank: true }]) {
      let thrown: unknown;
      try {
        new ContextEngine({ reranker: value as never });
      } catch (error) {
        thrown = error;
      }
      expect(ZerdaError.isInstance(thrown)).toBe(true);
      expect((thrown as Error).message).toMatch(/options\.reranker must be a Reranker/);
    }
  });

  it('without a reranker nothing changes: no rerank factor, afterRerank = afterRank, rerank timing 0, no rerank column', async () => {
    const engine = new ContextEngine();
    await engine.index(corpus);
    const result = await engine.run('vector search');
    expect(result.reranker).toBeUndefined();
    expect(result.chunks.every((used) => used.scores.rerank === undefined)).toBe(true);
    expect(result.counts.afterRerank).toBe(result.counts.afterRank);
    expect(result.timings.rerank).toBe(0);
    expect(explainResult(result)).not.toMatch(/rerank/);
  });
});
