import { ContextEngine, ContextManager, explainResult, queryHeader, tupleToScored } from '@zerda/context';
import { HashDeduplication, ScoreRanking } from '@zerda/legacy-compat';
import { tokenCounter } from '@zerda/context-core';
import { charCounter, wordCounter } from '@zerda/text';
import type { LengthCounter } from '@zerda/types';
import { FUZZ_CORPUS, chunkList, fuzzEmbedder } from '../fixtures.js';
import type { Generator } from '../generator.js';
import { expect, expectFilterHeld, expectWithinBudget, optionOf, target, type FuzzContext, type FuzzTarget } from '../target.js';
import { configInput } from './types.js';
import { query } from './core.js';

interface SharedEngine {
  engine: ContextEngine;
  counter: LengthCounter;
}

let shared: SharedEngine[] | undefined;

/** Engines indexed once and reused by read-only cases: default, redacting, token-counted, hybrid. */
async function sharedEngines(): Promise<SharedEngine[]> {
  if (shared) return shared;
  const cl100k = tokenCounter('cl100k_base');
  const configs: Array<{ counter: LengthCounter; options: ConstructorParameters<typeof ContextEngine>[0]; index?: Parameters<ContextEngine['index']>[1] }> = [
    { counter: charCounter, options: {} },
    { counter: wordCounter, options: { lengthCounter: wordCounter, config: { guard: { injection: 'redact' }, composer: { template: 'citations', minChunkLength: 0 } } } },
    { counter: cl100k, options: { lengthCounter: cl100k, config: { composer: { template: 'xml' }, cache: { enabled: false } } } },
    { counter: charCounter, options: { embedder: fuzzEmbedder, config: { guard: { injection: 'redact' }, composer: { template: 'markdown' } } } },
  ];
  shared = await Promise.all(
    configs.map(async ({ counter, options }) => {
      const engine = new ContextEngine(options);
      await engine.index(FUZZ_CORPUS);
      return { engine, counter };
    }),
  );
  return shared;
}

function runOptions(g: Generator): Record<string, unknown> {
  return g.options({
    metadataFilters: () => g.filter(),
    maxChunks: () => g.number(1, 8),
    overrideBudget: () => g.number(0, 3000),
    useHistory: () => g.chance(0.5),
    recordTurn: () => g.chance(0.5),
    conversation: () => g.pick(['u1', 'u2', `u${g.int(0, 2000)}`, '', g.hostile()]),
  }, 0.03) as Record<string, unknown>;
}

async function checkedRun(g: Generator, c: FuzzContext, { engine, counter }: SharedEngine): Promise<void> {
  const options = runOptions(g);
  const result = await c.call(() => engine.run(query(g), options as never));
  expectWithinBudget(result.context, optionOf(options, 'overrideBudget') ?? engine.config.composer.maxContextLength, counter, 'ContextEngine.run');
  expect(result.budget.used === counter(result.context), 'ContextEngine.run reports a used length that is not the context length');
  expectFilterHeld(result.chunks.map((used) => used.chunk), optionOf(options, 'metadataFilters'), 'ContextEngine.run');
  if (g.chance(0.1)) await c.call(() => explainResult(result));
}

function tuples(g: Generator): unknown {
  if (g.chance(0.05)) return g.hostile();
  return g.array(() => (g.chance(0.95) ? [g.chance(0.95) ? { docId: `d${g.int(0, 4)}`, text: g.string(g.int(0, 500)), ...(g.chance(0.2) ? { metadata: g.metadata() } : {}) } : g.hostile(), g.chance(0.95) ? g.float() : Number.NaN] : g.hostile()), 6);
}

