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
        const width = (line: PdfTextRun[]) => line[line.length - 1]!.x + line[line.length - 1]!.width - line[0]!.x;
        const [firstWidth, secondWidth] = [width(drawLtrWords(first)), width(drawLtrWords(second))];
        // A full line continues on the next one (joined by a space); a short line keeps its break.
        const join = firstWidth >= 0.8 * Math.max(firstWidth, secondWidth) ? ' ' : '\n';
        expect(layoutPdfPage(runs)).toBe(`${textOf(first)}${join}${textOf(second)}`);
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
    // Ten full lines of one paragraph: one running text.
    expect(text).toBe(textOf(words).normalize('NFC'));
  });

  it('joins the lines of running text with a space, and keeps breaks after sentences, short lines and before list items', () => {
    const line = (str: string, y: number, width = 300, x = 50, height = 12): PdfTextRun => ({ str, x, y, width, height });
    expect(layoutPdfPage([line('Retrieval gives the model the documents it needs at question', 700), line('time, so that answers cite their sources.', 686)])).toBe(
      'Retrieval gives the model the documents it needs at question time, so that answers cite their sources.',
    );
    expect(layoutPdfPage([line('The first sentence ends here.', 700), line('The second one starts here', 686)])).toBe('The first sentence ends here.\nThe second one starts here');
    expect(layoutPdfPage([line('A heading', 700, 80), line('Running text of the section that fills its line', 686)])).toBe('A heading\nRunning text of the section that fills its line');
    expect(layoutPdfPage([line('Things to bring to the reading room today', 700), line('• a library card', 686)])).toBe('Things to bring to the reading room today\n• a library card');
    expect(layoutPdfPage([line('تفتح المكتبة أبوابها في الساعة التاسعة صباحا', 700), line('وتغلق في المساء.', 686)])).toBe('تفتح المكتبة أبوابها في الساعة التاسعة صباحا وتغلق في المساء.');
  });

  it('keeps a superscript in its line (text rise) and reads narrow explicit spaces as word boundaries', () => {
    const runs: PdfTextRun[] = [
      { str: 'E = mc', x: 100, y: 700, width: 37.7, height: 12 },
      { str: '2', x: 137.7, y: 712, width: 4.4, height: 8 },
      { str: ' ', x: 142.1, y: 712, width: 3.3, height: 0 },
      { str: 'is the mass-energy equivalence.', x: 145.5, y: 700, width: 172.1, height: 12 },
    ];
    expect(layoutPdfPage(runs)).toBe('E = mc2 is the mass-energy equivalence.');
    // Arabic words drawn right to left with spaces a tenth of a unit wide and gaps under 0.15 em.
    const arabic: PdfTextRun[] = [
      { str: 'العربية', x: 257.6, y: 622, width: 83.9, height: 36 },
      { str: ' ', x: 341.5, y: 622, width: 0.1, height: 0 },
      { str: 'الخطوط', x: 346.8, y: 622, width: 86.9, height: 36 },
      { str: ' ', x: 433.7, y: 622, width: 0.1, height: 0 },
      { str: 'انواع', x: 439.1, y: 622, width: 62.9, height: 36 },
    ];
    expect(layoutPdfPage(arabic)).toBe('انواع الخطوط العربية');
  });
});
