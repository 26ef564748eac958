#!/usr/bin/env node
/**
 * `node packages/bench/dist/tune-composer.js`: chooses the composer's lead policy (and, with
 * `--lodo`, the sentence model too) by leave-one-dataset-out over ARCD, TyDi QA English and BEIR
 * SciFact — for each dataset, the model is fitted and the policy chosen on the other two, and the
 * result is read on the held-out dataset only. Questions are captured once (what the engine hands
 * its composer) and composed directly at every budget, so a policy costs one composition per
 * question and budget; the final tables come from `fit-composer` / the benchmark, which run the
 * whole engine.
 *
 * Options: `--datasets a,b,c`, `--queries N` (first N questions a policy is scored on, per split; the
 * held-out questions of `--lodo` are always all of them), `--units
 * chars,cl100k`, `--policies '[{"share":0.5,…},…]'` (the candidates; default: a grid),
 * `--split held-out|train` (where policies are scored without `--lodo`), `--config '{…}'` (engine
 * configuration, e.g. ranking weights), `--lodo` (fit and choose per fold), `--depth N` (candidates
 * per question at the two largest budgets of each unit), `--compare '[{…}]'` (with `--lodo`: fixed
 * policies also read on each held-out dataset with the fold's model), `--choose` (one policy for the
 * defaults: chosen on the train splits of every dataset that has one, read on the held-out splits with
 * what its lead share guarantees; `--min-share s` admits only candidates whose lead share is at least s),
 * `--style non-factoid|long-answer` (only questions of that style, see `questionStyles`), `--choose-styles`
 * (with `--choose`: each style's train questions are scored as a set of their own besides the whole split).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { COMPOSITION_POLICY, SENTENCE_MODEL, SmartContextComposer, type CompositionPolicy, type SentenceModel } from '@zerda/composer';
import { KeywordRetriever } from '@zerda/retriever';
import { charCounter } from '@zerda/text';
import type { LengthCounter } from '@zerda/types';
import { answerInContext } from '@zerda/retriever';
import { ANSWER_CHAR_BUDGETS, ANSWER_TOKEN_BUDGETS, AnswerTally, answeredQueries, guaranteedLead, naiveAnswerRate, questionStyles, type QuestionStyle, type SplitGroup } from './answer-context.js';
import { captureCandidates, fitSentenceModel, relevantIds, type Captured, type TrainingSet } from './composer-fitting.js';
import { auditContext, packNaively } from './context-metrics.js';
import { datasetsDirectory, isDatasetName, loadNamedDataset, type BenchDataset } from './datasets.js';
import { documentContent } from './systems/search-system.js';
import { documentsToChunks } from './systems/zerda-systems.js';

/** One dataset's questions of one split group, captured, with its BM25 top 10 for the naive floor. */
interface Prepared {
  dataset: BenchDataset;
  /** The split group, with the question style when only one style's questions are held (`train non-factoid`). */
  split: string;
  queries: BenchDataset['queries'];
  captured: Map<string, Captured>;
  run: Record<string, string[]>;
  /** `answers`: answer-in-context; `gold`: gold-in-context (a relevant document's text, for claims). */
  measure: 'answers' | 'gold';
}

/** A budget with its unit and counter. */
interface Cell {
  unit: 'chars' | 'cl100k';
  budget: number;
  counter: LengthCounter;
}

/**
 * The cells a dataset is measured at: every cell for questions with answers; for claims
 * (gold-in-context, which needs 200 characters of a relevant abstract), the character budgets of
 * 1,000 and more, where the benchmark reports it.
 */
function cellsFor(prepared: Prepared, cells: readonly Cell[]): readonly Cell[] {
  return prepared.measure === 'answers' ? cells : cells.filter((cell) => cell.unit === 'chars' && cell.budget >= 1000);
}

