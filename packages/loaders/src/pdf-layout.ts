/**
 * Text of a PDF page in logical (reading) order, rebuilt from the positioned text runs PDF.js
 * extracts. PDF stores glyphs where they are drawn, left to right, so right-to-left text has to be
 * put back in logical order: PDF.js reverses each right-to-left run, but producers split Arabic
 * lines into many runs (one per glyph for Chromium/Skia, per cluster for LibreOffice), draw
 * diacritics as separate glyphs, and encode shaped letters as presentation forms. This module
 * orders runs by position within each line, attaches diacritics to the letter they sit on, and
 * normalises presentation forms to the letters they stand for. Diacritics are kept, in canonical
 * (NFC) order; removing them is the analyzer's job, not the loader's.
 */

/** One positioned text run (a PDF.js `TextItem`, reduced to what layout needs). */
export interface PdfTextRun {
  str: string;
  /** Left edge of the run, in page units. */
  x: number;
  /** Baseline, in page units (grows upwards). */
  y: number;
  width: number;
  /** Font size of the run, in page units (0 when unknown). */
  height: number;
}

// Arabic presentation forms A and B: shaped letters and ligatures (ﻹ → لإ) a font may map glyphs to.
const PRESENTATION_FORMS = /[\uFB50-\uFDFF\uFE70-\uFEFF]+/g;
// Control characters a missing ToUnicode entry produces (NUL, 0x1C …); tab and line breaks stay.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFD]/g;
const MARK = /\p{M}/u;
const ONLY_MARKS = /^\p{M}+$/u;
const RTL_LETTER = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;
const RTL_LETTER_GLOBAL = /[\u0590-\u05FF\u0600-\u06FF\u0700-\u08FF]/gu;
const LTR_LETTER_GLOBAL = /(?![\u0590-\u08FF])[\p{L}]/gu;
const LTR_STRONG = /(?![\u0590-\u08FF])[\p{L}\p{Nd}]/u;
// Marks that start a word were drawn before their letter: they go after it, and a copy of the marks
// the letter already carries is dropped (the same cluster mapped twice).
const LEADING_MARKS = /(^|\s)(\p{M}+)(\p{L})(\p{M}*)/gu;
const LEADING_NEUTRALS = /^([^\p{L}\p{N}\s]+)(\S[\s\S]*)$/u;
const SPACE_BEFORE_MARK = /[ \t\u00A0]+(?=\p{M})/gu;
// PDF.js reverses a right-to-left run character by character, which turns the two-letter Unicode
// mapping of a lam-alef ligature glyph (ل + أ/إ/آ) around. After the article "ال" the reversed
// form "اإل" cannot be Arabic (an alef is never followed by a hamza-alef), so it is put back.
const REVERSED_LAM_ALEF = /ا([أإآ])ل/g;

interface Run {
  text: string;
  x: number;
  width: number;
  y: number;
  size: number;
}

function clean(text: string): string {
  return text.replace(CONTROL, '').replace(PRESENTATION_FORMS, (forms) => forms.normalize('NFKC'));
}

function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

function isRtlRun(text: string): boolean {
  return RTL_LETTER.test(text) && !LTR_STRONG.test(text);
}

function isLtrRun(text: string): boolean {
  return LTR_STRONG.test(text) && !RTL_LETTER.test(text);
}

function isNeutral(text: string): boolean {
  return !RTL_LETTER.test(text) && !LTR_STRONG.test(text);
}

/** Inserts combining marks into a run at the letter nearest to where they were drawn. */
function attachMarks(run: Run, marks: string, center: number, rtl: boolean): void {
  const characters = [...run.text];
  const bases: number[] = [];
  characters.forEach((character, index) => {
    if (!MARK.test(character) && character.trim() !== '') bases.push(index);
  });
  if (bases.length === 0) {
    run.text += marks;
    return;
  }
  // Spread the run's letters evenly over its width (visual order is reversed for rtl runs).
  const share = Math.min(Math.max(run.width > 0 ? (center - run.x) / run.width : 1, 0), 1);
  const visual = Math.min(bases.length - 1, Math.floor(share * bases.length));
  let index = bases[rtl ? bases.length - 1 - visual : visual]!;
  while (index + 1 < characters.length && MARK.test(characters[index + 1]!)) index++;
  characters.splice(index + 1, 0, marks);
  run.text = characters.join('');
}

