import { contextStats, countPassages, counterUnit } from '@zerda/composer';
import { charCounter, truncateAtWordBoundary } from '@zerda/text';
import type { ContextComposer, ContextStats, LengthCounter } from '@zerda/types';

/**
 * A composer with both optional-looking parts of the contract filled in: a custom composer that
 * only implements `compose` still works with `compressContext` (the one shared word-boundary
 * truncation, `truncateAtWordBoundary`) and `getContextStats` (statistics measured from the context
 * alone: its length in the counter's unit, characters, script mix, and the passages counted from
 * the template's marks — the spec's `{ total_length }` fallback, in the `ContextStats` shape).
 * A complete composer is returned as it is.
 */
export function withComposerFallbacks(composer: ContextComposer, template: string, separator: string): CompleteComposer {
  const truncate = composer.truncate;
  const getStats = composer.getStats;
  if (typeof truncate === 'function' && typeof getStats === 'function') return composer as CompleteComposer;
  return {
    compose: (chunks, options) => composer.compose(chunks, options),
    truncate:
      typeof truncate === 'function'
        ? (text, budget, counter) => truncate.call(composer, text, budget, counter)
        : (text, budget, counter) => truncateAtWordBoundary(text, budget, counter),
    getStats:
      typeof getStats === 'function'
        ? (context, options) => getStats.call(composer, context, options)
        : (context, options = {}) => fallbackStats(context, options.counter, options.budget, template, separator),
  };
}

/** A composer with every part of the contract (what {@link withComposerFallbacks} returns). */
export type CompleteComposer = Required<ContextComposer>;

function fallbackStats(context: string, counter: LengthCounter | undefined, budget: number | undefined, template: string, separator: string): ContextStats {
  const measure = counter ?? charCounter;
  return contextStats(context, (text) => measure(text), counterUnit(measure), {
    ...(budget === undefined ? {} : { budget }),
    chunkCount: countPassages(context, template, separator),
  });
}

/**
 * `composer.truncate(text, budget, counter)`, held to its promise: when the composer's own
 * truncation returns something longer than the budget (or not a string), the shared
 * word-boundary truncation is used instead, so every budget the engine states holds.
 */
export function truncateWithinBudget(composer: CompleteComposer, text: string, budget: number, counter: LengthCounter): string {
  const cut: unknown = composer.truncate(text, budget, counter);
  if (typeof cut === 'string' && counter(cut) <= budget) return cut;
  return truncateAtWordBoundary(text, budget, counter);
}
