import { charCounter } from '@zerda/text';
import { ZerdaError, invalidArgument } from '@zerda/types';
import type { LegacyDeduplicationStrategy } from './legacy-strategies.js';
import { checkTuples, type LegacyChunk, type ScoredTuple, type TupleInput } from './legacy-tuple.js';

/** The first `length` code points of `text` (what Python's `text[:length]` gives). */
function codePointPrefix(text: string, length: number): string {
  let end = 0;
  let taken = 0;
  while (end < text.length && taken < length) {
    const code = text.codePointAt(end)!;
    end += code > 0xffff ? 2 : 1;
    taken += 1;
  }
  return text.slice(0, end);
}

/**
 * Legacy prefix deduplication: a tuple is a duplicate when the lowercased first `prefixLength`
 * characters (code points) of its chunk's text equal those of an earlier tuple; the first one seen is
 * kept, order is preserved. Every chunk must be at least `prefixLength` characters long: a shorter one
 * is refused with a ZerdaError (`prefixLength 100 exceeds chunk text length 5 (chunks[3][0].text)`)
 * before anything is processed — unlike the Python version, which failed mid-way — and the input
 * array is never modified. Prefer `HashDeduplication`, which has no length constraint.
 */
export class PrefixDeduplication implements LegacyDeduplicationStrategy {
  readonly prefixLength: number;

  constructor(prefixLength = 100) {
    if (typeof prefixLength !== 'number' || !Number.isInteger(prefixLength) || prefixLength < 1) {
      throw invalidArgument('prefixLength', 'an integer >= 1', prefixLength);
    }
    this.prefixLength = prefixLength;
  }

  deduplicate<C extends LegacyChunk>(chunks: readonly TupleInput<C>[]): ScoredTuple<C>[] {
    checkTuples<C>(chunks);
    chunks.forEach(([chunk], index) => {
      const length = charCounter(chunk.text);
      if (this.prefixLength > length) {
        const field = `chunks[${index}][0].text`;
        throw new ZerdaError(
          'ZERDA_INVALID_ARGUMENT',
          { field, expected: `at least prefixLength (${this.prefixLength}) characters`, received: `${length} characters` },
          { message: `prefixLength ${this.prefixLength} exceeds chunk text length ${length} (${field})` },
        );
      }
    });
    const seen = new Set<string>();
    const kept: ScoredTuple<C>[] = [];
    for (const tuple of chunks) {
      const signature = codePointPrefix(tuple[0].text, this.prefixLength).toLowerCase();
      if (seen.has(signature)) continue;
      seen.add(signature);
      kept.push(tuple as ScoredTuple<C>);
    }
    return kept;
  }
}
