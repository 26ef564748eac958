// Keyword retrieval on the bench's synthetic scale corpus, in one process (a report, not a test).
//   node --expose-gc --max-old-space-size=16000 scripts/measure-keyword-scale.mjs 100000 [1000000 ...] [--queries N] [--rounds N]
// Prints per size: build time, postings, retained bytes per chunk, KeywordRetriever.retrieve p50 (topK 30,
// the engine's depth) and mean, and run() p50 with its stage means. Run `pnpm --filter @zerda/bench... build` first.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ContextEngine } from '@zerda/context';
import { KeywordRetriever } from '@zerda/retriever';
import { percentile } from '@zerda/types';
import { datasetsDirectory, loadDataset, sentencePool, syntheticCorpus, SeededRandom } from '../dist/index.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { queries: { type: 'string', default: '200' }, rounds: { type: 'string', default: '2' }, 'no-run': { type: 'boolean', default: false } } });
const directory = datasetsDirectory();
const source = loadDataset(join(directory, 'beir-scifact'));
const pool = sentencePool(source.documents);
const queries = new SeededRandom(20250101).shuffle(source.queries.map((query) => query.text)).slice(0, Number(values.queries));
const rounds = Number(values.rounds);
const memory = () => {
  globalThis.gc?.();
  globalThis.gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
};
async function timed(operation) {
  for (const query of queries.slice(0, 20)) await operation(query);
  const times = [];
  const cpu = process.cpuUsage();
  for (let round = 0; round < rounds; round++) {
    for (const query of queries) {
      const start = performance.now();
      await operation(query);
      times.push(performance.now() - start);
    }
  }
  const used = process.cpuUsage(cpu);
  return { p50: percentile(times, 50), mean: times.reduce((a, b) => a + b, 0) / times.length, cpu: (used.user + used.system) / 1000 / times.length };
}
for (const size of positionals.map(Number)) {
  const chunks = syntheticCorpus(pool, 20250101, size);
  const before = memory();
  const started = performance.now();
  const engine = await new ContextEngine({ config: { cache: { enabled: false }, multiTurn: { enabled: false }, adaptive: { enabled: false } } }).index(chunks);
  const buildSeconds = (performance.now() - started) / 1000;
  const bytes = (memory() - before) / size;
  const retriever = engine['retriever'];
  if (!(retriever instanceof KeywordRetriever)) throw new Error('expected the engine to hold a KeywordRetriever');
  const stats = retriever.stats();
  const retrieve = await timed((query) => retriever.retrieve(query, { topK: 30 }));
  let line = `${size} chunks: build ${buildSeconds.toFixed(1)} s, ${stats.postings} postings (${(stats.postings / size).toFixed(1)}/chunk), ${stats.terms} terms, typed arrays ${(stats.typedArrayBytes / size).toFixed(0)} B/chunk, retained ${bytes.toFixed(0)} B/chunk; retrieve top-30 p50 ${retrieve.p50.toFixed(3)} ms, mean ${retrieve.mean.toFixed(3)} ms, CPU ${retrieve.cpu.toFixed(3)} ms`;
  if (!values['no-run']) {
    const totals = {};
    const run = await timed(async (query) => {
      const result = await engine.run(query, { overrideBudget: 2000, useHistory: false, recordTurn: false });
      for (const [stage, ms] of Object.entries(result.timings)) totals[stage] = (totals[stage] ?? 0) + ms;
    });
    const runs = queries.length * rounds + 20;
    line += `; run() p50 ${run.p50.toFixed(3)} ms (${Object.entries(totals).filter(([stage]) => !['cache', 'total'].includes(stage)).map(([stage, total]) => `${stage} ${(total / runs).toFixed(3)}`).join(', ')})`;
  }
  console.log(line, `; RSS ${(process.memoryUsage().rss / 2 ** 30).toFixed(2)} GiB`);
}
