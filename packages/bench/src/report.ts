import type { BenchmarkReport, NaivePackingResult } from './benchmark.js';
import type { EngineResult, RetrievalResult, ScaleResult } from './jobs.js';
import { growthExponent } from './statistics.js';
import { ANSWER_BASE_DEPTH, ANSWER_WIDE_DEPTH } from './answer-context.js';
import { SYSTEM_IDS, SYSTEM_INFO, type SystemId } from './systems/registry.js';

type Row = Omit<RetrievalResult, 'run'>;

const MiB = 1024 * 1024;

function fixed(value: number | undefined, digits = 3): string {
  return value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
}

function ms(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  if (value >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

function mebibytes(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '–';
  return bytes >= 100 * MiB ? (bytes / MiB).toFixed(0) : (bytes / MiB).toFixed(1);
}

function ratio(value: number | undefined, reference: number | undefined): string {
  if (value === undefined || reference === undefined || !Number.isFinite(value) || !Number.isFinite(reference) || reference === 0) return '–';
  const r = value / reference;
  return `${r >= 10 ? r.toFixed(0) : r.toFixed(2)}×`;
}

function points(value: number | undefined, reference: number | undefined): string {
  if (value === undefined || reference === undefined) return '–';
  const difference = (value - reference) * 100;
  return `${difference >= 0 ? '+' : ''}${difference.toFixed(1)}`;
}

function percent(value: number | undefined): string {
  return value === undefined || !Number.isFinite(value) ? '–' : `${(value * 100).toFixed(1)}%`;
}

function table(header: string[], rows: string[][]): string {
  const escape = (cell: string): string => cell.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.map(escape).join(' | ')} |`)].join('\n');
}

function label(system: SystemId): string {
  const info = SYSTEM_INFO[system];
  return info.peer ? info.label : `**${info.label}**`;
}

function bestPeer(rows: readonly Row[], value: (row: Row) => number | undefined, better: 'higher' | 'lower', options: { indexingOnly?: boolean } = {}): number | undefined {
  let best: number | undefined;
  for (const row of rows) {
    if (!SYSTEM_INFO[row.system].peer || row.status !== 'ok') continue;
    if (options.indexingOnly && !SYSTEM_INFO[row.system].indexes) continue;
    const candidate = value(row);
    if (candidate === undefined || !Number.isFinite(candidate)) continue;
    if (best === undefined || (better === 'higher' ? candidate > best : candidate < best)) best = candidate;
  }
  return best;
}

function statusCell(row: { status: string; reason?: string }): string {
  return `${row.status === 'failed' ? 'failed' : 'not run'}: ${row.reason ?? 'no reason given'}`;
}

function retrievalQuality(report: BenchmarkReport, dataset: string): string {
  const rows = report.retrieval.filter((row) => row.dataset === dataset);
  const best = bestPeer(rows, (row) => row.quality?.ndcgAt10, 'higher');
  return table(
    ['system', 'kind', 'nDCG@10', 'vs best peer', 'Recall@10', 'Recall@100', 'MRR@10'],
    rows.map((row) =>
      row.status === 'ok' && row.quality
        ? [label(row.system), SYSTEM_INFO[row.system].kind, fixed(row.quality.ndcgAt10), ratio(row.quality.ndcgAt10, best), fixed(row.quality.recallAt10), fixed(row.quality.recallAt100), fixed(row.quality.mrrAt10)]
        : [label(row.system), SYSTEM_INFO[row.system].kind, statusCell(row), '', '', '', ''],
    ),
  );
}

function retrievalSpeed(report: BenchmarkReport, dataset: string): string {
  const rows = report.retrieval.filter((row) => row.dataset === dataset);
  const bestBuild = bestPeer(rows, (row) => row.build?.ms, 'lower', { indexingOnly: true });
  const bestP50 = bestPeer(rows, (row) => row.latency?.p50Ms, 'lower');
  const bestMemory = bestPeer(rows, (row) => row.build?.retainedBytes, 'lower', { indexingOnly: true });
  return table(
    ['system', 'build ms', 'vs best peer', 'p50 ms', 'vs fastest peer', 'p95 ms', 'QPS', 'index MiB', 'vs smallest peer', 'peak RSS MiB'],
    rows.map((row) =>
      row.status === 'ok' && row.latency && row.build
        ? [
            label(row.system),
            SYSTEM_INFO[row.system].indexes ? ms(row.build.ms) : `${ms(row.build.ms)} (no index)`,
            ratio(row.build.ms, bestBuild),
            ms(row.latency.p50Ms),
            ratio(row.latency.p50Ms, bestP50),
            ms(row.latency.p95Ms),
            fixed(row.latency.qps, 0),
            mebibytes(row.build.retainedBytes),
            ratio(row.build.retainedBytes, bestMemory),
            mebibytes(row.build.peakRssBytes),
          ]
        : [label(row.system), statusCell(row), '', '', '', '', '', '', '', ''],
    ),
  );
}

function naiveRows(report: BenchmarkReport, dataset: string, unit: 'chars' | 'tokens'): Map<SystemId, NaivePackingResult[]> {
  const bySystem = new Map<SystemId, NaivePackingResult[]>();
  for (const row of report.naive) {
    if (row.dataset !== dataset || row.unit !== unit) continue;
    const list = bySystem.get(row.system) ?? [];
    list.push(row);
    bySystem.set(row.system, list);
  }
  return bySystem;
}

const ENGINE_LABEL: Record<string, string> = { default: '**zerda ContextEngine.run()**', keyword: '**zerda ContextEngine.run(), keyword only**' };

function contextTable(report: BenchmarkReport, engines: readonly EngineResult[], unit: 'chars' | 'tokens'): string {
  const budgets = unit === 'chars' ? report.settings.budgets : report.settings.tokenBudgets;
  if (budgets.length === 0 || engines.length === 0) return '';
  const middle = budgets[Math.floor(budgets.length / 2)] as number;
  const naive = naiveRows(report, (engines[0] as EngineResult).dataset, unit);
  const bestPeerGold = new Map<number, number>();
  for (const [system, rows] of naive) {
    if (!SYSTEM_INFO[system].peer) continue;
    for (const row of rows) bestPeerGold.set(row.budget, Math.max(bestPeerGold.get(row.budget) ?? 0, row.quality.goldInContext));
  }
  const suffix = unit === 'tokens' ? ' tokens' : '';
  const header = ['context', ...budgets.flatMap((budget) => [`gold@${budget}${suffix}`, 'vs best peer (points)']), `duplicate @${middle}`, `irrelevant @${middle}`, `budget used @${middle}`];
  const rows: string[][] = [];
  for (const engine of engines) {
    const name = ENGINE_LABEL[engine.variant] ?? engine.variant;
    const engineRows = engine.budgets.filter((entry) => entry.unit === unit);
    if (engine.status === 'ok' && engineRows.length > 0) {
      const at = (budget: number) => engineRows.find((entry) => entry.budget === budget)?.quality;
      rows.push([
        name,
        ...budgets.flatMap((budget) => [percent(at(budget)?.goldInContext), points(at(budget)?.goldInContext, bestPeerGold.get(budget))]),
        percent(at(middle)?.duplicateShare),
        percent(at(middle)?.irrelevantShare),
        percent(at(middle)?.budgetUsed),
      ]);
    } else {
      rows.push([name, statusCell(engine), ...budgets.flatMap(() => ['', '']).slice(1), '', '', '']);
    }
  }
  for (const system of SYSTEM_IDS) {
    const list = naive.get(system);
    if (!list) continue;
    const at = (budget: number) => list.find((row) => row.budget === budget)?.quality;
    rows.push([
      `${label(system)} top-10, naive packing`,
      ...budgets.flatMap((budget) => [percent(at(budget)?.goldInContext), points(at(budget)?.goldInContext, bestPeerGold.get(budget))]),
      percent(at(middle)?.duplicateShare),
      percent(at(middle)?.irrelevantShare),
      percent(at(middle)?.budgetUsed),
    ]);
  }
  return table(header, rows);
}

/**
 * answer-in-context of one dataset and split: the engine(s), naive packing of our own BM25 top 10
 * (the floor), of every peer's top 10, and the oracle (the ceiling), at every character and token budget.
 */
function answerTable(report: BenchmarkReport, dataset: string, split: 'train' | 'held-out'): string {
  const naive = (report.naiveAnswers ?? []).filter((row) => row.dataset === dataset && row.split === split);
  const engines = report.engine.filter((engine) => engine.dataset === dataset && engine.answers?.some((rate) => rate.split === split));
  if (naive.length === 0 && engines.length === 0) return '';
  const charBudgets = report.settings.answerBudgets ?? [];
  const tokenBudgets = report.settings.answerTokenBudgets ?? [];
  const columns: Array<{ unit: 'chars' | 'tokens'; budget: number }> = [...charBudgets.map((budget) => ({ unit: 'chars' as const, budget })), ...tokenBudgets.map((budget) => ({ unit: 'tokens' as const, budget }))];
  const floorAt = (unit: string, budget: number) => naive.find((row) => row.system === 'zerda-keyword' && row.unit === unit && row.budget === budget)?.rate;
  const header = ['context', ...columns.map(({ unit, budget }) => (unit === 'chars' ? `@${budget} chars` : `@${budget} tokens`))];
  const rows: string[][] = [];
  const cell = (rate: number | undefined, floor: number | undefined) => (rate === undefined ? '–' : floor === undefined ? percent(rate) : `${percent(rate)} (${points(rate, floor)})`);
  for (const engine of engines) {
    const at = (unit: string, budget: number) => engine.answers?.find((rate) => rate.split === split && rate.unit === unit && rate.budget === budget)?.rate;
    rows.push([ENGINE_LABEL[engine.variant] ?? engine.variant, ...columns.map(({ unit, budget }) => cell(at(unit, budget), floorAt(unit, budget)))]);
  }
  for (const system of SYSTEM_IDS) {
    const list = naive.filter((row) => row.system === system);
    if (list.length === 0) continue;
    const at = (unit: string, budget: number) => list.find((row) => row.unit === unit && row.budget === budget)?.rate;
    const own = system === 'zerda-keyword';
    rows.push([`${label(system)} top-10, naive packing${own ? ' (the floor)' : ''}`, ...columns.map(({ unit, budget }) => (own ? percent(at(unit, budget)) : cell(at(unit, budget), floorAt(unit, budget))))]);
  }
  const oracle = naive.find((row) => row.system === 'oracle' && row.unit === 'all');
  if (oracle) rows.push([`oracle: the answer is anywhere in our top 10 (top 1 alone: ${percent(oracle.top1)})`, ...columns.map(() => percent(oracle.rate))]);
  const ceilingAt = (unit: string, budget: number) => naive.find((row) => row.system === 'oracle' && row.unit === unit && row.budget === budget)?.rate;
  if (columns.some(({ unit, budget }) => ceilingAt(unit, budget) !== undefined)) {
    rows.push([`oracle at the budget: the answer is in the candidates the engine draws on there (top ${ANSWER_BASE_DEPTH}; top ${ANSWER_WIDE_DEPTH} at the two largest budgets of a unit)`, ...columns.map(({ unit, budget }) => percent(ceilingAt(unit, budget)))]);
  }
  return table(header, rows);
}

/** The answer-in-context section: per dataset with answers, the held-out split first, then train. */
function answerSection(report: BenchmarkReport): string[] {
  const datasets = report.datasets.filter((dataset) => (report.naiveAnswers ?? []).some((row) => row.dataset === dataset.name) || report.engine.some((engine) => engine.dataset === dataset.name && engine.answers));
  if (datasets.length === 0) return [];
  const lines = [
    '## Context quality: answer-in-context',
    '',
    'answer-in-context@B = share of questions whose context, built within budget B, holds a gold answer string (`answerInContext` of @zerda/retriever: both sides compared after NFKC, case folding and whitespace collapsing, with Arabic diacritics and tatweel removed and alef forms unified). `ContextEngine.run(query, { overrideBudget: B })` with its defaults (cache, history and adaptive depth off) against naive packing — the top 10 joined by blank lines and cut at B at a word boundary, with the same counter — of zerda’s own BM25 (the floor the engine must never fall below) and of every peer; the oracle is the share of questions whose answer appears anywhere in zerda’s BM25 top 10 (the ceiling). Points in brackets are against the floor. The composer’s sentence model was fitted on the `train` splits only (`pnpm --filter @zerda/bench fit-composer`); the held-out split (TyDi `dev`, ARCD `test`) is what the defaults are judged on. cl100k token rows count with `tokenCounter(\'cl100k_base\')` from @zerda/context-core on both sides.',
    '',
  ];
  for (const dataset of datasets) {
    const heldOut = (report.naiveAnswers ?? []).find((row) => row.dataset === dataset.name && row.split === 'held-out');
    const train = (report.naiveAnswers ?? []).find((row) => row.dataset === dataset.name && row.split === 'train');
    const heldOutTable = answerTable(report, dataset.name, 'held-out');
    if (heldOutTable) lines.push(`### ${dataset.name} — ${heldOut?.splitName ?? 'held-out'} (${heldOut?.queries.toLocaleString('en') ?? '–'} questions, held out)`, '', heldOutTable, '');
    const trainTable = answerTable(report, dataset.name, 'train');
    if (trainTable) lines.push(`### ${dataset.name} — train (${train?.queries.toLocaleString('en') ?? '–'} questions, where parameters were chosen)`, '', trainTable, '');
  }
  return lines;
}

/** "analyze 0.2, retrieve 4.5, …" from mean stage timings (cache and total left out). */
function stageSummary(stages: Record<string, number> | undefined): string {
  if (!stages) return '–';
  return Object.entries(stages)
    .filter(([stage]) => stage !== 'total' && stage !== 'cache')
    .map(([stage, value]) => `${stage} ${ms(value)}`)
    .join(', ');
}

function engineSpeed(report: BenchmarkReport): string {
  const rows = report.engine.map((engine) => {
    if (engine.status !== 'ok' || !engine.build) return [engine.dataset, engine.retrievers, statusCell(engine), '', '', '', '', '', ''];
    const middle = report.settings.budgets[Math.floor(report.settings.budgets.length / 2)];
    const entry = engine.budgets.find((budget) => budget.unit === 'chars' && budget.budget === middle);
    const stages = stageSummary(engine.stages);
    return [engine.dataset, engine.retrievers, ms(engine.build.ms), ms(entry?.latency.p50Ms), ms(entry?.latency.p95Ms), fixed(entry?.latency.qps, 0), mebibytes(engine.build.retainedBytes), mebibytes(engine.build.peakRssBytes), stages];
  });
  return table(['dataset', 'retrievers', 'index() ms', 'run() p50 ms', 'run() p95 ms', 'QPS', 'index MiB', 'peak RSS MiB', 'mean ms per stage'], rows);
}

/** Scale rows with growth exponents against the previous size of the same configuration. */
function scaleTable(report: BenchmarkReport): string {
  const rows: string[][] = [];
  const previous = new Map<string, ScaleResult>();
  const sorted = report.scale.slice().sort((a, b) => a.size - b.size);
  const fastestAtSize = new Map<number, number>();
  for (const row of sorted) if (row.status === 'ok' && row.run) fastestAtSize.set(row.size, Math.min(fastestAtSize.get(row.size) ?? Infinity, row.run.p50Ms));
  for (const row of sorted) {
    if (row.status !== 'ok' || !row.run || !row.build) {
      rows.push([row.size.toLocaleString('en'), row.configuration, statusCell(row), '', '', '', '', '', '', '', '', '', '']);
      continue;
    }
    const before = previous.get(row.configuration);
    const exponent = before?.run ? growthExponent(before.size, before.run.p50Ms, row.size, row.run.p50Ms) : Number.NaN;
    const memoryExponent = before?.build ? growthExponent(before.size, before.build.retainedBytes, row.size, row.build.retainedBytes) : Number.NaN;
    rows.push([
      row.size.toLocaleString('en'),
      row.configuration,
      fixed(row.build.ms / 1000, 1),
      ms(row.run.p50Ms),
      ratio(row.run.p50Ms, fastestAtSize.get(row.size)),
      ms(row.run.p95Ms),
      ms(row.retrieve?.p50Ms),
      fixed(row.build.retainedBytes / row.size, 0),
      fixed(row.build.rssGrowthBytes / row.size, 0),
      mebibytes(row.build.peakRssBytes),
      fixed(exponent, 2),
      fixed(memoryExponent, 2),
      stageSummary(row.stages),
    ]);
    previous.set(row.configuration, row);
  }
  return table(['chunks', 'retrievers', 'build s', 'run() p50 ms', 'vs fastest at size', 'run() p95 ms', 'retrieve p50 ms', 'bytes per chunk', 'RSS growth per chunk', 'peak RSS MiB', 'p50 growth exponent', 'memory growth exponent', 'mean ms per stage'], rows);
}

/** Snapshot rows: what saving and reopening an engine costs, beside the build it replaces. */
function snapshotTable(report: BenchmarkReport): string | undefined {
  const rows = report.scale
    .filter((row) => row.snapshot !== undefined)
    .sort((a, b) => a.size - b.size)
    .map((row) => {
      const snapshot = row.snapshot!;
      if (snapshot.status !== 'ok') return [row.size.toLocaleString('en'), row.configuration, row.build ? fixed(row.build.ms / 1000, 1) : '', `failed: ${snapshot.reason}`, '', '', '', '', '', ''];
      const held = row.build ? Math.max(row.build.rssGrowthBytes, row.build.retainedBytes) : undefined;
      return [
        row.size.toLocaleString('en'),
        row.configuration,
        row.build ? fixed(row.build.ms / 1000, 1) : '',
        fixed(snapshot.saveMs / 1000, 2),
        fixed(snapshot.openMs / 1000, 2),
        row.build ? `${fixed(row.build.ms / snapshot.openMs, 1)}×` : '',
        mebibytes(snapshot.bytes),
        held ? `${fixed(snapshot.bytes / held, 2)}×` : '',
        `${mebibytes(snapshot.openPeakRssBytes)} (${mebibytes(snapshot.openBaselineRssBytes)} before open)`,
        snapshot.identical ? `yes (${snapshot.checkedQueries} queries)` : `NO (${snapshot.checkedQueries} queries)`,
      ];
    });
  if (rows.length === 0) return undefined;
  return table(['chunks', 'retrievers', 'build s', 'save s', 'open s', 'open faster than build', 'size on disk MiB', 'disk / index in memory', 'peak RSS of the opening process MiB', 'same answers after open'], rows);
}

function vectorTable(report: BenchmarkReport): string {
  const rows = report.vectors.map((row) => {
    if (row.status !== 'ok' || !row.latency || !row.build) return [row.size.toLocaleString('en'), row.backend, statusCell(row), '', '', '', '', '', '', ''];
    const exact = report.vectors.find((other) => other.size === row.size && other.backend === 'memory' && other.status === 'ok');
    return [
      row.size.toLocaleString('en'),
      row.backend,
      row.startupMs !== undefined && row.startupMs >= 100 ? `${fixed(row.build.ms / 1000, 2)} (+${fixed(row.startupMs / 1000, 1)} start-up)` : fixed(row.build.ms / 1000, 2),
      ms(row.latency.p50Ms),
      ratio(row.latency.p50Ms, exact?.latency?.p50Ms),
      ms(row.latency.p95Ms),
      fixed(row.recallAt10, 3),
      mebibytes(row.build.retainedBytes),
      row.serverRssGrowthBytes === undefined ? mebibytes(row.build.rssGrowthBytes) : `${mebibytes(row.build.rssGrowthBytes)} + ${mebibytes(row.serverRssGrowthBytes)} server`,
      row.settings ?? '',
    ];
  });
  return table(['vectors', 'backend', 'build s', 'top-10 p50 ms', 'vs MemoryVectorStore', 'p95 ms', 'recall@10 vs exact', 'heap+external MiB', 'RSS growth MiB', 'settings'], rows);
}

/** Rows measured from several concurrent clients (server backends): retrieval systems and vector stores. */
function throughputTable(report: BenchmarkReport): string | undefined {
  const rows: string[][] = [];
  for (const row of report.retrieval) {
    if (row.status !== 'ok' || !row.throughput || !row.latency) continue;
    rows.push([`${label(row.system)} — ${row.dataset}, top 100`, String(row.throughput.clients), row.throughput.queries.toLocaleString('en'), fixed(row.throughput.qps, 0), fixed(row.latency.qps, 0), ratio(row.throughput.qps, row.latency.qps)]);
  }
  for (const row of report.vectors) {
    if (row.status !== 'ok' || !row.throughput || !row.latency) continue;
    const sequential = row.latency.qps;
    rows.push([`${row.backend} — ${row.size.toLocaleString('en')} vectors, top 10`, String(row.throughput.clients), row.throughput.queries.toLocaleString('en'), fixed(row.throughput.qps, 0), fixed(sequential, 0), ratio(row.throughput.qps, sequential)]);
  }
  if (rows.length === 0) return undefined;
  return table(['store and query', 'clients', 'queries', 'QPS, concurrent clients', 'QPS, one client', 'speed-up'], rows);
}

function settingsList(report: BenchmarkReport): string {
  const lines: string[] = [];
  for (const system of SYSTEM_IDS) {
    const rows = report.retrieval.filter((row) => row.system === system && row.settings);
    if (rows.length === 0) continue;
    const distinct = [...new Set(rows.map((row) => row.settings as string))];
    const text = distinct.length === 1 ? distinct[0] : rows.map((row) => `on ${row.dataset}: ${row.settings}`).join('; ');
    lines.push(`- **${SYSTEM_INFO[system].label}** — ${text}`);
  }
  return lines.join('\n');
}

function duration(seconds: number): string {
  if (seconds < 120) return `${seconds.toFixed(0)} s`;
  const minutes = seconds / 60;
  return minutes < 120 ? `${minutes.toFixed(1)} min` : `${(minutes / 60).toFixed(2)} h`;
}

/** BENCHMARKS.md from a run's report: the targets first, then every table with its ratios. */
export function renderMarkdown(report: BenchmarkReport, options: { chart?: string; resultsFile?: string } = {}): string {
  const machine = report.machine;
  const lines: string[] = [];
  lines.push('# zerda benchmarks', '');
  lines.push(
    `Generated by \`${report.command}\` (${report.variant} variant) on ${report.date.slice(0, 10)} (${report.date}); the run took ${duration(report.durationSeconds)}.`,
    `Machine: ${machine.cores} cores (${machine.cpuModel}), ${(machine.memoryBytes / 1024 ** 3).toFixed(1)} GiB memory, Node ${machine.node}, ${machine.os}; 1-minute load average at the start ${machine.loadAverageAtStart.toFixed(2)}.`,
    `${report.mergedFrom?.length ? 'Apart from the merged sections named below, every number comes from this one run' : 'Every number below comes from this one run'}, the peers measured on the same data in the same run${report.settings.isolate ? ', each system in a child process of its own (its memory and peak RSS are its own)' : ' (in one process)'}. Raw numbers: \`${options.resultsFile ?? 'bench-results/results.json'}\`.`,
    '',
  );
  for (const run of report.mergedFrom ?? []) {
    lines.push(
      `**Merged:** the ${run.sections.join(', ')} section${run.sections.length > 1 ? 's' : ''} come${run.sections.length > 1 ? '' : 's'} from another run, \`${run.command}\` on ${run.date.slice(0, 10)} (${run.date}; ${duration(run.durationSeconds)}; 1-minute load average at the start ${run.loadAverageAtStart.toFixed(2)}). Within a section every number comes from one run; absolute times of runs that overlapped shared the cores, so compare ratios within a section.`,
      '',
    );
  }
  if (report.pending.length > 0) lines.push(`**Partial run:** written after a finished section; still to run: ${report.pending.join(', ')}.`, '');
  lines.push('## The targets', '');
  lines.push(table(['target', 'met', 'evidence'], report.targets.map((target) => [target.target, target.met === undefined ? 'not measured' : target.met ? '**yes**' : '**no**', target.evidence])), '');
  lines.push('## Datasets', '');
  lines.push(
    table(
      ['dataset', 'language', 'documents', 'judged queries', 'of the full dataset'],
      report.datasets.map((dataset) => [dataset.name, dataset.language, dataset.documents.toLocaleString('en'), dataset.queries.toLocaleString('en'), `${dataset.full.documents.toLocaleString('en')} documents, ${dataset.full.queries.toLocaleString('en')} queries`]),
    ),
    '',
  );
  if (report.retrieval.length > 0) {
    lines.push('## Retrieval quality', '');
    lines.push('One chunk per document (title + text), every judged query, the top 100 kept. Ratios are to the best peer on that dataset (higher is better). **Bold** rows are zerda.', '');
    for (const dataset of report.datasets) lines.push(`### ${dataset.name}`, '', retrievalQuality(report, dataset.name), '');
    lines.push('## Retrieval speed and memory', '');
    lines.push(
      'Build = constructing the system and indexing every document (embeddings are computed once beforehand and shared, so build times exclude embedding; query embedding is inside every vector/hybrid query latency). Latency = one query → top 100 ids, back to back after a warm-up. Index MiB = V8 heap + external memory retained after a forced GC, measured from a baseline taken after the data and the model were loaded. Ratios are to the best peer (lower is better).',
      '',
    );
    for (const dataset of report.datasets) lines.push(`### ${dataset.name}`, '', retrievalSpeed(report, dataset.name), '');
  }
  lines.push(...answerSection(report));
  if (report.engine.length > 0) {
    lines.push('## Context quality: gold-in-context', '');
    lines.push(
      'gold-in-context@B = share of queries whose final context holds at least 200 characters (the whole text if shorter) of a relevant document’s own text, verbatim (whitespace runs collapsed), counting its opening run and any later sentence of 20+ characters that appears whole — so query-focused compression is credited. `ContextEngine.run(query, { overrideBudget: B })` with its defaults (cache, conversation history and adaptive depth off, since the queries are unrelated) against each system’s top 10 joined by blank lines and cut at B at a word boundary (naive packing). duplicate = share of the budget spent on sentences already in the context; irrelevant = share spent on text from no relevant document (other documents, headers, separators); both scaled by the share of the budget used. Points are percentage points against the best peer.',
      '',
    );
    for (const dataset of report.datasets) {
      const engines = report.engine.filter((engine) => engine.dataset === dataset.name);
      if (engines.length === 0) continue;
      const described = engines.map((engine) => `${ENGINE_LABEL[engine.variant] ?? engine.variant}: ${engine.retrievers}`).join('; ');
      lines.push(`### ${dataset.name} — characters`, '', `Engines: ${described}.`, '', contextTable(report, engines, 'chars'), '');
      if (report.settings.tokenBudgets.length > 0) {
        lines.push(
          `### ${dataset.name} — cl100k tokens`,
          '',
          `The engine counts with \`tokenCounter('cl100k_base')\` from @zerda/context-core; naive packing is cut with the same counter. The first ${Math.min(report.settings.tokenQueries, dataset.queries)} judged queries.`,
          '',
          contextTable(report, engines, 'tokens'),
          '',
        );
      }
    }
    lines.push('## ContextEngine.run() speed', '');
    lines.push('The whole pipeline (analyse, retrieve, filter, rank, compose, guard) at the middle character budget, over every judged query.', '');
    lines.push(engineSpeed(report), '');
  }
  if (report.scale.length > 0) {
    const sizes = [...new Set(report.scale.map((row) => row.size))].sort((a, b) => a - b);
    const reached = [...new Set(report.scale.filter((row) => row.status === 'ok').map((row) => row.size))].sort((a, b) => a - b);
    lines.push('## Scale', '');
    lines.push(
      `A deterministic synthetic corpus: chunk i is 2–5 SciFact sentences and a SciFact title drawn by a PRNG seeded with (seed ${report.settings.seed}, i), four chunks per synthetic document, so every smaller corpus is a prefix of the larger ones. run() = \`ContextEngine.run(query, { overrideBudget: 2000 })\` for ${report.settings.scaleQueries} SciFact queries; keyword = the engine's BM25 alone; memory-vector / hnsw = a VectorRetriever over MemoryVectorStore / HnswVectorStore injected as the engine's retriever; hybrid-hnsw = \`engine.index(chunks, { embedder, vectorDb: new HnswVectorStore() })\` (keyword + HNSW, the default weighted fusion). Chunk embeddings: every pool sentence and title is embedded once with the GloVe static model (cached) and a chunk's vector is the unit-length, word-count-weighted sum of its parts' vectors — for a static model (a weighted mean of word vectors) close to embedding the chunk text itself (fidelity below), and what makes a million chunks feasible here (the model embeds a few hundred whole chunks per second on this machine); build excludes embedding. Bytes per chunk = retained V8 heap + external memory of the index / chunks (chunk texts and vectors are in the baseline); RSS growth per chunk also catches native memory (hnswlib's graph lives outside V8). Growth exponent e between consecutive sizes: cost ∝ size^e (1 = linear).`,
      '',
      `Sizes attempted: ${sizes.map((size) => size.toLocaleString('en')).join(', ')}; reached: ${reached.map((size) => size.toLocaleString('en')).join(', ') || 'none'}.`,
      '',
    );
    lines.push(scaleTable(report), '');
    const snapshots = snapshotTable(report);
    if (snapshots) {
      lines.push(
        '### Snapshots',
        '',
        'The keyword and hybrid-hnsw engines above, saved with `engine.save(dir)` after their runs and opened with `ContextEngine.open(dir)` (`{ embedder, vectorDb: new HnswVectorStore() }` for hybrid-hnsw) in a fresh process, so that the open\'s peak resident set is its own (the baseline — Node, the packages and, for hybrid-hnsw, the embedding model — is shown apart). Open includes verifying every file\'s SHA-256. Size on disk is every file of the snapshot; the index in memory is the larger of the build\'s RSS growth and its retained heap + external bytes (chunk texts and vectors were created before the build, so they count on disk but not in memory). The opened engine\'s contexts and chunk ids for the first queries are compared with the saved engine\'s.',
        '',
        snapshots,
        '',
      );
    }
    const recalls = report.scale.filter((row) => row.status === 'ok' && row.graphRecall);
    if (recalls.length > 0) {
      const parts = recalls.map((row) => `${row.configuration} at ${row.size.toLocaleString('en')} chunks ${fixed(row.graphRecall!.recallAt10, 3)}`);
      lines.push(`HNSW graph recall@10 against exact cosine search over every chunk's vector (${recalls[0]!.graphRecall!.queries} queries, the store's default search settings): ${parts.join('; ')}.`, '');
    }
    const fidelity = report.scale.find((row) => row.embeddingFidelity)?.embeddingFidelity;
    if (fidelity) lines.push(`Composed vs whole-text chunk embeddings over the first ${fidelity.sample} chunks: mean cosine ${fixed(fidelity.meanCosine)}, lowest ${fixed(fidelity.minCosine)}.`, '');
    if (options.chart) lines.push(`![run() latency and memory against corpus size](${options.chart})`, '');
  }
  if (report.vectors.length > 0) {
    lines.push('## Vector backends', '');
    lines.push(`The synthetic corpus's GloVe embeddings (100 dimensions, cosine), added in batches of 5,000; top 10 for ${report.settings.vectorQueries} SciFact query embeddings; recall@10 against the exact MemoryVectorStore answer. Build = adding every vector plus any index built after the bulk load (pgvector-hnsw, pgvector-server, lancedb-ivf); it excludes creating the empty store (PGlite's, the PostgreSQL server's and the Chroma server's start-up are shown apart). pgvector-server is PgVectorStore on a native PostgreSQL server (the one in ZERDA_PG_URL, or a private one started for the job) over a node-postgres pool. Memory = V8 heap + external growth from before the store was created (PGlite's WASM memory included; native memory such as hnswlib's or FAISS's graph and LanceDB's buffers is not, see RSS growth). Chroma runs as a separate server process: its RSS growth is read from /proc and shown as "+ … server". Every store gets the same queries and the same k = 10, with each backend's default search settings. Ratios are to MemoryVectorStore.`, '');
    lines.push(vectorTable(report), '');
  }
  const throughput = throughputTable(report);
  if (throughput) {
    lines.push('## Connection-pool throughput', '');
    lines.push("Server-backed stores answer several clients at once. After the timed series above, the same queries (twice over) from 8 concurrent callers sharing the store's node-postgres pool of 8 connections, each sending its next query as soon as the last one returned; QPS = queries / wall time. One client = the sequential series above.", '');
    lines.push(throughput, '');
  }
  if (report.retrieval.length > 0) {
    lines.push('## How each system was used', '', settingsList(report), '');
  }
  lines.push('## Notes', '');
  lines.push(
    '- The machine is shared (2 cores): other work running at the same time slows every system alike within a run, but absolute times vary between runs; compare ratios.',
    '- Peers are used as their documentation shows; settings are listed above. A peer that cannot handle a dataset is reported with the reason, not hidden.',
    '- Quality metrics come from @zerda/retriever `evaluateRun` (trec_eval conventions: linear gains, a judged query with no results scores 0).',
    `- Section times: ${Object.entries(report.sectionSeconds).map(([section, seconds]) => `${section} ${duration(seconds ?? 0)}`).join(', ')}.`,
    '',
  );
  return lines.join('\n');
}
