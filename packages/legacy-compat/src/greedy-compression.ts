import { charCounter, truncateAtWordBoundary } from '@zerda/text';
import { invalidArgument, type LengthCounter } from '@zerda/types';
import type { LegacyCompressionStrategy } from './legacy-strategies.js';

/**
 * Legacy compression of an already composed context (header, parts and footer joined by a
 * separator) to `target` counter units, in the six documented steps:
 * 1. a context within `target` is returned unchanged;
 * 2. `target <= 0` gives `''`;
 * 3. fewer than three parts: the whole context is cut at a word boundary;
 * 4. otherwise the first part is the header and the last the footer; with
 *    `available = target - (header + footer + 2 separators)`, middle parts are kept greedily while
 *    they fit, and the first one that does not is cut (not dropped) at a word boundary, which ends it;
 * 5. when `available` is below `MIN_CONTENT_LENGTH` (50 counter units) the header alone is cut to `target`;
 * 6. a result still over `target` (a counter that is not additive) is cut as a whole.
 * Every cut is the shared `truncateAtWordBoundary` of `@zerda/text` (binary search to the last word
 * boundary, plus `…`) — the one the composer and the engine use, not a third copy.
 */
export class GreedyCompression implements LegacyCompressionStrategy {
  /** Least room (counter units) for middle parts before the header alone is kept. */
  static readonly MIN_CONTENT_LENGTH = 50;

  /** The shared word-boundary truncation (the legacy `_truncate`). */
  static truncate(text: string, maxLength: number, counter: LengthCounter = charCounter): string {
    return truncateAtWordBoundary(text, maxLength, counter);
  }

  compress(context: string, target: number, counter: LengthCounter = charCounter, separator = '\n\n---\n\n'): string {
    if (typeof context !== 'string') throw invalidArgument('context', 'a string', context);
    if (typeof target !== 'number' || Number.isNaN(target) || target < 0) throw invalidArgument('target', 'a number >= 0', target);
    if (typeof counter !== 'function') throw invalidArgument('counter', 'a function (text) => number', counter);
    if (typeof separator !== 'string' || separator === '') throw invalidArgument('separator', 'a non-empty string', separator);
    const measure = (text: string): number => {
      const value: unknown = counter(text);
      if (typeof value !== 'number' || Number.isNaN(value)) throw invalidArgument('counter', 'a function returning a number', value);
      return value;
    };

    if (measure(context) <= target) return context; // 1
    if (target <= 0) return ''; // 2
    const parts = context.split(separator);
    if (parts.length <= 2) return truncateAtWordBoundary(context, target, counter); // 3
    const header = parts[0]!;
    const footer = parts[parts.length - 1]!;
    const separatorLength = measure(separator);
    const available = target - (measure(header) + measure(footer) + 2 * separatorLength);
    if (available < GreedyCompression.MIN_CONTENT_LENGTH) return truncateAtWordBoundary(header, target, counter); // 5
    const kept: string[] = []; // 4
    let used = 0;
    for (const part of parts.slice(1, -1)) {
      const joint = kept.length > 0 ? separatorLength : 0;
      const length = measure(part);
      if (used + joint + length <= available) {
        kept.push(part);
        used += joint + length;
        continue;
      }
      const room = available - used - joint;
      const cut = room > 0 ? truncateAtWordBoundary(part, room, counter) : '';
      if (cut !== '') kept.push(cut);
      break;
    }
    const result = [header, ...kept, footer].join(separator);
    return measure(result) <= target ? result : truncateAtWordBoundary(result, target, counter); // 6
  }
}
