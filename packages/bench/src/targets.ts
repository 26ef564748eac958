import type { BenchmarkReport, TargetVerdict } from './report-shape.js';
import { SYSTEM_INFO } from './systems/registry.js';
import { growthExponent } from './statistics.js';

/** One of the project's targets and whether this run met it. */
export type { TargetVerdict } from './report-shape.js';

const percent = (value: number): string => `${(value * 100).toFixed(1)}`;

const signed = (value: number): string => `${value >= 0 ? '+' : ''}${value.toFixed(1)}`;

/** "4.6× faster" or "1.8× slower" from peer time / zerda time. */
function speedWords(speedup: number): string {
  if (!Number.isFinite(speedup)) return 'not comparable';
  return speedup >= 1 ? `${speedup.toFixed(1)}× faster` : `${(1 / speedup).toFixed(1)}× slower`;
}

/** zerda's keyword row on one dataset, the peers' rows with a latency, and the fastest of them; undefined when not measured. */
function keywordComparison(report: BenchmarkReport, dataset: string) {
  const rows = report.retrieval.filter((row) => row.dataset === dataset && row.status === 'ok');
  const zerda = rows.find((row) => row.system === 'zerda-keyword');
  const peers = rows.filter((row) => SYSTEM_INFO[row.system].peer && row.latency);
  if (!zerda?.latency || !zerda.quality || peers.length === 0) return undefined;
  const fastest = peers.reduce((best, row) => (row.latency!.p50Ms < best.latency!.p50Ms ? row : best));
  return { zerda: { ...zerda, latency: zerda.latency, quality: zerda.quality }, peers, fastest, fastestMs: fastest.latency!.p50Ms };
}

function keywordTarget(report: BenchmarkReport): TargetVerdict {
  const target = 'Keyword retrieval faster than the fastest peer at equal or better nDCG@10, on both datasets';
  const parts = report.datasets.map((dataset) => {
    const comparison = keywordComparison(report, dataset.name);
    if (!comparison) return { met: undefined, evidence: `${dataset.name}: not measured` };
    const { zerda, peers, fastest, fastestMs } = comparison;
    const keywordPeers = peers.filter((row) => SYSTEM_INFO[row.system].kind === 'keyword');
    const bestKeyword = keywordPeers.reduce((best, row) => ((row.quality?.ndcgAt10 ?? 0) > (best.quality?.ndcgAt10 ?? 0) ? row : best), keywordPeers[0] ?? fastest);
    const faster = zerda.latency.p50Ms < fastestMs;
    const asGood = zerda.quality.ndcgAt10 >= (bestKeyword.quality?.ndcgAt10 ?? 0) - 1e-9;
    return {
      met: faster && asGood,
      evidence:
        `${dataset.name}: zerda p50 ${zerda.latency.p50Ms.toFixed(3)} ms vs fastest peer ${SYSTEM_INFO[fastest.system].label} ${fastestMs.toFixed(3)} ms ` +
        `(zerda ${speedWords(fastestMs / zerda.latency.p50Ms)}); nDCG@10 ${zerda.quality.ndcgAt10.toFixed(3)} vs best keyword peer ${SYSTEM_INFO[bestKeyword.system].label} ${(bestKeyword.quality?.ndcgAt10 ?? NaN).toFixed(3)}`,
    };
  });
  return combine(target, parts);
}

function scaleTarget(report: BenchmarkReport): TargetVerdict {
  const target = 'run() at 100k chunks with keyword + HNSW hybrid: p50 under 10 ms, query cost growing sub-linearly';
  const rows = report.scale.filter((row) => row.configuration === 'hybrid-hnsw' && row.status === 'ok' && row.run).sort((a, b) => a.size - b.size);
  const at100k = rows.find((row) => row.size === 100_000);
  const exponents: string[] = [];
  let sublinear = rows.length >= 2;
  for (let index = 1; index < rows.length; index++) {
    const previous = rows[index - 1]!;
    const current = rows[index]!;
    const exponent = growthExponent(previous.size, previous.run!.p50Ms, current.size, current.run!.p50Ms);
    exponents.push(`${previous.size.toLocaleString('en')}→${current.size.toLocaleString('en')}: ${exponent.toFixed(2)}`);
    if (!(exponent < 1)) sublinear = false;
  }
  if (!at100k?.run) return { target, met: undefined, evidence: `no 100k hybrid run in this variant${exponents.length ? `; growth exponents ${exponents.join(', ')}` : ''}` };
  return {
    target,
    met: at100k.run.p50Ms < 10 && sublinear,
    evidence: `p50 ${at100k.run.p50Ms.toFixed(2)} ms, p95 ${at100k.run.p95Ms.toFixed(2)} ms at 100,000 chunks; growth exponent of p50 ${exponents.join(', ') || 'n/a'} (sub-linear: ${sublinear ? 'yes' : 'no'})`,
  };
}

