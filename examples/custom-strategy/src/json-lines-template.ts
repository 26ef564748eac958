import type { ComposeOptions, ComposeResult, ContextComposer, ContextTemplate, LengthCounter, ScoredChunk } from '@zerda/context';

/**
 * A custom template: one JSON object per passage and line — its citation number, source, language
 * and text — for prompts that ask the model to answer as JSON and cite passages by `n`. The composer
 * measures what the template returns, so the braces and keys count against the budget too.
 */
export const jsonLinesTemplate: ContextTemplate = function jsonLines(passages) {
  return passages
    .map((passage) => JSON.stringify({ n: passage.number, source: passage.chunk.source, lang: passage.chunk.metadata.lang ?? null, text: passage.text }))
    .join('\n');
};

/**
 * Runs a composer with a template function. The engine's configuration names a built-in template
 * (`config.composer.template`) and passes that name on every call, so a template function is
 * applied by wrapping the composer; fitting, truncation and statistics stay the wrapped composer's.
 */
export function withTemplate(composer: ContextComposer, template: ContextTemplate): ContextComposer {
  const wrapped: ContextComposer = {
    compose: (chunks: ScoredChunk[], options: ComposeOptions): ComposeResult | Promise<ComposeResult> => composer.compose(chunks, { ...options, template }),
  };
  // Truncation and statistics are optional parts of a composer: passed on when the wrapped one has them.
  const { truncate, getStats } = composer;
  if (truncate) wrapped.truncate = (text: string, budget: number, counter?: LengthCounter) => truncate.call(composer, text, budget, counter);
  if (getStats) wrapped.getStats = (context, options) => getStats.call(composer, context, options);
  return wrapped;
}
