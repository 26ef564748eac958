import { loadDataset } from '../dist/index.js';
import { documentsToChunks } from '../dist/systems/zerda-systems.js';
import { ContextEngine } from '@zerda/context';
const ds = loadDataset('/work/shared/datasets/' + (process.argv[2] ?? 'arcd'));
const engine = new ContextEngine({ config: { cache: { enabled: false }, multiTurn: { enabled: false }, adaptive: { enabled: false }, analyzer: { chunks: { simple: 10, moderate: 10, complex: 10 } } } });
await engine.index(documentsToChunks(ds.documents));
const qs = ds.queries.slice(0, 300);
const stages = {};
const t0 = performance.now();
for (const q of qs) { const r = await engine.run(q.text, { overrideBudget: Number(process.argv[3] ?? 500), useHistory: false, recordTurn: false }); for (const [k, v] of Object.entries(r.timings)) stages[k] = (stages[k] ?? 0) + v; }
console.log('ms/q', ((performance.now() - t0) / qs.length).toFixed(2), Object.entries(stages).map(([k, v]) => `${k} ${(v / qs.length).toFixed(2)}`).join(' '));
