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
export function withComposerFallbacks(composer: ContextComposer, template: string, separator: string): ContextComposer {
  if (typeof composer.truncate === 'function' && typeof composer.getStats === 'function') return composer;
  return {
    compose: (chunks, options) => composer.compose(chunks, options),
    truncate:
      typeof composer.truncate === 'function'
        ? (text, budget, counter) => composer.truncate(text, budget, counter)
        : (text, budget, counter) => truncateAtWordBoundary(text, budget, counter),
    getStats:
      typeof composer.getStats === 'function'
        ? (context, options) => composer.getStats(context, options)
        : (context, options = {}) => fallbackStats(context, options.counter, options.budget, template, separator),
  };
}

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
export function truncateWithinBudget(composer: ContextComposer, text: string, budget: number, counter: LengthCounter): string {
  const cut: unknown = composer.truncate(text, budget, counter);
  if (typeof cut === 'string' && counter(cut) <= budget) return cut;
  return truncateAtWordBoundary(text, budget, counter);
}
