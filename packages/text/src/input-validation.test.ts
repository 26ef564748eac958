import { ZerdaError } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import * as text from './index.js';

// Every exported function, called with a bad first argument, must throw a ZerdaError whose
// message names the parameter, shows what it got and what it expected.
const FUNCTIONS: Array<[string, (value: unknown) => unknown, string]> = [
  ['normalizeArabic', (value) => text.normalizeArabic(value as string), 'text'],
  ['normalizeText', (value) => text.normalizeText(value as string), 'text'],
  ['foldDigits', (value) => text.foldDigits(value as string), 'text'],
  ['tokenize', (value) => text.tokenize(value as string), 'text'],
  ['words', (value) => text.words(value as string), 'text'],
  ['scriptMix', (value) => text.scriptMix(value as string), 'text'],
  ['detectLanguage', (value) => text.detectLanguage(value as string), 'text'],
  ['tokenScript', (value) => text.tokenScript(value as string), 'token'],
  ['isArabic', (value) => text.isArabic(value as string), 'text'],
  ['isRightToLeft', (value) => text.isRightToLeft(value as string), 'text'],
  ['stemArabic', (value) => text.stemArabic(value as string), 'word'],
  ['snowballStemArabic', (value) => text.snowballStemArabic(value as string), 'word'],
  ['stemEnglish', (value) => text.stemEnglish(value as string), 'word'],
  ['isStopword', (value) => text.isStopword(value as string), 'term'],
  ['splitSentences', (value) => text.splitSentences(value as string), 'text'],
  ['truncateAtWordBoundary', (value) => text.truncateAtWordBoundary(value as string, 10), 'text'],
  ['charCounter', (value) => text.charCounter(value as string), 'text'],
  ['wordCounter', (value) => text.wordCounter(value as string), 'text'],
  ['Analyzer.analyze', (value) => text.defaultAnalyzer.analyze(value as string), 'text'],
  ['Analyzer.analyzeTokens', (value) => text.defaultAnalyzer.analyzeTokens(value as string), 'text'],
];

describe('input validation', () => {
  for (const [name, call, parameter] of FUNCTIONS) {
    it(`${name} rejects non-strings naming "${parameter}"`, () => {
      for (const [value, described] of [
        [5, 'number 5'],
        [null, 'null'],
        [undefined, 'undefined'],
        [['a'], 'array(1)'],
        [Symbol('x'), 'symbol'],
      ] as const) {
        let thrown: unknown;
        try {
          call(value);
        } catch (error) {
          thrown = error;
        }
        expect(ZerdaError.isInstance(thrown), `${name}(${described})`).toBe(true);
        const error = thrown as ZerdaError;
        expect(error.code).toBe('ZERDA_INVALID_ARGUMENT');
        expect(error.message).toBe(`${parameter} must be a string, got ${described}`);
        expect(error.details.field).toBe(parameter);
      }
    });
  }

  it('rejects bad options of the normalizers', () => {
    expect(() => text.normalizeText('x', 'ar' as never)).toThrow('options must be an object, got string "ar"');
    expect(() => text.normalizeText('x', { hamzaSeats: 1 } as never)).toThrow('options.hamzaSeats must be a boolean, got number 1');
  });

  it('rejects bad truncation options', () => {
    expect(() => text.truncateAtWordBoundary('a b', 1, text.charCounter, { elipsis: '' } as never)).toThrow('options.elipsis');
    expect(() => text.truncateAtWordBoundary('a b', '5' as never)).toThrow('budget must be a number >= 0, got string "5"');
  });
});