/** Share of questions whose context holds the answer (or a gold passage), per cell, for one composer. */
export function composedRates(prepared: Prepared, composer: SmartContextComposer, cells: readonly Cell[]): number[] {
  cells = cellsFor(prepared, cells);
  const documents = new Map(prepared.dataset.documents.map((document) => [document.id, document.text]));
  return cells.map(({ budget, counter }) => {
    const tally = new AnswerTally();
    let gold = 0;
    for (const query of prepared.queries) {
      const found = prepared.captured.get(query.id);
      if (!found) continue;
      const { context } = composer.compose(found.ranked, { budget, counter, ...(found.analysis ? { analysis: found.analysis } : {}) });
      if (prepared.measure === 'answers') tally.add(context, prepared.dataset.answers!.get(query.id)!);
      else if (auditContext(context, [...relevantIds(prepared.dataset, query.id)].map((id) => documents.get(id) ?? '')).gold) gold += 1;
    }
    return prepared.measure === 'answers' ? tally.rate : gold / Math.max(1, prepared.queries.length);
  });
}

/** The naive floor per cell: the BM25 top 10 joined by blank lines and cut at the budget. */
export function naiveRates(prepared: Prepared, cells: readonly Cell[]): number[] {
  cells = cellsFor(prepared, cells);
  if (prepared.measure === 'answers') return cells.map(({ budget, counter }) => naiveAnswerRate(prepared.dataset, prepared.run, prepared.queries, budget, counter));
  const documents = new Map(prepared.dataset.documents.map((document) => [document.id, document]));
  return cells.map(({ budget, counter }) => {
    let gold = 0;
    for (const query of prepared.queries) {
      const contents = (prepared.run[query.id] ?? []).slice(0, 10).flatMap((id) => (documents.has(id) ? [documentContent(documents.get(id)!)] : []));
      const relevant = [...relevantIds(prepared.dataset, query.id)].map((id) => documents.get(id)?.text ?? '');
      if (auditContext(packNaively(contents, budget, counter), relevant).gold) gold += 1;
    }
    return gold / Math.max(1, prepared.queries.length);
  });
}

/**
 * How a policy is scored on datasets it may be chosen on: the mean gain over the floor across
 * budgets, minus three times the worst loss (a policy that falls below naive anywhere pays for it).
 * With `questions` (how many the rates were measured on), a loss of one question is noise and costs
 * nothing: on a slice of 35 questions one question moves a rate by 2.9 points, and paying three
 * times that for it would choose by chance.
 */
export function policyScore(deltas: readonly number[], questions = Infinity): number {
  if (deltas.length === 0) return 0;
  const mean = deltas.reduce((sum, delta) => sum + delta, 0) / deltas.length;
  const noise = Number.isFinite(questions) && questions > 0 ? 1 / questions + 1e-9 : 0;
  return mean + 3 * Math.min(0, Math.min(...deltas) + noise);
}

/**
 * What the lead share guarantees, per cell: the share of questions whose answer naive packing holds
 * at the budget but the lead a policy keeps verbatim (`share` × budget, the smaller of `share` and
 * `confidentShare`; {@link guaranteedLead}) does not — the most a policy with that share can lose to
 * naive packing there, whatever its sentence model says. `frame` is the default separator, measured.
 */
export function leadLossBound(prepared: Prepared, cells: readonly Cell[], share: number): number[] {
  const documents = new Map(prepared.dataset.documents.map((document) => [document.id, document]));
  return cellsFor(prepared, cells).map(({ budget, counter }) => {
    let exposed = 0;
    const frame = counter('\n\n---\n\n');
    for (const query of prepared.queries) {
      const answers = prepared.dataset.answers?.get(query.id) ?? [];
      const found = prepared.captured.get(query.id);
      if (!found || answers.length === 0) continue;
      const contents = (prepared.run[query.id] ?? []).slice(0, 10).flatMap((id) => (documents.has(id) ? [documentContent(documents.get(id)!)] : []));
      if (!answerInContext(packNaively(contents, budget, counter), answers)) continue;
      const lead = guaranteedLead(found.ranked.map((scored) => scored.chunk.text), share * budget, counter, frame);
      if (!answerInContext(lead, answers)) exposed += 1;
    }
    return exposed / Math.max(1, prepared.queries.length);
  });
}

/** Scores closer than this are a tie (a policy score moves by 1/3,000 per question of a 300-question split). */
const SCORE_TIE = 1e-6;

interface ChooseTools {
  prepare: (dataset: BenchDataset, split: SplitGroup | 'all', queryLimit?: number, only?: QuestionStyle) => Promise<Prepared>;
  deltasOf: (prepared: Prepared, model: SentenceModel, policy: CompositionPolicy, naive: number[]) => number[];
  table: (label: string, prepared: Prepared, rates: number[], naive: number[]) => void;
  cells: readonly Cell[];
}

