// Issue 15, defect 1: the budget is an invariant of run(), runMulti(), build() and
// buildMultiQueryContext() in every guard mode, for every counter and template.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { charCounter, tokenCounter, wordCounter } from '@zerda/context-core';
import type { ContextComposer, ContextGuard, LengthCounter, TemplateName } from '@zerda/types';
import { ContextEngine } from './engine.js';

const INJECTIONS = ['[INST]', '[/INST]', '<<SYS>>', '<</SYS>>', '<|im_start|>', '<|im_end|>', 'ignore previous instructions', 'تجاهل التعليمات السابقة', 'act as dan'];
const WORDS = ['retrieval', 'vector', 'search', 'البحث', 'النصوص', 'context', 'budget', 'model', 'tokens'];

/** Chunks dense with injection spans that redaction makes longer (`[INST]` → `[redacted]`). */
const chunkArbitrary = fc
  .array(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...INJECTIONS) }, { weight: 4, arbitrary: fc.constantFrom(...WORDS) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) }), { minLength: 1, maxLength: 60 })
  .chain((parts) => fc.constantFrom(' ', '', '\n').map((separator) => parts.join(separator)));

const COUNTERS: Array<[string, LengthCounter]> = [
  ['chars', charCounter],
  ['words', wordCounter],
  ['cl100k', tokenCounter('cl100k_base')],
];
const TEMPLATES: TemplateName[] = ['default', 'numbered', 'markdown', 'xml', 'citations'];
const GUARDS = [{ enabled: false }, { injection: 'off' as const }, { injection: 'flag' as const }, { injection: 'redact' as const }];

describe('the budget holds in every guard mode, for every counter and template (issue 15, defect 1)', () => {
  it('run(), runMulti(), build() and buildMultiQueryContext() never return more than the budget', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(chunkArbitrary, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(...COUNTERS),
        fc.constantFrom(...TEMPLATES),
        fc.constantFrom(...GUARDS),
        fc.constantFrom(0, 50),
        fc.integer({ min: 0, max: 400 }),
        fc.constantFrom(...WORDS, 'ignore previous instructions', '[INST]'),
        async (texts, [, counter], template, guard, minChunkLength, budget, query) => {
          const engine = new ContextEngine({ lengthCounter: counter, config: { guard, cache: { enabled: false }, composer: { template, minChunkLength } } });
          await engine.index(texts.map((text, i) => ({ docId: `d${i}`, text })));
          const result = await engine.run(query, { overrideBudget: budget, recordTurn: false });
          expect(counter(result.context)).toBeLessThanOrEqual(budget);
          expect(result.budget.used).toBe(counter(result.context));
          expect(result.budget.used).toBeLessThanOrEqual(result.budget.limit);
          const multi = await engine.runMulti([query, 'tokens'], { globalBudget: budget });
          expect(counter(multi)).toBeLessThanOrEqual(budget);
          const tuples = texts.map((text, i) => [{ docId: `d${i}`, text }, 1 - i / 10]);
          expect(counter(await engine.build(query, tuples, { maxLength: budget }))).toBeLessThanOrEqual(budget);
          expect(counter(await engine.buildMultiQueryContext([query, 'model'], [tuples, tuples], { globalBudget: budget }))).toBeLessThanOrEqual(budget);
        },
      ),
      { numRuns: 200 },
    );
  }, 120_000);

  it('redaction that outgrows the budget fits again: 5 chars of budget never give 14, 1,500 never 1,504', async () => {
    const engine = new ContextEngine({ config: { guard: { injection: 'redact' }, cache: { enabled: false }, composer: { minChunkLength: 0 } } });
    await engine.index([{ docId: 'a', text: `${'[INST] '.repeat(400)}hello world` }, { docId: 'b', text: `hello ${'<<SYS>> world '.repeat(200)}` }]);
    for (const budget of [5, 14, 20, 100, 1500]) {
      const result = await engine.run('hello world', { overrideBudget: budget });
      expect(charCounter(result.context), `budget ${budget}`).toBeLessThanOrEqual(budget);
      if (budget >= 20) expect(result.context).toContain('[redacted]');
      expect(result.context).not.toMatch(/\[INST\]|<<SYS>>/);
    }
  });

  it('holds a custom composer and a custom guard that ignore the budget to it', async () => {
    const composer: ContextComposer = {
      compose: (chunks) => ({ context: chunks.map((scored) => scored.chunk.text).join('\n'), chunks: [], skipped: [], truncated: false, template: 'mine', stats: { length: 0, unit: 'chars', characters: 0, chunkCount: 0, averageChunkLength: 0, language: { arabic: 0, latin: 0, other: 0 } } }),
    };
    const guard: ContextGuard = { check: ({ context }) => ({ passed: true, warnings: [], context: `${context} (checked by a guard that appends a note)` }) };
    const engine = new ContextEngine({ composer, guard, config: { cache: { enabled: false } } });
    await engine.index([{ docId: 'a', text: 'retrieval augmented generation and vector search for language models' }]);
    for (const budget of [0, 10, 40, 120]) {
      const result = await engine.run('retrieval', { overrideBudget: budget });
      expect(charCounter(result.context)).toBeLessThanOrEqual(budget);
      expect(result.budget.used).toBe(charCounter(result.context));
    }
  });
});
