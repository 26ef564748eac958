// Measures ContextEngine.run() per stage, keyword-only, on the BEIR-layout datasets (a report, not a test).
//   node scripts/measure-stages.mjs [dataset ...] [--rounds N] [--budget N|default]
// (--budget default: the budget the query analysis chooses, as run() does without overrideBudget)
// Every judged query, `rounds` passes after one warm-up pass; prints mean ms per stage (run()'s own
// timings) and the process CPU time per run(). Run `pnpm --filter @zerda/context... build` first.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ContextEngine } from '@zerda/context';
import { loadBeirDataset, locateDatasets } from '@zerda/retriever/datasets';
import { percentile } from '@zerda/types';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string', default: '3' }, budget: { type: 'string', default: '2000' } } });
const root = locateDatasets(new URL('.', import.meta.url).pathname);
if (!root) {
  console.error('datasets not found: set ZERDA_DATASETS');
  process.exit(1);
}
const rounds = Number(values.rounds);
const budget = values.budget === 'default' ? undefined : Number(values.budget);
const config = { cache: { enabled: false }, multiTurn: { enabled: false }, adaptive: { enabled: false } };
for (const name of positionals.length > 0 ? positionals : ['beir-scifact', 'arcd']) {
  const dataset = loadBeirDataset(join(root, name));
  const judged = new Set(dataset.qrels.keys());
  const queries = dataset.queries.filter((query) => judged.has(query.id)).map((query) => query.text);
  const chunks = dataset.corpus.map((document) => ({ id: document.id, docId: document.id, text: document.text, source: document.id, metadata: {}, position: { index: 0, total: 1 }, ...(document.title ? { title: document.title } : {}) }));
  const engine = await new ContextEngine({ config }).index(chunks);
  const options = { ...(budget === undefined ? {} : { overrideBudget: budget }), useHistory: false, recordTurn: false };
  for (const query of queries) await engine.run(query, options);
  const totals = {};
  const wall = [];
  const cpuBefore = process.cpuUsage();
  for (let round = 0; round < rounds; round++) {
    for (const query of queries) {
      const start = performance.now();
      const result = await engine.run(query, options);
      wall.push(performance.now() - start);
      for (const [stage, ms] of Object.entries(result.timings)) totals[stage] = (totals[stage] ?? 0) + ms;
    }
  }
  const cpu = process.cpuUsage(cpuBefore);
  const runs = queries.length * rounds;
  const stages = Object.entries(totals).filter(([stage]) => stage !== 'total' && stage !== 'cache').map(([stage, total]) => `${stage} ${(total / runs).toFixed(3)}`).join(', ');
  console.log(`${name}: ${queries.length} queries × ${rounds}: run() p50 ${percentile(wall, 50).toFixed(3)} ms wall, mean CPU ${((cpu.user + cpu.system) / 1000 / runs).toFixed(3)} ms; mean ms per stage: ${stages}`);
}
