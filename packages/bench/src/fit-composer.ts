#!/usr/bin/env node
/**
 * `pnpm --filter @zerda/bench fit-composer [--write]`: fits the composer's sentence model on the
 * train splits of every dataset with answers (TyDi QA English `train`, ARCD SOQAL `train`), then
 * measures answer-in-context of ContextEngine.run() with the fitted model against naive packing of
 * the engine's own BM25 top 10, per split, with the ceiling at every budget and the token saving
 * (the smallest budget at which the engine reaches naive packing's rate at 2,000 and 4,000 tokens),
 * and with `--write` writes `packages/composer/src/sentence-model.ts`. The held-out splits are never
 * fitted on.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SmartContextComposer, SENTENCE_MODEL, type SentenceModel } from '@zerda/composer';
import type { ContextEngine as ContextEngineType } from '@zerda/context';
import { KeywordRetriever } from '@zerda/retriever';
import { charCounter } from '@zerda/text';
import type { LengthCounter } from '@zerda/types';
import { ANSWER_CHAR_BUDGETS, ANSWER_TOKEN_BUDGETS, ANSWER_WIDE_DEPTH, AnswerTally, answerDepth, answeredQueries, heldOutName, naiveAnswerRate, oracleRateAt, oracleRates, styleSlices, type SplitGroup } from './answer-context.js';
import { datasetsDirectory, isDatasetName, listDatasets, loadNamedDataset, partSlices, type BenchDataset } from './datasets.js';
import { benchEngine, captureCandidates, fitSentenceModel, type ComposerLike, type TrainingSet } from './composer-fitting.js';
import { repositoryRoot } from './paths.js';
import { documentsToChunks } from './systems/zerda-systems.js';

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

async function engineWith(composer: ComposerLike, counter?: LengthCounter): Promise<ContextEngineType> {
  return benchEngine(composer, extraConfig, counter);
}

const directory = datasetsDirectory();
if (!directory) throw new Error('no datasets folder: set ZERDA_DATASETS or place the datasets in ../shared/datasets');
const wanted = values.datasets?.split(',');
// `--datasets` may name a union of datasets (`arcd+tydiqa-goldp-en`: one mixed-language corpus).
const datasets = [...listDatasets(directory).filter((name) => !wanted || wanted.includes(name)), ...(wanted ?? []).filter((name) => name.includes('+') && isDatasetName(directory, name))]
  .map((name) => loadNamedDataset(directory, name))
  .filter((dataset) => dataset.answers && dataset.answers.size > 0);
if (datasets.length === 0) throw new Error('no dataset with answers.jsonl found');
const limit = values.queries === undefined ? Infinity : Number(values.queries);

// 1. Fit on train splits: every dataset weighs the same, every question within it the same.
let model: SentenceModel = SENTENCE_MODEL;
if (!values['current-model']) {
  const sets: TrainingSet[] = [];
  for (const dataset of datasets) {
    const train = answeredQueries(dataset).train.slice(0, limit);
    if (train.length === 0) continue;
    sets.push({ dataset, queries: train, captured: await captureCandidates(dataset, train, extraConfig) });
    console.error(`${dataset.name}: ${train.length} train questions captured`);
  }
  const fitted = fitSentenceModel(sets, Number(values.steps));
  model = fitted.model;
  console.error(`fitted ${Object.keys(model.weights).length} weights on ${fitted.rows} sentences (${fitted.positives} hold an answer)`);
}
if (values.write && !values['current-model']) {
  const path = join(repositoryRoot(), 'packages', 'composer', 'src', 'sentence-model.ts');
  const lines = Object.entries(model.weights).map(([name, weight]) => `    ${name}: ${weight},`);
  writeFileSync(
    path,
    `import type { SentenceModel } from './sentence-model-type.js';

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


// 2. answer-in-context per split: the engine with this model vs naive packing of its own BM25 top 10,
// and the ceiling at each budget; then the token saving (the smallest budget at which the engine
// reaches naive packing's answer-in-context at 2,000 and 4,000 tokens, found by bisection).
const percent = (value: number) => `${(100 * value).toFixed(1)}`;
for (const dataset of datasets) {
  const groups = answeredQueries(dataset);
  const keyword = new KeywordRetriever();
  await keyword.index(documentsToChunks(dataset.documents));
  const run: Record<string, string[]> = {};
  for (const query of [...groups.train, ...groups['held-out']]) run[query.id] = (await keyword.retrieve(query.text, { topK: ANSWER_WIDE_DEPTH })).map((hit) => hit.chunk.docId);
  const { tokenCounter } = await import('@zerda/context-core');
  const units: Array<{ unit: 'chars' | 'tokens'; label: string; budgets: readonly number[]; counter: LengthCounter }> = [{ unit: 'chars', label: 'chars', budgets: ANSWER_CHAR_BUDGETS, counter: charCounter }];
  if (!values['no-tokens']) units.push({ unit: 'tokens', label: 'cl100k', budgets: ANSWER_TOKEN_BUDGETS, counter: tokenCounter('cl100k_base') });
  const evaluated: SplitGroup[] = values.evaluate === 'held-out' ? ['held-out'] : values.evaluate === 'none' ? [] : ['train', 'held-out'];
  for (const group of evaluated) {
    const queries = groups[group].slice(0, limit);
    if (queries.length === 0) continue;
    const oracle = oracleRates(dataset, run, queries);
    // Style slices, and for a merged dataset each part's questions (Arabic and English questions over one mixed corpus).
    const slices = new Map<string, BenchDataset['queries']>([...styleSlices(dataset, queries), ...partSlices(dataset, queries)]);
    const label = group === 'train' ? 'train' : heldOutName(dataset);
    console.log(`\n${dataset.name} ${label} (${queries.length} questions): oracle top 10 ${percent(oracle.topDepth)}%, top 1 ${percent(oracle.top1)}%`);
    for (const { unit, label: unitLabel, budgets, counter } of units) {
      const engine = await engineWith(new SmartContextComposer(composerConfig, { sentenceModel: model }), counter);
      await engine.index(documentsToChunks(dataset.documents));
      // Each question's context at a budget, so that the whole split and each style slice are tallied from one run.
      const contextsAt = async (budget: number): Promise<Map<string, string>> => {
        const contexts = new Map<string, string>();
        for (const query of queries) {
          const result = await engine.run(query.text, { overrideBudget: budget, useHistory: false, recordTurn: false, maxChunks: answerDepth(unit, budget) });
          if (counter(result.context) > budget) throw new Error(`context over budget ${budget} for ${query.id}`);
          contexts.set(query.id, result.context);
        }
        return contexts;
      };
      const rateOf = (contexts: ReadonlyMap<string, string>, asked: BenchDataset['queries']): number => {
        const tally = new AnswerTally();
        for (const query of asked) tally.add(contexts.get(query.id)!, dataset.answers!.get(query.id)!);
        return tally.rate;
      };
      const engineRate = async (budget: number): Promise<number> => rateOf(await contextsAt(budget), queries);
      const signed = (delta: number) => `${delta >= 0 ? '+' : ''}${percent(delta)}`;
      const cells: string[] = [];
      const styleCells = new Map([...slices.keys()].map((style) => [style, [] as string[]]));
      const rates = new Map<number, number>();
      for (const budget of budgets) {
        const contexts = await contextsAt(budget);
        const rate = rateOf(contexts, queries);
        rates.set(budget, rate);
        const naive = naiveAnswerRate(dataset, run, queries, budget, counter);
        const ceiling = oracleRateAt(dataset, run, queries, budget, counter, answerDepth(unit, budget));
        cells.push(`@${budget} ${percent(rate)} vs ${percent(naive)} (${signed(rate - naive)}; oracle ${percent(ceiling)})`);
        for (const [style, sliced] of slices) {
          const styleRate = rateOf(contexts, sliced);
          const styleNaive = naiveAnswerRate(dataset, run, sliced, budget, counter);
          styleCells.get(style)!.push(`@${budget} ${percent(styleRate)} vs ${percent(styleNaive)} (${signed(styleRate - styleNaive)})`);
        }
      }
      console.log(`  ${unitLabel}: ${cells.join(' · ')}`);
      for (const [style, styleRow] of styleCells) console.log(`    ${style} (${slices.get(style)!.length}): ${styleRow.join(' · ')}`);
      if (unit !== 'tokens') continue;
      // The token saving: the smallest budget reaching naive packing's rate at 2,000 and 4,000 tokens.
      const savings: string[] = [];
      for (const target of [2000, 4000]) {
        const goal = naiveAnswerRate(dataset, run, queries, target, counter);
        const reached = budgets.filter((budget) => (rates.get(budget) ?? 0) >= goal);
        if (reached.length === 0) {
          savings.push(`naive @${target} ${percent(goal)}: not reached by ${budgets[budgets.length - 1]}`);
          continue;
        }
        let high = Math.min(...reached);
        let low = Math.max(0, ...budgets.filter((budget) => budget < high));
        while (high - low > Math.max(10, high * 0.05)) {
          const middle = Math.round((low + high) / 2);
          if ((await engineRate(middle)) >= goal) high = middle;
          else low = middle;
        }
        savings.push(`naive @${target} ${percent(goal)} reached at ${high} tokens (${(target / high).toFixed(1)}x fewer)`);
      }
      console.log(`  token saving: ${savings.join(' · ')}`);
    }
  }
}
