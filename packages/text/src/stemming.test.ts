import { describe, expect, it } from 'vitest';
import { snowballStemArabic } from './arabic-snowball-stemmer.js';
import { stemArabic } from './arabic-stemmer.js';
import { MAX_STEMMED_LENGTH, stemEnglish } from './english-stemmer.js';
import { normalizeArabic } from './normalization.js';
import { ARABIC_STOPWORDS, ENGLISH_STOPWORDS, isStopword } from './stopwords.js';

describe('stemArabic (light)', () => {
  it('removes article prefixes and common suffixes', () => {
    expect(stemArabic('المكتبة')).toBe('مكتب');
    expect(stemArabic('مكتبات')).toBe('مكتب');
    expect(stemArabic('والكتاب')).toBe('كتاب');
    expect(stemArabic('بالقلم')).toBe('قلم');
    expect(stemArabic('للطلاب')).toBe('طلاب');
    expect(stemArabic('المعلمون')).toBe('معلم');
    expect(stemArabic('كتابها')).toBe('كتاب');
    expect(stemArabic('مدرسية')).toBe('مدرس');
  });
  it('keeps short words and a leading root waw', () => {
    expect(stemArabic('كتب')).toBe('كتب');
    expect(stemArabic('وصل')).toBe('وصل');
    expect(stemArabic('في')).toBe('في');
    expect(stemArabic('بنات')).toBe('بنات');
    expect(stemArabic('يده')).toBe('يد');
  });
  it('does not turn الله into له', () => {
    expect(stemArabic('الله')).toBe('الله');
    expect(stemArabic('والله')).toBe('الله');
  });
  it('rejects non-strings', () => {
    expect(() => stemArabic(3 as unknown as string)).toThrow('word must be a string, got number 3');
  });
});

describe('snowballStemArabic', () => {
  it('stems like the Snowball Arabic algorithm', () => {
    expect(snowballStemArabic('المكتبة')).toBe('مكتب');
    expect(snowballStemArabic('يكتبون')).toBe('يكتب');
  });
  it('returns a "word" longer than MAX_STEMMED_LENGTH unchanged, as the analyzer path does (issue 15, defect 6)', () => {
    // A letter followed by combining marks: the Snowball implementation is superlinear on it.
    const long = 'ب' + '\u064E'.repeat(MAX_STEMMED_LENGTH);
    expect(snowballStemArabic(long)).toBe(long);
    const huge = 'ب' + '\u064E'.repeat(100_000);
    expect(snowballStemArabic(huge)).toBe(huge);
    // At the limit it still stems.
    const atLimit = 'ب' + '\u064E'.repeat(MAX_STEMMED_LENGTH - 1);
    expect(snowballStemArabic(atLimit)).not.toBe(atLimit);
  });
  it('rejects non-strings', () => {
    expect(() => snowballStemArabic(null as unknown as string)).toThrow('word must be a string, got null');
  });
});

describe('stemEnglish', () => {
  it('applies Porter2', () => {
    expect(stemEnglish('running')).toBe('run');
    expect(stemEnglish('studies')).toBe('studi');
    expect(stemEnglish('connection')).toBe('connect');
    expect(stemEnglish('generously')).toBe('generous');
  });
  it('rejects non-strings', () => {
    expect(() => stemEnglish(1 as unknown as string)).toThrow('word must be a string');
  });
});

describe('stopwords', () => {
  it('holds normalised Arabic forms', () => {
    for (const word of ['في', 'من', 'على', 'الى', 'عن', 'ان', 'هذا', 'هذه', 'التي', 'الذي', 'كان', 'ما', 'لا', 'هو', 'هي']) {
      expect(ARABIC_STOPWORDS.has(normalizeArabic(word)), word).toBe(true);
    }
    expect(ARABIC_STOPWORDS.has('إلى')).toBe(false);
    expect(ARABIC_STOPWORDS.has('كتاب')).toBe(false);
    // Normalised forms that are also content words stay searchable.
    expect(ARABIC_STOPWORDS.has('ام')).toBe(false);
    expect(ARABIC_STOPWORDS.has('اية')).toBe(false);
    expect(ARABIC_STOPWORDS.has('انه')).toBe(true);
  });
  it('holds common English words', () => {
    expect(ENGLISH_STOPWORDS.size).toBeGreaterThanOrEqual(150);
    for (const word of ['the', 'and', 'of', 'is', 'which']) expect(ENGLISH_STOPWORDS.has(word)).toBe(true);
    expect(ENGLISH_STOPWORDS.has('retrieval')).toBe(false);
  });
  it('cannot be mutated', () => {
    expect(() => (ARABIC_STOPWORDS as Set<string>).add('كتاب')).toThrow('read-only');
    expect(() => (ENGLISH_STOPWORDS as Set<string>).delete('the')).toThrow('read-only');
    expect(() => (ENGLISH_STOPWORDS as Set<string>).clear()).toThrow('read-only');
    expect(ENGLISH_STOPWORDS.has('the')).toBe(true);
    expect(new Set(ARABIC_STOPWORDS).add('كتاب').has('كتاب')).toBe(true);
  });
  it('isStopword checks by script after normalisation', () => {
    expect(isStopword('The')).toBe(true);
    expect(isStopword('إلى')).toBe(true);
    expect(isStopword('فِي')).toBe(true);
    expect(isStopword('book')).toBe(false);
    expect(isStopword('2024')).toBe(false);
    expect(() => isStopword(5 as unknown as string)).toThrow('term must be a string, got number 5');
  });
});

describe('pathological input', () => {
  it('leaves tokens longer than any English word unstemmed, so a 1 MB word cannot stall analysis', async () => {
    const { stemEnglish, defaultAnalyzer, MAX_STEMMED_LENGTH } = await import('./index.js');
    const long = 'abcdefghij'.repeat(2_000) + 'ing';
    expect(stemEnglish(long)).toBe(long);
    expect(stemEnglish('running')).toBe('run');
    expect('x'.repeat(MAX_STEMMED_LENGTH + 1)).toHaveLength(65);
    const terms = defaultAnalyzer.analyze(`${'q'.repeat(1_000_000)} running`);
    expect(terms).toEqual(['q'.repeat(1_000_000), 'run']);
  });
});
