// TypeScript consumer of the core API, compiled three ways against the shipped .d.ts files with
// skipLibCheck off (every declaration file it reaches is checked: zerda's and zod's):
// moduleResolution node16 as an ES module (.mts), as CommonJS (.cts, module node20: require() of
// ES modules) and bundler (.ts). The @ts-expect-error lines fail the build if a type is `any`.
import { ContextEngine, explainResult, type ContextResult } from '@zerda/context';
import { renderInspector } from '@zerda/cli/inspector';

export async function contextFor(question: string): Promise<{ context: string; explained: number; html: number }> {
  const engine = new ContextEngine({ config: { composer: { maxContextLength: 800, template: 'citations' } } });
  await engine.index([
    { docId: 'hours-ar', source: 'hours-ar.md', text: 'تفتح المكتبة من الساعة التاسعة صباحًا حتى الخامسة مساءً.', metadata: { lang: 'ar' } },
    { docId: 'hours-en', source: 'hours-en.md', text: 'The library opens at 9 am and closes at 5 pm.', metadata: { lang: 'en' } },
  ]);
  const result: ContextResult = await engine.run(question, { maxChunks: 2 });
  const budgetUsed: number = result.budget.used;
  // @ts-expect-error the context is a string, not a number
  const wrong: number = result.context;
  void [wrong, budgetUsed];
  return { context: result.context, explained: explainResult(result).length, html: renderInspector(result).length };
}

export function neverCalled(engine: ContextEngine): unknown {
  // @ts-expect-error the budget override is a number
  return engine.run('query', { overrideBudget: 'large' });
}
