// Issue 15: defects 2 (strategies checked in the constructor), 3 (non-object options),
// 5 (spec fallbacks for composers without getStats/truncate) and 9 (unknown option keys).
import { describe, expect, it } from 'vitest';
import { expectZerdaError } from '@zerda/vector-conformance';
import { charCounter } from '@zerda/text';
import type { ContextComposer } from '@zerda/types';
import { ContextEngine } from './engine.js';
import { ContextManager } from './manager.js';
import { corpus } from './__fixtures__/corpus.js';

const STRATEGIES = [
  ['retriever', 'retrieve'],
  ['composer', 'compose'],
  ['ranker', 'rank'],
  ['chunkFilter', 'filter'],
  ['guard', 'check'],
  ['queryAnalyzer', 'analyze'],
  ['budgetAllocator', 'allocate'],
] as const;

describe('defect 2: every injected strategy is checked in the constructor', () => {
  it.each(STRATEGIES)('options.%s: a number, null, an array or an object without %s() is refused with ZERDA_INVALID_ARGUMENT', async (key, method) => {
    for (const bad of [5, null, 'x', true]) {
      const error = await expectZerdaError(async () => new ContextEngine({ [key]: bad } as never), ['ZERDA_INVALID_ARGUMENT']);
      expect(error.message).toMatch(new RegExp(`^options\\.${key} must be`));
      expect(error.message).toContain(`${method}()`);
    }
    for (const bad of [{}, [], { [method]: 'not a function' }]) {
      const error = await expectZerdaError(async () => new ContextEngine({ [key]: bad } as never), ['ZERDA_INVALID_ARGUMENT']);
      expect(error.details.field).toMatch(new RegExp(`^options\\.${key}(\\.${method})?$`));
      expect(error.message).toContain(method);
    }
  });

  it('names the missing method of an object that has some of them', async () => {
    const error = await expectZerdaError(async () => new ContextEngine({ composer: { truncate: () => '' } as never }));
    expect(error.message).toBe('options.composer.compose must be a function: a ContextComposer must have compose(), got no compose method');
  });

  it('accepts class instances whose methods live on the prototype, and checks optional methods when present', async () => {
    class Ranker {
      rank(chunks: never[]) {
        return chunks;
      }
    }
    expect(() => new ContextEngine({ ranker: new Ranker() })).not.toThrow();
    await expectZerdaError(async () => new ContextEngine({ retriever: { name: 'r', retrieve: async () => [], add: 5 } as never }), ['ZERDA_INVALID_ARGUMENT']);
    await expectZerdaError(async () => new ContextEngine({ embedder: 5 as never }), ['ZERDA_INVALID_ARGUMENT']);
    await expectZerdaError(async () => new ContextEngine({ logger: { info: 'console' } as never }), ['ZERDA_INVALID_ARGUMENT']);
  });
});

describe('defect 3: non-object options are refused everywhere', () => {
  it.each([null, 5, 'x', [], true])('build(query, tuples, %j) throws a ZerdaError naming options', async (bad) => {
    const engine = new ContextEngine();
    const error = await expectZerdaError(() => engine.build('q', [], bad as never), ['ZERDA_INVALID_ARGUMENT']);
    expect(error.message).toMatch(/^options/);
    for (const action of [() => engine.run('q', bad as never), () => engine.runMulti(['q'], bad as never), () => engine.buildMultiQueryContext(['q'], [[]], bad as never), () => engine.index(corpus, bad as never)]) {
      expect((await expectZerdaError(action, ['ZERDA_INVALID_ARGUMENT'])).message).toMatch(/^options/);
    }
    await expectZerdaError(async () => new ContextEngine(bad as never), ['ZERDA_INVALID_ARGUMENT']);
  });
});

describe('defect 9: unknown option keys are refused, so a typo never passes silently', () => {
  it('new ContextEngine({ lenghtCounter }) names the key and lists the known ones', async () => {
    const error = await expectZerdaError(async () => new ContextEngine({ lenghtCounter: charCounter } as never), ['ZERDA_INVALID_ARGUMENT']);
    expect(error.details.field).toBe('options.lenghtCounter');
    expect(error.message).toContain('lengthCounter');
  });

  it('in build(), buildMultiQueryContext(), run(), runMulti() and ContextManager too', async () => {
    const engine = new ContextEngine();
    await expectZerdaError(() => engine.build('q', [], { maxlength: 10 } as never), ['ZERDA_INVALID_ARGUMENT']);
    await expectZerdaError(() => engine.buildMultiQueryContext(['q'], [[]], { budget: 10 } as never), ['ZERDA_INVALID_ARGUMENT']);
    await expectZerdaError(() => engine.run('q', { conversationId: 'a' } as never), ['ZERDA_INVALID_ARGUMENT']);
    await expectZerdaError(() => engine.runMulti(['q'], { overrideBudget: 5 } as never), ['ZERDA_INVALID_ARGUMENT']);
    const error = await expectZerdaError(async () => new ContextManager({}, { dedupStrategi: {} } as never), ['ZERDA_INVALID_ARGUMENT']);
    expect(error.details.field).toBe('options.dedupStrategi');
    await expectZerdaError(async () => new ContextManager({}, { dedupStrategy: null } as never), ['ZERDA_INVALID_ARGUMENT']);
  });
});

describe('defect 5: the spec fallbacks for composers without getStats or truncate', () => {
  const composeOnly: ContextComposer = {
    compose: (chunks) => {
      const context = chunks.map((scored) => scored.chunk.text).join('\n\n---\n\n');
      return { context, chunks: [], skipped: [], truncated: false, template: 'mine', stats: { length: charCounter(context), unit: 'chars', characters: charCounter(context), chunkCount: chunks.length, averageChunkLength: 0, language: { arabic: 0, latin: 0, other: 0 } } };
    },
  } as ContextComposer;

  it('getContextStats measures the context itself ({ totalLength }-style) when the composer has no getStats', () => {
    const engine = new ContextEngine({ composer: composeOnly });
    const stats = engine.getContextStats('first passage\n\n---\n\nالمقطع الثاني');
    expect(stats.length).toBe(charCounter('first passage\n\n---\n\nالمقطع الثاني'));
    expect(stats.characters).toBe(stats.length);
    expect(stats.chunkCount).toBe(2);
    expect(stats.language.arabic).toBeGreaterThan(0);
  });

  it('compressContext uses the one shared word-boundary truncation when the composer has no truncate', () => {
    const engine = new ContextEngine({ composer: composeOnly });
    expect(engine.compressContext('one two three four five', 12)).toBe('one two…');
    expect(engine.compressContext('مرحبا بالعالم العربي', 14)).toBe('مرحبا بالعالم…');
  });

  it('runMulti joins within the global budget with a composer that has neither', async () => {
    const engine = new ContextEngine({ composer: composeOnly });
    await engine.index(corpus);
    const context = await engine.runMulti(['retrieval', 'BM25'], { globalBudget: 120 });
    expect(charCounter(context)).toBeLessThanOrEqual(120);
  });

  it('a composer whose truncate overshoots is held to the budget by the shared truncation', () => {
    const engine = new ContextEngine({ composer: { ...composeOnly, truncate: (text: string) => `${text} and more` } as ContextComposer });
    expect(engine.compressContext('one two three four five', 12)).toBe('one two…');
  });
});