/**
 * `--choose`: one policy for the defaults, chosen on the train splits of every dataset that has one
 * (the sum of {@link policyScore} over them, the shipped sentence model), then read on every
 * dataset's held-out questions (claims, which have no train split, are read, never chosen on) with
 * what its lead share guarantees ({@link leadLossBound}). At an equal score the larger guaranteed lead
 * share wins (the stronger floor for the same measured gain).
 */
async function choose(datasets: readonly BenchDataset[], policies: readonly CompositionPolicy[], tools: ChooseTools, styles: readonly QuestionStyle[] = []): Promise<void> {
  const { prepare, deltasOf, table, cells } = tools;
  const train: Array<{ prepared: Prepared; naive: number[] }> = [];
  for (const dataset of datasets) {
    if (!dataset.answers || dataset.answers.size === 0) continue;
    // The train split, then (`--choose-styles`) each style's questions of it scored on their own, so
    // that a policy losing to naive packing on one kind of question pays for it.
    for (const only of [undefined, ...styles]) {
      const prepared = await prepare(dataset, 'train', undefined, only);
      if (prepared.queries.length > 0) train.push({ prepared, naive: naiveRates(prepared, cells) });
    }
  }
  let best: { policy: CompositionPolicy; score: number } | undefined;
  for (const policy of policies) {
    let score = 0;
    for (const { prepared, naive } of train) {
      const deltas = deltasOf(prepared, SENTENCE_MODEL, policy, naive);
      score += policyScore(deltas, prepared.queries.length);
      table(`${JSON.stringify(policy)} score ${policyScore(deltas, prepared.queries.length).toFixed(4)}`, prepared, deltas.map((delta, index) => delta + naive[index]!), naive);
    }
    console.log(`${JSON.stringify(policy)} total score ${score.toFixed(4)}`);
    // At an equal score the stronger guarantee wins: the larger lead share kept verbatim.
    const guaranteed = (candidate: CompositionPolicy) => Math.min(candidate.share, candidate.confidentShare);
    if (!best || score > best.score + SCORE_TIE || (score >= best.score - SCORE_TIE && guaranteed(policy) > guaranteed(best.policy))) best = { policy, score };
  }
  if (!best) throw new Error('no candidate policy (see --policies and --min-share)');
  console.log(`chosen on ${train.map(({ prepared }) => `${prepared.dataset.name} ${prepared.split} (${prepared.queries.length})`).join(' + ')}: ${JSON.stringify(best.policy)}`);
  const percent = (value: number) => (100 * value).toFixed(1);
  for (const dataset of datasets) {
    const prepared = await prepare(dataset, 'held-out', Infinity);
    const naive = naiveRates(prepared, cells);
    const shipped = JSON.stringify(best.policy) === JSON.stringify(COMPOSITION_POLICY) ? [] : [['shipped (COMPOSITION_POLICY)', COMPOSITION_POLICY] as const];
    const rows = [['chosen', best.policy], ...shipped, ['no lead share, no margin', { ...COMPOSITION_POLICY, share: 0, confidentShare: 0, margin: 0 }]] as const;
    for (const [label, policy] of rows) {
      const deltas = deltasOf(prepared, SENTENCE_MODEL, policy, naive);
      table(label, prepared, deltas.map((delta, index) => delta + naive[index]!), naive);
    }
    if (prepared.measure === 'answers') {
      const bound = leadLossBound(prepared, cells, Math.min(best.policy.share, best.policy.confidentShare));
      console.log(`lead bound ${dataset.name}: ${cellsFor(prepared, cells).map((cell, index) => `${cell.budget}${cell.unit === 'cl100k' ? 't' : ''} ${percent(bound[index]!)}`).join(' · ')}`);
    }
  }
}

