import { describe, expect, it } from 'vitest';
import { questionVariants, runArabicExample } from './index.js';

describe('arabic example', () => {
  it('folds every spelling of a question together, answers in Arabic, and flags an English-only answer', async () => {
    const lines: string[] = [];
    const outcome = await runArabicExample((line) => lines.push(line));

    // Normalization: diacritics, tatweel and alef variants vanish; ى and ي meet; prefixes are stemmed away.
    const terms = new Map(outcome.folding.map((entry) => [entry.word, entry.light.join(' ')]));
    expect(terms.get('الاسْتِرْجَاع')).toBe('استرجاع');
    expect(terms.get('الاستـــرجاع')).toBe('استرجاع');
    expect(terms.get('إسترجاع')).toBe('استرجاع');
    expect(terms.get('بالاسترجاع')).toBe('استرجاع');
    expect(terms.get('مستوى')).toBe(terms.get('مستوي'));
    expect(terms.get('المكتبة')).toBe(terms.get('بالمكتبات'));

    // The article went through ArabicTextChunker into several chunks.
    expect(outcome.articleChunks).toBeGreaterThan(1);

    // Six spellings: identical terms and identical chunks, led by the chunk that defines recall.
    expect(outcome.variants).toHaveLength(questionVariants.length);
    const reference = outcome.variants[0]!;
    expect(reference.result.chunks[0]!.chunk.id).toBe('evaluation-ar#1');
    expect(reference.result.context).toContain('الاسْتِدْعَاءُ'); // the original text, diacritics kept
    for (const variant of outcome.variants) {
      expect(variant.terms, variant.label).toEqual(reference.terms);
      expect(variant.result.chunks.map((chunk) => chunk.chunk.id), variant.label).toEqual(reference.result.chunks.map((chunk) => chunk.chunk.id));
      expect(variant.result.analysis.language).toBe('ar');
      expect([...variant.result.context].length).toBeLessThanOrEqual(variant.result.budget.limit);
      expect(variant.result.guardPassed).toBe(true);
      expect(variant.result.warnings.map((warning) => warning.code)).not.toContain('language_mismatch');
    }

    // Labels in the query's language: citations list and markdown headings.
    expect(reference.result.context).toContain('المصادر:');
    expect(outcome.markdown.context).toContain('### المصدر:');
    expect(outcome.markdown.context).not.toContain('### Source:');

    // Mixed Arabic/English: detected as mixed, the nDCG passage first.
    expect(outcome.mixed.analysis.language).toBe('mixed');
    expect(outcome.mixed.analysis.keywords).toContain('ndcg');
    expect(outcome.mixed.chunks[0]!.chunk.id).toBe('evaluation-ar#2');

    // An Arabic question that only English text answers: a language_mismatch warning, context still given.
    expect(outcome.mismatch.analysis.language).toBe('ar');
    expect(outcome.mismatch.chunks[0]!.chunk.docId).toBe('bm25-en');
    expect(outcome.mismatch.warnings.map((warning) => warning.code)).toContain('language_mismatch');
    expect(lines.join('\n')).toContain('Arabic query but the context has no Arabic text');
  });
});
