import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fnv1a } from './hash.js';
import { createTokenRegex, scriptOfMatch, tokenize, wordHashes, words } from './tokenizer.js';

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

describe('tokenize: the ASCII fast path', () => {
  // The definition: every match of the token regex, in order.
  const byRegex = (text: string) => [...text.matchAll(createTokenRegex())].map((match) => ({ text: match[0], start: match.index, end: match.index + match[0].length, script: scriptOfMatch(match) }));
  const pieces = fc.constantFrom(
    'word', 'Word', 'p53', 'covid-19', ' ', '.', ',', '\n', '2024', 'e\u0301', '\u0301', '\u00ad', '\u200c', '\u200d', 'é', 'ß', 'ª', 'µ', '–',
    'العربية', 'مُحَمَّدٌ', 'ـ', '،', '؛', '؟', '٢٠٢٤', '۱۲', 'Ω', 'Привет', '漢字', '😀', '\ud800', '1\u0301', 'x\u0640', '\u0640y',
  );
  const text = fc.oneof(fc.string({ maxLength: 60, unit: 'binary' }), fc.string({ maxLength: 60 }), fc.array(pieces, { maxLength: 40 }).map((list) => list.join('')));

  it('finds exactly the tokens the token regex finds (English, Arabic, marks, joiners, mixed)', () => {
    fc.assert(
      fc.property(text, (input) => {
        expect(tokenize(input)).toEqual(byRegex(input));
        expect(words(input)).toEqual(byRegex(input).map((token) => token.text));
      }),
      { numRuns: 3000 },
    );
  });

  it('hands runs that reach a non-ASCII continuation to the regex', () => {
    expect(words('cafe\u0301 naïve co\u00adoperate x\u200dy 12\u0661')).toEqual(['cafe\u0301', 'naïve', 'co\u00adoperate', 'x\u200dy', '12\u0661']);
    expect(tokenize('abc–def').map((token) => [token.text, token.start, token.script])).toEqual([['abc', 0, 'latin'], ['def', 4, 'latin']]);
  });
});

describe('wordHashes', () => {
  it('is words(text).map(fnv1a), for any string (English, Arabic with harakat and tatweel, punctuation ، ؛ ؟, mixed, surrogates)', () => {
    const pieces = fc.constantFrom('word', 'Word', 'بِسْمِ', 'الرَّحْمَٰنِ', 'بـــالعالم', '،', '؛', '؟', ' ', '\n', '2024م', '١٢٣', 'é', '😀', '\ud800', 'ﷺ', 'x-y', "it's");
    const text = fc.oneof(fc.string({ maxLength: 200, unit: 'binary' }), fc.array(pieces, { maxLength: 40 }).map((list) => list.join('')));
    fc.assert(
      fc.property(text, (input) => {
        expect([...wordHashes(input)]).toEqual(words(input).map(fnv1a));
      }),
      { numRuns: 1500 },
    );
    // Longer than the first guess of its size (a word every character).
    const dense = 'a '.repeat(5000);
    expect(wordHashes(dense).length).toBe(5000);
  });

  it('refuses a non-string, naming the field', () => {
    expect(() => wordHashes(42 as unknown as string)).toThrow(/text/);
  });
});
