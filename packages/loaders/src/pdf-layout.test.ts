import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutPdfPage, type PdfTextRun } from './pdf-layout.js';

const ARABIC_LETTERS = [...'ابتثجحخدذرزسشصضطظعغفقكلمنهوي'];
const HARAKAT = ['\u064E', '\u064F', '\u0650', '\u0652', '\u0651\u064E', '\u064B'];
const ENGLISH_LETTERS = [...'abcdefghijklmnopqrstuvwxyz'];

/** A word as clusters: a base letter and the marks drawn on it. */
type Word = Array<{ base: string; marks: string }>;

const arabicWord: fc.Arbitrary<Word> = fc.array(
  fc.record({ base: fc.constantFrom(...ARABIC_LETTERS), marks: fc.oneof(fc.constant(''), fc.constantFrom(...HARAKAT)) }),
  { minLength: 1, maxLength: 7 },
);
const englishWord: fc.Arbitrary<Word> = fc.array(fc.record({ base: fc.constantFrom(...ENGLISH_LETTERS), marks: fc.constant('') }), { minLength: 1, maxLength: 8 });

const textOf = (words: Word[]): string => words.map((word) => word.map((cluster) => cluster.base + cluster.marks).join('')).join(' ');

/**
 * Draws an Arabic line the way Chromium's PDF backend does: one run per glyph in visual order
 * (right to left → left to right), each diacritic as its own zero-width run just before its letter.
 */
function drawRtlGlyphs(words: Word[], y = 700, size = 12): PdfTextRun[] {
  const advance = 6;
  const space = 4;
  const runs: PdfTextRun[] = [];
  let right = 500;
  const placed: Array<{ cluster: Word[number]; x: number }> = [];
  for (const word of words) {
    for (const cluster of word) {
      right -= advance;
      placed.push({ cluster, x: right });
    }
    right -= space;
  }
  for (const { cluster, x } of placed.reverse()) {
    if (cluster.marks) runs.push({ str: cluster.marks, x: x + 1, y: y + 2, width: 0, height: size });
    runs.push({ str: cluster.base, x, y, width: advance, height: size });
  }
  return runs;
}

/** Draws a left-to-right line as one run per word, PDF.js style. */
function drawLtrWords(words: Word[], y = 700, size = 12): PdfTextRun[] {
  let x = 50;
  return words.map((word) => {
    const str = word.map((cluster) => cluster.base).join('');
    const run = { str, x, y, width: str.length * 6, height: size };
    x += str.length * 6 + 4;
    return run;
  });
}

describe('layoutPdfPage', () => {
  it('puts glyph-per-run Arabic back in logical order with every diacritic on its letter (property)', () => {
    fc.assert(
      fc.property(fc.array(arabicWord, { minLength: 1, maxLength: 8 }), (words) => {
        expect(layoutPdfPage(drawRtlGlyphs(words))).toBe(textOf(words).normalize('NFC'));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps English words in order and in their lines, whatever the run order of the page (property)', () => {
    fc.assert(
      fc.property(fc.array(englishWord, { minLength: 1, maxLength: 8 }), fc.array(englishWord, { minLength: 1, maxLength: 8 }), (first, second) => {
        const runs = [...drawLtrWords(first, 700), ...drawLtrWords(second, 685)];
        expect(layoutPdfPage(runs)).toBe(`${textOf(first)}\n${textOf(second)}`);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps an English phrase in an Arabic line in its own order, with its punctuation', () => {
    // "زار الوفد New York." drawn as runs in visual order: the full stop is drawn left of "New".
    const runs: PdfTextRun[] = [
      { str: '.New', x: 100, y: 500, width: 24, height: 12 },
      { str: 'York', x: 128, y: 500, width: 24, height: 12 },
      { str: 'زار الوفد', x: 160, y: 500, width: 50, height: 12 },
    ];
    expect(layoutPdfPage(runs)).toBe('زار الوفد New York.');
  });

  it('normalises presentation forms and drops unmapped control characters', () => {
    const runs: PdfTextRun[] = [
      { str: 'ﺔ', x: 100, y: 500, width: 6, height: 12 },
      { str: 'ﺒ', x: 106, y: 500, width: 6, height: 12 },
      { str: '\u0000', x: 108, y: 502, width: 0, height: 12 },
      { str: 'ﺘ', x: 112, y: 500, width: 6, height: 12 },
      { str: 'ﻜ', x: 118, y: 500, width: 6, height: 12 },
      { str: 'ﻣ', x: 124, y: 500, width: 6, height: 12 },
    ];
    expect(layoutPdfPage(runs)).toBe('مكتبة');
  });

  it('repairs the lam-alef ligature PDF.js reverses after the article', () => {
    expect(layoutPdfPage([{ str: 'نظام اإلعارة', x: 100, y: 500, width: 60, height: 12 }])).toBe('نظام الإعارة');
  });

  it('separates paragraphs by a blank line and lines by a line break', () => {
    const runs: PdfTextRun[] = [
      { str: 'First line', x: 50, y: 700, width: 60, height: 12 },
      { str: 'second line', x: 50, y: 686, width: 66, height: 12 },
      { str: 'New paragraph', x: 50, y: 640, width: 80, height: 12 },
    ];
    expect(layoutPdfPage(runs)).toBe('First line\nsecond line\n\nNew paragraph');
  });

  it('returns an empty string for a page without text', () => {
    expect(layoutPdfPage([])).toBe('');
    expect(layoutPdfPage([{ str: '  ', x: 0, y: 0, width: 3, height: 12 }])).toBe('');
  });

  it('is linear: a page of 20,000 glyph runs lays out', () => {
    const words: Word[] = Array.from({ length: 400 }, (_, index) => [...'مكتبة'].map((base, position) => ({ base, marks: (index + position) % 3 === 0 ? '\u064E' : '' })));
    const lines = Array.from({ length: 10 }, (_, line) => drawRtlGlyphs(words.slice(line * 40, line * 40 + 40), 700 - line * 14));
    const text = layoutPdfPage(lines.flat());
    expect(text.split('\n')).toHaveLength(10);
    expect(text.split('\n')[0]).toBe(textOf(words.slice(0, 40)).normalize('NFC'));
  });
});
