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
