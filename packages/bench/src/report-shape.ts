import type { SplitGroup } from './answer-context.js';
import type { ContextQuality } from './context-metrics.js';
import type { SliceOptions } from './datasets.js';
import type { EngineResult, RetrievalResult, ScaleResult, VectorResult } from './jobs.js';
import type { MachineInfo } from './machine.js';
import type { SystemId } from './systems/registry.js';

/**
 * The shape of a benchmark report (`bench-results/results.json`): what `benchmark.ts` writes and
 * `merge.ts`, `targets.ts`, `report.ts` … read — in a module of its own so that none of them
 * imports the runner to know it.
 */

export type Section = 'retrieval' | 'context' | 'scale' | 'vectors';
export const SECTIONS: readonly Section[] = ['retrieval', 'context', 'scale', 'vectors'];

/** Which preset a run used. */
export type BenchmarkVariant = 'full' | 'quick' | 'custom';

/** One target of the report, checked against what the run measured. */
export interface TargetVerdict {
  target: string;
  /** `true` met, `false` missed, `undefined` not measured in this run. */
  met: boolean | undefined;
  evidence: string;
}

/** A run whose sections a merged report took (`--render --merge`). */
export interface MergedRun {
  /** The sections taken from that run (`retrieval + context` for the two that run together). */
  sections: string[];
  date: string;
  command: string;
  durationSeconds: number;
  loadAverageAtStart: number;
}

/** answer-in-context of naive packing of one system's top 10 (or, for `oracle`, the ceiling) at one budget and split. */
export interface NaiveAnswerRow {
  dataset: string;
  /**
   * A system, or `oracle`: the answer appears anywhere in zerda's BM25 top 10 (`budget` 0, `unit`
   * 'all'; `top1` beside it), and per budget the ceiling of `oracleRateAt` (unit and budget set).
   */
  system: SystemId | 'oracle';
  split: SplitGroup;
  splitName: string;
  unit: 'chars' | 'tokens' | 'all';
  budget: number;
  queries: number;
  rate: number;
  /** For the oracle: the answer is in the first document alone. */
  top1?: number;
}

/** A dataset as measured: its name, language and sizes (after slicing). */
export interface DatasetSummary {
  name: string;
  language: string;
  documents: number;
  queries: number;
  full: { documents: number; queries: number };
}

/** Naive packing of one system's top 10 at one budget. */
export interface NaivePackingResult {
  dataset: string;
  system: SystemId;
  budget: number;
  unit: 'chars' | 'tokens';
  quality: ContextQuality;
}

/** A vector-store row with its recall against exact search. */
export type VectorRow = Omit<VectorResult, 'ids'> & { recallAt10?: number };

/** Everything a run measured; `bench-results/results.json` holds it. */
export interface BenchmarkReport {
  date: string;
  /** Sections still to run when this report was written (empty when the run finished). */
  pending: Section[];
  variant: BenchmarkVariant;
  command: string;
  machine: MachineInfo;
  durationSeconds: number;
  sectionSeconds: Partial<Record<Section, number>>;
  settings: { slice: SliceOptions; budgets: number[]; tokenBudgets: number[]; tokenQueries: number; answerBudgets?: number[]; answerTokenBudgets?: number[]; depth: number; scaleQueries: number; vectorQueries: number; seed: number; warmup: number; isolate: boolean };
  datasets: DatasetSummary[];
  retrieval: Array<Omit<RetrievalResult, 'run'>>;
  engine: EngineResult[];
  naive: NaivePackingResult[];
  /** answer-in-context of naive packing per system, and the oracle, per split (datasets with answers). */
  naiveAnswers: NaiveAnswerRow[];
  scale: ScaleResult[];
  vectors: VectorRow[];
  targets: TargetVerdict[];
  /** Sections taken from other runs (`--render --merge`), with where they came from. */
  mergedFrom?: MergedRun[];
}
