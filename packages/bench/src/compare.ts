import type { BenchmarkReport } from './benchmark.js';
import { SYSTEM_INFO } from './systems/registry.js';

/**
 * `pnpm bench:compare`: a new `results.json` against the committed one, row by row. Absolute times
 * move with the machine's load (it is shared), so what is compared is what a run measures against
 * itself: each row's time as a ratio to its reference in the same run (the fastest peer, the
 * fastest configuration at a size, the exact vector store, the retrieval stage), plus quality and
 * memory, which do not depend on load. A change past the tolerance in the worse direction is a
 * regression.
 */

/** One compared figure of one row. */
export interface ComparedFigure {
  /** The row, as the report names it (`retrieval arcd · zerda KeywordRetriever`). */
  row: string;
  metric: string;
  baseline: number | undefined;
  current: number | undefined;
  /** current / baseline (undefined when either is missing or the baseline is 0). */
  change: number | undefined;
  better: 'lower' | 'higher';
  /** The change goes the worse way by more than the tolerance. */
  regression: boolean;
  /** The change goes the better way by more than the tolerance. */
  improvement: boolean;
}

type Figures = Map<string, { row: string; metric: string; value: number; better: 'lower' | 'higher' }>;

function finite(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value);
}

function add(figures: Figures, row: string, metric: string, value: number | undefined, better: 'lower' | 'higher'): void {
  if (finite(value)) figures.set(`${row}\u0000${metric}`, { row, metric, value, better });
}

/** The figures of one report that {@link compareReports} compares. */
export function reportFigures(report: BenchmarkReport): Figures {
  const figures: Figures = new Map();
  for (const dataset of new Set(report.retrieval.map((row) => row.dataset))) {
    const rows = report.retrieval.filter((row) => row.dataset === dataset && row.status === 'ok');
    const peerP50 = rows.filter((row) => SYSTEM_INFO[row.system].peer).map((row) => row.latency?.p50Ms).filter(finite);
    const fastestPeer = peerP50.length > 0 ? Math.min(...peerP50) : undefined;
    for (const row of rows) {
      const name = `retrieval ${dataset} · ${SYSTEM_INFO[row.system].label}`;
      add(figures, name, 'p50 / fastest peer p50', fastestPeer && row.latency ? row.latency.p50Ms / fastestPeer : undefined, 'lower');
      add(figures, name, 'nDCG@10', row.quality?.ndcgAt10, 'higher');
      add(figures, name, 'index MiB', row.build ? row.build.retainedBytes / 2 ** 20 : undefined, 'lower');
      add(figures, name, 'p50 ms (absolute)', row.latency?.p50Ms, 'lower');
    }
  }
  for (const engine of report.engine.filter((row) => row.status === 'ok')) {
    const name = `run() ${engine.dataset} · ${engine.variant}`;
    const middle = engine.budgets.filter((entry) => entry.unit === 'chars');
    const budget = middle[Math.floor(middle.length / 2)];
    const retrieve = engine.stages?.retrieve;
    add(figures, name, 'run() p50 / retrieve mean', budget && retrieve ? budget.latency.p50Ms / retrieve : undefined, 'lower');
    add(figures, name, `gold@${budget?.budget ?? '?'}`, budget?.quality.goldInContext, 'higher');
    add(figures, name, 'run() p50 ms (absolute)', budget?.latency.p50Ms, 'lower');
    for (const [stage, ms] of Object.entries(engine.stages ?? {})) if (stage !== 'total' && stage !== 'cache') add(figures, name, `${stage} mean ms (absolute)`, ms, 'lower');
  }
  for (const size of new Set(report.scale.map((row) => row.size))) {
    const rows = report.scale.filter((row) => row.size === size && row.status === 'ok' && row.run);
    const fastest = rows.length > 0 ? Math.min(...rows.map((row) => row.run!.p50Ms)) : undefined;
    for (const row of rows) {
      const name = `scale ${size.toLocaleString('en')} · ${row.configuration}`;
      add(figures, name, 'run() p50 / fastest at size', fastest ? row.run!.p50Ms / fastest : undefined, 'lower');
      add(figures, name, 'run() p50 / retrieve p50', row.retrieve ? row.run!.p50Ms / row.retrieve.p50Ms : undefined, 'lower');
      add(figures, name, 'bytes per chunk', row.build ? row.build.retainedBytes / size : undefined, 'lower');
      add(figures, name, 'peak RSS MiB', row.build ? row.build.peakRssBytes / 2 ** 20 : undefined, 'lower');
      add(figures, name, 'retrieve p50 ms (absolute)', row.retrieve?.p50Ms, 'lower');
      add(figures, name, 'build s (absolute)', row.build ? row.build.ms / 1000 : undefined, 'lower');
    }
  }
  for (const size of new Set(report.vectors.map((row) => row.size))) {
    const rows = report.vectors.filter((row) => row.size === size && row.status === 'ok');
    const exact = rows.find((row) => row.backend === 'memory')?.latency?.p50Ms;
    for (const row of rows) {
      const name = `vectors ${size.toLocaleString('en')} · ${row.backend}`;
      add(figures, name, 'p50 / MemoryVectorStore p50', exact && row.latency ? row.latency.p50Ms / exact : undefined, 'lower');
      add(figures, name, 'recall@10', row.recallAt10, 'higher');
    }
  }
  return figures;
}

