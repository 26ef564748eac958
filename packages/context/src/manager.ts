import { charCounter, truncateAtWordBoundary } from '@zerda/text';
import {
  asChunkFilter,
  asChunkRanker,
  type LegacyCompressionStrategy,
  type LegacyDeduplicationStrategy,
  type LegacyRankingStrategy,
} from '@zerda/legacy-compat';
import {
  type BudgetAllocator,
  type ComposeOptions,
  type ComposeResult,
  type ContextEngineConfigInput,
  type ScoredChunk,
  type UsedChunk,
  invalidArgument,
} from '@zerda/types';
import type { CompleteComposer } from './composer-fallbacks.js';
import { ContextEngine } from './engine.js';
import { ENGINE_OPTION_KEYS, assertOptionsShape, type ContextEngineOptions } from './options.js';

const MANAGER_OPTION_KEYS = [...ENGINE_OPTION_KEYS.filter((key) => key !== 'config' && key !== 'budgetAllocator'), 'dedupStrategy', 'rankingStrategy', 'compressionStrategy', 'budgetStrategy'];

export interface ContextManagerOptions extends Omit<ContextEngineOptions, 'config' | 'budgetAllocator'> {
  dedupStrategy?: LegacyDeduplicationStrategy;
  rankingStrategy?: LegacyRankingStrategy;
  compressionStrategy?: LegacyCompressionStrategy;
  budgetStrategy?: BudgetAllocator;
}

/**
 * Adapts a legacy compression strategy to the `ContextComposer` stage: chunks are joined with the
 * separator in rank order and the strategy compresses the joined text to the budget, as the legacy
 * pipeline did. Truncation and statistics stay those of the wrapped modern composer.
 */
export function asLegacyCompressionComposer(strategy: LegacyCompressionStrategy, base: CompleteComposer, separator: string): CompleteComposer {
  return {
    async compose(chunks: ScoredChunk[], options: ComposeOptions): Promise<ComposeResult> {
      const counter = options.counter ?? charCounter;
      const joined = chunks.map((scored) => scored.chunk.text).join(separator);
      let context = strategy.compress(joined, options.budget, counter, separator);
      // The legacy contract promises the target; hold it to that.
      if (counter(context) > options.budget) context = truncateAtWordBoundary(context, options.budget, counter);
      const used: UsedChunk[] = [];
      chunks.forEach((scored, i) => {
        const present = context.includes(scored.chunk.text);
        if (present) used.push({ ...scored, keptText: scored.chunk.text, keptRatio: 1, fit: 'whole', rank: i + 1 });
      });
      return {
        context,
        chunks: used,
        skipped: [],
        truncated: context !== joined,
        template: 'legacy-compression',
        stats: base.getStats(context, { counter, budget: options.budget }),
      };
    },
    truncate: (text, budget, counter) => base.truncate(text, budget, counter),
    getStats: (context, options) => base.getStats(context, options),
  };
}

/**
 * The older constructor of the engine, kept for code written against it. Unlike the spec's
 * version, the legacy `dedupStrategy`, `rankingStrategy` and `compressionStrategy` take effect: they
 * replace the filter, ranking and composition stages through adapters.
 */
export class ContextManager extends ContextEngine {
  constructor(config?: ContextEngineConfigInput, options: ContextManagerOptions = {}) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('options', 'an options object', options);
    assertOptionsShape(options, 'options', MANAGER_OPTION_KEYS);
    const { dedupStrategy, rankingStrategy, compressionStrategy, budgetStrategy, ...rest } = options;
    for (const [field, strategy, method] of [
      ['options.dedupStrategy', dedupStrategy, 'deduplicate'],
      ['options.rankingStrategy', rankingStrategy, 'rank'],
      ['options.compressionStrategy', compressionStrategy, 'compress'],
    ] as const) {
      if (strategy !== undefined && (strategy === null || typeof strategy !== 'object' || typeof (strategy as unknown as Record<string, unknown>)[method] !== 'function')) {
        throw invalidArgument(field, `an object with a ${method}() method`, strategy);
      }
    }
    super({ ...rest, config, ...(budgetStrategy === undefined ? {} : { budgetAllocator: budgetStrategy }) });
    if (dedupStrategy) this.chunkFilter = asChunkFilter(dedupStrategy);
    if (rankingStrategy) this.ranker = asChunkRanker(rankingStrategy);
    if (compressionStrategy) this.composer = asLegacyCompressionComposer(compressionStrategy, this.composer, this.config.composer.separator);
    this.log('debug', { event: 'legacy_strategies', dedup: !!dedupStrategy, ranking: !!rankingStrategy, compression: !!compressionStrategy }, 'ContextManager: legacy strategies wired');
  }
}
