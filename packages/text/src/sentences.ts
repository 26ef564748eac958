import { requireString } from './input-validation.js';
import { ASCII_KIND } from './tokenizer.js';

/** A sentence of the input: `input.slice(start, end) === text`, without surrounding whitespace. */
export interface Sentence {
  text: string;
  start: number;
  end: number;
}

// A run of terminators with any closing quotes/brackets and citation marks ("medicine.[1][2]",
// "…العالم.[٣]"), followed by whitespace or the end; or a line break. Terminators: . ! ? … Arabic ؟
// Urdu ۔ and the full-width/CJK 。！？. Each part is matched atomically (a lookahead captures the
// longest run, a backreference consumes it) and a run is only tried from its first character, so a
// long run of dots or brackets costs linear time, never quadratic backtracking.
const TERMINATORS = '.!?…؟۔。！？';
const BOUNDARY = new RegExp(
  `(?<![${TERMINATORS}])(?=([${TERMINATORS}]+))\\1(?=(["'”’»)\\]}›]*))\\2(?=((?:\\[[\\p{L}\\p{N} ]{1,24}\\])*))\\3(?=\\s|$)|\\r\\n|[\\n\\r\\u2028\\u2029\\u0085]`,
  'gu',
);
// Words that end with a dot without ending the sentence. Compared lower case, without the dot.
const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'vs', 'fig', 'figs', 'nos', 'vol', 'vols', 'pp',
  'p', 'ed', 'eds', 'al', 'approx', 'dept', 'inc', 'ltd', 'co', 'corp', 'jan', 'feb', 'mar', 'apr', 'jun',
  'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'eq', 'eqs', 'ref', 'refs', 'sec', 'ch', 'cf', 'resp', 'ca',
]);
const SINGLE_LETTER_INITIALS = /^(?:\p{L}\p{M}*\.)*\p{L}\p{M}*$/u;
const LOWERCASE_START = /^\s+[\p{Ll}\p{N}]/u;
const WHITESPACE = /\s/u;
const ELLIPSIS = /^[.…]+$/u;
const LIST_NUMBER = /^\p{Nd}{1,3}$/u;
const LINE_START_BEFORE = /(?:^|[\n\r\u2028\u2029])[^\S\n\r]*$/u;

const WORD_CHARACTER = /^[\p{L}\p{M}\p{N}.]$/u;

/**
 * The run of letters, marks, digits and dots that ends at `end`, within the 32 UTF-16 units before
 * it (what `/[\p{L}\p{M}\p{N}.]+$/u` finds in that window), found by stepping back one character at a time:
 * the anchored regex tried every start in the window.
 */
function wordBefore(text: string, end: number): string {
  const windowStart = Math.max(0, end - 32);
  let start = end;
  while (start > windowStart) {
    const code = text.charCodeAt(start - 1);
    if (code < 0x80) {
      if (ASCII_KIND[code] !== 0 || code === 0x2e) {
        start -= 1;
        continue;
      }
      break;
    }
    // A surrogate pair counts as one character when both halves are inside the window.
    const pair = (code & 0xfc00) === 0xdc00 && start - 2 >= windowStart && (text.charCodeAt(start - 2) & 0xfc00) === 0xd800;
    const width = pair ? 2 : 1;
    if (!WORD_CHARACTER.test(text.slice(start - width, start))) break;
    start -= width;
  }
  return text.slice(start, end);
}

function isAbbreviationDot(text: string, dotIndex: number): boolean {
  const before = wordBefore(text, dotIndex);
  if (before !== '') {
    const word = before.toLowerCase();
    if (ABBREVIATIONS.has(word)) return true;
    // Initials and dotted abbreviations: "J. Smith", "e.g.", "i.e.", "U.S.", Arabic "د." (Dr).
    if (SINGLE_LETTER_INITIALS.test(word)) return true;
    // A list marker at the start of a line: "1. Open the file", "١٢. افتح الملف".
    if (LIST_NUMBER.test(word) && LINE_START_BEFORE.test(text.slice(Math.max(0, dotIndex - word.length - 16), dotIndex - word.length))) return true;
  }
  // "approx. five", "... and then": a sentence does not start with a lower-case letter or a digit.
  return LOWERCASE_START.test(text.slice(dotIndex + 1, dotIndex + 3));
}

function pushTrimmed(text: string, start: number, end: number, sentences: Sentence[]): void {
  let from = start;
  let to = end;
  while (from < to && WHITESPACE.test(text[from] as string)) from++;
  while (to > from && WHITESPACE.test(text[to - 1] as string)) to--;
  if (to > from) sentences.push({ text: text.slice(from, to), start: from, end: to });
}

/**
 * Splits text into sentences after . ! ? … ؟ ۔ (and 。！？), together with closing quotes or
 * brackets and citation marks such as `[1]` or `[note 2]` (Wikipedia), when whitespace or the end follows; and at every line break. A dot does not end a
 * sentence after a known abbreviation ("e.g.", "Dr.", "Fig."), after an
 * initial ("J.", "د."), inside a number ("3.5") or when the next word starts lower case. Sentences
 * carry their offsets and exclude the whitespace around them.
 */
export function splitSentences(text: string): Sentence[] {
  requireString(text, 'text');
  const sentences: Sentence[] = [];
  const boundary = new RegExp(BOUNDARY.source, BOUNDARY.flags);
  let start = 0;
  let match: RegExpExecArray | null;
  while ((match = boundary.exec(text)) !== null) {
    const terminators = match[1];
    if (terminators === '.' && isAbbreviationDot(text, match.index)) continue;
    // "wait... what", "so… then": an ellipsis followed by lower case continues the sentence.
    if (terminators !== undefined && terminators !== '.' && ELLIPSIS.test(terminators) && LOWERCASE_START.test(text.slice(match.index + match[0].length, match.index + match[0].length + 2))) continue;
    // '"Stop!" he said.': a quoted exclamation or question followed by lower case continues the sentence.
    if (terminators !== undefined && match[0].length > terminators.length && LOWERCASE_START.test(text.slice(match.index + match[0].length, match.index + match[0].length + 2))) continue;
    const end = match.index + match[0].length;
    pushTrimmed(text, start, end, sentences);
    start = end;
  }
  pushTrimmed(text, start, text.length, sentences);
  return sentences;
}