/** Every figure of either report, paired; `tolerance` is the relative change that counts (default 0.1). */
export function compareReports(baseline: BenchmarkReport, current: BenchmarkReport, tolerance = 0.1): ComparedFigure[] {
  const before = reportFigures(baseline);
  const after = reportFigures(current);
  const keys = [...new Set([...before.keys(), ...after.keys()])];
  return keys.map((key) => {
    const entry = (after.get(key) ?? before.get(key))!;
    const old = before.get(key)?.value;
    const now = after.get(key)?.value;
    const change = finite(old) && finite(now) && old !== 0 ? now / old : undefined;
    // Absolute times are shown, never judged: they move with the machine's load.
    const judged = change !== undefined && !entry.metric.includes('(absolute)');
    const worse = judged && (entry.better === 'lower' ? change > 1 + tolerance : change < 1 - tolerance);
    const better = judged && (entry.better === 'lower' ? change < 1 - tolerance : change > 1 + tolerance);
    return { row: entry.row, metric: entry.metric, baseline: old, current: now, change, better: entry.better, regression: worse, improvement: better };
  });
}

function number(value: number | undefined): string {
  if (!finite(value)) return '–';
  const magnitude = Math.abs(value);
  return magnitude >= 100 ? value.toFixed(0) : magnitude >= 10 ? value.toFixed(1) : magnitude >= 1 ? value.toFixed(2) : value.toFixed(3);
}

/** A plain-text table of the comparison, rows grouped, regressions marked `REGRESSION`, and a summary line. */
export function renderComparison(figures: readonly ComparedFigure[], options: { baseline: string; current: string; tolerance?: number }): string {
  const tolerance = options.tolerance ?? 0.1;
  const lines = [`baseline ${options.baseline}`, `current  ${options.current}`, `(ratios are within one run; absolute times are shown but not judged; tolerance ±${Math.round(tolerance * 100)}%)`, ''];
  let previous = '';
  const width = Math.max(...figures.map((figure) => figure.metric.length), 10);
  for (const figure of figures) {
    if (figure.row !== previous) {
      lines.push(figure.row);
      previous = figure.row;
    }
    const change = figure.change === undefined ? (figure.baseline === undefined ? 'new' : 'gone') : `${figure.change >= 1 ? '+' : ''}${((figure.change - 1) * 100).toFixed(1)}%`;
    const flag = figure.regression ? '  REGRESSION' : figure.improvement ? '  better' : '';
    lines.push(`  ${figure.metric.padEnd(width)}  ${number(figure.baseline).padStart(9)} → ${number(figure.current).padStart(9)}  ${change.padStart(8)}${flag}`);
  }
  const regressions = figures.filter((figure) => figure.regression).length;
  const improvements = figures.filter((figure) => figure.improvement).length;
  lines.push('', `${regressions} regression${regressions === 1 ? '' : 's'}, ${improvements} improvement${improvements === 1 ? '' : 's'} beyond ±${Math.round(tolerance * 100)}% (of ${figures.filter((figure) => !figure.metric.includes('(absolute)')).length} judged figures)`);
  return lines.join('\n');
}
