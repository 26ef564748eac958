import { describe, expect, it } from 'vitest';
import { MockRerankingModelV4 } from 'ai/test';
import { ContextEngine, explainResult } from '@zerda/context';
import { aiSdkReranker } from './ai-sdk-reranker.js';

type RerankCall = Parameters<MockRerankingModelV4['doRerank']>[0];

/** A mock reranking model that scores documents by how many query words they contain. */
function wordOverlapModel(calls: RerankCall[]) {
  return new MockRerankingModelV4({
    provider: 'mock',
    modelId: 'overlap-1',
    doRerank: async (options) => {
      calls.push(options);
      const words = new Set(options.query.toLowerCase().split(/\s+/));
      const texts = options.documents.type === 'text' ? options.documents.values : options.documents.values.map((value) => JSON.stringify(value));
      const ranking = texts
        .map((text, index) => ({ index, relevanceScore: text.toLowerCase().split(/\s+/).filter((word) => words.has(word)).length / words.size }))
        .sort((a, b) => b.relevanceScore - a.relevanceScore)
        .slice(0, options.topN);
      return { ranking };
    },
  });
}

const corpus = [
  { docId: 'fusion', text: 'Hybrid retrieval fuses keyword and vector results with reciprocal rank fusion.' },
  { docId: 'guard', text: 'The guard checks the composed context for prompt injection and empty results.' },
  { docId: 'budget', text: 'The composer fits passages into the budget and compresses the last one.' },
  { docId: 'arabic', text: 'يعيد المسترجع الهجين دمج نتائج الكلمات المفتاحية والمتجهات.' },
];

describe('aiSdkReranker (MockRerankingModelV4 of ai/test)', () => {
  it("reranks the engine's candidates through the AI SDK's rerank(): the model's scores become the rerank factor", async () => {
    const calls: RerankCall[] = [];
    const engine = new ContextEngine({ reranker: aiSdkReranker(wordOverlapModel(calls)) });
    await engine.index(corpus);
    const controller = new AbortController();
    const result = await engine.run('the guard checks the composed context', { maxChunks: 2, signal: controller.signal });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.query).toBe('the guard checks the composed context');
    expect(calls[0]!.topN).toBe(2);
    expect(calls[0]!.documents.type).toBe('text');
    expect(calls[0]!.abortSignal).toBeInstanceOf(AbortSignal);
    expect(result.reranker).toBe('ai-sdk:mock/overlap-1');
    expect(result.chunks[0]?.chunk.docId).toBe('guard');
    // 'The guard checks the composed context …': six of its words are query words ('the' twice).
    expect(result.chunks[0]?.scores.rerank).toBeCloseTo(6 / 5, 10);
    expect(explainResult(result)).toContain('reranked by ai-sdk:mock/overlap-1');
  });

  it('passes the name, provider options and headers; a model error fails the run', async () => {
    const calls: RerankCall[] = [];
    const reranker = aiSdkReranker(wordOverlapModel(calls), { name: 'cohere', providerOptions: { mock: { returnDocuments: false } }, headers: { 'x-key': 'k' }, maxRetries: 0 });
    expect(reranker.name).toBe('cohere');
    const engine = new ContextEngine({ reranker });
    await engine.index(corpus);
    await engine.run('hybrid retrieval fusion');
    expect(calls[0]!.providerOptions).toEqual({ mock: { returnDocuments: false } });
    expect(calls[0]!.headers).toMatchObject({ 'x-key': 'k' });

    const failing = new ContextEngine({ reranker: aiSdkReranker(new MockRerankingModelV4({ doRerank: async () => { throw new Error('rate limited'); } }), { maxRetries: 0 }) });
    await failing.index(corpus);
    await expect(failing.run('hybrid retrieval')).rejects.toThrow('rate limited');
  });

  it('rejects what is not a reranking model, and unknown options', () => {
    expect(() => aiSdkReranker({} as never)).toThrow(/model must be an AI SDK reranking model/);
    expect(() => aiSdkReranker(wordOverlapModel([]), { top: 3 } as never)).toThrow(/options\.top must be a known option/);
  });
});
