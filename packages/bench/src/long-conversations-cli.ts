#!/usr/bin/env node
/**
 * `pnpm --filter @zerda/bench long-conversations [--questions N] [--split held-out|train] [--write]`:
 * the "Long conversations and agents" benchmark (see long-conversations.ts). With `--write`, saves
 * `bench-results/long-conversations.{json,md}` and puts the section into BENCHMARKS.md (a full
 * `pnpm bench` run keeps it: output.ts inserts the saved section).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { tokenCounter, type LengthCounter } from '@zerda/context';
import { datasetsDirectory, loadDataset } from './datasets.js';
import { LAST_MESSAGES, STRATEGIES, buildConversation, messageLengths, runStrategy, type Outcome, type Strategy } from './long-conversations.js';
import { insertLongConversationsSection, renderLongConversations, type EstimatorAgreement, type LongConversationsReport, type LongConversationsRow } from './long-conversations-report.js';
import { repositoryRoot } from './paths.js';
import { SeededRandom } from './random.js';
import { percentile } from './statistics.js';

const { values } = parseArgs({
  options: {
    questions: { type: 'string', default: '100' },
    windows: { type: 'string', default: '4096,8192,16384,32768' },
    split: { type: 'string', default: 'held-out' },
    seed: { type: 'string', default: '30' },
    write: { type: 'boolean', default: false },
    /** Re-render a saved run (bench-results/long-conversations.json), measuring the estimator's agreement again. */
    render: { type: 'string' },
  },
});
const questions = Number(values.questions);
const windows = values.windows!.split(',').map(Number);
const heldOut = values.split !== 'train';
const directory = datasetsDirectory();
if (!directory) {
  console.error('No datasets folder: set ZERDA_DATASETS or place shared/datasets beside the repository.');
  process.exit(2);
}
const counter = tokenCounter('o200k_base');
await counter.load?.();

/** cl100k_base against o200k_base on the first `limit` passages of each corpus (the margin of `estimatedTokenCounter`). */
function estimatorAgreement(datasetsPath: string, limit = 3000, margin = 0.15): EstimatorAgreement[] {
  const cl100k: LengthCounter = tokenCounter('cl100k_base', { cacheSize: 0 });
  const o200k: LengthCounter = tokenCounter('o200k_base', { cacheSize: 0 });
  const agreement: EstimatorAgreement[] = [];
  for (const name of ['tydiqa-goldp-en', 'arcd']) {
    if (!existsSync(join(datasetsPath, name))) continue;
    const passages = loadDataset(join(datasetsPath, name)).documents.slice(0, limit).map((document) => document.text);
    let totalCl = 0;
    let totalO = 0;
    let covered = 0;
    const ratios: number[] = [];
    for (const text of passages) {
      const a = cl100k(text);
      const b = o200k(text);
      totalCl += a;
      totalO += b;
      ratios.push(Math.max(a, b) / Math.max(1, Math.min(a, b)));
      if (a * (1 + margin) >= b && b * (1 + margin) >= a) covered++;
    }
    agreement.push({ dataset: name, passages: passages.length, ratio: totalCl / totalO, disagreement: { p50: percentile(ratios, 50), p90: percentile(ratios, 90), p99: percentile(ratios, 99), max: Math.max(...ratios) }, coveredByMargin: covered / passages.length, margin });
  }
  return agreement;
}

