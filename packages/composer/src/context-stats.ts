import { charCounter, scriptMix } from '@zerda/text';
import type { ContextStats, LengthCounter } from '@zerda/types';

/** The unit a counter reports in, for diagnostics (`chars` for zerda's default counter). */
export function counterUnit(counter: LengthCounter): string {
  return counter.unit ?? counter.counterName ?? 'units';
}

/**
 * Statistics of a context string. `chunkTexts` are the texts of the chunks in it when known (from the
 * composition that produced it); otherwise `chunkCount` passages are assumed and the average chunk
 * length is the context length divided by that count (frames included).
 */
export function contextStats(
  context: string,
  measure: (text: string) => number,
  unit: string,
  options: { budget?: number; chunkTexts?: readonly string[]; chunkCount?: number },
): ContextStats {
  const length = measure(context);
  const chunkCount = options.chunkTexts?.length ?? options.chunkCount ?? 0;
  const averageChunkLength =
    chunkCount === 0
      ? 0
      : options.chunkTexts
        ? options.chunkTexts.reduce((sum, text) => sum + measure(text), 0) / chunkCount
        : length / chunkCount;
  const mix = scriptMix(context);
  const stats: ContextStats = {
    length,
    unit,
    characters: charCounter(context),
    chunkCount,
    averageChunkLength,
    language: { arabic: mix.arabic, latin: mix.latin, other: mix.other },
  };
  if (options.budget !== undefined) stats.budgetUtilization = budgetUtilization(length, options.budget);
  return stats;
}

/**
 * Share of the budget a length uses, clamped to [0, 1] as `ContextStats` documents (compare
 * `length` with the budget to see an overflow of a context that was not composed here).
 */
export function budgetUtilization(length: number, budget: number): number {
  if (budget === Number.POSITIVE_INFINITY) return 0;
  if (budget <= 0) return length > 0 ? 1 : 0;
  return Math.min(1, Math.max(0, length / budget));
}

/**
 * Counts the passages of a context rendered by a built-in template, from the template's own marks:
 * `<document` elements (xml), `### ` headings (markdown), distinct `[n]` numbers (numbered,
 * citations), separators (default and custom templates).
 */
export function countPassages(context: string, template: string, separator: string): number {
  if (context === '') return 0;
  switch (template) {
    case 'xml':
      return (context.match(/<document\s/g) ?? []).length;
    case 'markdown':
      return (context.match(/^### /gm) ?? []).length;
    case 'numbered':
    case 'citations':
      return new Set(Array.from(context.matchAll(/^\[(\d+)\] /gm), (match) => match[1])).size;
    default:
      return separator === '' ? 1 : context.split(separator).length;
  }
}
