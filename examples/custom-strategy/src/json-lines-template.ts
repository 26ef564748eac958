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
  return {
    compose: (chunks: ScoredChunk[], options: ComposeOptions): ComposeResult | Promise<ComposeResult> => composer.compose(chunks, { ...options, template }),
    truncate: (text: string, budget: number, counter?: LengthCounter) => composer.truncate(text, budget, counter),
    getStats: (context, options) => composer.getStats(context, options),
  };
}
