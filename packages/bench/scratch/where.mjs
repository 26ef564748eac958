import { readFileSync } from 'node:fs';
import { loadDataset } from '../dist/index.js';
import { KeywordRetriever, normalizeForAnswerMatch } from '@zerda/retriever';
import { splitSentences } from '@zerda/text';
const name = process.argv[2];
const dir = `/work/shared/datasets/${name}`;
const ds = loadDataset(dir);
const answers = new Map(readFileSync(`${dir}/answers.jsonl`, 'utf8').trim().split('\n').map((l) => { const r = JSON.parse(l); return [r.id, r.answers]; }));
const chunks = ds.documents.map((d) => ({ id: d.id, docId: d.id, text: d.text, source: d.id, metadata: {}, position: { index: 0, total: 1 }, ...(d.title ? { title: d.title } : {}) }));
const docs = new Map(ds.documents.map((d) => [d.id, d]));
const kw = new KeywordRetriever(); await kw.index(chunks);
const sentIdx = new Map(); const offs = []; let lens = []; let nsent = [];
let inTop = 0, q = 0;
const rankOf = new Map();
for (const query of ds.queries) {
  q++;
  const hits = await kw.retrieve(query.text, { topK: 10 });
  const ans = answers.get(query.id).map(normalizeForAnswerMatch).filter(Boolean);
  let found = -1;
  for (let r = 0; r < hits.length; r++) { const t = normalizeForAnswerMatch(docs.get(hits[r].chunk.docId).text); if (ans.some((a) => t.includes(a))) { found = r; break; } }
  rankOf.set(found, (rankOf.get(found) ?? 0) + 1);
  if (found < 0) continue;
  const text = docs.get(hits[found].chunk.docId).text;
  const sents = splitSentences(text);
  nsent.push(sents.length); lens.push(text.length);
  // sentence containing answer (first)
  let si = -1;
  for (let i = 0; i < sents.length; i++) { const t = normalizeForAnswerMatch(sents[i].text); if (ans.some((a) => t.includes(a))) { si = i; break; } }
  sentIdx.set(si, (sentIdx.get(si) ?? 0) + 1);
  const norm = normalizeForAnswerMatch(text); let o = Infinity; for (const a of ans) { const at = norm.indexOf(a); if (at >= 0) o = Math.min(o, at + a.length); }
  offs.push(o);
}
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(p * (s.length - 1))]; };
console.log('queries', q, 'rank of first answer-holding doc', [...rankOf.entries()].sort((a, b) => a[0] - b[0]).map(([r, c]) => `${r}:${(100 * c / q).toFixed(1)}`).join(' '));
console.log('answer sentence index', [...sentIdx.entries()].sort((a, b) => a[0] - b[0]).slice(0, 12).map(([r, c]) => `${r}:${(100 * c / offs.length).toFixed(1)}`).join(' '));
console.log('answer end offset p25/50/75/90', pct(offs, .25), pct(offs, .5), pct(offs, .75), pct(offs, .9), 'doc length p50', pct(lens, .5), 'sentences p50', pct(nsent, .5));
