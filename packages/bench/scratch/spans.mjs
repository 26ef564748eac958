import { loadDataset } from '../dist/index.js';
import { answerInContext } from '@zerda/retriever';
import { splitSentences } from '@zerda/text';
const ds = loadDataset('/work/shared/datasets/' + (process.argv[2] ?? 'tydiqa-goldp-en'));
const docs = new Map(ds.documents.map((d) => [d.id, d]));
let spans = 0, total = 0, shown = 0; const lens = [];
for (const q of ds.queries) {
  const answers = ds.answers.get(q.id); const gold = [...ds.qrels.get(q.id).keys()][0]; const d = docs.get(gold);
  if (!answerInContext(d.text, answers)) continue;
  total++;
  const sents = splitSentences(d.text);
  if (sents.some((s) => answerInContext(s.text, answers))) continue;
  spans++; lens.push(Math.min(...answers.map((a) => a.length)));
  if (shown++ < 8) { console.log('A:', JSON.stringify(answers[0]).slice(0, 200)); console.log('  sentences:', sents.slice(0, 4).map((s) => JSON.stringify(s.text.slice(0, 90))).join(' | ')); }
}
lens.sort((a, b) => a - b);
console.log('answer in gold doc', total, 'spans sentences', spans, (100 * spans / total).toFixed(1) + '%', 'answer length p50', lens[lens.length >> 1]);
