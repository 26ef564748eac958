import { readFileSync } from 'node:fs';
import { loadDataset, packNaively } from '../dist/index.js';
import { ContextEngine, explainResult } from '@zerda/context';
import { KeywordRetriever, answerInContext } from '@zerda/retriever';
import { charCounter } from '@zerda/text';
const name = process.argv[2]; const budget = Number(process.argv[3]); const want = Number(process.argv[4] ?? 3);
const dir = `/work/shared/datasets/${name}`;
const ds = loadDataset(dir);
const answers = new Map(readFileSync(`${dir}/answers.jsonl`, 'utf8').trim().split('\n').map((l) => { const r = JSON.parse(l); return [r.id, r.answers]; }));
const chunks = ds.documents.map((d) => ({ id: d.id, docId: d.id, text: d.text, source: d.id, metadata: {}, position: { index: 0, total: 1 }, ...(d.title ? { title: d.title } : {}) }));
const docs = new Map(ds.documents.map((d) => [d.id, d]));
const kw = new KeywordRetriever(); await kw.index(chunks);
const engine = new ContextEngine({ config: { cache: { enabled: false }, multiTurn: { enabled: false }, adaptive: { enabled: false } } });
await engine.index(chunks);
let shown = 0;
for (const q of ds.queries.slice(0, 400)) {
  const ans = answers.get(q.id);
  const r = await engine.run(q.text, { overrideBudget: budget, useHistory: false, recordTurn: false });
  const hits = await kw.retrieve(q.text, { topK: 10 });
  const naive = packNaively(hits.map((h) => { const d = docs.get(h.chunk.docId); return d.title ? `${d.title}\n${d.text}` : d.text; }), budget, charCounter);
  if (!answerInContext(r.context, ans) && answerInContext(naive, ans)) {
    console.log('=== Q:', q.text, '| A:', ans[0]);
    console.log('--- ENGINE:\n' + r.context);
    console.log('--- ranks:', r.chunks.map((c) => `${c.chunk.id}@${c.rank} ${c.fit} ${c.keptRatio.toFixed(2)}`).join(', '), '| top kw:', hits.slice(0, 3).map((h) => h.chunk.id).join(','));
    console.log('--- dropped:', r.dropped.slice(0, 6).map((d) => `${d.chunkId}:${d.reason}`).join(', '));
    console.log('--- NAIVE:\n' + naive.slice(0, 400));
    if (++shown >= want) break;
  }
}