/**
 * Reverses maximal stretches of runs matching `inner` (neutral runs between two of them join). In a
 * right-to-left line, punctuation drawn at the left of an embedded left-to-right stretch follows it
 * logically (the full stop of "… في New York." is drawn left of "New"), so it moves to its end.
 */
function reverseEmbeddedRuns(runs: Run[], inner: (text: string) => boolean, moveLeadingNeutrals: boolean): Run[] {
  const out: Run[] = [];
  let index = 0;
  while (index < runs.length) {
    if (!inner(runs[index]!.text)) {
      out.push(runs[index++]!);
      continue;
    }
    let end = index + 1;
    let lastInner = index;
    while (end < runs.length && (inner(runs[end]!.text) || isNeutral(runs[end]!.text))) {
      if (inner(runs[end]!.text)) lastInner = end;
      end++;
    }
    const stretch = runs.slice(index, lastInner + 1).reverse();
    if (moveLeadingNeutrals) {
      const first = stretch[0]!;
      const match = LEADING_NEUTRALS.exec(first.text);
      if (match) {
        first.text = match[2]!;
        stretch[stretch.length - 1]!.text += match[1]!;
      }
    }
    for (const run of stretch) out.push(run);
    index = lastInner + 1;
  }
  return out;
}

function joinLine(runs: Run[]): string {
  let text = '';
  let previous: Run | undefined;
  for (const run of runs) {
    if (previous) {
      const gap = Math.max(run.x - (previous.x + previous.width), previous.x - (run.x + run.width), 0);
      const size = Math.max(run.size, previous.size, 1);
      if (gap > 0.15 * size && !/\s$/.test(text) && !/^\s/.test(run.text)) text += ' ';
    }
    text += run.text;
    previous = run;
  }
  return text
    .replace(LEADING_MARKS, (_match, before: string, marks: string, letter: string, after: string) => `${before}${letter}${after === marks ? '' : marks}${after}`)
    .replace(SPACE_BEFORE_MARK, '')
    .replace(REVERSED_LAM_ALEF, 'ال$1')
    .replace(/[ \t\u00A0]{2,}/g, ' ')
    .trim()
    // Glyph order is drawing order: shadda may come before fatha, a hamza as a separate mark. NFC
    // puts marks in canonical order and composes (ا + ٔ → أ) without removing any of them.
    .normalize('NFC');
}

function layoutLine(items: Array<Run & { mark: boolean }>): LaidOutLine {
  const runs = items.filter((item) => !item.mark);
  const body = runs.map((run) => run.text).join('');
  const rtl = count(body, RTL_LETTER_GLOBAL) > count(body, LTR_LETTER_GLOBAL);
  // A diacritic drawn on its own belongs to the next letter run drawn after it (producers draw a
  // cluster's marks just before or over its base), or to the last one when none follows; where in
  // that run it goes is decided by position.
  let next: Run | undefined;
  let lastRun: Run | undefined;
  for (const run of runs) if (run.text.trim() !== '') lastRun = run;
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index]!;
    if (!item.mark) {
      // A space is never the letter a diacritic sits on.
      if (item.text.trim() !== '') next = item;
      continue;
    }
    const target = next ?? lastRun;
    if (target) attachMarks(target, item.text, item.x + item.width / 2, isRtlRun(target.text) || (rtl && !isLtrRun(target.text)));
  }
  const ordered = rtl
    ? reverseEmbeddedRuns([...runs].sort((a, b) => b.x - a.x), isLtrRun, true)
    : reverseEmbeddedRuns([...runs].sort((a, b) => a.x - b.x), isRtlRun, false);
  const baseline = runs.reduce((sum, run) => sum + run.y, 0) / runs.length;
  // Loops, not Math.max(...sizes): a line can hold millions of runs, more than a call's arguments.
  let size = 0;
  let left = Infinity;
  let right = -Infinity;
  for (const run of runs) {
    if (run.size > size) size = run.size;
    if (run.text.trim() === '') continue;
    if (run.x < left) left = run.x;
    if (run.x + run.width > right) right = run.x + run.width;
  }
  return { text: joinLine(ordered), y: baseline, size, left, right, rtl };
}

interface LaidOutLine {
  text: string;
  y: number;
  size: number;
  left: number;
  right: number;
  rtl: boolean;
}