const isMain = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split('/').pop()!);
if (isMain) await main();

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      datasets: { type: 'string', default: 'arcd,tydiqa-goldp-en,beir-scifact' },
      queries: { type: 'string' },
      units: { type: 'string', default: 'chars,cl100k' },
      policies: { type: 'string' },
      split: { type: 'string', default: 'held-out' },
      config: { type: 'string' },
      lodo: { type: 'boolean', default: false },
      depth: { type: 'string', default: '10' },
      steps: { type: 'string', default: '400' },
      choose: { type: 'boolean', default: false },
      'min-share': { type: 'string', default: '0' },
      compare: { type: 'string' },
      style: { type: 'string' },
      'choose-styles': { type: 'boolean', default: false },
    },
  });
  const style = values.style as QuestionStyle | undefined;
  if (style !== undefined && style !== 'non-factoid' && style !== 'long-answer') throw new Error(`--style: non-factoid or long-answer, not ${style}`);
  const compared = values.compare ? (JSON.parse(values.compare) as Array<Partial<CompositionPolicy>>).map((policy) => ({ ...COMPOSITION_POLICY, ...policy })) : [];
  const extraConfig = values.config ? (JSON.parse(values.config) as Record<string, unknown>) : {};
  const limit = values.queries === undefined ? Infinity : Number(values.queries);
  const depth = Number(values.depth);
  const directory = datasetsDirectory();
  if (!directory) throw new Error('no datasets folder: set ZERDA_DATASETS or place the datasets in ../shared/datasets');
  const names = values.datasets.split(',').filter((name) => isDatasetName(directory, name));
  const { tokenCounter } = await import('@zerda/context-core');
  const units = values.units.split(',');
  const cells: Cell[] = [
    ...(units.includes('chars') ? ANSWER_CHAR_BUDGETS.map((budget) => ({ unit: 'chars' as const, budget, counter: charCounter })) : []),
    ...(units.includes('cl100k') ? ANSWER_TOKEN_BUDGETS.map((budget) => ({ unit: 'cl100k' as const, budget, counter: tokenCounter('cl100k_base') })) : []),
  ];
  const policies: CompositionPolicy[] = values.policies
    ? (JSON.parse(values.policies) as Array<Partial<CompositionPolicy>>).map((policy) => ({ ...COMPOSITION_POLICY, ...policy }))
    : [0, 0.25].flatMap((share) =>
        [0, 0.03].flatMap((margin) =>
          [{}, { bridge: 0.6 }].map((runs) => ({ ...COMPOSITION_POLICY, share, confidentShare: share, margin, ...runs })),
        ),
      );

  const keywords = new Map<string, KeywordRetriever>();
  const capturedByDataset = new Map<string, Map<string, Captured>>();
  const prepare = async (dataset: BenchDataset, split: SplitGroup | 'all', queryLimit = limit, only = style): Promise<Prepared> => {
    const groups = answeredQueries(dataset);
    const measure = dataset.answers && dataset.answers.size > 0 ? 'answers' : 'gold';
    const all = measure === 'gold' ? dataset.queries : split === 'all' ? [...groups.train, ...groups['held-out']] : groups[split];
    // `--style`: only the questions of that style (see questionStyles), for reading a policy on them.
    const queries = (only === undefined || measure === 'gold' ? all : all.filter((query) => questionStyles(query.text, dataset.answers!.get(query.id)!).includes(only))).slice(0, queryLimit);
    // One keyword index and one capture per question for the whole run: the sets `--choose-styles`
    // and `--lodo` prepare overlap (a style's questions are also the split's).
    let keyword = keywords.get(dataset.name);
    if (!keyword) {
      keyword = new KeywordRetriever();
      await keyword.index(documentsToChunks(dataset.documents));
      keywords.set(dataset.name, keyword);
    }
    const run: Record<string, string[]> = {};
    for (const query of queries) run[query.id] = (await keyword.retrieve(query.text, { topK: 10 })).map((hit) => hit.chunk.docId);
    const known = capturedByDataset.get(dataset.name) ?? new Map<string, Captured>();
    capturedByDataset.set(dataset.name, known);
    const missing = queries.filter((query) => !known.has(query.id));
    if (missing.length > 0) for (const [id, found] of await captureCandidates(dataset, missing, extraConfig, depth > 10 ? depth : undefined)) known.set(id, found);
    const captured = new Map(queries.flatMap((query) => (known.has(query.id) ? [[query.id, known.get(query.id)!] as const] : [])));
    return { dataset, split: measure === 'gold' ? 'all' : only === undefined ? split : `${split} ${only}`, queries, captured, run, measure };
  };
  const percent = (value: number) => (100 * value).toFixed(1);
  const table = (label: string, prepared: Prepared, rates: number[], naive: number[]) => {
    const row = cellsFor(prepared, cells).map((cell, index) => `${cell.budget}${cell.unit === 'cl100k' ? 't' : ''} ${percent(rates[index]!)}/${percent(naive[index]!)} (${rates[index]! >= naive[index]! ? '+' : ''}${percent(rates[index]! - naive[index]!)})`);
    console.log(`${label} ${prepared.dataset.name} ${prepared.split} (${prepared.queries.length}): ${row.join(' · ')}`);
  };
  const deltasOf = (prepared: Prepared, model: SentenceModel, policy: CompositionPolicy, naive: number[]) =>
    composedRates(prepared, new SmartContextComposer((extraConfig.composer ?? {}) as ConstructorParameters<typeof SmartContextComposer>[0], { sentenceModel: model, policy }), cells).map((rate, index) => rate - naive[index]!);

  const datasets = names.map((name) => loadNamedDataset(directory, name));
  if (values.choose) {
    await choose(datasets, policies.filter((policy) => Math.min(policy.share, policy.confidentShare) >= Number(values['min-share'])), { prepare, deltasOf, table, cells }, values['choose-styles'] ? ['non-factoid', 'long-answer'] : []);
    return;
  }
  if (!values.lodo) {
    for (const dataset of datasets) {
      const prepared = await prepare(dataset, values.split as SplitGroup);
      const naive = naiveRates(prepared, cells);
      for (const policy of policies) {
        const deltas = deltasOf(prepared, SENTENCE_MODEL, policy, naive);
        table(`${JSON.stringify(policy)} score ${policyScore(deltas, prepared.queries.length).toFixed(4)}`, prepared, deltas.map((delta, index) => delta + naive[index]!), naive);
      }
    }
    return;
  }
  // Leave one dataset out: fit the model on the others' training questions, choose the policy on
  // them, read the result on the held-out dataset's held-out questions.
  const training = new Map<string, Prepared>();
  const fitting = new Map<string, Prepared>();
  const heldOut = new Map<string, Prepared>();
  for (const dataset of datasets) {
    // The model is fitted on every training question; policies are scored on the first `--queries`.
    const all = await prepare(dataset, dataset.answers && dataset.answers.size > 0 ? 'train' : 'all', Infinity);
    fitting.set(dataset.name, all);
    training.set(dataset.name, { ...all, queries: all.queries.slice(0, limit) });
    heldOut.set(dataset.name, await prepare(dataset, 'held-out', Infinity));
    console.error(`${dataset.name}: captured`);
  }
  for (const left of datasets) {
    const others = datasets.filter((dataset) => dataset !== left);
    const sets: TrainingSet[] = others.map((dataset) => {
      const prepared = fitting.get(dataset.name)!;
      return { dataset, queries: prepared.queries, captured: prepared.captured };
    });
    const { model } = fitSentenceModel(sets, Number(values.steps));
    let best: { policy: CompositionPolicy; score: number } | undefined;
    for (const policy of policies) {
      let score = 0;
      for (const dataset of others) {
        const prepared = training.get(dataset.name)!;
        score += policyScore(deltasOf(prepared, model, policy, naiveRates(prepared, cells)), prepared.queries.length);
      }
      if (!best || score > best.score) best = { policy, score };
    }
    const prepared = heldOut.get(left.name)!;
    const naive = naiveRates(prepared, cells);
    const deltas = deltasOf(prepared, model, best!.policy, naive);
    table(`LODO (model and policy ${JSON.stringify(best!.policy)} chosen on ${others.map((dataset) => dataset.name).join(' + ')})`, prepared, deltas.map((delta, index) => delta + naive[index]!), naive);
    const defaults = deltasOf(prepared, SENTENCE_MODEL, COMPOSITION_POLICY, naive);
    table('shipped defaults', prepared, defaults.map((delta, index) => delta + naive[index]!), naive);
    // Fixed policies (`--compare`) with the fold's model: what a policy chosen elsewhere gives where the model never looked.
    for (const policy of compared) {
      const deltas = deltasOf(prepared, model, policy, naive);
      table(`LODO model, policy ${JSON.stringify(policy)}`, prepared, deltas.map((delta, index) => delta + naive[index]!), naive);
    }
  }
}
