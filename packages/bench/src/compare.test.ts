import { describe, expect, it } from 'vitest';
import type { BenchmarkReport } from './benchmark.js';
import { compareReports, renderComparison } from './compare.js';

const latency = (p50Ms: number) => ({ count: 10, p50Ms, p95Ms: p50Ms * 2, meanMs: p50Ms, qps: 1000 / p50Ms });

function report(zerdaMs: number, peerMs: number, ndcg: number, bytesPerChunk: number): BenchmarkReport {
  const build = (retainedBytes: number) => ({ ms: 100, retainedBytes, peakRssBytes: 2 ** 27, rssGrowthBytes: 0 });
  return {
    retrieval: [
      { kind: 'retrieval', dataset: 'arcd', system: 'zerda-keyword', status: 'ok', latency: latency(zerdaMs), quality: { ndcgAt10: ndcg, recallAt10: 0.9, recallAt100: 0.95, mrrAt10: 0.8, queries: 10 }, build: build(2 ** 20), embeddingModel: 'none' },
      { kind: 'retrieval', dataset: 'arcd', system: 'orama-fulltext', status: 'ok', latency: latency(peerMs), quality: { ndcgAt10: 0.7, recallAt10: 0.9, recallAt100: 0.95, mrrAt10: 0.6, queries: 10 }, build: build(2 ** 23), embeddingModel: 'none' },
    ],
    engine: [],
    naive: [],
    scale: [{ kind: 'scale', size: 1000, configuration: 'keyword', status: 'ok', run: latency(zerdaMs * 10), retrieve: latency(zerdaMs), build: build(bytesPerChunk * 1000) }],
    vectors: [],
  } as unknown as BenchmarkReport;
}

describe('compareReports', () => {
  it('judges ratios within each run, not absolute times', () => {
    // Twice as slow in absolute terms, but the peer slowed down as much (a busier machine): no regression.
    const figures = compareReports(report(0.03, 0.09, 0.84, 600), report(0.06, 0.18, 0.84, 600));
    expect(figures.filter((figure) => figure.regression)).toEqual([]);
    const absolute = figures.find((figure) => figure.row === 'retrieval arcd · zerda KeywordRetriever' && figure.metric === 'p50 ms (absolute)');
    expect(absolute?.change).toBeCloseTo(2, 10);
  });

  it('flags a slower ratio to the fastest peer, lower quality and more memory, and names the rows', () => {
    const figures = compareReports(report(0.03, 0.09, 0.84, 600), report(0.05, 0.09, 0.8, 700));
    const flagged = figures.filter((figure) => figure.regression).map((figure) => `${figure.row} / ${figure.metric}`);
    expect(flagged).toEqual(['retrieval arcd · zerda KeywordRetriever / p50 / fastest peer p50', 'scale 1,000 · keyword / bytes per chunk']);
    // nDCG 0.84 → 0.80 is −4.8 %, inside the default 10 % tolerance; a tighter one catches it.
    expect(compareReports(report(0.03, 0.09, 0.84, 600), report(0.03, 0.09, 0.8, 600), 0.01).some((figure) => figure.metric === 'nDCG@10' && figure.regression)).toBe(true);
    const text = renderComparison(figures, { baseline: 'a.json', current: 'b.json' });
    expect(text).toMatch(/p50 \/ fastest peer p50 +0\.333 → +0\.556 +\+66\.7% +REGRESSION/);
    expect(text).toMatch(/2 regressions/);
  });

  it('reports rows present in only one run', () => {
    const before = report(0.03, 0.09, 0.84, 600);
    const after = report(0.03, 0.09, 0.84, 600);
    after.scale = [];
    const gone = compareReports(before, after).filter((figure) => figure.row.startsWith('scale'));
    expect(gone.length).toBeGreaterThan(0);
    expect(gone.every((figure) => figure.current === undefined && !figure.regression)).toBe(true);
    expect(renderComparison(gone, { baseline: 'a', current: 'b' })).toMatch(/gone/);
  });
});
