import type { LengthCounter } from '@zerda/types';
import { requireString } from './input-validation.js';
import { countTokensUnchecked } from './tokenizer.js';

const HIGH_SURROGATE = /[\uD800-\uDBFF]/;

/** Internal: number of Unicode code points (a lone surrogate counts as one). */
export function countCodePoints(text: string): number {
  // Most text has no surrogate at all; a native regex scan finds that ~3x faster than the loop.
  if (!HIGH_SURROGATE.test(text)) return text.length;
  let count = text.length;
  for (let index = 0; index < text.length - 1; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        index++;
      }
    }
  }
  return count;
}

/**
 * The default length counter: Unicode code points (unit `'chars'`), so an emoji or a letter
 * outside the BMP counts once, unlike `string.length`. Combining marks count on their own.
 */
export const charCounter: LengthCounter = Object.assign(
  (text: string): number => {
    requireString(text, 'text');
    return countCodePoints(text);
  },
  { unit: 'chars', counterName: 'chars' } as const,
);

/** Counts words and numbers as {@link tokenize} finds them (unit `'words'`); punctuation and emoji do not count. */
export const wordCounter: LengthCounter = Object.assign(
  (text: string): number => {
    requireString(text, 'text');
    return countTokensUnchecked(text);
  },
  { unit: 'words', counterName: 'words' } as const,
);
