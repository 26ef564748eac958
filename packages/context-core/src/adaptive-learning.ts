import { invalidArgument, resolveConfigSection, type AdaptiveConfig, type ContextResult } from '@zerda/types';
import type { AdaptiveConfigInput } from './config-input.js';
import { assertKnownKeys, assertNumber, assertOptionsObject } from './validate.js';

/** One run, as the adaptive statistics see it. */
export interface RunObservation {
  /** Wall time of the run in ms. */
  responseMs: number;
  /** Whether the guard passed (false = an error-severity finding). */
  guardPassed: boolean;
  /** Length of the context in the counter's unit. */
  contextLength: number;
  /** Share of the budget used, >= 0 (1 = exactly full). Computed from `contextLength / budget` when omitted and a budget is given. */
  budgetUse?: number;
  budget?: number;
  cacheHit: boolean;
  /** Whether the context came out empty. Default: `contextLength === 0`. */
  emptyContext?: boolean;
}

export interface PerformanceReport {
  /** Runs recorded since creation (or the last reset), not only those in the window. */
  totalQueries: number;
  /** Runs in the rolling window the other figures are computed over. */
  windowSamples: number;
  avgResponseMs: number;
  /** 95th percentile response time (nearest rank) in the window. */
  p95ResponseMs: number;
  guardFailureRate: number;
  avgContextLength: number;
  /** Mean budget use over the runs that reported one. */
  avgBudgetUse: number;
  cacheHitRate: number;
  emptyContextRate: number;
  /** The current multiple of the base retrieval depth (1 = no widening). */
  retrievalDepthMultiplier: number;
}

export interface AdaptiveLearningOptions {
  /** Runs the window must hold before the system adapts, so one early miss does not move anything. Default 10 (or the window size, if smaller). */
  minSamples?: number;
}

/** A fixed-capacity ring of numbers with a running sum. */
class RollingWindow {
  private readonly values: Float64Array;
  private start = 0;
  private count = 0;
  private sum = 0;

  constructor(readonly capacity: number) {
    this.values = new Float64Array(capacity);
  }

  push(value: number): void {
    if (this.count < this.capacity) {
      this.values[(this.start + this.count) % this.capacity] = value;
      this.count++;
    } else {
      this.sum -= this.values[this.start] as number;
      this.values[this.start] = value;
      this.start = (this.start + 1) % this.capacity;
    }
    this.sum += value;
  }

  get size(): number {
    return this.count;
  }

  mean(): number {
    return this.count === 0 ? 0 : this.sum / this.count;
  }

  toArray(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.values[(this.start + i) % this.capacity] as number);
    return out;
  }

  clear(): void {
    this.start = 0;
    this.count = 0;
    this.sum = 0;
  }
}

const MAX_TOP_K = 10_000;

/**
 * Rolling statistics of recent runs, and one adaptation: **retrieval depth widens when empty
 * contexts become frequent**. When the share of empty contexts in the window exceeds
 * `emptyContextRate`, the depth multiplier grows linearly with the excess,
 * `1 + (maxDepthMultiplier − 1) · (rate − threshold) / (1 − threshold)`, reaching the maximum when every
 * run in the window was empty; at or below the threshold it is 1. Because it is a function of the
 * window alone, it relaxes back by itself as successful runs replace the empty ones. Empty contexts
 * mostly come from filters and the guard removing every shallow candidate, which deeper retrieval
 * cures; the bound keeps the cost predictable. Recording is synchronous.
 */
export class AdaptiveLearningSystem {
  /** The resolved `adaptive` configuration section. */
  readonly config: AdaptiveConfig;
  private readonly minSamples: number;
  private total = 0;
  private readonly responseMs: RollingWindow;
  private readonly guardFailed: RollingWindow;
  private readonly contextLength: RollingWindow;
  private readonly budgetUse: RollingWindow;
  private readonly cacheHit: RollingWindow;
  private readonly emptyContext: RollingWindow;

  constructor(config?: AdaptiveConfigInput, options: AdaptiveLearningOptions = {}) {
    this.config = resolveConfigSection('adaptive', config);
    assertOptionsObject(options, 'options');
    assertKnownKeys(options as Record<string, unknown>, ['minSamples'], 'options');
    const minSamples = options.minSamples ?? Math.min(10, this.config.windowSize);
    assertNumber(minSamples, 'options.minSamples', { min: 1, integer: true });
    this.minSamples = minSamples;
    const size = this.config.windowSize;
    this.responseMs = new RollingWindow(size);
    this.guardFailed = new RollingWindow(size);
    this.contextLength = new RollingWindow(size);
    this.budgetUse = new RollingWindow(size);
    this.cacheHit = new RollingWindow(size);
    this.emptyContext = new RollingWindow(size);
  }

