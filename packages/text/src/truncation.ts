import type { LengthCounter } from '@zerda/types';
import { invalidArgument } from '@zerda/types';
import { charCounter } from './counters.js';
import { optionalObject, rejectUnknownKeys, requireString } from './input-validation.js';
import { forEachToken } from './tokenizer.js';

/** Options of {@link truncateAtWordBoundary}. */
export interface TruncateOptions {
  /** Appended to a truncated prefix (and counted against the budget). Default `'…'`; `''` for none. */
  ellipsis?: string;
}

const WHITESPACE_AT = /\s/u;
// A whitespace character right after a non-whitespace one: the end of a chunk.
const CHUNK_END = /(?<=\S)\s/gu;
const FIRST_PROBE = 256;

function isWhitespaceAt(text: string, index: number): boolean {
  const char = text[index];
  return char !== undefined && WHITESPACE_AT.test(char);
}

// Candidate cut positions in (0, limit): every token end (never inside a word or between a letter
// and its marks) and every end of a whitespace-delimited chunk (keeps "C++" or "world," whole).
// `limit` is the text's end or a whitespace position, so no token of the scope continues past it.
function boundariesUpTo(text: string, limit: number): number[] {
  const scope = text.slice(0, limit);
  const tokenEnds: number[] = [];
  forEachToken(scope, (_start, end) => {
    tokenEnds.push(end);
  });
  let match: RegExpExecArray | null;
  const chunkEnds: number[] = [];
  CHUNK_END.lastIndex = 0;
  while ((match = CHUNK_END.exec(scope)) !== null) chunkEnds.push(match.index);
  // Merge the two sorted lists without duplicates.
  const boundaries: number[] = [];
  let tokenIndex = 0;
  let chunkIndex = 0;
  while (tokenIndex < tokenEnds.length || chunkIndex < chunkEnds.length) {
    const fromTokens = tokenEnds[tokenIndex] ?? Infinity;
    const fromChunks = chunkEnds[chunkIndex] ?? Infinity;
    const next = Math.min(fromTokens, fromChunks);
    if (fromTokens === next) tokenIndex++;
    if (fromChunks === next) chunkIndex++;
    if (next < text.length) boundaries.push(next);
  }
  return boundaries;
}

/**
 * THE word-boundary truncation of zerda: the longest prefix of `text` that ends at a word boundary
 * (after a word or at the end of a whitespace-delimited chunk; never inside a word, never between
 * a letter and its combining marks) such that `counter(prefix + ellipsis) <= budget`, followed by
 * the ellipsis. Returns `text` unchanged when it fits, and `''` when not even the first word fits.
 * Boundaries are found by binary search, assuming the counter grows with the text (every built-in
 * counter and tokenizer count does); the returned value always satisfies the budget regardless.
 */
export function truncateAtWordBoundary(text: string, budget: number, counter: LengthCounter = charCounter, options?: TruncateOptions): string {
  requireString(text, 'text');
  if (typeof budget !== 'number' || Number.isNaN(budget) || budget < 0) throw invalidArgument('budget', 'a number >= 0', budget);
  if (typeof counter !== 'function') throw invalidArgument('counter', 'a LengthCounter function', counter);
  const record = optionalObject(options, 'options');
  if (record !== undefined) rejectUnknownKeys(record, ['ellipsis'], 'options');
  const ellipsis = record?.ellipsis ?? '…';
  if (typeof ellipsis !== 'string') throw invalidArgument('options.ellipsis', 'a string', ellipsis);

  const fits = (candidate: string): boolean => {
    const length = counter(candidate);
    return typeof length === 'number' && length <= budget;
  };
  if (fits(text)) return text;

  // Only the part of the text that could still fit needs boundaries: grow a probe until a prefix
  // no longer fits, then extend it to the next whitespace so the word under the cut is complete.
  let limit = text.length;
  for (let probe = FIRST_PROBE; probe < text.length; probe *= 2) {
    if (!fits(text.slice(0, probe) + ellipsis)) {
      limit = probe;
      while (limit < text.length && !isWhitespaceAt(text, limit)) limit++;
      break;
    }
  }
  const boundaries = boundariesUpTo(text, limit);

  // Largest index whose prefix fits; -1 when none does.
  let low = -1;
  let high = boundaries.length;
  let best = '';
  while (high - low > 1) {
    const middle = (low + high) >>> 1;
    const candidate = text.slice(0, boundaries[middle]) + ellipsis;
    if (fits(candidate)) {
      low = middle;
      best = candidate;
    } else {
      high = middle;
    }
  }
  return best;
}
