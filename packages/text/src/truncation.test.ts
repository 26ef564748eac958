import fc from 'fast-check';
import type { LengthCounter } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { charCounter, wordCounter } from './counters.js';
import { truncateAtWordBoundary } from './truncation.js';

describe('truncateAtWordBoundary', () => {
  it('returns the text unchanged when it fits', () => {
    expect(truncateAtWordBoundary('short text', 100)).toBe('short text');
  });
  it('cuts at the last word boundary that fits, with the ellipsis', () => {
    expect(truncateAtWordBoundary('Hello wonderful world', 16)).toBe('Hello wonderful…');
    expect(truncateAtWordBoundary('Hello wonderful world', 15)).toBe('Hello…');
  });
  it('never cuts inside an Arabic word or between a letter and its harakat', () => {
    const text = 'مُحَمَّدٌ رَسُولُ اللَّهِ';
    const result = truncateAtWordBoundary(text, 12);
    expect(result).toBe('مُحَمَّدٌ…');
  });
  it('returns empty when not even the first word fits', () => {
    expect(truncateAtWordBoundary('Hello world', 3)).toBe('');
  });
  it('supports other counters and ellipses', () => {
    expect(truncateAtWordBoundary('one two three four', 2, wordCounter)).toBe('one two…');
    expect(truncateAtWordBoundary('one two three four', 9, charCounter, { ellipsis: '' })).toBe('one two');
    expect(truncateAtWordBoundary('one two three four', 12, charCounter, { ellipsis: ' [...]' })).toBe('one [...]');
  });
  it('keeps trailing punctuation of a chunk', () => {
    expect(truncateAtWordBoundary('Hello, world and more', 8)).toBe('Hello,…');
  });
  it('handles long texts', () => {
    const text = 'word '.repeat(200_000);
    const result = truncateAtWordBoundary(text, 100);
    expect(charCounter(result)).toBeLessThanOrEqual(100);
    expect(result.endsWith('word…')).toBe(true);
  });
  it('rejects bad arguments naming them', () => {
    expect(() => truncateAtWordBoundary(1 as unknown as string, 5)).toThrow('text must be a string, got number 1');
    expect(() => truncateAtWordBoundary('x', -1)).toThrow('budget must be a number >= 0, got number -1');
    expect(() => truncateAtWordBoundary('x', Number.NaN)).toThrow('budget must be a number >= 0, got number NaN');
    expect(() => truncateAtWordBoundary('x', 1, 'chars' as never)).toThrow('counter must be a LengthCounter function');
    expect(() => truncateAtWordBoundary('x y', 1, charCounter, { ellipsis: 3 } as never)).toThrow('options.ellipsis must be a string, got number 3');
  });
});

describe('counters', () => {
  it('counts code points', () => {
    expect(charCounter('abc')).toBe(3);
    expect(charCounter('😀')).toBe(1);
    expect(charCounter('مُحَمَّد')).toBe(8);
    expect(charCounter('\uD800x')).toBe(2);
    expect(charCounter.unit).toBe('chars');
  });
  it('counts words', () => {
    expect(wordCounter('تعلم machine learning في 2024!')).toBe(5);
    expect(wordCounter('... 😀')).toBe(0);
    expect(wordCounter.unit).toBe('words');
  });
  it('reject non-strings', () => {
    expect(() => charCounter(5 as unknown as string)).toThrow('text must be a string, got number 5');
    expect(() => wordCounter(5 as unknown as string)).toThrow('text must be a string, got number 5');
  });
});

describe('truncateAtWordBoundary with a counter in characters (interpolation search)', () => {
  // What the composer measures: a context around the prefix — a fixed frame plus the prefix's characters.
  const framed = (frame: number, unit?: string): LengthCounter & { calls: number } => {
    const counter = Object.assign((text: string) => {
      counter.calls += 1;
      return frame + charCounter(text);
    }, { calls: 0 });
    return unit === undefined ? counter : Object.assign(counter, { unit });
  };
  const words = ['Hello', 'wonderful', 'world,', 'مُحَمَّدٌ', 'رَسُولُ', 'الـلَّه', 'أإآ', '؟', '،', 'e.g.', '3.5', '👩🏽', '\u0301x', 'C++'];
  const texts = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 300, size: 'max' }).chain((parts) => fc.tuple(fc.constant(parts), fc.array(fc.constantFrom(' ', '  ', '\n', ' — '), { minLength: parts.length, maxLength: parts.length })));

  it('cuts exactly where the bisection cuts (English, Arabic with harakat and tatweel, emoji), in far fewer counts', () => {
    let interpolated = 0;
    let bisected = 0;
    fc.assert(
      fc.property(texts, fc.integer({ min: 0, max: 500 }), fc.integer({ min: 1, max: 2_500 }), ([parts, gaps], frame, budget) => {
        const text = parts.map((part, index) => part + gaps[index]).join('');
        const byInterpolation = framed(frame, 'chars');
        const byBisection = framed(frame);
        const cut = truncateAtWordBoundary(text, budget, byInterpolation);
        expect(cut).toBe(truncateAtWordBoundary(text, budget, byBisection));
        // Counted where there was a search: the text was cut, and somewhere past its first words.
        if (cut !== text && cut.length > 64) {
          expect(byInterpolation.calls).toBeLessThanOrEqual(byBisection.calls);
          interpolated += byInterpolation.calls;
          bisected += byBisection.calls;
        }
      }),
      { numRuns: 1500 },
    );
    // A counter linear in the prefix is found in two or three counts after the growing probes both
    // searches share; bisection needs about log2(length) (all counts: ~0.6 of the bisection's).
    expect(interpolated).toBeLessThan(0.7 * bisected);
  });
});
