#!/usr/bin/env node
/**
 * `pnpm --filter @zerda/bench fit-composer [--write]`: fits the composer's sentence model on the
 * train splits of every dataset with answers (TyDi QA English `train`, ARCD SOQAL `train`), then
 * measures answer-in-context of ContextEngine.run() with the fitted model against naive packing of
 * the engine's own BM25 top 10, per split, and with `--write` writes
 * `packages/composer/src/sentence-model.ts`. The held-out splits are never fitted on.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SmartContextComposer, analyzeChunk, featureRecord, sentenceFeatures, SENTENCE_MODEL, retrievalStrength, type SentenceModel } from '@zerda/composer';
import type { ContextEngine as ContextEngineType } from '@zerda/context';
import { KeywordRetriever } from '@zerda/retriever';
import { defaultAnalyzer, charCounter } from '@zerda/text';
import type { ComposeOptions, LengthCounter, QueryAnalysis, ScoredChunk } from '@zerda/types';
import { ANSWER_CHAR_BUDGETS, ANSWER_TOKEN_BUDGETS, AnswerTally, answeredQueries, heldOutName, naiveAnswerRate, oracleRates, type SplitGroup } from './answer-context.js';
import { datasetsDirectory, listDatasets, loadDataset, type BenchDataset } from './datasets.js';
import { ENGINE_BENCH_CONFIG } from './jobs.js';
import { fitLogistic } from './logistic.js';
import { repositoryRoot } from './paths.js';
import { documentsToChunks } from './systems/zerda-systems.js';
import { answerInContext } from '@zerda/retriever';

const { values } = parseArgs({
  options: {
    write: { type: 'boolean', default: false },
    datasets: { type: 'string' },
    steps: { type: 'string', default: '400' },
    queries: { type: 'string' },
    tokens: { type: 'boolean', default: true },
    'no-tokens': { type: 'boolean', default: false },
    'current-model': { type: 'boolean', default: false },
    config: { type: 'string' },
    evaluate: { type: 'string', default: 'all' },
  },
});

/** Engine configuration on top of the bench's (`--config '{"analyzer": …}'`), for trying settings. */
const extraConfig = values.config ? (JSON.parse(values.config) as Record<string, unknown>) : {};
/** The composer settings of `--config` (the script builds its own composers, which must see them too). */
const composerConfig = (extraConfig.composer ?? {}) as ConstructorParameters<typeof SmartContextComposer>[0];

/** What the engine handed its composer for one question. */
interface Captured {
  ranked: ScoredChunk[];
  analysis: QueryAnalysis | undefined;
}

async function engineWith(composer: SmartContextComposer | { compose: SmartContextComposer['compose']; truncate: SmartContextComposer['truncate']; getStats: SmartContextComposer['getStats'] }, counter?: LengthCounter): Promise<ContextEngineType> {
  const { ContextEngine } = await import('@zerda/context');
  return new ContextEngine({ config: { ...ENGINE_BENCH_CONFIG, ...extraConfig }, composer, ...(counter ? { lengthCounter: counter } : {}) });
}

/** Runs every query through the engine up to composition and keeps what the composer received. */
async function capture(dataset: BenchDataset, queries: BenchDataset['queries']): Promise<Map<string, Captured>> {
  const inner = new SmartContextComposer(composerConfig);
  const captured = new Map<string, Captured>();
  let current = '';
  const engine = await engineWith({
    compose: (chunks: ScoredChunk[], options: ComposeOptions) => {
      captured.set(current, { ranked: chunks, analysis: options.analysis });
      return inner.compose(chunks, { ...options, budget: 0 });
    },
    truncate: inner.truncate.bind(inner),
    getStats: inner.getStats.bind(inner),
  });
  await engine.index(documentsToChunks(dataset.documents));
  for (const query of queries) {
    current = query.id;
    await engine.run(query.text, { useHistory: false, recordTurn: false });
  }
  return captured;
}

/** One row per sentence of every candidate: the composer's own features, and whether it holds the answer. */
function sentenceRows(captured: Captured, answers: readonly string[]): Array<{ features: Record<string, number>; label: number }> {
  const signals = captured.ranked.map((scored, index) => ({
    analysis: analyzeChunk(scored.chunk.text, defaultAnalyzer),
    rank: index + 1,
    strength: retrievalStrength(scored),
    ...(scored.chunk.title ? { title: scored.chunk.title } : {}),
  }));
  const terms = [...new Set(captured.analysis?.keywords ?? [])];
  const features = sentenceFeatures(signals, captured.analysis, terms, defaultAnalyzer);
  return features.flatMap((sentences, candidate) =>
    sentences.map((sentence, index) => ({ features: featureRecord(sentence.vector), label: answerInContext(signals[candidate]!.analysis.sentences[index]!.text, answers) ? 1 : 0 })),
  );
}

const directory = datasetsDirectory();
if (!directory) throw new Error('no datasets folder: set ZERDA_DATASETS or place the datasets in ../shared/datasets');
const wanted = values.datasets?.split(',');
const datasets = listDatasets(directory)
  .filter((name) => !wanted || wanted.includes(name))
  .map((name) => loadDataset(join(directory, name)))
  .filter((dataset) => dataset.answers && dataset.answers.size > 0);
