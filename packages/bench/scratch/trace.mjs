import { loadDataset } from '../dist/index.js';
import { documentsToChunks } from '../dist/systems/zerda-systems.js';
import { ContextEngine, SmartContextComposer } from '@zerda/context';
const [name, qtext, budget] = process.argv.slice(2);
const ds = loadDataset('/work/shared/datasets/' + name);
const inner = new SmartContextComposer(); let cap;
const engine = new ContextEngine({ composer: { compose: (c, o) => { cap = [c, o]; return inner.compose(c, o); }, truncate: inner.truncate.bind(inner), getStats: inner.getStats.bind(inner) }, config: { cache: { enabled: false }, multiTurn: { enabled: false }, adaptive: { enabled: false }, analyzer: { chunks: { simple: 10, moderate: 10, complex: 10 } } } });
await engine.index(documentsToChunks(ds.documents));
const r = await engine.run(qtext, { overrideBudget: Number(budget), useHistory: false, recordTurn: false });
console.log(r.context);
for (const c of r.chunks) { console.log('--', c.rank, c.chunk.id, c.fit); for (const s of c.sentences ?? []) console.log(`  ${s.kept} ${s.value.toFixed(3)} cost ${s.end - s.start} d=${(s.value / (s.end - s.start) * 1000).toFixed(2)}`); }
for (const [i, c] of cap[0].entries()) console.log(i + 1, c.chunk.id, c.score.toFixed(3), JSON.stringify(c.scores));