function contextTarget(report: BenchmarkReport): TargetVerdict {
  const target = 'gold-in-context@2000 characters at least 10 points above the best peer’s naive packing';
  const evidence: string[] = [];
  let met: boolean | undefined = report.engine.length > 0 ? true : undefined;
  for (const engine of report.engine.filter((row) => row.variant === 'default')) {
    const keywordOnly = report.engine.find((row) => row.dataset === engine.dataset && row.variant === 'keyword')?.budgets.find((entry) => entry.unit === 'chars' && entry.budget === 2000);
    const mine = engine.budgets.find((entry) => entry.unit === 'chars' && entry.budget === 2000);
    const peers = report.naive.filter((row) => row.dataset === engine.dataset && row.unit === 'chars' && row.budget === 2000 && SYSTEM_INFO[row.system].peer);
    if (!mine || peers.length === 0) {
      met = undefined;
      evidence.push(`${engine.dataset}: not measured`);
      continue;
    }
    const best = peers.reduce((top, row) => (row.quality.goldInContext > top.quality.goldInContext ? row : top));
    const margin = (mine.quality.goldInContext - best.quality.goldInContext) * 100;
    if (!(margin >= 10 - 1e-9)) met = false;
    const alternative = keywordOnly ? `; keyword-only engine ${percent(keywordOnly.quality.goldInContext)}% (${signed((keywordOnly.quality.goldInContext - best.quality.goldInContext) * 100)} points)` : '';
    evidence.push(`${engine.dataset}: engine ${percent(mine.quality.goldInContext)}% vs ${SYSTEM_INFO[best.system].label} naive ${percent(best.quality.goldInContext)}% (${signed(margin)} points)${alternative}`);
  }
  return { target, met, evidence: evidence.join('; ') || 'not measured' };
}

/** engine − floor (naive packing of zerda's own BM25 top 10), in points, per held-out dataset/unit/budget of the default engine. */
function answerMargins(report: BenchmarkReport): Array<{ dataset: string; splitName: string; unit: string; budget: number; engine: number; floor: number; margin: number }> {
  const margins = [];
  for (const engine of report.engine.filter((row) => row.variant === 'default' && row.answers)) {
    for (const rate of engine.answers!.filter((entry) => entry.split === 'held-out')) {
      const floor = (report.naiveAnswers ?? []).find((row) => row.dataset === engine.dataset && row.system === 'zerda-keyword' && row.split === 'held-out' && row.unit === rate.unit && row.budget === rate.budget);
      if (floor) margins.push({ dataset: engine.dataset, splitName: rate.splitName, unit: rate.unit, budget: rate.budget, engine: rate.rate, floor: floor.rate, margin: (rate.rate - floor.rate) * 100 });
    }
  }
  return margins;
}

function answerFloorTarget(report: BenchmarkReport): TargetVerdict {
  const target = 'answer-in-context never below naive packing of our own top 10, at every budget, on every dataset with answers (held-out splits)';
  const margins = answerMargins(report);
  if (margins.length === 0) return { target, met: undefined, evidence: 'not measured' };
  const worst = margins.reduce((low, entry) => (entry.margin < low.margin ? entry : low));
  const byDataset = [...new Set(margins.map((entry) => entry.dataset))].map((dataset) => {
    const list = margins.filter((entry) => entry.dataset === dataset);
    return `${dataset} (${list[0]!.splitName}): ${list.map((entry) => `${signed(entry.margin)}@${entry.budget}${entry.unit === 'tokens' ? 't' : ''}`).join(' ')}`;
  });
  return { target, met: worst.margin >= -1e-9, evidence: `${byDataset.join('; ')}; lowest ${signed(worst.margin)} points (${worst.dataset} @${worst.budget} ${worst.unit})` };
}

