import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Reranker, ScoredChunk } from '@zerda/types';
import { functionReranker, rerankCandidates, toReranker } from './rerank.js';
import { scored } from './__fixtures__/chunks.js';

const candidates = [
  scored('a', 'Paris is the capital of France.', 0.9),
  scored('b', 'القاهرة هي عاصمة مصر.', 0.8),
  scored('c', 'Berlin is the capital of Germany.', 0.7),
];

function fixed(entries: unknown): Reranker {
  return { name: 'fixed', rerank: () => entries as never };
}

describe('rerankCandidates', () => {
  it('keeps what the reranker returned, best first, with its score as score and scores.rerank', async () => {
    const withFactors: ScoredChunk[] = candidates.map((candidate, i) => ({ ...candidate, scores: { composite: 0.5 - i / 10, keywordBoost: 1 } }));
    const out = await rerankCandidates(fixed([{ index: 2, score: 0.3 }, { index: 1, score: 0.95 }]), 'عاصمة مصر', withFactors, { topN: 5 });
    expect(out.map((item) => item.chunk.id)).toEqual(['b', 'c']);
    expect(out[0]?.score).toBe(0.95);
    expect(out[0]?.scores).toEqual({ composite: 0.4, keywordBoost: 1, rerank: 0.95 });
    expect(withFactors[1]?.scores.rerank, 'inputs are not modified').toBeUndefined();
  });

  it('keeps at most topN and does not call the reranker for an empty list', async () => {
    let calls = 0;
    const counting: Reranker = { rerank: (_query, list) => { calls += 1; return list.map((_, index) => ({ index, score: -index })); } };
    expect(await rerankCandidates(counting, 'q', [], { topN: 2 })).toEqual([]);
    expect(calls).toBe(0);
    expect((await rerankCandidates(counting, 'q', candidates, { topN: 2 })).map((item) => item.chunk.id)).toEqual(['a', 'b']);
  });

  it('rejects out-of-range, duplicate or fractional indices, non-finite scores and non-arrays, naming the reranker', async () => {
    const bad: Array<[unknown, RegExp]> = [
      [[{ index: 3, score: 1 }], /fixed\.rerank\(\)\[0\]\.index must be an integer from 0 to 2/],
      [[{ index: 0, score: 1 }, { index: 0, score: 0.5 }], /fixed\.rerank\(\)\[1\]\.index must be an index not returned before, got number 0, a duplicate/],
      [[{ index: 0.5, score: 1 }], /\[0\]\.index must be an integer/],
      [[{ index: 0, score: Number.NaN }], /fixed\.rerank\(\)\[0\]\.score must be a finite number, got number NaN/],
      [[null], /fixed\.rerank\(\)\[0\] must be an object/],
      [{ 0: { index: 0, score: 1 } }, /fixed\.rerank\(\) must be to return an array/],
    ];
    for (const [entries, message] of bad) {
      await expect(rerankCandidates(fixed(entries), 'q', candidates, { topN: 3 })).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', message: expect.stringMatching(message) });
    }
  });

  it('checks topN and an aborted signal before calling the reranker', async () => {
    await expect(rerankCandidates(fixed([]), 'q', candidates, { topN: 0 })).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', details: { field: 'options.topN' } });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(rerankCandidates(fixed([]), 'q', candidates, { topN: 1, signal: controller.signal })).rejects.toThrow('stop');
  });

  it('property: the output is a subset of the candidates, without repeats, ordered by score, at most topN', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 40 }), async (scores, topN) => {
        const list: ScoredChunk[] = scores.map((_, i) => scored(`c${i}`, `text ${i}`, 1));
        const out = await rerankCandidates(functionReranker(() => scores), 'q', list, { topN });
        expect(out.length).toBe(Math.min(topN, list.length));
        expect(new Set(out.map((item) => item.chunk.id)).size).toBe(out.length);
        for (let i = 1; i < out.length; i++) expect(out[i - 1]!.score).toBeGreaterThanOrEqual(out[i]!.score);
        // The kept ones are the best: nothing left out scores above the last one kept.
        const last = out[out.length - 1]!.score;
        const keptIds = new Set(out.map((item) => item.chunk.id));
        for (let i = 0; i < list.length; i++) if (!keptIds.has(`c${i}`)) expect(scores[i]!).toBeLessThanOrEqual(last);
      }),
    );
  });
});

describe('functionReranker and toReranker', () => {
  it('scores every candidate with the function (an LLM judge, a heuristic), ties in input order', async () => {
    const seen: string[] = [];
    const judge = functionReranker((query, list) => {
      seen.push(query);
      return list.map((candidate) => (candidate.chunk.text.includes('capital') ? 1 : 0));
    }, { name: 'judge' });
    expect(judge.name).toBe('judge');
    const out = await rerankCandidates(judge, 'capital', candidates, { topN: 3 });
    expect(out.map((item) => item.chunk.id)).toEqual(['a', 'c', 'b']);
    expect(seen).toEqual(['capital']);
  });

  it('rejects a function that does not return one finite score per candidate', async () => {
    const short = functionReranker(function shortList() { return [1]; });
    await expect(rerankCandidates(short, 'q', candidates, { topN: 1 })).rejects.toMatchObject({
      code: 'ZERDA_INVALID_ARGUMENT',
      message: expect.stringMatching(/function:shortList\(query, candidates\) must be an array of 3 finite numbers/),
    });
    await expect(rerankCandidates(functionReranker(() => [1, Number.POSITIVE_INFINITY, 0]), 'q', candidates, { topN: 1 })).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT' });
  });

  it('toReranker takes a reranker object or a function and rejects anything else with the field name', () => {
    const object: Reranker = { rerank: () => [] };
    expect(toReranker(object)).toBe(object);
    expect(typeof toReranker(() => [1]).rerank).toBe('function');
    for (const value of [5, {}, [], null, { rerank: 'no' }]) {
      expect(() => toReranker(value, 'options.reranker')).toThrow(/options\.reranker must be a Reranker/);
    }
  });
});
