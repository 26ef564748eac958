import { requireString } from './input-validation.js';

/** The script class of a token: Arabic letters, Latin letters, digits (any script), or anything else. */
export type TokenScript = 'arabic' | 'latin' | 'digit' | 'other';

/**
 * One word or number of the input. `start`/`end` are UTF-16 offsets into the input (JavaScript
 * string indices), so `input.slice(start, end) === text` always holds.
 */
export interface Token {
  text: string;
  start: number;
  end: number;
  script: TokenScript;
}

// Letter classes. Tatweel (U+0640) is script Common, so it is added to the Arabic class by hand;
// it may continue an Arabic word but never start one. Zero-width (non-)joiners and the soft hyphen
// stay inside a word when letters follow, because they are invisible spelling aids, not separators.
const ARABIC_LETTER = String.raw`[\p{sc=Arabic}&&\p{L}]`;
const LATIN_LETTER = String.raw`[\p{sc=Latin}&&\p{L}]`;
const OTHER_LETTER = String.raw`[\p{L}--\p{sc=Arabic}--\p{sc=Latin}--\u0640]`;
const MARK = String.raw`\p{M}`;
const JOINER = String.raw`[\u00AD\u200C\u200D]`;

function wordPattern(letter: string, extra = ''): string {
  return `${letter}(?:${letter}|${MARK}${extra}|${JOINER}+(?=${letter}))*`;
}

// One alternative per class, in capture groups, so the matching group tells the script without a
// second pass over the characters. A token changes class where the script changes
// ("2024م" → "2024", "م"), which lets the analyzer stem each part with the right stemmer.
const TOKEN_SOURCE =
  `(${wordPattern(ARABIC_LETTER, '|\\u0640')})` +
  `|(${wordPattern(LATIN_LETTER)})` +
  `|(\\p{N}(?:\\p{N}|${MARK})*)` +
  `|(${wordPattern(OTHER_LETTER)})`;

/** Internal: a fresh global copy of the token regex (a shared global regex would carry `lastIndex` state between callers). */
export function createTokenRegex(): RegExp {
  return new RegExp(TOKEN_SOURCE, 'gv');
}

const TOKEN_REGEX = createTokenRegex();

/** Internal: the script of a match of the token regex, from which capture group matched. */
export function scriptOfMatch(match: RegExpExecArray): TokenScript {
  return match[1] !== undefined ? 'arabic' : match[2] !== undefined ? 'latin' : match[3] !== undefined ? 'digit' : 'other';
}

/** Internal: tokenize without validation. */
export function tokenizeUnchecked(text: string): Token[] {
  const tokens: Token[] = [];
  const regex = TOKEN_REGEX;
  regex.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = regex.exec(text)) !== null) {
    const value = match[0];
    tokens.push({ text: value, start: match.index, end: match.index + value.length, script: scriptOfMatch(match) });
  }
  return tokens;
}

/** Internal: number of tokens, without allocating them (the word counter's hot path). */
export function countTokensUnchecked(text: string): number {
  const regex = TOKEN_REGEX;
  regex.lastIndex = 0;
  let count = 0;
  while (regex.exec(text) !== null) count++;
  return count;
}

/**
 * Splits text into Unicode words and numbers. Letters of any script keep their combining marks
 * (harakat, accents) inside the word; a run of digits of any script is a token; a token ends where
 * the script class changes (Arabic, Latin, other letters, digits). Spaces and all punctuation,
 * including Arabic ، ؛ ؟ ۔, separate tokens. Never yields an empty token, and
 * `text.slice(token.start, token.end) === token.text`.
 */
export function tokenize(text: string): Token[] {
  requireString(text, 'text');
  return tokenizeUnchecked(text);
}

/** The token texts of {@link tokenize}, in order. */
export function words(text: string): string[] {
  requireString(text, 'text');
  const result: string[] = [];
  const regex = TOKEN_REGEX;
  regex.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = regex.exec(text)) !== null) result.push(match[0]);
  return result;
}