function save(report: LongConversationsReport): void {
  const markdown = renderLongConversations(report);
  console.log(markdown);
  if (!values.write) return;
  const root = repositoryRoot();
  writeFileSync(join(root, 'bench-results', 'long-conversations.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(root, 'bench-results', 'long-conversations.md'), markdown);
  const benchmarks = join(root, 'BENCHMARKS.md');
  writeFileSync(benchmarks, insertLongConversationsSection(readFileSync(benchmarks, 'utf8'), markdown));
  console.error('wrote bench-results/long-conversations.{json,md} and the section of BENCHMARKS.md');
}

if (values.render) {
  const saved = JSON.parse(readFileSync(values.render, 'utf8')) as LongConversationsReport;
  save({ ...saved, estimator: estimatorAgreement(directory) });
  process.exit(0);
}
const started = performance.now();
const loadAverageAtStart = loadavg()[0]!;
const rows: LongConversationsRow[] = [];
const datasets: LongConversationsReport['datasets'] = [];
for (const name of ['tydiqa-goldp-en', 'arcd']) {
  const path = join(directory, name);
  if (!existsSync(path)) {
    console.error(`skipping ${name}: ${path} is missing`);
    continue;
  }
  const dataset = loadDataset(path);
  const wanted = (id: string) => (heldOut ? dataset.splits?.get(id) !== 'train' : dataset.splits?.get(id) === 'train');
  const candidates = new SeededRandom(Number(values.seed)).shuffle(dataset.queries.filter((query) => wanted(query.id) && (dataset.answers?.get(query.id)?.length ?? 0) > 0).map((query) => query.id));
  const splitName = heldOut ? [...new Set([...(dataset.splits?.values() ?? [])])].find((split) => split !== 'train') ?? 'all' : 'train';
  const outcomes = new Map<string, Outcome[]>();
  const cold: number[] = [];
  let turns = 0;
  let toolCharacters = 0;
  let used = 0;
  for (const queryId of candidates) {
    if (used >= questions) break;
    const conversation = buildConversation(dataset, queryId, Number(values.seed) * 7919 + used);
    if (!conversation) continue;
    used++;
    turns += conversation.turns;
    toolCharacters += conversation.toolCharacters;
    const lengths = messageLengths(conversation.messages, counter);
    // The planner's first call on a conversation ranks every tool output (cold); the timed calls
    // below reuse the rankings, as the later steps of a tool loop do.
    cold.push((await runStrategy('planner', conversation, lengths, windows[0]!, counter)).milliseconds);
    for (const window of windows) {
      for (const strategy of STRATEGIES) {
        const outcome = await runStrategy(strategy, conversation, lengths, window, counter);
        const key = `${window}:${strategy}`;
        outcomes.set(key, [...(outcomes.get(key) ?? []), outcome]);
      }
    }
    if (used % 10 === 0) console.error(`${name}: ${used}/${questions}`);
  }
  datasets.push({ name, split: splitName, questions: used, meanTurns: turns / Math.max(1, used), meanToolKilobytes: toolCharacters / Math.max(1, used) / 1000, coldMilliseconds: { p50: percentile(cold, 50), p95: percentile(cold, 95) } });
  for (const window of windows) {
    for (const strategy of STRATEGIES as Strategy[]) {
      const list = outcomes.get(`${window}:${strategy}`) ?? [];
      const share = (test: (outcome: Outcome) => boolean) => list.filter(test).length / Math.max(1, list.length);
      const times = list.map((outcome) => outcome.milliseconds);
      rows.push({
        dataset: name,
        window,
        strategy,
        answer: share((outcome) => outcome.answer),
        referredTurn: share((outcome) => outcome.referredTurn),
        both: share((outcome) => outcome.answer && outcome.referredTurn),
        overflow: share((outcome) => !outcome.fits),
        milliseconds: { p50: percentile(times, 50), p95: percentile(times, 95) },
      });
    }
  }
}
const report: LongConversationsReport = {
  command: `pnpm --filter @zerda/bench long-conversations --questions ${questions}${heldOut ? '' : ' --split train'}`,
  date: new Date().toISOString(),
  durationSeconds: (performance.now() - started) / 1000,
  loadAverageAtStart,
  cores: cpus().length,
  counter: 'o200k_base',
  lastMessages: LAST_MESSAGES,
  windows,
  datasets,
  rows,
  estimator: estimatorAgreement(directory),
};
save(report);
