import { describe, expect, it } from 'vitest';
import { tokenize, words } from './tokenizer.js';

describe('tokenize', () => {
  it('splits mixed Arabic/English text with script per token', () => {
    const text = 'تعلم machine learning في 2024';
    expect(tokenize(text).map((token) => [token.text, token.script])).toEqual([
      ['تعلم', 'arabic'],
      ['machine', 'latin'],
      ['learning', 'latin'],
      ['في', 'arabic'],
      ['2024', 'digit'],
    ]);
  });
  it('keeps harakat and tatweel inside Arabic words', () => {
    expect(words('مُحَمَّدٌ العـــربية')).toEqual(['مُحَمَّدٌ', 'العـــربية']);
  });
  it('keeps Latin combining marks inside words', () => {
    expect(words('cafe\u0301 nai\u0308ve')).toEqual(['cafe\u0301', 'nai\u0308ve']);
  });
  it('splits on Arabic punctuation', () => {
    expect(words('نعم،لا؛ربما؟ حسنا۔تم')).toEqual(['نعم', 'لا', 'ربما', 'حسنا', 'تم']);
  });
  it('makes tokens of Arabic-Indic digits and splits digits from letters', () => {
    expect(tokenize('عام ٢٠٢٤م').map((token) => [token.text, token.script])).toEqual([
      ['عام', 'arabic'],
      ['٢٠٢٤', 'digit'],
      ['م', 'arabic'],
    ]);
    expect(words('gpt4 covid-19')).toEqual(['gpt', '4', 'covid', '19']);
  });
  it('splits at a change of script inside a run of letters', () => {
    expect(tokenize('الAI').map((token) => token.script)).toEqual(['arabic', 'latin']);
  });
  it('keeps zero-width non-joiners between letters inside the word', () => {
    expect(words('می\u200Cخواهم')).toEqual(['می\u200Cخواهم']);
  });
  it('reports offsets that slice the input', () => {
    const text = '😀 Hello, مرحبا!  42';
    for (const token of tokenize(text)) expect(text.slice(token.start, token.end)).toBe(token.text);
  });
  it('yields nothing for punctuation, emoji and empty input', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize('... ، ؟ 👩‍👩‍👧 \u200F')).toEqual([]);
  });
  it('rejects non-strings', () => {
    expect(() => tokenize(undefined as unknown as string)).toThrow('text must be a string, got undefined');
    expect(() => words({} as unknown as string)).toThrow('text must be a string, got object');
  });
});