if (datasets.length === 0) throw new Error('no dataset with answers.jsonl found');
const limit = values.queries === undefined ? Infinity : Number(values.queries);

// 1. Fit on train splits: every dataset weighs the same, every question within it the same.
let model: SentenceModel = SENTENCE_MODEL;
if (!values['current-model']) {
  const rows: Array<Record<string, number>> = [];
  const labels: number[] = [];
  const weights: number[] = [];
  for (const dataset of datasets) {
    const train = answeredQueries(dataset).train.slice(0, limit);
    if (train.length === 0) continue;
    const captured = await capture(dataset, train);
    for (const query of train) {
      const sentences = sentenceRows(captured.get(query.id)!, dataset.answers!.get(query.id)!);
      for (const row of sentences) {
        rows.push(row.features);
        labels.push(row.label);
        weights.push(1 / (train.length * Math.max(1, sentences.length)));
      }
    }
    console.error(`${dataset.name}: ${train.length} train questions captured`);
  }
  const fitted = fitLogistic(rows, labels, weights, { steps: Number(values.steps) });
  model = { weights: Object.fromEntries(Object.entries(fitted).map(([name, weight]) => [name, Math.round(weight * 1000) / 1000])) };
  console.error(`fitted ${Object.keys(model.weights).length} weights on ${rows.length} sentences (${labels.filter(Boolean).length} hold an answer)`);
}
if (values.write && !values['current-model']) {
  const path = join(repositoryRoot(), 'packages', 'composer', 'src', 'sentence-model.ts');
  const lines = Object.entries(model.weights).map(([name, weight]) => `    ${name}: ${weight},`);
  writeFileSync(
    path,
    `import type { SentenceModel } from './sentence-value.js';

/**
 * The sentence model of the value-based fit: logistic-regression weights over the features of
 * \`sentenceFeatures\`, fitted to predict whether a sentence holds the gold answer, on the train
 * splits of ${datasets.map((dataset) => dataset.name).join(' and ')} (each dataset weighing the same).
 * Written by \`pnpm --filter @zerda/bench fit-composer --write\` (see the bench README); the
 * held-out splits were not fitted on.
 */
export const SENTENCE_MODEL: SentenceModel = {
  weights: {
${lines.join('\n')}
  },
};
`,
  );
  console.error(`wrote ${path}`);
}


// 2. answer-in-context per split: the engine with this model vs naive packing of its own BM25 top 10.
const percent = (value: number) => `${(100 * value).toFixed(1)}`;
for (const dataset of datasets) {
  const groups = answeredQueries(dataset);
  const keyword = new KeywordRetriever();
  await keyword.index(documentsToChunks(dataset.documents));
  const run: Record<string, string[]> = {};
  for (const query of [...groups.train, ...groups['held-out']]) run[query.id] = (await keyword.retrieve(query.text, { topK: 10 })).map((hit) => hit.chunk.docId);
  const { tokenCounter } = await import('@zerda/context-core');
  const units: Array<{ unit: string; budgets: readonly number[]; counter: LengthCounter }> = [{ unit: 'chars', budgets: ANSWER_CHAR_BUDGETS, counter: charCounter }];
  if (!values['no-tokens']) units.push({ unit: 'cl100k', budgets: ANSWER_TOKEN_BUDGETS, counter: tokenCounter('cl100k_base') });
  const evaluated: SplitGroup[] = values.evaluate === 'held-out' ? ['held-out'] : values.evaluate === 'none' ? [] : ['train', 'held-out'];
  for (const group of evaluated) {
    const queries = groups[group].slice(0, limit);
    if (queries.length === 0) continue;
    const oracle = oracleRates(dataset, run, queries);
    const label = group === 'train' ? 'train' : heldOutName(dataset);
    console.log(`\n${dataset.name} ${label} (${queries.length} questions): oracle top 10 ${percent(oracle.topDepth)}%, top 1 ${percent(oracle.top1)}%`);
    for (const { unit, budgets, counter } of units) {
      const engine = await engineWith(new SmartContextComposer(composerConfig, { sentenceModel: model }), counter);
      await engine.index(documentsToChunks(dataset.documents));
      const cells: string[] = [];
      for (const budget of budgets) {
        const tally = new AnswerTally();
        for (const query of queries) {
          const result = await engine.run(query.text, { overrideBudget: budget, useHistory: false, recordTurn: false });
          if (counter(result.context) > budget) throw new Error(`context over budget ${budget} for ${query.id}`);
          tally.add(result.context, dataset.answers!.get(query.id)!);
        }
        const naive = naiveAnswerRate(dataset, run, queries, budget, counter);
        cells.push(`@${budget} ${percent(tally.rate)} vs ${percent(naive)} (${tally.rate >= naive ? '+' : ''}${percent(tally.rate - naive)})`);
      }
      console.log(`  ${unit}: ${cells.join(' · ')}`);
    }
  }
}

