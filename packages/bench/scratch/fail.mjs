import { loadDataset } from '../dist/index.js';
import { documentsToChunks } from '../dist/systems/zerda-systems.js';
import { ContextEngine } from '@zerda/context';
import { answerInContext, normalizeForAnswerMatch } from '@zerda/retriever';
const [name = 'tydiqa-goldp-en', budgetText = '300', show = '0'] = process.argv.slice(2);
const budget = Number(budgetText);
const ds = loadDataset('/work/shared/datasets/' + name);
const engine = new ContextEngine({ config: { cache: { enabled: false }, multiTurn: { enabled: false }, adaptive: { enabled: false }, analyzer: { chunks: { simple: 10, moderate: 10, complex: 10 } } } });
await engine.index(documentsToChunks(ds.documents));
const cats = {}; let n = 0; let shown = 0;
const qs = ds.queries.filter((q) => ds.splits?.get(q.id) === 'train').slice(0, 1500);
for (const q of qs) {
  const answers = ds.answers.get(q.id);
  const r = await engine.run(q.text, { overrideBudget: budget, useHistory: false, recordTurn: false });
  n++;
  if (answerInContext(r.context, answers)) { cats.ok = (cats.ok ?? 0) + 1; continue; }
  // find answer-bearing sentence among candidates considered (chunks with sentences explanation)
  const all = await engine.run(q.text, { overrideBudget: 100000, useHistory: false, recordTurn: false });
  const rankOf = all.chunks.findIndex((c) => answerInContext(c.chunk.text, answers));
  let cat;
  if (rankOf < 0) cat = 'not in candidates';
  else {
    const used = r.chunks.find((c) => c.chunk.id === all.chunks[rankOf].chunk.id);
    const text = all.chunks[rankOf].chunk.text;
    // sentence containing answer
    const sents = used?.sentences;
    if (!used) cat = `answer chunk rank ${rankOf + 1} not used`;
    else {
      const s = sents?.find((x) => answerInContext(text.slice(x.start, x.end), answers));
      cat = s ? `answer chunk used, answer sentence ${s.kept} (len ${s.end - s.start > 300 ? '>300' : s.end - s.start > 150 ? '150-300' : '<150'})` : sents ? 'answer spans sentences' : `no sentences (fit ${used.fit})`;
    }
    if (shown < Number(show) && cat.includes('none')) {
      shown++;
      console.log('\n=== Q:', q.text, '| A:', answers[0], '| type', r.analysis.answerType);
      console.log(r.context);
      const u = r.chunks.find((c) => c.chunk.id === all.chunks[rankOf].chunk.id);
      for (const s of u?.sentences ?? []) console.log(`  ${s.kept} ${s.value.toFixed(3)} ${s.reasons.join(',')} | ${text.slice(s.start, s.end).slice(0, 100)}`);
    }
  }
  cats[cat] = (cats[cat] ?? 0) + 1;
}
for (const [k, v] of Object.entries(cats).sort((a, b) => b[1] - a[1])) console.log(`${(100 * v / n).toFixed(1)}% ${k}`);
