import { recallAgainst } from './statistics.js';
import { join } from 'node:path';
import { charCounter } from '@zerda/text';
import type { LengthCounter } from '@zerda/types';
import { ANSWER_CHAR_BUDGETS, ANSWER_TOKEN_BUDGETS, answerDepth, answeredQueries, heldOutName, naiveAnswerRate, oracleRateAt, oracleRates, type SplitGroup } from './answer-context.js';
import { auditContext, packNaively, summarizeAudits } from './context-metrics.js';
import { datasetsDirectory, listDatasets, loadDataset, type BenchDataset, type SliceOptions } from './datasets.js';
import { executeJob } from './job-runner.js';
import { VECTOR_BACKENDS, type EngineResult, type EngineVariant, type Job, type RetrievalResult, type ScaleConfiguration, type ScaleResult, type VectorBackend, type VectorResult } from './jobs.js';
import { machineInfo } from './machine.js';
import { SYSTEM_IDS, SYSTEM_INFO, type SystemId } from './systems/registry.js';
import { documentContent } from './systems/search-system.js';
import { evaluateTargets } from './targets.js';
import { SECTIONS, type BenchmarkReport, type BenchmarkVariant, type NaiveAnswerRow, type NaivePackingResult, type Section } from './report-shape.js';

export { SECTIONS, type BenchmarkReport, type BenchmarkVariant, type DatasetSummary, type NaiveAnswerRow, type NaivePackingResult, type Section, type VectorRow } from './report-shape.js';

/** Everything a run can be told. {@link benchmarkPreset} fills the full and quick variants. */
export interface BenchmarkOptions {
  variant: BenchmarkVariant;
  /** Folder of datasets (default `$ZERDA_DATASETS`, else `shared/datasets` beside the repository). */
  datasetsDirectory?: string;
  /** Only these dataset folders (default: every folder in the BEIR layout). */
  datasets?: string[];
  slice: SliceOptions;
  sections: Section[];
  systems: SystemId[];
  /** Character budgets of the context benchmark. */
  budgets: number[];
  /** cl100k token budgets of the context benchmark. */
  tokenBudgets: number[];
  tokenQueries: number;
  /** Character and cl100k token budgets of answer-in-context (datasets with `answers.jsonl`). */
  answerBudgets: number[];
  answerTokenBudgets: number[];
  /** Results per query in the retrieval benchmark. */
  depth: number;
  scaleSizes: number[];
  scaleConfigurations: ScaleConfiguration[];
  /** Configurations left out above a size (to keep the full run near an hour: the standalone HNSW graph at 1M is the one hybrid-hnsw builds too). */
  scaleSkip?: { above: number; configurations: ScaleConfiguration[] };
  scaleQueries: number;
  /** The dataset whose sentences and queries make the synthetic corpus. */
  scaleSource: string;
  vectorSizes: number[];
  vectorBackends: VectorBackend[];
  vectorQueries: number;
  seed: number;
  warmup: number;
  /** Each measured system in its own child process (needs the compiled package). */
  isolate: boolean;
  /** Longest a scale or vector job may run, in ms. */
  jobTimeoutMs: number;
  /** Progress lines. */
  log: (line: string) => void;
  /** How the run was started, for the report. */
  command: string;
  /** Called with the report so far after each section (the CLI writes the files each time, so a stopped run leaves its finished sections). */
  onSection?: (report: BenchmarkReport) => void;
}

/** The full and quick variants. */
export function benchmarkPreset(variant: 'full' | 'quick'): BenchmarkOptions {
  const quick = variant === 'quick';
  return {
    variant,
    slice: quick ? { maxDocuments: 2000, maxQueries: 150 } : {},
    sections: [...SECTIONS],
    systems: [...SYSTEM_IDS],
    budgets: [1000, 2000, 4000],
    tokenBudgets: [250, 500, 1000],
    tokenQueries: quick ? 50 : 300,
    answerBudgets: [...ANSWER_CHAR_BUDGETS],
    answerTokenBudgets: [...ANSWER_TOKEN_BUDGETS],
    depth: 100,
    scaleSizes: quick ? [2_000, 10_000] : [10_000, 100_000, 1_000_000],
    scaleConfigurations: ['keyword', 'memory-vector', 'hnsw', 'hybrid-hnsw'],
    ...(quick ? {} : { scaleSkip: { above: 100_000, configurations: ['hnsw'] as ScaleConfiguration[] } }),
    scaleQueries: quick ? 50 : 200,
    scaleSource: 'beir-scifact',
    vectorSizes: quick ? [10_000] : [10_000, 100_000],
    vectorBackends: [...VECTOR_BACKENDS],
    vectorQueries: quick ? 50 : 200,
    seed: 20250101,
    warmup: quick ? 5 : 20,
    isolate: true,
    jobTimeoutMs: 40 * 60_000,
    log: (line) => process.stderr.write(`${line}\n`),
    command: 'node dist/cli.js',
  };
}

