import { invalidArgument } from '@zerda/types';
import { requireString } from './input-validation.js';
import { FNV_OFFSET_BASIS, FNV_PRIME, fnv1aRange } from './hash.js';

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

/** Internal: per ASCII code unit, 0 never part of a token, 1 Latin letter, 2 digit (the one ASCII table of the package). */
export const ASCII_KIND = new Uint8Array(128);
for (let code = 0x41; code <= 0x5a; code++) ASCII_KIND[code] = ASCII_KIND[code + 0x20] = 1;
for (let code = 0x30; code <= 0x39; code++) ASCII_KIND[code] = 2;

/**
 * Internal: calls `visit(start, end, script)` for every token of `text`, in order — exactly the
 * matches of the token regex, which stays the definition. ASCII is scanned by hand (the regex's
 * Unicode classes cost most of the time on English text): an ASCII character that is not a letter
 * or digit can never start a token, and a run of ASCII letters (or digits) followed by another
 * ASCII character or the end is a whole token. Everything else — a run that reaches a non-ASCII
 * character (an accent, a mark, a joiner may continue it), Arabic, other scripts — goes to the
 * regex from the same position. Re-entrant: `visit` may tokenize other text.
 */
export function forEachToken(text: string, visit: (start: number, end: number, script: TokenScript) => void): void {
  const length = text.length;
  let index = 0;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code < 128) {
      const kind = ASCII_KIND[code] as number;
      if (kind === 0) {
        index++;
        continue;
      }
      let end = index + 1;
      let next = end < length ? text.charCodeAt(end) : -1;
      while (next >= 0 && next < 128 && ASCII_KIND[next] === kind) next = ++end < length ? text.charCodeAt(end) : -1;
      if (next < 128) {
        visit(index, end, kind === 1 ? 'latin' : 'digit');
        index = end;
        continue;
      }
    }
    const regex = TOKEN_REGEX;
    regex.lastIndex = index;
    const match = regex.exec(text);
    if (match === null) return;
    index = match.index + match[0].length;
    visit(match.index, index, scriptOfMatch(match));
  }
}

/** Internal: tokenize without validation. */
export function tokenizeUnchecked(text: string): Token[] {
  const tokens: Token[] = [];
  forEachToken(text, (start, end, script) => {
    tokens.push({ text: text.slice(start, end), start, end, script });
  });
  return tokens;
}

/** Internal: number of tokens, without allocating them (the word counter's hot path). */
export function countTokensUnchecked(text: string): number {
  let count = 0;
  forEachToken(text, () => {
    count++;
  });
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

/**
 * Calls `visit(start, end, script)` for every token {@link tokenize} would give, in order, without
 * creating Token objects (`text.slice(start, end)` is the token's text): for a caller that reads a
 * long text token by token. Linear in the text.
 */
export function visitTokens(text: string, visit: (start: number, end: number, script: TokenScript) => void): void {
  requireString(text, 'text');
  if (typeof visit !== 'function') throw invalidArgument('visit', 'a function (start, end, script) => void', visit);
  forEachToken(text, visit);
}

/**
 * `words(text).map(fnv1a)` without creating the words: the 32-bit FNV-1a of each token's UTF-16 code
 * units, in order (what word shingles are hashed from). Linear in the text.
 */
export function wordHashes(text: string): Uint32Array {
  requireString(text, 'text');
  const length = text.length;
  let hashes = new Uint32Array(Math.max(8, length >>> 3));
  let count = 0;
  let index = 0;
  // forEachToken's scan, hashing ASCII runs as they are read (no callback per token).
  while (index < length) {
    const code = text.charCodeAt(index);
    let hash = 0;
    let end = -1;
    if (code < 128) {
      const kind = ASCII_KIND[code] as number;
      if (kind === 0) {
        index++;
        continue;
      }
      hash = Math.imul(FNV_OFFSET_BASIS ^ code, FNV_PRIME);
      let after = index + 1;
      let next = after < length ? text.charCodeAt(after) : -1;
      while (next >= 0 && next < 128 && ASCII_KIND[next] === kind) {
        hash = Math.imul(hash ^ next, FNV_PRIME);
        next = ++after < length ? text.charCodeAt(after) : -1;
      }
      if (next < 128) end = after;
    }
    if (end < 0) {
      const regex = TOKEN_REGEX;
      regex.lastIndex = index;
      const match = regex.exec(text);
      if (match === null) break;
      end = match.index + match[0].length;
      hash = fnv1aRange(text, match.index, end);
    }
    if (count === hashes.length) {
      const grown = new Uint32Array(count * 2);
      grown.set(hashes);
      hashes = grown;
    }
    hashes[count++] = hash >>> 0;
    index = end;
  }
  return hashes.subarray(0, count);
}

/** The token texts of {@link tokenize}, in order. */
export function words(text: string): string[] {
  requireString(text, 'text');
  const result: string[] = [];
  forEachToken(text, (start, end) => {
    result.push(text.slice(start, end));
  });
  return result;
}