function answerAimTarget(report: BenchmarkReport): TargetVerdict {
  const target = 'answer-in-context at least 10 points above the floor at the two smallest budgets of each unit (held-out splits)';
  const margins = answerMargins(report);
  if (margins.length === 0) return { target, met: undefined, evidence: 'not measured' };
  const smallest = margins.filter((entry) => {
    const budgets = [...new Set(margins.filter((other) => other.dataset === entry.dataset && other.unit === entry.unit).map((other) => other.budget))].sort((a, b) => a - b);
    return budgets.indexOf(entry.budget) < 2;
  });
  const missed = smallest.filter((entry) => entry.margin < 10 - 1e-9);
  return {
    target,
    met: missed.length === 0,
    evidence: smallest.map((entry) => `${entry.dataset} @${entry.budget} ${entry.unit}: ${percent(entry.engine)}% vs ${percent(entry.floor)}% (${signed(entry.margin)})`).join('; '),
  };
}

// Issue 16's six performance targets. Each is judged from this run's rows, or says why it was not measured.

const ms = (value: number | undefined, digits = 2): string => (value === undefined || !Number.isFinite(value) ? '–' : `${value.toFixed(digits)} ms`);
const mebibytes = (bytes: number): string => `${(bytes / 2 ** 30).toFixed(2)} GiB`;

/** A verdict over several parts: missed when any part is, else unmeasured when any part is, else met. */
function combine(target: string, parts: Array<{ met: boolean | undefined; evidence: string }>): TargetVerdict {
  if (parts.length === 0) return { target, met: undefined, evidence: 'not measured in this run' };
  const met = parts.some((part) => part.met === false) ? false : parts.some((part) => part.met === undefined) ? undefined : true;
  return { target, met, evidence: parts.map((part) => part.evidence).join('; ') };
}

function pipelineCostTarget(report: BenchmarkReport): TargetVerdict {
  const target = 'run() p50 ≤ retrieval p50 + 1 ms, keyword-only, on SciFact and ARCD (issue 16, 1)';
  const parts = ['beir-scifact', 'arcd']
    .filter((name) => report.datasets.some((dataset) => dataset.name === name))
    .map((name) => {
      const engine = report.engine.find((row) => row.dataset === name && row.status === 'ok' && row.embeddingModel === 'none');
      const retrieval = report.retrieval.find((row) => row.dataset === name && row.system === 'zerda-keyword' && row.status === 'ok');
      const run = engine?.budgets.find((entry) => entry.unit === 'chars' && entry.budget === 2000) ?? engine?.budgets.find((entry) => entry.unit === 'chars');
      if (!run || !retrieval?.latency) return { met: undefined, evidence: `${name}: not measured` };
      const excess = run.latency.p50Ms - retrieval.latency.p50Ms;
      return { met: excess <= 1, evidence: `${name}: run() p50 ${ms(run.latency.p50Ms)} at ${run.budget} chars vs retrieval p50 ${ms(retrieval.latency.p50Ms, 3)} (${excess <= 1 ? 'within' : `${(excess - 1).toFixed(2)} ms over`} the 1 ms allowance)` };
    });
  return combine(target, parts);
}

function keywordSpeedTarget(report: BenchmarkReport): TargetVerdict {
  const target = 'keyword retrieval ≥ 5× faster than the fastest peer on every dataset, at ≥ its nDCG@10 (issue 16, 2)';
  const parts = report.datasets.map((dataset) => {
    const comparison = keywordComparison(report, dataset.name);
    if (!comparison) return { met: undefined, evidence: `${dataset.name}: not measured` };
    const { zerda, fastest, fastestMs } = comparison;
    const speedup = fastestMs / zerda.latency.p50Ms;
    const asGood = zerda.quality.ndcgAt10 >= (fastest.quality?.ndcgAt10 ?? 0) - 1e-9;
    return { met: speedup >= 5 && asGood, evidence: `${dataset.name}: ${speedup.toFixed(1)}× ${SYSTEM_INFO[fastest.system].label} (p50 ${ms(zerda.latency.p50Ms, 3)} vs ${ms(fastestMs, 3)}), nDCG@10 ${zerda.quality.ndcgAt10.toFixed(3)} vs ${(fastest.quality?.ndcgAt10 ?? NaN).toFixed(3)}` };
  });
  return combine(target, parts);
}

function scaleRow(report: BenchmarkReport, configuration: string, size: number) {
  return report.scale.find((row) => row.configuration === configuration && row.size === size && row.status === 'ok');
}