function format(value: number | undefined, digits = 3): string {
  return value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
}

/** Naive packing of every system's top 10 for every budget, audited like the engine's contexts. */
export function naivePacking(dataset: BenchDataset, result: RetrievalResult, budgets: readonly number[], unit: 'chars' | 'tokens', counter: LengthCounter, queryLimit?: number): NaivePackingResult[] {
  if (result.status !== 'ok' || !result.run) return [];
  const documents = new Map(dataset.documents.map((document) => [document.id, document]));
  const queries = queryLimit === undefined ? dataset.queries : dataset.queries.slice(0, queryLimit);
  return budgets.map((budget) => {
    const entries = queries.map((query) => {
      const ids = result.run?.[query.id] ?? [];
      const contents = ids.slice(0, 10).flatMap((id) => {
        const document = documents.get(id);
        return document ? [documentContent(document)] : [];
      });
      const context = packNaively(contents, budget, counter);
      const relevant = [...(dataset.qrels.get(query.id) ?? new Map<string, number>())].filter(([, grade]) => grade > 0).map(([id]) => documents.get(id)?.text ?? '');
      return { audit: auditContext(context, relevant), used: counter(context), budget };
    });
    return { dataset: dataset.name, system: result.system, budget, unit, quality: summarizeAudits(entries) };
  });
}

/** answer-in-context of naive packing of a system's top 10 per split and budget; for zerda's BM25, the oracle too. */
export function naiveAnswerRows(dataset: BenchDataset, result: RetrievalResult, options: Pick<BenchmarkOptions, 'answerBudgets' | 'answerTokenBudgets'>, tokens: LengthCounter): NaiveAnswerRow[] {
  if (result.status !== 'ok' || !result.run || !dataset.answers) return [];
  const rows: NaiveAnswerRow[] = [];
  const groups = answeredQueries(dataset);
  for (const split of ['train', 'held-out'] as SplitGroup[]) {
    const queries = groups[split];
    if (queries.length === 0) continue;
    const base = { dataset: dataset.name, split, splitName: split === 'train' ? 'train' : heldOutName(dataset), queries: queries.length };
    for (const budget of options.answerBudgets) rows.push({ ...base, system: result.system, unit: 'chars', budget, rate: naiveAnswerRate(dataset, result.run, queries, budget, charCounter) });
    for (const budget of options.answerTokenBudgets) rows.push({ ...base, system: result.system, unit: 'tokens', budget, rate: naiveAnswerRate(dataset, result.run, queries, budget, tokens) });
    if (result.system === 'zerda-keyword') {
      const oracle = oracleRates(dataset, result.run, queries);
      rows.push({ ...base, system: 'oracle', unit: 'all', budget: 0, rate: oracle.topDepth, top1: oracle.top1 });
      // The ceiling at each budget: the answer is among the candidates the engine draws on there.
      for (const budget of options.answerBudgets) rows.push({ ...base, system: 'oracle', unit: 'chars', budget, rate: oracleRateAt(dataset, result.run, queries, budget, charCounter, answerDepth('chars', budget)) });
      for (const budget of options.answerTokenBudgets) rows.push({ ...base, system: 'oracle', unit: 'tokens', budget, rate: oracleRateAt(dataset, result.run, queries, budget, tokens, answerDepth('tokens', budget)) });
    }
  }
  return rows;
}

/**
 * Runs the benchmark sections in order — retrieval quality and speed per system and dataset,
 * context quality (ContextEngine.run() against naive packing), scale, vector backends — each
 * measured system in a child process of its own when `isolate`, and returns everything measured.
 */