/** Entry points of @zerda/context. */
export const contextTargets: FuzzTarget[] = [
  target('context.ContextEngine.run', async (g, c) => {
    await checkedRun(g, c, g.pick(await sharedEngines()));
  }, 8),
  target('context.ContextEngine.conversation', async (g, c) => {
    const { engine, counter } = g.pick(await sharedEngines());
    const conversation = await c.call(() => engine.conversation(g.chance(0.95) ? `user-${g.int(0, 50)}` : (g.hostile() as string)));
    const result = await c.call(() => conversation.run(query(g), g.options({ overrideBudget: () => g.number(0, 2000) }) as never));
    expect(result.budget.used === counter(result.context), 'Conversation.run reports a used length that is not the context length');
    expectWithinBudget(result.context, result.budget.limit, counter, 'Conversation.run');
    if (g.chance(0.2)) await c.call(() => conversation.fromJSON(g.chance(0.7) ? JSON.stringify(conversation) : (g.text() as string)));
    if (g.chance(0.1)) await c.call(() => engine.setConversation(g.chance(0.5) ? conversation.toJSON() : g.hostile()));
  }, 2),
  target('context.ContextEngine.runMulti', async (g, c) => {
    const { engine, counter } = g.pick(await sharedEngines());
    const queries = g.chance(0.95) ? g.array(() => query(g), 4) : g.hostile();
    const options = g.options({ globalBudget: () => g.number(0, 4000), useWeighted: () => g.chance(0.5), metadataFilters: () => g.filter() }, 0.02);
    const context = await c.call(() => engine.runMulti(queries, options as never));
    expectWithinBudget(context, optionOf(options, 'globalBudget') ?? engine.config.composer.maxContextLength, counter, 'ContextEngine.runMulti');
  }, 2),
  target('context.ContextEngine.build', async (g, c) => {
    const { engine, counter } = g.pick(await sharedEngines());
    const buildOptions = g.options({ maxLength: () => g.number(0, 3000), maxChunks: () => g.number(1, 6) }, 0.05);
    const context = await c.call(() => engine.build(query(g), tuples(g), buildOptions as never));
    expectWithinBudget(context, optionOf(buildOptions, 'maxLength') ?? engine.config.composer.maxContextLength, counter, 'ContextEngine.build');
    const multiOptions = g.options({ globalBudget: () => g.number(0, 3000) });
    const multi = await c.call(() => engine.buildMultiQueryContext([query(g), query(g)], [tuples(g), tuples(g)], multiOptions as never));
    expectWithinBudget(multi, optionOf(multiOptions, 'globalBudget') ?? engine.config.composer.maxContextLength, counter, 'ContextEngine.buildMultiQueryContext');
    await c.call(() => tupleToScored(g.chance(0.9) ? [{ docId: 'd', text: 'x' }, 0.5] : g.hostile(), 0));
  }, 2),
  target('context.ContextEngine.compress+stats', async (g, c) => {
    const { engine, counter } = g.pick(await sharedEngines());
    const text = g.text();
    const targetLength = g.number(0, 3000);
    const cut = await c.call(() => engine.compressContext(text, targetLength));
    expectWithinBudget(cut, targetLength, counter, 'ContextEngine.compressContext');
    const stats = await c.call(() => engine.getContextStats(text));
    expect(stats.length === counter(text as string), 'getContextStats length is not the counter length');
    await c.call(() => queryHeader(g.int(0, 5), g.text() as string, { language: g.pick(['ar', 'en', 'mixed', 'other']) as 'ar' }));
    await c.call(() => engine.getPerformanceReport());
  }),
  target('context.ContextEngine.lifecycle', async (g, c) => {
    const engine = await c.call(() => new ContextEngine(g.options({ config: () => configInput(g), lengthCounter: () => g.pick<unknown>([charCounter, wordCounter, 5]), template: () => g.pick(['default', 'xml', 'fancy']), embedder: () => (g.chance(0.9) ? fuzzEmbedder : g.hostile()), guard: () => (g.chance(0.8) ? undefined : g.hostile()), composer: () => (g.chance(0.8) ? undefined : g.hostile()) }, 0.03) as never));
    const extra = chunkList(g, 3);
    await c.call(() => engine.index(g.chance(0.8) && Array.isArray(extra) ? [...FUZZ_CORPUS, ...extra] : chunkList(g), g.options({ batchSize: () => g.number(1, 10), sourceQualityMap: () => ({ wiki: g.pick([0.5, 2, -1]) }) }) as never));
    if (g.chance(0.4)) await c.call(() => engine.add(chunkList(g, 3)));
    if (g.chance(0.3)) await c.call(() => engine.remove(g.chance(0.9) ? ['doc-1'] : g.hostile()));
    const counter = (engine as unknown as { counter: LengthCounter }).counter;
    await checkedRun(g, c, { engine, counter });
  }, 2),
  target('context.ContextManager', async (g, c) => {
    const manager = await c.call(() => new ContextManager(configInput(g) as never, g.options({ dedupStrategy: () => (g.chance(0.8) ? new HashDeduplication() : g.hostile()), rankingStrategy: () => (g.chance(0.8) ? new ScoreRanking() : g.hostile()) }, 0.03) as never));
    await c.call(() => manager.index(FUZZ_CORPUS));
    const result = await c.call(() => manager.run(query(g), { overrideBudget: 500 }));
    expectWithinBudget(result.context, 500, charCounter, 'ContextManager.run');
  }),
];
