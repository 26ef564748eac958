import type { Language, ScriptMix } from '@zerda/types';
import { requireString } from './input-validation.js';
import { ASCII_KIND, type TokenScript } from './tokenizer.js';

// Runs of letters per class; marks are not letters and are not counted. RTL_OTHER collects the
// right-to-left scripts besides Arabic (Hebrew, Syriac, Thaana, N'Ko, …) for isRightToLeft.
const ARABIC_SET = String.raw`[\p{sc=Arabic}&&\p{L}]`;
const LATIN_SET = String.raw`[\p{sc=Latin}&&\p{L}]`;
const RIGHT_TO_LEFT_SET = String.raw`[[\p{sc=Hebrew}\p{sc=Syriac}\p{sc=Thaana}\p{sc=Nko}\p{sc=Samaritan}\p{sc=Mandaic}\p{sc=Adlam}\p{sc=Hanifi_Rohingya}\p{sc=Yezidi}]&&\p{L}]`;
const LETTER_RUNS = new RegExp(
  `([${ARABIC_SET}]+)|([${LATIN_SET}]+)|([${RIGHT_TO_LEFT_SET}]+)|([\\p{L}--${ARABIC_SET}--${LATIN_SET}--${RIGHT_TO_LEFT_SET}]+)`,
  'gv',
);
const ARABIC_LETTER = new RegExp(String.raw`[\p{sc=Arabic}&&\p{L}]`, 'v');
const ANY_LETTER = /\p{L}/u;
const ANY_DIGIT = /\p{N}/u;

interface LetterCounts {
  arabic: number;
  latin: number;
  rightToLeftOther: number;
  other: number;
}

// The letter class of every code point, the regex above being the definition: 0 not a letter,
// 1 Arabic, 2 Latin, 3 another right-to-left script, 4 any other letter. Filled per block of 256
// BMP code points on first sight (a text touches few blocks), so counting is a table read per
// character instead of a regex match per run; characters outside the BMP ask the regex.
const NOT_LETTER = 0;
const LETTER_CLASS_BLOCKS: Array<Uint8Array | undefined> = new Array(256);

function classOfCodePoint(character: string): number {
  LETTER_RUNS.lastIndex = 0;
  const match = LETTER_RUNS.exec(character);
  if (match === null) return NOT_LETTER;
  return match[1] !== undefined ? 1 : match[2] !== undefined ? 2 : match[3] !== undefined ? 3 : 4;
}

function letterClassBlock(block: number): Uint8Array {
  let table = LETTER_CLASS_BLOCKS[block];
  if (table === undefined) {
    table = new Uint8Array(256);
    for (let offset = 0; offset < 256; offset++) {
      const code = block * 256 + offset;
      // Surrogates are never classified alone: a pair is read as one code point below.
      if (code < 0xd800 || code > 0xdfff) table[offset] = classOfCodePoint(String.fromCharCode(code));
    }
    LETTER_CLASS_BLOCKS[block] = table;
  }
  return table;
}

function countLetters(text: string): LetterCounts {
  // Per class, in code points (Arabic mathematical letters (U+1EE00…) and Latin Extended-F/G
  // letters live outside the BMP). ASCII reads the tokenizer's table (A–Z, a–z are the only letters).
  let arabic = 0;
  let latin = 0;
  let rightToLeftOther = 0;
  let other = 0;
  const length = text.length;
  let block = 0;
  let table = letterClassBlock(0);
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    let kind: number;
    if (code < 0x80) {
      if (ASCII_KIND[code] === 1) latin += 1;
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const point = text.codePointAt(index)!;
      if (point > 0xffff) index += 1;
      kind = point > 0xffff ? classOfCodePoint(String.fromCodePoint(point)) : NOT_LETTER;
    } else {
      const high = code >> 8;
      if (high !== block) {
        block = high;
        table = letterClassBlock(high);
      }
      kind = table[code & 0xff]!;
    }
    if (kind === 1) arabic += 1;
    else if (kind === 2) latin += 1;
    else if (kind === 3) rightToLeftOther += 1;
    else if (kind === 4) other += 1;
  }
  return { arabic, latin, rightToLeftOther, other };
}

/** Internal: scriptMix without validation. */
export function scriptMixUnchecked(text: string): ScriptMix {
  const counts = countLetters(text);
  const other = counts.other + counts.rightToLeftOther;
  const total = counts.arabic + counts.latin + other;
  if (total === 0) return { arabic: 0, latin: 0, other: 0 };
  return { arabic: counts.arabic / total, latin: counts.latin / total, other: other / total };
}

/**
 * The share of letters per script (Arabic, Latin, everything else), each in [0, 1] and summing to 1
 * when the text has letters; all 0 for text without letters. Digits, marks and punctuation do not count.
 */
export function scriptMix(text: string): ScriptMix {
  requireString(text, 'text');
  return scriptMixUnchecked(text);
}

/** Shares at or above which one script decides the language on its own. */
export const DOMINANT_SCRIPT_SHARE = 0.8;
/** Share each of Arabic and Latin must reach for text to count as mixed. */
export const MIXED_SCRIPT_SHARE = 0.2;

/** Internal: detectLanguage on a computed mix. */
export function languageFromMix(mix: ScriptMix): Language {
  const { arabic, latin, other } = mix;
  if (arabic + latin + other === 0) return 'other';
  if (arabic >= DOMINANT_SCRIPT_SHARE) return 'ar';
  if (latin >= DOMINANT_SCRIPT_SHARE) return 'en';
  if (arabic >= MIXED_SCRIPT_SHARE && latin >= MIXED_SCRIPT_SHARE) return 'mixed';
  if (arabic + latin >= 0.5) return arabic >= latin ? 'ar' : 'en';
  return 'other';
}

/**
 * The language of a text from its letter shares (cheap enough for every query): `'ar'` when at
 * least 80 % of the letters are Arabic, `'en'` when at least 80 % are Latin (English is the only
 * Latin-script language zerda analyses), `'mixed'` when Arabic and Latin each reach 20 %,
 * otherwise the larger of Arabic and Latin if together they reach 50 %, and `'other'` for
 * anything else, including text without letters.
 */
export function detectLanguage(text: string): Language {
  requireString(text, 'text');
  return languageFromMix(scriptMixUnchecked(text));
}

/**
 * The script class of a single token (or any string): the script holding most of its letters
 * (Arabic wins a tie with Latin), `'digit'` when it has digits but no letters, `'other'` otherwise.
 */
export function tokenScript(token: string): TokenScript {
  requireString(token, 'token');
  const counts = countLetters(token);
  const other = counts.other + counts.rightToLeftOther;
  if (counts.arabic + counts.latin + other === 0) return ANY_DIGIT.test(token) ? 'digit' : 'other';
  if (counts.arabic >= counts.latin && counts.arabic >= other) return 'arabic';
  if (counts.latin >= other) return 'latin';
  return 'other';
}

/** True when the text contains at least one Arabic letter (Arabic digits and punctuation alone do not count). */
export function isArabic(text: string): boolean {
  requireString(text, 'text');
  return ARABIC_LETTER.test(text);
}

/**
 * True when right-to-left letters (Arabic, Hebrew, Syriac, Thaana, N'Ko, …) outnumber all other
 * letters, i.e. the text should be displayed right to left. False for text without letters.
 */
export function isRightToLeft(text: string): boolean {
  requireString(text, 'text');
  if (!ANY_LETTER.test(text)) return false;
  const counts = countLetters(text);
  const rightToLeft = counts.arabic + counts.rightToLeftOther;
  return rightToLeft > counts.latin + counts.other;
}
