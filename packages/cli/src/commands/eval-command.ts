import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  ContextEngine,
  HybridRetriever,
  KeywordRetriever,
  VectorRetriever,
  answerInContext,
  evaluateRun,
  normalizeForAnswerMatch,
  resolveConfig,
  type DocumentChunk,
  type EvaluationSummary,
  type Retriever,
} from '@zerda/context';
import { loadBeirDataset } from '@zerda/retriever/datasets';
import { createCounter, createEmbedder, engineOptions } from '../engine-setup.js';
import { CliError, EXIT } from '../errors.js';
import type { CliIo } from '../io.js';
import { createProgress } from '../progress.js';

/** Options of `zerda eval`. */
export interface EvalOptions {
  dataset: string;
  budgets: number[];
  tokens?: string;
  split?: string;
  limit?: number;
  embedder?: string;
  models?: string;
  qrels?: string;
  quiet: boolean;
}

/** What `zerda eval` measures. */
export interface EvalReport {
  dataset: string;
  split?: string;
  documents: number;
  queries: number;
  retrieval: EvaluationSummary;
  /** Share of questions (with gold answers) whose context holds a gold answer, per budget; absent without answers.jsonl. */
  answerInContext?: { unit: string; questions: number; byBudget: Record<string, number> };
}

/**
 * `zerda eval <dataset>`: indexes a BEIR-layout folder (`corpus.jsonl[.gz]`, `queries.jsonl`,
 * `qrels.tsv`) with the engine's retrieval, scores the ranking with `evaluateRun` (nDCG@10,
 * Recall@10/100, MRR@10), and with `answers.jsonl` measures answer-in-context: the share of
 * questions whose context, built by the engine within each budget, contains a gold answer
 * (`answerInContext` of @zerda/retriever, Arabic-aware normalisation on both sides).
 */
export async function evalCommand(options: EvalOptions, io: CliIo): Promise<EvalReport> {
  const directory = resolve(io.cwd, options.dataset);
  if (!existsSync(directory)) throw new CliError(`${options.dataset}: no such directory`, EXIT.usage);
  const dataset = loadBeirDataset(directory, options.qrels ? { qrels: options.qrels } : {});
  const answers = dataset.answers ?? new Map<string, string[]>();
  const splits = dataset.splits ?? new Map<string, string>();
  let queries = dataset.queries;
  if (options.split) {
    if (splits.size === 0) throw new CliError(`--split ${options.split}: ${options.dataset} has no split information (answers.jsonl "split" or query-split.tsv)`, EXIT.usage);
    queries = queries.filter((query) => splits.get(query.id) === options.split);
    if (queries.length === 0) throw new CliError(`--split ${options.split}: no query of ${options.dataset} is in that split (splits: ${[...new Set(splits.values())].join(', ')})`, EXIT.usage);
  }
  if (options.limit) queries = queries.slice(0, options.limit);

  const progress = createProgress(io, options.quiet);
  const config = resolveConfig({});
  const chunks: DocumentChunk[] = dataset.corpus.map((document) => ({ id: document.id, docId: document.id, text: document.text, source: document.id, ...(document.title ? { title: document.title } : {}), metadata: {}, position: { index: 0, total: 1, start: 0, end: document.text.length } }));
  // One retriever serves both measures: the ranking (nDCG) and the engine's context (answer-in-context).
  const keyword = new KeywordRetriever({ k1: config.retrieval.bm25.k1, b: config.retrieval.bm25.b, titleWeight: config.retrieval.bm25.titleWeight });
  const embedder = await createEmbedder(options);
  let retriever: Retriever = keyword;
  if (embedder) retriever = new HybridRetriever({ retrievers: [new VectorRetriever({ embedder }), keyword], config: config.retrieval });
  const indexing = progress.bar('index', 'documents', chunks.length);
  const lengthCounter = createCounter(options.tokens);
  const engine = new ContextEngine({ ...engineOptions(lengthCounter ? { lengthCounter } : {}), retriever });
  await engine.index(chunks);
  indexing.update(chunks.length);
  indexing.stop();

  const run = new Map<string, string[]>();
  const withAnswers = queries.filter((query) => (answers.get(query.id)?.length ?? 0) > 0);
  const hits: Record<string, number> = Object.fromEntries(options.budgets.map((budget) => [String(budget), 0]));
  const bar = progress.bar('queries', 'queries', queries.length);
  let done = 0;
  for (const query of queries) {
    const ranked = await retriever.retrieve(query.text, { topK: 100 });
    const ids: string[] = [];
    for (const candidate of ranked) if (!ids.includes(candidate.chunk.docId)) ids.push(candidate.chunk.docId);
    run.set(query.id, ids);
    const gold = answers.get(query.id);
    if (gold && gold.length > 0) {
      for (const budget of options.budgets) {
        const result = await engine.run(query.text, { overrideBudget: budget, recordTurn: false });
        if (answerInContext(normalizeForAnswerMatch(result.context), gold, { normalizedContext: true })) hits[String(budget)]!++;
      }
    }
    bar.update(++done);
  }
  bar.stop();
  progress.stop();
  const judged = new Map([...dataset.qrels].filter(([id]) => run.has(id)));
  const report: EvalReport = {
    dataset: dataset.name,
    ...(options.split ? { split: options.split } : {}),
    documents: dataset.corpus.length,
    queries: queries.length,
    retrieval: evaluateRun(run, judged),
  };
  if (withAnswers.length > 0) {
    report.answerInContext = {
      unit: lengthCounter?.unit ?? 'chars',
      questions: withAnswers.length,
      byBudget: Object.fromEntries(Object.entries(hits).map(([budget, count]) => [budget, count / withAnswers.length])),
    };
  }
  return report;
}

const percent = (value: number): string => `${(value * 100).toFixed(1)}%`;

/** The report as a table for the terminal. */
export function formatEvalReport(report: EvalReport): string {
  const rows: Array<[string, string]> = [
    ['dataset', `${report.dataset}${report.split ? ` (${report.split})` : ''}: ${report.documents} documents, ${report.queries} queries (${report.retrieval.queries} judged)`],
    ['nDCG@10', report.retrieval.ndcgAt10.toFixed(4)],
    ['Recall@10', report.retrieval.recallAt10.toFixed(4)],
    ['Recall@100', report.retrieval.recallAt100.toFixed(4)],
    ['MRR@10', report.retrieval.mrrAt10.toFixed(4)],
  ];
  if (report.answerInContext) {
    for (const [budget, share] of Object.entries(report.answerInContext.byBudget)) rows.push([`answer-in-context@${budget} ${report.answerInContext.unit}`, `${percent(share)} of ${report.answerInContext.questions}`]);
  }
  const width = Math.max(...rows.map(([name]) => name.length));
  return `${rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join('\n')}\n`;
}
