// Scratch experiment harness for answer-in-context (not committed).
// usage: node scratch/aic.mjs <dataset> <split> [charsOnly] [limit]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDataset, packNaively } from '../dist/index.js';
import { ContextEngine } from '@zerda/context';
import { KeywordRetriever, answerInContext, normalizeForAnswerMatch } from '@zerda/retriever';
import { tokenCounter } from '@zerda/context-core';
import { charCounter } from '@zerda/text';

const [name = 'tydiqa-goldp-en', split = 'train', mode = 'all', limitText] = process.argv.slice(2);
const root = '/work/shared/datasets';
const dir = join(root, name);
const dataset = loadDataset(dir);
const answers = new Map();
const splitOf = new Map();
for (const line of readFileSync(join(dir, 'answers.jsonl'), 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const row = JSON.parse(line);
  answers.set(row.id, row.answers);
  if (row.split) splitOf.set(row.id, row.split);
}
try {
  for (const line of readFileSync(join(dir, 'query-split.tsv'), 'utf8').split('\n').slice(1)) {
    const [id, s] = line.split('\t');
    if (id) splitOf.set(id, s.trim());
  }
} catch {}
let queries = dataset.queries.filter((q) => split === 'all' || splitOf.get(q.id) === split || (split === 'dev' && splitOf.get(q.id) === 'test'));
if (limitText) queries = queries.slice(0, Number(limitText));
const chunks = dataset.documents.map((d) => ({ id: d.id, docId: d.id, text: d.text, source: d.id, metadata: {}, position: { index: 0, total: 1 }, ...(d.title ? { title: d.title } : {}) }));
const docs = new Map(dataset.documents.map((d) => [d.id, d]));
const content = (d) => (d.title ? `${d.title}\n${d.text}` : d.text);
const config = { cache: { enabled: false }, multiTurn: { enabled: false }, adaptive: { enabled: false } };
const extra = process.env.ZCONFIG ? JSON.parse(process.env.ZCONFIG) : {};
const merged = { ...config, ...extra };

const keyword = new KeywordRetriever();
await keyword.index(chunks);
const top10 = new Map();
let oracle = 0, top1 = 0;
for (const q of queries) {
  const hits = await keyword.retrieve(q.text, { topK: 10 });
  top10.set(q.id, hits.map((h) => h.chunk.docId));
  const texts = hits.map((h) => normalizeForAnswerMatch(content(docs.get(h.chunk.docId))));
  const ans = answers.get(q.id) ?? [];
  if (texts.some((t) => answerInContext(t, ans, { normalizedContext: true }))) oracle++;
  if (texts[0] && answerInContext(texts[0], ans, { normalizedContext: true })) top1++;
}
console.log(`${name} ${split}: ${queries.length} queries; oracle top10 ${(100 * oracle / queries.length).toFixed(1)}% top1 ${(100 * top1 / queries.length).toFixed(1)}%`);

async function measure(unit, budgets, counter) {
  const engine = new ContextEngine({ config: merged, ...(unit === 'tokens' ? { lengthCounter: counter } : {}) });
  await engine.index(chunks);
  const rows = [];
  for (const budget of budgets) {
    let e = 0, n = 0, used = 0;
    const started = performance.now();
    for (const q of queries) {
      const ans = answers.get(q.id) ?? [];
      const result = await engine.run(q.text, { overrideBudget: budget, useHistory: false, recordTurn: false });
      if (counter(result.context) > budget) throw new Error(`over budget ${budget}`);
      used += counter(result.context) / budget;
      if (answerInContext(result.context, ans)) e++;
      const naive = packNaively(top10.get(q.id).map((id) => content(docs.get(id))), budget, counter);
      if (answerInContext(naive, ans)) n++;
    }
    const ms = (performance.now() - started) / queries.length;
    rows.push(`${budget}${unit === 'tokens' ? 't' : ''}: engine ${(100 * e / queries.length).toFixed(1)} naive ${(100 * n / queries.length).toFixed(1)} Δ ${((100 * (e - n)) / queries.length).toFixed(1)} used ${(100 * used / queries.length).toFixed(0)}% (${ms.toFixed(1)} ms/q)`);
    console.log(rows[rows.length - 1]);
  }
}
if (mode !== 'tokens') await measure('chars', [300, 500, 1000, 2000], charCounter);
if (mode !== 'chars') await measure('tokens', [100, 250, 500, 1000], tokenCounter('cl100k_base'));
