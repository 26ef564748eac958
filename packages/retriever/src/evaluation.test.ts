import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ZerdaError } from '@zerda/types';
import { answerInContext, evaluateRun, ndcgAtK, normalizeForAnswerMatch, parseQrels, reciprocalRankAtK, recallAtK } from './evaluation.js';

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

describe('answerInContext', () => {
  it('finds an answer after NFKC, case folding and whitespace collapsing on both sides', () => {
    expect(answerInContext('The prize went to\n  SULLY   Prudhomme in 1901.', ['Sully Prudhomme'])).toBe(true);
    expect(answerInContext('ﬁnal answer: Fine', ['FINAL answer'])).toBe(true); // the ﬁ ligature is NFKC-folded
    expect(answerInContext('Sully Prud-homme', ['Sully Prudhomme'])).toBe(false);
  });

  it('ignores Arabic diacritics, tatweel and alef variants on either side, and keeps Arabic punctuation', () => {
    const context = 'وُلِدَ جمال خاشقجي في المدينـــة المنورة، ثم انتقل إلى أمريكا؟';
    expect(answerInContext(context, ['المدينة المنورة'])).toBe(true);
    expect(answerInContext('ولد في المدينة المنورة', ['المَدِينَة المُنَوَّرَة'])).toBe(true);
    expect(answerInContext('انتقل الى امريكا', ['إلى أمريكا'])).toBe(true);
    expect(answerInContext(context, ['المنورة، ثم'])).toBe(true);
    expect(answerInContext(context, ['المنورة؛ ثم'])).toBe(false);
    expect(answerInContext('توفي عام ١٩٥٨', ['1958'])).toBe(true);
  });

  it('handles mixed Arabic/English text and several answers (any one suffices)', () => {
    const context = 'نظام BM25 يرتب الوثائق حسب TF-IDF';
    expect(answerInContext(context, ['absent', 'bm25 يرتب'])).toBe(true);
    expect(answerInContext(context, ['absent', 'غائب'])).toBe(false);
  });

  it('never matches an empty or blank answer, nor an empty answer list', () => {
    expect(answerInContext('anything', [])).toBe(false);
    expect(answerInContext('anything', ['', '  \n', '\u0640\u064E'])).toBe(false);
  });

  it('accepts a context normalised once', () => {
    const normalized = normalizeForAnswerMatch('Quantum Field  Theory\nbegan in the 1920s');
    expect(normalized).toBe('quantum field theory began in the 1920s');
    expect(answerInContext(normalized, ['1920S'], { normalizedContext: true })).toBe(true);
  });

  it('rejects bad input with a ZerdaError naming the field', () => {
    expect(() => answerInContext(5 as unknown as string, ['a'])).toThrow(/context/);
    expect(() => answerInContext('a', 'a' as unknown as string[])).toThrow(/answers/);
    expect(() => answerInContext('a', [5 as unknown as string])).toThrow(/answers\[0\]/);
    expect(() => answerInContext('a', ['a'], { normalised: true } as never)).toThrow(/options\.normalised/);
    expect(() => answerInContext('a', ['a'], null as never)).toThrow(/options/);
    expect(() => normalizeForAnswerMatch(null as unknown as string)).toThrow(ZerdaError);
  });

  it('finds every answer that stands in the context between spaces, whatever its Unicode (property)', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(text, text, text, (before, answer, after) => {
        const found = answerInContext(`${before} ${answer} ${after}`, [answer]);
        return normalizeForAnswerMatch(answer) === '' ? !found : found;
      }),
      { numRuns: 500 },
    );
  });

  it('does not find an answer the context does not hold (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (context) => !answerInContext(context, [`${context}\u0001zerda-answer`])),
    );
  });
});