function millionKeywordTarget(report: BenchmarkReport): TargetVerdict {
  const target = 'at 1M chunks: keyword retrieve p50 ≤ 2 ms, run() p50 ≤ 3.5 ms, query cost growth exponent 100k→1M ≤ 0.3 (issue 16, 3)';
  const million = scaleRow(report, 'keyword', 1_000_000);
  const hundred = scaleRow(report, 'keyword', 100_000);
  if (!million?.run || !million.retrieve) return { target, met: undefined, evidence: 'no 1,000,000-chunk keyword row in this run' };
  const exponent = hundred?.run ? growthExponent(100_000, hundred.run.p50Ms, 1_000_000, million.run.p50Ms) : undefined;
  const met = million.retrieve.p50Ms <= 2 && million.run.p50Ms <= 3.5 && exponent !== undefined && exponent <= 0.3;
  return { target, met, evidence: `retrieve p50 ${ms(million.retrieve.p50Ms)}, run() p50 ${ms(million.run.p50Ms)}, growth exponent of run() p50 100k→1M ${exponent === undefined ? '–' : exponent.toFixed(2)}` };
}

function hybridTarget(report: BenchmarkReport): TargetVerdict {
  const target = 'hybrid keyword + HNSW: run() p50 ≤ 4 ms at 100k; 1M build ≤ 450 s (issue 16, 4)';
  const hundred = scaleRow(report, 'hybrid-hnsw', 100_000);
  const million = scaleRow(report, 'hybrid-hnsw', 1_000_000);
  const parts: Array<{ met: boolean | undefined; evidence: string }> = [
    hundred?.run ? { met: hundred.run.p50Ms <= 4, evidence: `run() p50 ${ms(hundred.run.p50Ms)} at 100,000 chunks` } : { met: undefined, evidence: 'no 100,000-chunk hybrid row' },
    million?.build
      ? million.graphRecall
        ? { met: million.build.ms <= 450_000 && million.graphRecall.recallAt10 >= 0.95, evidence: `1M build ${(million.build.ms / 1000).toFixed(0)} s at graph recall@10 ${million.graphRecall.recallAt10.toFixed(3)} against exact` }
        : { met: million.build.ms <= 450_000, evidence: `1M build ${(million.build.ms / 1000).toFixed(0)} s (graph recall not measured in this run)` }
      : { met: undefined, evidence: 'no 1,000,000-chunk hybrid row' },
  ];
  return combine(target, parts);
}

const EXACT_BACKENDS = new Set(['memory', 'pgvector-exact', 'faiss-flat', 'lancedb-exact']);

function annRecallTarget(report: BenchmarkReport): TargetVerdict {
  const target = 'every ANN backend’s defaults reach recall@10 ≥ 0.95 at 100k (issue 16, 5)';
  const rows = report.vectors.filter((row) => row.size === 100_000 && !EXACT_BACKENDS.has(row.backend));
  const parts = rows.map((row) =>
    row.status === 'ok' && row.recallAt10 !== undefined
      ? { met: row.recallAt10 >= 0.95, evidence: `${row.backend} ${row.recallAt10.toFixed(3)}` }
      : { met: undefined, evidence: `${row.backend}: ${row.status}${row.reason ? ` (${row.reason})` : ''}` },
  );
  return combine(target, parts);
}

function memoryTarget(report: BenchmarkReport): TargetVerdict {
  const target = 'memory at 1M chunks: keyword index ≤ 600 bytes per chunk, peak RSS of the hybrid run ≤ 6 GiB (issue 16, 6)';
  const keyword = scaleRow(report, 'keyword', 1_000_000);
  const hybrid = scaleRow(report, 'hybrid-hnsw', 1_000_000);
  const parts: Array<{ met: boolean | undefined; evidence: string }> = [
    keyword?.build ? { met: keyword.build.retainedBytes / keyword.size <= 600, evidence: `keyword ${Math.round(keyword.build.retainedBytes / keyword.size)} bytes per chunk` } : { met: undefined, evidence: 'no 1,000,000-chunk keyword row' },
    hybrid?.build ? { met: hybrid.build.peakRssBytes <= 6 * 2 ** 30, evidence: `hybrid peak RSS ${mebibytes(hybrid.build.peakRssBytes)}` } : { met: undefined, evidence: 'no 1,000,000-chunk hybrid row' },
  ];
  return combine(target, parts);
}

/** The targets, judged from a run's numbers. */
export function evaluateTargets(report: BenchmarkReport): TargetVerdict[] {
  return [
    answerFloorTarget(report),
    answerAimTarget(report),
    keywordTarget(report),
    scaleTarget(report),
    contextTarget(report),
    pipelineCostTarget(report),
    keywordSpeedTarget(report),
    millionKeywordTarget(report),
    hybridTarget(report),
    annRecallTarget(report),
    memoryTarget(report),
  ];
}
