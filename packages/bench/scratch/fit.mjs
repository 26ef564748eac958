// Fit the sentence model on train splits; simulate selection; report by split (scratch).
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { loadQa, captureCandidates } from './features.mjs';
import { candidateFeatures, vector, trainLogistic, predict, hasAnswer, FEATURE_NAMES } from './model.mjs';
import { packNaively } from '../dist/index.js';
import { KeywordRetriever, answerInContext } from '@zerda/retriever';
import { charCounter, truncateAtWordBoundary } from '@zerda/text';

const SEP = '\n\n---\n\n';
const GAP = ' […] ';
const sets = {};
for (const name of ['tydiqa-goldp-en', 'arcd']) {
  const qa = loadQa(name);
  const captured = await captureCandidates(name, qa.dataset.queries, qa.chunks, process.env.ZCONFIG ? JSON.parse(process.env.ZCONFIG) : {});
  const kw = new KeywordRetriever(); await kw.index(qa.chunks);
  const docs = new Map(qa.dataset.documents.map((d) => [d.id, d]));
  const items = [];
  for (const q of qa.dataset.queries) {
    const cap = captured.get(q.id);
    const answers = qa.answers.get(q.id) ?? [];
    const cands = candidateFeatures(cap.ranked, cap.analysis, q.text);
    for (const c of cands) for (const s of c.sentences) s.y = hasAnswer(s.text, answers) ? 1 : 0;
    const hits = await kw.retrieve(q.text, { topK: 10 });
    items.push({ q, split: qa.splitOf.get(q.id), answers, cands, naiveDocs: hits.map((h) => { const d = docs.get(h.chunk.docId); return d.title ? `${d.title}\n${d.text}` : d.text; }) });
  }
  sets[name] = items;
  console.log(name, items.length, 'captured');
}

function rowsOf(items) {
  const X = [], y = [];
  for (const it of items) for (const c of it.cands) for (const s of c.sentences) { X.push(vector(s.x)); y.push(s.y); }
  return { X, y };
}
const train = [...sets['tydiqa-goldp-en'].filter((i) => i.split === 'train'), ...sets.arcd.filter((i) => i.split === 'train')];
const { X, y } = rowsOf(train);
console.log('train rows', X.length, 'positives', y.reduce((a, b) => a + b, 0));
const weights = trainLogistic(X, y, { epochs: Number(process.env.EPOCHS ?? 300) });
console.log(Object.entries(weights).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', '));
writeFileSync(new URL('./weights.json', import.meta.url), JSON.stringify(weights, null, 1));

/** Simulated composition: knapsack by greedy density with a best-single check, then fill with a prefix. */
export function select(cands, budget, weights) {
  const items = [];
  for (const c of cands) c.sentences.forEach((s, i) => items.push({ c, i, s, p: predict(weights, s.x), cost: charCounter(s.text) }));
  const chosen = new Map(); // cand -> Set(i)
  let used = 0;
  const costOf = (it) => {
    const set = chosen.get(it.c);
    if (!set || set.size === 0) return it.cost + (chosen.size > 0 ? SEP.length : 0);
    const adjacent = set.has(it.i - 1) || set.has(it.i + 1);
    return it.cost + (adjacent ? 1 : GAP.length);
  };
  const remaining = new Set(items);
  let partial;
  for (;;) {
    let best, bestD = -1;
    for (const it of remaining) { const k = costOf(it); const d = it.p / k; if (d > bestD) { bestD = d; best = it; } }
    if (!best) break;
    const k = costOf(best);
    if (used + k > budget) {
      if (process.env.FRACTION !== '0' && budget - used >= Number(process.env.MINPART ?? 30)) { partial = best; break; }
      remaining.delete(best); continue;
    }
    used += k;
    if (!chosen.has(best.c)) chosen.set(best.c, new Set());
    chosen.get(best.c).add(best.i);
    remaining.delete(best);
  }
  const render = () => {
    const parts = [];
    for (const c of cands) {
      const set = chosen.get(c); if (!set || set.size === 0) continue;
      const idx = [...set].sort((a, b) => a - b);
      let text = ''; let prev = -2;
      for (const i of idx) { const s = c.sentences[i]; text += prev < 0 ? s.text : i === prev + 1 ? ' ' + s.text : GAP + s.text; prev = i; }
      parts.push(text);
    }
    return parts.join(SEP);
  };
  let context = render();
  let left = budget - charCounter(context);
  const best = partial;
  if (best && left > 10) {
      const set = chosen.get(best.c);
      const overhead = !set ? (chosen.size ? SEP.length : 0) : (set.has(best.i - 1) ? 1 : GAP.length);
      const cut = truncateAtWordBoundary(best.s.text, Math.max(0, left - overhead - 1), charCounter, { ellipsis: '…' });
      if (cut && cut.length > 10) { const old = best.c.sentences[best.i]; best.c.sentences[best.i] = { ...old, text: cut }; if (!set) chosen.set(best.c, new Set()); chosen.get(best.c).add(best.i); const next = render(); best.c.sentences[best.i] = old; if (charCounter(next) <= budget) context = next; }
  }
  return context;
}

function report(items, label) {
  for (const B of [300, 500, 1000, 2000]) {
    let e = 0, n = 0;
    for (const it of items) {
      const ctx = select(it.cands, B, weights);
      if (charCounter(ctx) > B) throw new Error('over');
      if (answerInContext(ctx, it.answers)) e++;
      if (answerInContext(packNaively(it.naiveDocs, B, charCounter), it.answers)) n++;
    }
    console.log(`${label} @${B}: model ${(100 * e / items.length).toFixed(1)} naive ${(100 * n / items.length).toFixed(1)} Δ ${(100 * (e - n) / items.length).toFixed(1)}`);
  }
}
for (const name of Object.keys(sets)) {
  report(sets[name].filter((i) => i.split === 'train'), `${name} train`);
  report(sets[name].filter((i) => i.split !== 'train'), `${name} dev`);
}
