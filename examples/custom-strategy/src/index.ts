import { ContextEngine, SmartContextComposer, explainResult, resolveConfig, tokenCounter, type ContextEngineConfigInput, type ContextResult } from '@zerda/context';
import { documents } from '@zerda/example-quickstart';
import { DenyListGuard } from './deny-list-guard.js';
import { internalNotes } from './internal-notes.js';
import { jsonLinesTemplate, withTemplate } from './json-lines-template.js';

export { DenyListGuard } from './deny-list-guard.js';
export { jsonLinesTemplate, withTemplate } from './json-lines-template.js';
export { internalNotes } from './internal-notes.js';

/** Terms that must never reach the model: an internal code name, in English and Arabic. */
export const deniedTerms: readonly string[] = ['Project Falcon', 'مشروع الصقر'];

/** Questions run on both engines: two touch the internal notes, one does not. */
export const queries: readonly string[] = ['When does the pgvector backend ship?', 'متى يصدر دعم pgvector؟', 'What is BM25?'];

/** The budget, in cl100k_base tokens (the `tokenCounter` measures it). */
export const tokenBudget = 300;

export interface Comparison {
  query: string;
  baseline: ContextResult;
  custom: ContextResult;
}

const rule = (character = '─') => character.repeat(100);

/** Everything both engines share: configuration, token counter, composer with the JSON-lines template. */
function createEngine(options: { guard?: DenyListGuard } = {}): ContextEngine {
  const config: ContextEngineConfigInput = { composer: { maxContextLength: tokenBudget } };
  return new ContextEngine({
    config,
    lengthCounter: tokenCounter('cl100k_base'),
    composer: withTemplate(new SmartContextComposer(resolveConfig(config).composer), jsonLinesTemplate),
    ...options,
  });
}

const verdict = (result: ContextResult) => `${result.guardPassed ? 'passed' : 'FAILED'}${result.guardWarnings.length > 0 ? ` — ${result.guardWarnings.join('; ')}` : ''}`;

const sameIds = (left: ContextResult, right: ContextResult) =>
  left.chunks.map((chunk) => chunk.chunk.id).join() === right.chunks.map((chunk) => chunk.chunk.id).join();

/**
 * Replaces one stage — the guard — with a custom `ContextGuardStrategy` (the default checks plus a
 * deny list), on an engine that also uses a custom template function (JSON lines) and a token budget
 * (`tokenCounter('cl100k_base')`). Runs the same questions on a baseline engine that differs only by
 * the guard, and shows that analysis, retrieval, filtering, ranking and the context are identical;
 * only the guard's verdict differs.
 */
export async function runCustomStrategyExample(print: (line: string) => void = console.log): Promise<Comparison[]> {
  const corpus = [...documents, ...internalNotes];
  const baseline = createEngine();
  const custom = createEngine({ guard: new DenyListGuard(deniedTerms) });
  await baseline.index(corpus);
  await custom.index(corpus);

  const comparisons: Comparison[] = [];
  for (const query of queries) {
    const [baselineResult, customResult] = [await baseline.run(query, { useHistory: false }), await custom.run(query, { useHistory: false })];
    comparisons.push({ query, baseline: baselineResult, custom: customResult });
    print(`${rule('═')}\n${query}\n${rule()}`);
    print(`context (JSON lines, ${customResult.budget.used}/${customResult.budget.limit} ${customResult.budget.unit}):\n${customResult.context}`);
    print(rule());
    print('| stage | baseline engine | custom guard |');
    print('|---|---|---|');
    print(`| analysis keywords | ${baselineResult.analysis.keywords.join(' ')} | ${customResult.analysis.keywords.join(' ')} |`);
    print(`| retrieved → filter → rank → used | ${Object.values(baselineResult.counts).join(' → ')} | ${Object.values(customResult.counts).join(' → ')} |`);
    print(`| chunks | ${baselineResult.chunks.map((chunk) => chunk.chunk.id).join(', ')} | ${sameIds(baselineResult, customResult) ? 'same' : customResult.chunks.map((chunk) => chunk.chunk.id).join(', ')} |`);
    print(`| context | ${baselineResult.budget.used} ${baselineResult.budget.unit} | ${baselineResult.context === customResult.context ? 'identical' : 'DIFFERENT'} |`);
    print(`| guard | ${verdict(baselineResult)} | ${verdict(customResult)} |`);
    if (!customResult.guardPassed) print('\n→ The application would refuse to send this context to the model.');
  }
  print(`\n${rule('═')}\nDiagnostics of the last custom run\n${rule()}\n${explainResult(comparisons.at(-1)!.custom)}`);
  return comparisons;
}
