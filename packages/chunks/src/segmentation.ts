import { splitSentences, tokenize } from '@zerda/text';

/**
 * A piece of the document that packing never cuts: `text.slice(start, end)` starts and ends with a
 * non-whitespace character. `breakAfter` is how good a chunk end the boundary after it is (higher
 * is better: a paragraph end beats a sentence end beats a word end).
 */
export interface Unit {
  start: number;
  end: number;
  breakAfter: number;
  /** Longer than the size limit and not splittable any further at the allowed levels. */
  oversize: boolean;
}

/** A half-open character range `[start, end)` of the document. */
export type Range = readonly [start: number, end: number];

/** Splits `text[start, end)` into trimmed, non-empty ranges that together hold all its non-whitespace characters. */
export type Splitter = (text: string, start: number, end: number) => Range[];

/** One level of the recursive split: a splitter and the strength of the boundaries it makes. */
export interface Level {
  name: string;
  strength: number;
  split: Splitter;
}

/** Measures `text[start, end)` in the configured unit. */
export type Measure = (start: number, end: number) => number;

const WHITESPACE = /\s/u;

export function isWhitespace(text: string, index: number): boolean {
  const char = text[index];
  return char !== undefined && WHITESPACE.test(char);
}

/** `[start, end)` without leading and trailing whitespace, or undefined when nothing is left. */
export function trimRange(text: string, start: number, end: number): Range | undefined {
  let from = start;
  let to = end;
  while (from < to && isWhitespace(text, from)) from++;
  while (to > from && isWhitespace(text, to - 1)) to--;
  return to > from ? [from, to] : undefined;
}

/** Cuts `[start, end)` at the given positions (ascending) and trims the pieces. */
export function cutAt(text: string, start: number, end: number, cuts: Iterable<number>): Range[] {
  const ranges: Range[] = [];
  let from = start;
  for (const cut of cuts) {
    if (cut <= from || cut >= end) continue;
    const range = trimRange(text, from, cut);
    if (range) ranges.push(range);
    from = cut;
  }
  const last = trimRange(text, from, end);
  if (last) ranges.push(last);
  return ranges;
}

/** Ranges between the matches of `separator` (the separators themselves are whitespace or dropped only when whitespace). */
function splitBetween(separator: RegExp): Splitter {
  return (text, start, end) => {
    const scope = text.slice(start, end);
    const regex = new RegExp(separator.source, separator.flags.includes('g') ? separator.flags : `${separator.flags}g`);
    const ranges: Range[] = [];
    let from = 0;
    let match: RegExpExecArray | null;
    while ((match = regex.exec(scope)) !== null) {
      if (match[0].length === 0) {
        regex.lastIndex++;
        continue;
      }
      const range = trimRange(text, start + from, start + match.index);
      if (range) ranges.push(range);
      from = match.index + match[0].length;
    }
    const last = trimRange(text, start + from, end);
    if (last) ranges.push(last);
    return ranges;
  };
}

/** Cut right after each match of `boundary` (the matched punctuation stays with the text before it). */
function splitAfter(boundary: RegExp): Splitter {
  return (text, start, end) => {
    const scope = text.slice(start, end);
    const regex = new RegExp(boundary.source, boundary.flags.includes('g') ? boundary.flags : `${boundary.flags}g`);
    const cuts: number[] = [];
    let match: RegExpExecArray | null;
    while ((match = regex.exec(scope)) !== null) {
      if (match[0].length === 0) {
        regex.lastIndex++;
        continue;
      }
      cuts.push(start + match.index + match[0].length);
    }
    return cutAt(text, start, end, cuts);
  };
}

/** Blank lines separate paragraphs. */
export const splitParagraphs: Splitter = splitBetween(/\r?\n[^\S\r\n]*(?:\r?\n[^\S\r\n]*)+/u);

/** Line breaks separate lines. */
export const splitLines: Splitter = splitBetween(/\r\n|[\n\r\u2028\u2029\u0085]/u);

/** Sentences as `splitSentences` of @zerda/text finds them (. ! ? … ؟ ۔, not after abbreviations or inside numbers). */
export const splitSentenceRanges: Splitter = (text, start, end) =>
  splitSentences(text.slice(start, end)).map((sentence) => [start + sentence.start, start + sentence.end] as const);

/** Clauses: after , ; : and the Arabic comma ، and semicolon ؛ when whitespace follows. */
export const splitClauses: Splitter = splitAfter(/[,;:\u060C\u061B]+["'”’»)\]]*(?=\s)/u);

/** Whitespace-delimited words (a word keeps its attached punctuation). */
export const splitWords: Splitter = (text, start, end) => {
  const ranges: Range[] = [];
  const regex = /\S+/gu;
  const scope = text.slice(start, end);
  let match: RegExpExecArray | null;
  while ((match = regex.exec(scope)) !== null) ranges.push([start + match.index, start + match.index + match[0].length]);
  return ranges;
};

/**
 * A whitespace-free run (`word,word`, a URL, a path) cut before each word it contains after the
 * first, so never inside a word nor between a letter and its combining marks.
 */
export const splitTokens: Splitter = (text, start, end) => {
  const tokens = tokenize(text.slice(start, end));
  return cutAt(
    text,
    start,
    end,
    tokens.slice(1).map((token) => start + token.start),
  );
};

/** The standard hierarchy: paragraph, line, sentence, clause, word, and word pieces of a run without spaces. */
export const PROSE_LEVELS: readonly Level[] = [
  { name: 'paragraph', strength: 6, split: splitParagraphs },
  { name: 'line', strength: 5, split: splitLines },
  { name: 'sentence', strength: 4, split: splitSentenceRanges },
  { name: 'clause', strength: 3, split: splitClauses },
  { name: 'word', strength: 2, split: splitWords },
  { name: 'token', strength: 1, split: splitTokens },
];

/**
 * Splits `[start, end)` into units that fit `size`, trying `levels` in turn: a range that fits is one
 * unit; one that does not is split at the first level that cuts it into several parts, and each
 * part is handled the same way from the next level on. A range that no level can split is one
 * oversize unit. `breakAfter` of the last unit is `after` (the strength of the boundary that
 * follows the whole range).
 */
export function segment(
  text: string,
  start: number,
  end: number,
  levels: readonly Level[],
  measure: Measure,
  size: number,
  after: number,
  out: Unit[] = [],
): Unit[] {
  const trimmed = trimRange(text, start, end);
  if (!trimmed) return out;
  const [from, to] = trimmed;
  if (measure(from, to) <= size) {
    out.push({ start: from, end: to, breakAfter: after, oversize: false });
    return out;
  }
  for (let index = 0; index < levels.length; index++) {
    const level = levels[index] as Level;
    const parts = level.split(text, from, to);
    if (parts.length <= 1) continue;
    const rest = levels.slice(index + 1);
    parts.forEach(([partStart, partEnd], position) => {
      segment(text, partStart, partEnd, rest, measure, size, position === parts.length - 1 ? after : level.strength, out);
    });
    return out;
  }
  out.push({ start: from, end: to, breakAfter: after, oversize: true });
  return out;
}