// A line ending like this ends a sentence or a clause, or breaks a word: its break is kept.
const LINE_END_KEPT = /[.!?؟。！？:;؛…)\]»”"'\-‐]$/u;
// A line starting like this starts a list item.
const LIST_ITEM_START = /^(?:[•·▪●◦‣∙\-–*]|\(?\d{1,3}[.)]|[a-zA-Z][.)])\s/u;

/**
 * How two consecutive lines of a paragraph are joined: a space when the first is a full line of
 * running text that the second continues (the break is only where the column ended, and a line
 * break there would read as a sentence end to a sentence splitter), a line break otherwise (a short
 * line, a change of font size, a sentence end, a hyphen, a list item).
 */
function lineJoin(previous: LaidOutLine, line: LaidOutLine, fullWidth: number): string {
  if (Math.abs(previous.size - line.size) > 0.1 * Math.max(previous.size, line.size)) return '\n';
  if (LINE_END_KEPT.test(previous.text) || LIST_ITEM_START.test(line.text)) return '\n';
  const width = previous.right - previous.left;
  return fullWidth > 0 && width >= 0.8 * fullWidth ? ' ' : '\n';
}

/**
 * Lays out one page: groups runs into lines in drawing order (a line ends where the baseline moves
 * by more than three quarters of the font size; a smaller run raised or lowered just after the
 * previous one — a superscript, a subscript — stays in its line), orders each line's runs by
 * position in the line's direction (the direction of the majority of its letters, with embedded
 * opposite-direction stretches kept in their own order), attaches diacritics drawn as separate runs
 * to their letter, rebuilds spaces from gaps and from the space runs the PDF draws (however narrow),
 * joins the lines of a paragraph (see `lineJoin`), and separates paragraphs (a vertical gap of more
 * than 1.8 font sizes) with a blank line. Linear in the number of runs per line times the marks in it.
 */
export function layoutPdfPage(items: readonly PdfTextRun[]): string {
  const lines: Array<{ items: Array<Run & { mark: boolean }>; y: number; size: number }> = [];
  let current: { items: Array<Run & { mark: boolean }>; y: number; size: number } | undefined;
  let last: Run | undefined;
  for (const item of items) {
    const text = clean(item.str);
    if (text === '') continue;
    const size = item.height > 0 ? item.height : 10;
    if (text.trim() === '') {
      // An explicit space between two words of the line: a word boundary even when it is narrower
      // than the gap that would make one (Arabic producers draw spaces of a fraction of an em).
      if (current && last && Math.abs(item.y - last.y) <= 0.75 * Math.max(size, current.size)) {
        current.items.push({ text: ' ', x: item.x, width: Math.max(item.width, 0), y: item.y, size: last.size, mark: false });
      }
      continue;
    }
    const run: Run = { text, x: item.x, width: Math.max(item.width, 0), y: item.y, size };
    const shift = current ? Math.abs(item.y - current.y) : 0;
    const scripted = current !== undefined && last !== undefined && size < 0.85 * current.size && shift <= 1.05 * current.size && Math.abs(item.x - (last.x + last.width)) <= 0.5 * current.size;
    const returned = current !== undefined && last !== undefined && last.size < 0.85 * current.size && last.y !== current.y && Math.abs(item.y - current.y) <= 0.75 * Math.max(size, current.size);
    if (!current || (shift > 0.75 * Math.max(size, current.size) && !scripted && !returned)) {
      current = { items: [], y: item.y, size };
      lines.push(current);
    }
    const mark = ONLY_MARKS.test(text.trim());
    current.items.push({ ...run, text: mark ? text.trim() : text, mark });
    if (!scripted) current.size = Math.max(current.size, size);
    last = run;
  }
  const laidOut = lines.filter((line) => line.items.some((item) => !item.mark && item.text.trim() !== '')).map((line) => layoutLine(line.items));
  let fullWidth = 0;
  for (const line of laidOut) if (line.text !== '' && line.right - line.left > fullWidth) fullWidth = line.right - line.left;
  let text = '';
  let previous: LaidOutLine | undefined;
  for (const line of laidOut) {
    if (line.text === '') continue;
    if (previous) text += Math.abs(previous.y - line.y) > 1.8 * Math.max(previous.size, line.size) ? '\n\n' : lineJoin(previous, line, fullWidth);
    text += line.text;
    previous = line;
  }
  return text;
}
