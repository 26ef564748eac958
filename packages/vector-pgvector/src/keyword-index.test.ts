import { defaultAnalyzer } from '@zerda/text';
import { ZerdaError } from '@zerda/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BM25, MAX_TERM_LENGTH, PostingColumns, analyseChunk, analyzerFor, checkBm25, indexTerm, queryTerms } from './keyword-index.js';

describe('keyword index helpers', () => {
  it('cuts long terms to MAX_TERM_LENGTH code units, never inside a surrogate pair, and leaves short ones alone', () => {
    expect(indexTerm('library')).toBe('library');
    expect(indexTerm('x'.repeat(1000))).toHaveLength(MAX_TERM_LENGTH);
    const astral = `${'a'.repeat(MAX_TERM_LENGTH - 1)}😀`;
    expect(indexTerm(astral)).toBe('a'.repeat(MAX_TERM_LENGTH - 1));
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 600 }), (term) => {
        const cut = indexTerm(term);
        expect(cut.length).toBeLessThanOrEqual(MAX_TERM_LENGTH);
        expect(term.startsWith(cut)).toBe(true);
        // No lone high surrogate at the end unless the term itself had one there.
        if (cut.length < term.length) expect(/[\ud800-\udbff]$/.test(cut)).toBe(false);
        expect(indexTerm(cut)).toBe(cut);
      }),
    );
  });

  it('analyses text and title apart, counting frequencies and lengths in terms (Arabic and English)', () => {
    const analysis = analyseChunk(defaultAnalyzer, 'المكتبات مكتبة the libraries library', 'Libraries');
    const byTerm = Object.fromEntries(analysis.terms.map((term, i) => [term, [analysis.textFrequencies[i], analysis.titleFrequencies[i]]]));
    expect(analysis.textLength).toBe(4); // "the" is a stopword
    expect(analysis.titleLength).toBe(1);
    expect(byTerm.librari).toEqual([2, 1]);
    expect(Object.values(byTerm).reduce((sum, [text]) => sum + text!, 0)).toBe(4);
    expect(analysis.terms.some((term) => /^مكتب/.test(term))).toBe(true);
    expect(analyseChunk(defaultAnalyzer, '', undefined)).toEqual({ textLength: 0, titleLength: 0, terms: [], textFrequencies: [], titleFrequencies: [] });
  });

  it('weights repeated query terms by their count', () => {
    expect(queryTerms(defaultAnalyzer, 'library libraries of the cat')).toEqual({ terms: ['librari', 'cat'], weights: [2, 1] });
    expect(queryTerms(defaultAnalyzer, 'and of')).toEqual({ terms: [], weights: [] });
  });

  it('validates BM25 options, naming the field, and fills in the engine defaults', () => {
    expect(checkBm25(undefined, 'options.bm25')).toEqual(DEFAULT_BM25);
    expect(DEFAULT_BM25).toEqual({ k1: 1.2, b: 0.75, titleWeight: 1 });
    expect(checkBm25({ b: 0.3 }, 'options.bm25', { k1: 2, b: 0.5, titleWeight: 0 })).toEqual({ k1: 2, b: 0.3, titleWeight: 0 });
    for (const [value, field] of [[{ k1: Number.NaN }, 'options.bm25.k1'], [{ b: 1.5 }, 'options.bm25.b'], [{ titleWeight: -1 }, 'options.bm25.titleWeight'], [{ k2: 1 }, 'options.bm25.k2'], ['strong', 'options.bm25']] as const) {
      let error: unknown;
      try {
        checkBm25(value, 'options.bm25');
      } catch (caught) {
        error = caught;
      }
      expect(ZerdaError.isInstance(error)).toBe(true);
      expect((error as ZerdaError).message).toContain(field);
    }
  });

  it('shares the default analyzer instance for default options only', () => {
    expect(analyzerFor(undefined)).toBe(defaultAnalyzer);
    expect(analyzerFor({})).toBe(defaultAnalyzer);
    expect(analyzerFor({ arabic: { stemmer: 'snowball' } })).not.toBe(defaultAnalyzer);
  });

  it('slices postings into statement-sized column arrays', () => {
    const columns = new PostingColumns();
    columns.push('a', analyseChunk(defaultAnalyzer, 'one two three', undefined));
    columns.push('b', analyseChunk(defaultAnalyzer, 'four five', 'six'));
    expect(columns.length).toBe(6);
    const slices = [...columns.slices(4)];
    expect(slices.map((slice) => (slice[0] as string[]).length)).toEqual([4, 2]);
    expect(slices[1]![1]).toEqual(['b', 'b']);
    expect(slices[1]![5]).toEqual([1, 1]);
  });
});
