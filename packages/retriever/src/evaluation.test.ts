import { describe, expect, it } from 'vitest';
import { evaluateRun, ndcgAtK, parseQrels, reciprocalRankAtK, recallAtK } from './evaluation.js';

const judgements = new Map([
  ['d1', 1],
  ['d2', 2],
  ['d3', 0],
]);

describe('evaluation metrics', () => {
  it('nDCG@k uses linear gains and the ideal ordering of all judged documents', () => {
    // DCG = 1/log2(2) [d1] + 0 [x] + 2/log2(4) [d2] = 1 + 1 ; IDCG = 2/1 + 1/log2(3)
    expect(ndcgAtK(['d1', 'x', 'd2'], judgements, 10)).toBeCloseTo(2 / (2 + 1 / Math.log2(3)), 12);
    expect(ndcgAtK(['d2', 'd1'], judgements, 10)).toBeCloseTo(1, 12);
    expect(ndcgAtK(['d1', 'x', 'd2'], judgements, 2)).toBeCloseTo(1 / (2 + 1 / Math.log2(3)), 12);
    expect(ndcgAtK(['d1', 'd1', 'd2'], judgements, 2)).toBeCloseTo(ndcgAtK(['d1', 'd2'], judgements, 2), 12);
    expect(ndcgAtK([], judgements, 10)).toBe(0);
    expect(ndcgAtK(['d3'], new Map([['d3', 0]]), 10)).toBe(0);
  });

  it('recall@k and reciprocal rank@k', () => {
    expect(recallAtK(['x', 'd2', 'y'], judgements, 10)).toBe(0.5);
    expect(recallAtK(['x', 'd2', 'd1'], judgements, 2)).toBe(0.5);
    expect(recallAtK(['d1', 'd2'], judgements, 2)).toBe(1);
    expect(reciprocalRankAtK(['x', 'y', 'd1'], judgements, 10)).toBeCloseTo(1 / 3, 12);
    expect(reciprocalRankAtK(['x', 'y', 'd1'], judgements, 2)).toBe(0);
    expect(() => recallAtK([], judgements, 0)).toThrow(/k must be a positive integer/);
  });

  it('evaluateRun averages over every judged query, missing runs counting 0', () => {
    const qrels = new Map([
      ['q1', new Map([['a', 1]])],
      ['q2', new Map([['b', 1]])],
      ['q3', new Map([['c', 0]])],
    ]);
    const summary = evaluateRun(new Map([['q1', ['a']]]), qrels);
    expect(summary).toEqual({ queries: 2, ndcgAt10: 0.5, recallAt10: 0.5, recallAt100: 0.5, mrrAt10: 0.5 });
  });

  it('parses BEIR qrels TSV', () => {
    const qrels = parseQrels('query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\n\nq2\td9\t0\n');
    expect([...qrels.keys()]).toEqual(['q1', 'q2']);
    expect(qrels.get('q1')).toEqual(new Map([['d1', 1], ['d2', 2]]));
    expect(() => parseQrels('q1\td1\n')).toThrow(/tsv line 1/);
  });
});
