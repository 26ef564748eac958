import type { LengthCounter } from '@zerda/types';
import { invalidArgument } from '@zerda/types';
import { charCounter, codePointOffset, countCodePoints } from './counters.js';
import { optionalObject, rejectUnknownKeys, requireString } from './input-validation.js';
import { forEachToken } from './tokenizer.js';

/** Options of {@link truncateAtWordBoundary}. */
export interface TruncateOptions {
  /** Appended to a truncated prefix (and counted against the budget). Default `'…'`; `''` for none. */
  ellipsis?: string;
}

const WHITESPACE_AT = /\s/u;
const FIRST_PROBE = 256;
// A whitespace character right after a non-whitespace one: the end of a chunk.
const CHUNK_END = /(?<=\S)\s/gu;

function isWhitespaceAt(text: string, index: number): boolean {
  const char = text[index];
  return char !== undefined && WHITESPACE_AT.test(char);
}

// Candidate cut positions in (from, limit]: every token end (never inside a word or between a
// letter and its marks) and every end of a whitespace-delimited chunk (keeps "C++" or "world," whole).
// `from` is 0 or a chunk end and `limit` the text's end or a whitespace position, so no token of
// the window continues past either side. Positions equal to the text's length are left out.
function boundariesUpTo(text: string, from: number, limit: number): number[] {
  const scope = text.slice(from, limit);
  const tokenEnds: number[] = [];
  forEachToken(scope, (_start, end) => {
    tokenEnds.push(from + end);
  });
  let match: RegExpExecArray | null;
  const chunkEnds: number[] = [];
  CHUNK_END.lastIndex = 0;
  while ((match = CHUNK_END.exec(scope)) !== null) chunkEnds.push(from + match.index);
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
    if (next > from && next < text.length) boundaries.push(next);
  }
  return boundaries;
}

// The last end of a whitespace-delimited chunk (a whitespace right after a non-whitespace) at or
// before `position`, or 0.
function chunkEndAtOrBefore(text: string, position: number): number {
  let index = Math.min(position, text.length - 1);
  while (index > 0 && !(isWhitespaceAt(text, index) && !isWhitespaceAt(text, index - 1))) index--;
  return index;
}

/**
 * The search for the longest prefix that fits, on positions `fitting` (fits) < `failing` (does not):
 * a bisection, or, when asked to interpolate, each probe placed where the line through the last two
 * recorded counts meets the budget (a counter grows about linearly with the text, so this lands on
 * the answer or next to it: a cut is found in about three counts instead of the dozen of a
 * bisection), clamped inside the bracket. Two guesses in a row that did not halve the bracket are
 * followed by a bisection, so a counter far from linear costs at most three times a binary search.
 * For a counter that grows with the text every order of probes finds the same position; the bracket
 * is what makes the answer exact.
 */
class PositionSearch {
  #position1 = -1;
  #count1 = 0;
  #position2 = -1;
  #count2 = 0;
  #stalls = 0;

  constructor(
    private readonly budget: number,
    private readonly interpolate: boolean,
  ) {}

  /** Records the count of the prefix ending at `position` (a count that is not a finite number is not a point of the line). */
  record(position: number, count: unknown): void {
    if (!this.interpolate || typeof count !== 'number' || !Number.isFinite(count) || position === this.#position2) return;
    this.#position1 = this.#position2;
    this.#count1 = this.#count2;
    this.#position2 = position;
    this.#count2 = count;
  }

  /** The next position to probe, strictly between `fitting` and `failing` (which differ by more than 1). */
  next(fitting: number, failing: number): number {
    const middle = fitting + ((failing - fitting) >>> 1);
    if (!this.interpolate || this.#stalls >= 2 || this.#position1 < 0) {
      this.#stalls = 0;
      return middle;
    }
    const slope = (this.#count2 - this.#count1) / (this.#position2 - this.#position1);
    if (!(slope > 0) || !Number.isFinite(slope)) return middle;
    const guess = this.#position2 + Math.floor((this.budget - this.#count2) / slope);
    const position = Math.min(failing - 1, Math.max(fitting + 1, guess));
    // A guess is a stall when the side it leaves could still hold more than half of the bracket.
    if (Math.min(position - fitting, failing - position) < (failing - fitting) / 4) this.#stalls += 1;
    else this.#stalls = 0;
    return position;
  }
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

  const within = (length: unknown): boolean => typeof length === 'number' && length <= budget;
  const fits = (candidate: string): boolean => within(counter(candidate));
  // The longest raw prefix that fits; with a counter that grows with the text, the answer is the
  // last word boundary at or before it, and only the whitespace-delimited chunk around it needs
  // tokenizing (no boundary list of the whole text is ever built).
  let fitting = 0;
  let failing = text.length;
  if (counter === charCounter) {
    // Characters are code points: counted once, and the cut is found in one pass over the prefix.
    if (fits(text)) return text;
    fitting = codePointOffset(text, Math.floor(budget) - countCodePoints(ellipsis));
    failing = fitting + 1;
  } else {
    // Any other counter is probed on growing prefixes first, so that a small budget never pays for
    // counting a huge text (a prefix that does not fit means the text does not, for a counter that
    // grows with the text), then the cut is found by a search on positions.
    // Interpolation only for a counter in characters: it grows with every character, so the cut is
    // the same whichever positions are probed. A token count can shrink when a word grows ("ca…" may
    // cost more tokens than "cat…"), and there the cut depends on the order of probes: bisection
    // keeps it where it has always been.
    const search = new PositionSearch(budget, counter.unit === 'chars');
    const counted = (position: number, length: unknown): boolean => {
      search.record(position, length);
      return within(length);
    };
    const prefixFits = (position: number): boolean => counted(position, counter(text.slice(0, position) + ellipsis));
    for (let probe = FIRST_PROBE; probe < text.length; probe *= 2) {
      if (!prefixFits(probe)) {
        failing = probe;
        break;
      }
      fitting = probe;
    }
    // The text is counted whole only when no probe failed, or when it is not much longer than the
    // probe that did (the ellipsis may be what did not fit).
    if (text.length <= 2 * failing && counted(text.length, counter(text))) return text;
    while (failing - fitting > 1) {
      const position = search.next(fitting, failing);
      if (prefixFits(position)) fitting = position;
      else failing = position;
    }
  }
  const windowStart = chunkEndAtOrBefore(text, fitting);
  let windowEnd = fitting;
  while (windowEnd < text.length && !isWhitespaceAt(text, windowEnd)) windowEnd++;
  let cut = windowStart;
  for (const boundary of boundariesUpTo(text, windowStart, windowEnd)) if (boundary <= fitting) cut = boundary;
  if (cut > 0) {
    const candidate = text.slice(0, cut) + ellipsis;
    if (fits(candidate)) return candidate;
  }
  // The counter does not grow with the text here (or nothing fits): search every boundary up to
  // the first prefix found too long.
  let limit = Math.min(failing, text.length);
  while (limit < text.length && !isWhitespaceAt(text, limit)) limit++;
  return searchBoundaries(text, boundariesUpTo(text, 0, limit), fits, ellipsis);
}

/** The largest boundary index of `boundaries` whose prefix (plus the ellipsis) fits; `''` when none does. */
function searchBoundaries(text: string, boundaries: readonly number[], fits: (candidate: string) => boolean, ellipsis: string): string {
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