export async function runBenchmarks(options: BenchmarkOptions): Promise<BenchmarkReport> {
  const started = performance.now();
  const log = options.log;
  const machine = machineInfo();
  const directory = options.datasetsDirectory ?? datasetsDirectory();
  if (!directory) throw new Error('no datasets folder: set ZERDA_DATASETS or place the datasets in ../shared/datasets');
  const names = listDatasets(directory).filter((name) => !options.datasets || options.datasets.includes(name));
  const runner = { isolate: options.isolate, timeoutMs: options.jobTimeoutMs };
  const report: BenchmarkReport = {
    date: new Date().toISOString(),
    pending: [...options.sections],
    variant: options.variant,
    command: options.command,
    machine,
    durationSeconds: 0,
    sectionSeconds: {},
    settings: {
      slice: options.slice,
      budgets: options.budgets,
      tokenBudgets: options.tokenBudgets,
      tokenQueries: options.tokenQueries,
      answerBudgets: options.answerBudgets,
      answerTokenBudgets: options.answerTokenBudgets,
      depth: options.depth,
      scaleQueries: options.scaleQueries,
      vectorQueries: options.vectorQueries,
      seed: options.seed,
      warmup: options.warmup,
      isolate: options.isolate,
    },
    datasets: [],
    retrieval: [],
    engine: [],
    naive: [],
    naiveAnswers: [],
    scale: [],
    vectors: [],
    targets: [],
  };
  const sections = new Set(options.sections);
  const checkpoint = (done: Section[]): void => {
    report.pending = report.pending.filter((section) => !done.includes(section));
    report.targets = evaluateTargets(report);
    report.durationSeconds = (performance.now() - started) / 1000;
    options.onSection?.(report);
  };
  const loaded = new Map<string, BenchDataset>();
  for (const name of names) {
    const dataset = loadDataset(join(directory, name), options.slice);
    loaded.set(name, dataset);
    report.datasets.push({ name, language: dataset.language, documents: dataset.documents.length, queries: dataset.queries.length, full: dataset.full });
  }

  if (sections.has('retrieval') || sections.has('context')) {
    const sectionStart = performance.now();
    const { tokenCounter } = await import('@zerda/context-core');
    const tokens = tokenCounter('cl100k_base');
    for (const name of names) {
      const dataset = loaded.get(name) as BenchDataset;
      const reference = { directory: join(directory, name), slice: options.slice };
      for (const system of options.systems) {
        log(`[retrieval] ${name} · ${SYSTEM_INFO[system].label} …`);
        const job: Job = { kind: 'retrieval', dataset: reference, system, depth: options.depth, warmup: options.warmup };
        const result = (await executeJob(job, runner)) as RetrievalResult;
        if (result.status === 'ok') {
          log(`  nDCG@10 ${format(result.quality?.ndcgAt10)} · R@100 ${format(result.quality?.recallAt100)} · build ${format(result.build?.ms, 0)} ms · p50 ${format(result.latency?.p50Ms)} ms`);
          if (sections.has('context')) {
            report.naive.push(...naivePacking(dataset, result, options.budgets, 'chars', charCounter));
            if (options.tokenBudgets.length > 0) report.naive.push(...naivePacking(dataset, result, options.tokenBudgets, 'tokens', tokens, options.tokenQueries));
            report.naiveAnswers.push(...naiveAnswerRows(dataset, result, options, tokens));
          }
        } else {
          log(`  ${result.status}: ${result.reason}`);
        }
        const { run: _run, ...stored } = result;
        report.retrieval.push(stored);
      }
      if (sections.has('context')) {
        // A keyword-only engine as well where the default one is hybrid: it separates the vector model's effect.
        const { chooseEmbedder } = await import('./embedding.js');
        const variants: EngineVariant[] = (await chooseEmbedder(dataset.language)).embedder ? ['default', 'keyword'] : ['default'];
        for (const variant of variants) {
          log(`[context] ${name} · ContextEngine.run() (${variant}) …`);
          const job: Job = { kind: 'engine', dataset: reference, budgets: options.budgets, tokenBudgets: options.tokenBudgets, tokenQueries: options.tokenQueries, warmup: options.warmup, variant, answerBudgets: options.answerBudgets, answerTokenBudgets: options.answerTokenBudgets };
          const result = (await executeJob(job, runner)) as EngineResult;
          if (result.status === 'ok') {
            log(`  ${result.budgets.map((entry) => `gold@${entry.budget}${entry.unit === 'tokens' ? 't' : ''} ${format(entry.quality.goldInContext)}`).join(' · ')} · run p50 ${format(result.budgets[0]?.latency.p50Ms)} ms`);
          } else {
            log(`  ${result.status}: ${result.reason}`);
          }
          report.engine.push(result);
        }
      }
    }
    report.sectionSeconds.retrieval = (performance.now() - sectionStart) / 1000;
    checkpoint(['retrieval', 'context']);
  }

  const source = join(directory, options.scaleSource);
  if (sections.has('scale')) {
    const sectionStart = performance.now();
    const stopped = new Map<ScaleConfiguration, string>();
    for (const size of options.scaleSizes) {
      for (const configuration of options.scaleConfigurations) {
        const earlier = stopped.get(configuration);
        if (options.scaleSkip && size > options.scaleSkip.above && options.scaleSkip.configurations.includes(configuration)) {
          report.scale.push({ kind: 'scale', size, configuration, status: 'unavailable', reason: `left out above ${options.scaleSkip.above.toLocaleString('en')} chunks to keep the full run near an hour (the same HNSW graph is built and measured inside hybrid-hnsw at this size)` });
          continue;
        }
        if (earlier) {
          report.scale.push({ kind: 'scale', size, configuration, status: 'unavailable', reason: `not run: ${earlier}` });
          continue;
        }
        log(`[scale] ${size.toLocaleString('en')} chunks · ${configuration} …`);
        const job: Job = { kind: 'scale', source, seed: options.seed, size, configuration, queries: options.scaleQueries, budget: 2000, warmup: options.warmup };
        const result = (await executeJob(job, { ...runner, maxOldSpaceMb: 16_384 })) as ScaleResult;
        if (result.status === 'ok') {
          log(`  build ${format((result.build?.ms ?? 0) / 1000, 1)} s · run p50 ${format(result.run?.p50Ms)} ms · p95 ${format(result.run?.p95Ms)} ms · ${format((result.build?.retainedBytes ?? 0) / size, 0)} B/chunk`);
        } else {
          log(`  ${result.status}: ${result.reason}`);
          stopped.set(configuration, `the ${size.toLocaleString('en')}-chunk run ${result.status === 'failed' ? 'failed' : 'could not run'} (${result.reason})`);
        }
        report.scale.push(result);
      }
    }
    report.sectionSeconds.scale = (performance.now() - sectionStart) / 1000;
    checkpoint(['scale']);
  }

  if (sections.has('vectors')) {
    const sectionStart = performance.now();
    for (const size of options.vectorSizes) {
      const results: VectorResult[] = [];
      for (const backend of options.vectorBackends) {
        log(`[vectors] ${size.toLocaleString('en')} vectors · ${backend} …`);
        const job: Job = { kind: 'vectors', source, seed: options.seed, size, backend, queries: options.vectorQueries, k: 10, warmup: options.warmup };
        const result = (await executeJob(job, { ...runner, maxOldSpaceMb: 16_384, timeoutMs: Math.min(options.jobTimeoutMs, 20 * 60_000) })) as VectorResult;
        log(result.status === 'ok' ? `  build ${format((result.build?.ms ?? 0) / 1000, 1)} s · p50 ${format(result.latency?.p50Ms)} ms` : `  ${result.status}: ${result.reason}`);
        results.push(result);
      }
      const exact = results.find((result) => result.backend === 'memory' && result.status === 'ok')?.ids;
      for (const result of results) {
        const { ids, ...row } = result;
        const recallAt10 = exact && ids ? recallAgainst(exact, ids) : undefined;
        report.vectors.push(recallAt10 === undefined ? row : { ...row, recallAt10 });
      }
    }
    report.sectionSeconds.vectors = (performance.now() - sectionStart) / 1000;
    checkpoint(['vectors']);
  }

  report.pending = [];
  report.targets = evaluateTargets(report);
  report.durationSeconds = (performance.now() - started) / 1000;
  return report;
}

