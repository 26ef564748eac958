import type { ContextEngineConfigInput } from '@zerda/types';

type FullInput = NonNullable<ContextEngineConfigInput>;

/** What a strategy constructor accepts for its configuration section: any subset, defaults filled in. */
export type ConfigSectionInput<K extends keyof FullInput> = NonNullable<FullInput[K]>;

export type AnalyzerConfigInput = ConfigSectionInput<'analyzer'>;
export type FilterConfigInput = ConfigSectionInput<'filter'>;
export type RankingConfigInput = ConfigSectionInput<'ranking'>;
export type GuardConfigInput = ConfigSectionInput<'guard'>;
export type CacheConfigInput = ConfigSectionInput<'cache'>;
export type MultiTurnConfigInput = ConfigSectionInput<'multiTurn'>;
export type AdaptiveConfigInput = ConfigSectionInput<'adaptive'>;
export type BudgetConfigInput = ConfigSectionInput<'budget'>;
