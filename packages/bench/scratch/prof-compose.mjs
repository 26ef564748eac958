import { loadDataset } from '../dist/index.js';
import { documentsToChunks } from '../dist/systems/zerda-systems.js';
import { ContextEngine, SmartContextComposer } from '@zerda/context';
const ds = loadDataset('/work/shared/datasets/' + (process.argv[2] ?? 'arcd'));
const inner = new SmartContextComposer();
const cap = [];
const engine = new ContextEngine({ composer: { compose: (c, o) => { cap.push([c, o]); return inner.compose(c, { ...o, budget: 0 }); }, truncate: inner.truncate.bind(inner), getStats: inner.getStats.bind(inner) }, config: { cache: { enabled: false }, multiTurn: { enabled: false }, adaptive: { enabled: false }, analyzer: { chunks: { simple: 10, moderate: 10, complex: 10 } } } });
await engine.index(documentsToChunks(ds.documents));
for (const q of ds.queries.slice(0, 300)) await engine.run(q.text, { overrideBudget: 500, useHistory: false, recordTurn: false });
const budget = Number(process.argv[3] ?? 500);
const composer = new SmartContextComposer();
for (let r = 0; r < 3; r++) {
  const t0 = performance.now();
  for (const [c, o] of cap) composer.compose(c, { ...o, budget });
  console.log('compose ms', ((performance.now() - t0) / cap.length).toFixed(3));
}
