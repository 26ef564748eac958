import fc from 'fast-check';
import type { LengthCounter } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import * as text from './index.js';
import { Analyzer, charCounter, normalizeArabic, normalizeText, splitSentences, tokenize, truncateAtWordBoundary, wordCounter } from './index.js';

// Characters that stress text handling: Arabic letters and their variants, harakat, tatweel,
// Quranic marks, Arabic punctuation and digits, bidi controls, joiners, combining marks, emoji
// parts, lone surrogates, whitespace and sentence terminators.
const SPECIAL = [
  'ا', 'أ', 'إ', 'آ', 'ٱ', 'ى', 'ي', 'ة', 'ه', 'ؤ', 'ئ', 'ء', 'و', 'ل', 'ب', 'ك', 'ف', 'م', 'ن', 'ت', 'ی', 'ک',
  '\u064B', '\u064E', '\u0650', '\u0651', '\u0652', '\u0653', '\u0654', '\u0655', '\u0670', '\u0640', '\u06D6', '\u06ED', '\u0610',
  '،', '؛', '؟', '۔', '٠', '٣', '٩', '۴', '٫', 'ﻻ', 'ﷺ', 'ﺍ',
  '\u200E', '\u200F', '\u202E', '\u202A', '\u2066', '\u061C', '\u200B', '\u200C', '\u200D', '\u00AD', '\uFEFF',
  '\u0301', '\u0308', '\u0307', 'İ', 'ǅ', 'Σ', 'ß', 'ﬁ', 'Ａ', '½', '①',
  '👩', '\u{1F3FD}', '\uFE0F', '🇸', '🇦', '𝐀', '𠀀', '\u{1EE00}',
  ' ', '\n', '\r\n', '\t', '\u00A0', '.', '!', '?', '…', '"', '»', 'e.g.', 'Dr.', '3.5', 'a', 'B', 'z',
];
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
const unit = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SPECIAL) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: loneSurrogate },
  { weight: 2, arbitrary: fc.integer({ min: 0x0600, max: 0x06ff }).map((code) => String.fromCharCode(code)) },
);
// A small alphabet whose characters interact (base letters, seats, marks, tatweel, invisible
// characters between them), so short strings hit composition and stripping corner cases often.
const INTERACTING = ['e', 'a', 'I', 'ا', 'و', 'ي', 'ى', 'ه', '\u0640', '\u200B', '\u200D', '\u200F', '\u0301', '\u0654', '\u0653', '\u064E', '\u0308', '\u0307', 'İ', 'ǅ', 'Σ', ' ', '.', '\uD835', '\uDCD0'];
const anyText = fc.oneof(
  fc.string({ unit, maxLength: 60 }),
  fc.string({ unit: fc.constantFrom(...INTERACTING), maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);
const arabicOptions = fc.record({ tehMarbuta: fc.boolean(), hamzaSeats: fc.boolean() }, { requiredKeys: [] });
const RUNS = { numRuns: 400 };

function wordBoundaryViolation(input: string, cut: number): string | undefined {
  for (const token of tokenize(input)) {
    if (token.start < cut && cut < token.end) return `cut ${cut} inside token ${JSON.stringify(token)}`;
  }
  if (/^\p{M}/u.test(input.slice(cut))) return `cut ${cut} before a combining mark`;
  return undefined;
}

describe('properties', () => {
  it('normalizeArabic is idempotent', () => {
    fc.assert(
      fc.property(anyText, arabicOptions, (input, options) => {
        const once = normalizeArabic(input, options);
        expect(normalizeArabic(once, options)).toBe(once);
      }),
      RUNS,
    );
  });

  it('normalizeText is idempotent and leaves no Arabic-Indic digits, harakat or tatweel', () => {
    fc.assert(
      fc.property(anyText, arabicOptions, (input, options) => {
        const once = normalizeText(input, options);
        expect(normalizeText(once, options)).toBe(once);
        expect(once).not.toMatch(/[\u0660-\u0669\u06F0-\u06F9\u064B-\u0652\u0640]/);
      }),
      RUNS,
    );
  });

  it('normalizeText fast paths agree with the full pipeline', () => {
    const simpleUnit = fc.oneof(
      fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)),
      fc.integer({ min: 0x0621, max: 0x0670 }).map((code) => String.fromCharCode(code)),
      fc.constantFrom('\u060C', '\u061B', '\u061F', '\u06F0', '\u06F9', 'ا', 'و', 'ي', 'ى', '\u0653', '\u0654', '\u0655', '\u064E', '\u0651'),
    );
    fc.assert(
      fc.property(fc.string({ unit: simpleUnit, maxLength: 16 }), arabicOptions, (input, options) => {
        const full = text
          .foldDigits(normalizeArabic(input.normalize('NFKC').replace(/\p{Cf}/gu, '').toLowerCase(), options))
          .normalize('NFKC');
        expect(normalizeText(input, options)).toBe(full);
      }),
      RUNS,
    );
  });

  it('tokenize yields non-empty, ordered tokens that slice the input', () => {
    fc.assert(
      fc.property(anyText, (input) => {
        let previousEnd = 0;
        for (const token of tokenize(input)) {
          expect(token.text.length).toBeGreaterThan(0);
          expect(input.slice(token.start, token.end)).toBe(token.text);
          expect(token.start).toBeGreaterThanOrEqual(previousEnd);
          previousEnd = token.end;
        }
        expect(wordCounter(input)).toBe(tokenize(input).length);
        expect(text.words(input)).toEqual(tokenize(input).map((token) => token.text));
      }),
      RUNS,
    );
  });

  it('splitSentences returns ordered, trimmed sentences that slice the input and cover every non-space character', () => {
    fc.assert(
      fc.property(anyText, (input) => {
        let previousEnd = 0;
        for (const sentence of splitSentences(input)) {
          expect(sentence.text.length).toBeGreaterThan(0);
          expect(input.slice(sentence.start, sentence.end)).toBe(sentence.text);
          expect(sentence.text).toBe(sentence.text.trim());
          expect(input.slice(previousEnd, sentence.start).trim()).toBe('');
          previousEnd = sentence.end;
        }
        expect(input.slice(previousEnd).trim()).toBe('');
      }),
      RUNS,
    );
  });

  it('truncateAtWordBoundary respects the budget and cuts at a word boundary', () => {
    const counters: LengthCounter[] = [charCounter, wordCounter];
    fc.assert(
      fc.property(anyText, fc.nat({ max: 70 }), fc.constantFrom(...counters), fc.constantFrom('…', '', ' [...]'), (input, budget, counter, ellipsis) => {
        const result = truncateAtWordBoundary(input, budget, counter, { ellipsis });
        expect(counter(result)).toBeLessThanOrEqual(budget);
        if (result === input || result === '') return;
        expect(result.endsWith(ellipsis)).toBe(true);
        const prefix = result.slice(0, result.length - ellipsis.length);
        expect(prefix.length).toBeGreaterThan(0);
        expect(input.startsWith(prefix)).toBe(true);
        expect(wordBoundaryViolation(input, prefix.length)).toBeUndefined();
      }),
      RUNS,
    );
  });

  it('truncateAtWordBoundary keeps the longest prefix that fits: no later word boundary would have fitted', () => {
    // The reference: every boundary of the whole text (token ends, ends of whitespace-delimited
    // chunks), tried one by one; the implementation only tokenizes the chunk around the cut.
    const reference = (input: string, budget: number, counter: LengthCounter, ellipsis: string): string => {
      const boundaries = new Set<number>(tokenize(input).map((token) => token.end));
      for (const match of input.matchAll(/(?<=\S)\s/gu)) boundaries.add(match.index);
      let best = '';
      for (const boundary of [...boundaries].filter((b) => b > 0 && b < input.length).sort((a, b) => a - b)) {
        const candidate = input.slice(0, boundary) + ellipsis;
        if (counter(candidate) <= budget) best = candidate;
      }
      return best;
    };
    fc.assert(
      fc.property(anyText, fc.nat({ max: 70 }), fc.constantFrom(charCounter, wordCounter), fc.constantFrom('…', '', ' [...]'), (input, budget, counter, ellipsis) => {
        const result = truncateAtWordBoundary(input, budget, counter, { ellipsis });
        if (counter(input) <= budget) expect(result).toBe(input);
        else expect(result).toBe(reference(input, budget, counter, ellipsis));
      }),
      RUNS,
    );
  });

  it('charCounter counts code points', () => {
    fc.assert(
      fc.property(anyText, (input) => {
        expect(charCounter(input)).toBe([...input].length);
      }),
      RUNS,
    );
  });

  it('the analyzer yields non-empty terms with tokens that slice the input, for every stemmer', () => {
    const analyzers = [new Analyzer(), new Analyzer({ arabic: { stemmer: 'snowball', tehMarbuta: true, hamzaSeats: true } }), new Analyzer({ stem: false, stopwords: false })];
    fc.assert(
      fc.property(anyText, fc.constantFrom(...analyzers), (input, analyzer) => {
        const analyzed = analyzer.analyzeTokens(input);
        expect(analyzer.analyze(input)).toEqual(analyzed.map((entry) => entry.term));
        for (const { term, token } of analyzed) {
          expect(term.length).toBeGreaterThan(0);
          expect(input.slice(token.start, token.end)).toBe(token.text);
        }
      }),
      RUNS,
    );
  });

  it('scriptMix shares are in [0, 1] and sum to 1 or 0', () => {
    fc.assert(
      fc.property(anyText, (input) => {
        const mix = text.scriptMix(input);
        const sum = mix.arabic + mix.latin + mix.other;
        expect(sum === 0 || Math.abs(sum - 1) < 1e-9).toBe(true);
        expect(text.isArabic(input)).toBe(mix.arabic > 0);
      }),
      RUNS,
    );
  });

  it('no exported function throws on arbitrary Unicode', () => {
    fc.assert(
      fc.property(anyText, (input) => {
        callEverything(input);
      }),
      RUNS,
    );
  });

  // Seconds of work on a 1 MB string: on a loaded 2-core machine it outlives vitest's 5 s default.
  it('no exported function throws on edge inputs and a 1 MB string', { timeout: 60_000 }, () => {
    const megabyte = buildMegabyte();
    expect(megabyte.length).toBeGreaterThanOrEqual(1_000_000);
    for (const input of ['', ' ', '\u200F\u202E', '\uD800', '\uDC00a\uD800', '👩‍👩‍👧‍👦', 'e\u0301\u0301\u0301', megabyte]) callEverything(input);
  });
});