  /** Records one run. Invalid observations are rejected before anything changes. */
  record(observation: RunObservation): void {
    if (observation === null || typeof observation !== 'object') throw invalidArgument('observation', 'an object { responseMs, guardPassed, contextLength, cacheHit, … }', observation);
    assertKnownKeys(observation as unknown as Record<string, unknown>, ['responseMs', 'guardPassed', 'contextLength', 'budgetUse', 'budget', 'cacheHit', 'emptyContext'], 'observation');
    assertNumber(observation.responseMs, 'observation.responseMs', { min: 0 });
    assertNumber(observation.contextLength, 'observation.contextLength', { min: 0 });
    if (typeof observation.guardPassed !== 'boolean') throw invalidArgument('observation.guardPassed', 'a boolean', observation.guardPassed);
    if (typeof observation.cacheHit !== 'boolean') throw invalidArgument('observation.cacheHit', 'a boolean', observation.cacheHit);
    if (observation.emptyContext !== undefined && typeof observation.emptyContext !== 'boolean') throw invalidArgument('observation.emptyContext', 'a boolean', observation.emptyContext);
    if (observation.budget !== undefined) assertNumber(observation.budget, 'observation.budget', { min: 0 });
    if (observation.budgetUse !== undefined) assertNumber(observation.budgetUse, 'observation.budgetUse', { min: 0 });
    let budgetUse = observation.budgetUse;
    if (budgetUse === undefined && observation.budget !== undefined && observation.budget > 0) budgetUse = observation.contextLength / observation.budget;

    this.total++;
    this.responseMs.push(observation.responseMs);
    this.guardFailed.push(observation.guardPassed ? 0 : 1);
    this.contextLength.push(observation.contextLength);
    if (budgetUse !== undefined) this.budgetUse.push(budgetUse);
    this.cacheHit.push(observation.cacheHit ? 1 : 0);
    this.emptyContext.push((observation.emptyContext ?? observation.contextLength === 0) ? 1 : 0);
  }

  /** Records a {@link ContextResult} (timings, guard verdict, budget use, cache flag, emptiness). */
  recordResult(result: ContextResult): void {
    if (result === null || typeof result !== 'object') throw invalidArgument('result', 'a ContextResult', result);
    this.record({
      responseMs: result.timings?.total,
      guardPassed: result.guardPassed,
      contextLength: result.budget?.used,
      budgetUse: result.budget?.utilization,
      cacheHit: result.fromCache,
      emptyContext: typeof result.context === 'string' ? result.context.trim().length === 0 : undefined,
    } as RunObservation);
  }

  /** The current depth multiplier, in [1, maxDepthMultiplier]. */
  get retrievalDepthMultiplier(): number {
    if (!this.config.enabled || this.emptyContext.size < this.minSamples) return 1;
    const rate = this.emptyContext.mean();
    const threshold = this.config.emptyContextRate;
    if (rate <= threshold || threshold >= 1) return 1;
    const excess = (rate - threshold) / (1 - threshold);
    return 1 + (this.config.maxDepthMultiplier - 1) * Math.min(1, excess);
  }

  /** The retrieval depth to use instead of `baseTopK`: ⌈baseTopK × multiplier⌉, at most 10 000. */
  recommendedTopK(baseTopK: number): number {
    assertNumber(baseTopK, 'baseTopK', { min: 1, integer: true });
    return Math.min(MAX_TOP_K, Math.max(baseTopK, Math.ceil(baseTopK * this.retrievalDepthMultiplier)));
  }

  /** Figures over the rolling window (see {@link PerformanceReport}); all 0 before the first run. */
  getPerformanceReport(): PerformanceReport {
    const times = this.responseMs.toArray().sort((a, b) => a - b);
    const p95 = times.length === 0 ? 0 : (times[Math.max(0, Math.ceil(0.95 * times.length) - 1)] as number);
    return {
      totalQueries: this.total,
      windowSamples: this.responseMs.size,
      avgResponseMs: this.responseMs.mean(),
      p95ResponseMs: p95,
      guardFailureRate: this.guardFailed.mean(),
      avgContextLength: this.contextLength.mean(),
      avgBudgetUse: this.budgetUse.mean(),
      cacheHitRate: this.cacheHit.mean(),
      emptyContextRate: this.emptyContext.mean(),
      retrievalDepthMultiplier: this.retrievalDepthMultiplier,
    };
  }

  /** Forgets every observation (the multiplier returns to 1). */
  reset(): void {
    this.total = 0;
    for (const window of [this.responseMs, this.guardFailed, this.contextLength, this.budgetUse, this.cacheHit, this.emptyContext]) window.clear();
  }
}
