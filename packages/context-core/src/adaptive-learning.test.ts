import { describe, expect, it } from 'vitest';
import type { ContextResult } from '@zerda/types';
import { AdaptiveLearningSystem, type RunObservation } from './adaptive-learning.js';

const run = (overrides: Partial<RunObservation> = {}): RunObservation => ({ responseMs: 10, guardPassed: true, contextLength: 500, budget: 1000, cacheHit: false, ...overrides });

describe('AdaptiveLearningSystem: report', () => {
  it('reports totals, averages, p95 and rates over the window', () => {
    const adaptive = new AdaptiveLearningSystem();
    for (let i = 1; i <= 20; i++) adaptive.record(run({ responseMs: i, guardPassed: i % 4 !== 0, cacheHit: i % 2 === 0, contextLength: i === 20 ? 0 : 500 }));
    const report = adaptive.getPerformanceReport();
    expect(report).toMatchObject({ totalQueries: 20, windowSamples: 20, avgResponseMs: 10.5, p95ResponseMs: 19, guardFailureRate: 0.25, cacheHitRate: 0.5, emptyContextRate: 0.05 });
    expect(report.avgBudgetUse).toBeCloseTo((19 * 0.5) / 20, 10);
    expect(report.avgContextLength).toBeCloseTo((19 * 500) / 20, 10);
    expect(report.retrievalDepthMultiplier).toBe(1);
  });

  it('is all zeros before any run', () => {
    expect(new AdaptiveLearningSystem().getPerformanceReport()).toEqual({
      totalQueries: 0,
      windowSamples: 0,
      avgResponseMs: 0,
      p95ResponseMs: 0,
      guardFailureRate: 0,
      avgContextLength: 0,
      avgBudgetUse: 0,
      cacheHitRate: 0,
      emptyContextRate: 0,
      retrievalDepthMultiplier: 1,
    });
  });

  it('rolls: only the last windowSize runs count, while totalQueries counts all', () => {
    const adaptive = new AdaptiveLearningSystem({ windowSize: 3 });
    for (const responseMs of [100, 100, 100, 1, 2, 3]) adaptive.record(run({ responseMs }));
    const report = adaptive.getPerformanceReport();
    expect(report.totalQueries).toBe(6);
    expect(report.windowSamples).toBe(3);
    expect(report.avgResponseMs).toBe(2);
    expect(report.p95ResponseMs).toBe(3);
  });

  it('records a ContextResult', () => {
    const adaptive = new AdaptiveLearningSystem();
    adaptive.recordResult({
      context: '',
      guardPassed: false,
      fromCache: true,
      timings: { total: 42 },
      budget: { limit: 100, used: 0, unit: 'chars', utilization: 0 },
    } as unknown as ContextResult);
    expect(adaptive.getPerformanceReport()).toMatchObject({ totalQueries: 1, avgResponseMs: 42, guardFailureRate: 1, cacheHitRate: 1, emptyContextRate: 1, avgBudgetUse: 0 });
  });
});

describe('AdaptiveLearningSystem: retrieval depth adaptation', () => {
  it('widens depth when empty contexts exceed the threshold, bounded, and relaxes when they recover', () => {
    const adaptive = new AdaptiveLearningSystem({ windowSize: 10, emptyContextRate: 0.2, maxDepthMultiplier: 3 });
    for (let i = 0; i < 10; i++) adaptive.record(run());
    expect(adaptive.recommendedTopK(30)).toBe(30);

    // 6 of the last 10 empty: rate 0.6, excess (0.6 - 0.2) / 0.8 = 0.5 → multiplier 1 + 2 · 0.5 = 2.
    for (let i = 0; i < 6; i++) adaptive.record(run({ contextLength: 0 }));
    expect(adaptive.retrievalDepthMultiplier).toBeCloseTo(2, 10);
    expect(adaptive.recommendedTopK(30)).toBe(60);

    // Every run empty: the multiplier reaches, and never passes, the bound.
    for (let i = 0; i < 20; i++) adaptive.record(run({ contextLength: 0 }));
    expect(adaptive.retrievalDepthMultiplier).toBe(3);
    expect(adaptive.recommendedTopK(30)).toBe(90);

    // Recovery: successful runs push the empty ones out of the window.
    for (let i = 0; i < 8; i++) adaptive.record(run());
    expect(adaptive.getPerformanceReport().emptyContextRate).toBeCloseTo(0.2, 10);
    expect(adaptive.recommendedTopK(30)).toBe(30);
  });

  it('waits for enough samples before adapting', () => {
    const adaptive = new AdaptiveLearningSystem({ emptyContextRate: 0.1 }, { minSamples: 5 });
    for (let i = 0; i < 4; i++) adaptive.record(run({ emptyContext: true }));
    expect(adaptive.recommendedTopK(10)).toBe(10);
    adaptive.record(run({ emptyContext: true }));
    expect(adaptive.recommendedTopK(10)).toBe(30);
  });

  it('stays at 1 when disabled, and caps the depth at 10 000', () => {
    const disabled = new AdaptiveLearningSystem({ enabled: false, windowSize: 1 });
    disabled.record(run({ contextLength: 0 }));
    expect(disabled.recommendedTopK(7)).toBe(7);
    const wide = new AdaptiveLearningSystem({ windowSize: 1, maxDepthMultiplier: 10 });
    wide.record(run({ contextLength: 0 }));
    expect(wide.recommendedTopK(5000)).toBe(10_000);
  });

  it('reset forgets everything', () => {
    const adaptive = new AdaptiveLearningSystem({ windowSize: 1 });
    adaptive.record(run({ contextLength: 0 }));
    adaptive.reset();
    expect(adaptive.getPerformanceReport().totalQueries).toBe(0);
    expect(adaptive.retrievalDepthMultiplier).toBe(1);
  });
});

describe('AdaptiveLearningSystem: bad input', () => {
  it('names the field and records nothing', () => {
    const adaptive = new AdaptiveLearningSystem();
    expect(() => adaptive.record(run({ responseMs: Number.NaN }))).toThrow(/observation.responseMs must be a finite number >= 0, got number NaN/);
    expect(() => adaptive.record(run({ contextLength: -1 }))).toThrow(/observation.contextLength/);
    expect(() => adaptive.record({ ...run(), guardPassed: 'yes' } as never)).toThrow(/observation.guardPassed must be a boolean/);
    expect(() => adaptive.record({ ...run(), latency: 1 } as never)).toThrow(/observation.latency/);
    expect(() => adaptive.recommendedTopK(0)).toThrow(/baseTopK must be an integer >= 1/);
    expect(() => new AdaptiveLearningSystem({ maxDepthMultiplier: 0.5 })).toThrow(/config.adaptive.maxDepthMultiplier/);
    expect(adaptive.getPerformanceReport().totalQueries).toBe(0);
  });
});