function buildMegabyte(): string {
  const parts = ['مُحَمَّدٌ ذهب إلى المكتبة، وقرأ كتاباً عن machine learning في ٢٠٢٤. ', 'The quick brown fox jumps over 3.5 lazy dogs! ', '👩‍👩‍👧 \u200F\u202E ', 'e\u0301 ', '\uD800 '];
  let result = '';
  let index = 0;
  while (result.length < 1_000_000) result += parts[index++ % parts.length];
  return result;
}

function callEverything(input: string): void {
  text.normalizeArabic(input);
  text.normalizeArabic(input, { tehMarbuta: true, hamzaSeats: true });
  text.normalizeText(input);
  text.foldDigits(input);
  text.tokenize(input);
  text.words(input);
  text.scriptMix(input);
  text.detectLanguage(input);
  text.tokenScript(input);
  text.isArabic(input);
  text.isRightToLeft(input);
  text.isStopword(input);
  text.splitSentences(input);
  text.charCounter(input);
  text.wordCounter(input);
  text.truncateAtWordBoundary(input, 10);
  text.truncateAtWordBoundary(input, 3, text.wordCounter);
  text.defaultAnalyzer.analyze(input);
  text.defaultAnalyzer.analyzeTokens(input);
  if (input.length < 1000) {
    // Stemmers take single words; feeding them whole strings must still not throw.
    text.stemArabic(input);
    text.stemEnglish(input);
    text.snowballStemArabic(input);
  }
}
