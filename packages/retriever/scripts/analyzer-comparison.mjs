// Compares @zerda/text Analyzer options for keyword retrieval on both evaluation datasets and
// prints a markdown table (nDCG@10 / Recall@100). Defaults of KeywordRetriever otherwise (k1 0.9, b 0.4, title weight 1).
// Usage: node scripts/analyzer-comparison.mjs   (after `pnpm --filter @zerda/retriever build`)
import { Analyzer } from '@zerda/text';
import { KeywordRetriever, evaluateRun } from '@zerda/retriever';
import { loadBeirDataset, locateDatasets } from '@zerda/retriever/datasets';
import { join } from 'node:path';

const root = locateDatasets(new URL('.', import.meta.url).pathname);
if (!root) {
  console.error('datasets not found: set ZERDA_DATASETS');
  process.exit(1);
}
const datasets = [loadBeirDataset(join(root, 'beir-scifact')), loadBeirDataset(join(root, 'arcd'))];

async function measure(dataset, analyzerOptions) {
  const retriever = new KeywordRetriever({ analyzer: new Analyzer(analyzerOptions) });
  await retriever.index(dataset.corpus.map((document) => ({ id: document.id, docId: document.id, text: document.text, title: document.title })));
  const run = new Map();
  for (const query of dataset.queries) run.set(query.id, (await retriever.retrieve(query.text, { topK: 100 })).map((hit) => hit.chunk.id));
  return evaluateRun(run, dataset.qrels);
}

const rows = [];
for (const english of ['none', 'porter2']) {
  for (const arabic of ['none', 'light', 'snowball']) {
    for (const tehMarbuta of [false, true]) {
      rows.push({ label: `${english} | ${arabic} | ${tehMarbuta ? 'on' : 'off'} | on`, options: { english: { stemmer: english }, arabic: { stemmer: arabic, tehMarbuta } } });
    }
  }
}
rows.push({ label: 'porter2 | light | off | **off**', options: { stopwords: false } });
console.log('| English stemmer | Arabic stemmer | ة→ه | stopwords | SciFact nDCG@10 | SciFact R@100 | ARCD nDCG@10 | ARCD R@100 |');
console.log('|---|---|---|---|---|---|---|---|');
for (const row of rows) {
  const [scifact, arcd] = [await measure(datasets[0], row.options), await measure(datasets[1], row.options)];
  console.log(`| ${row.label} | ${scifact.ndcgAt10.toFixed(4)} | ${scifact.recallAt100.toFixed(4)} | ${arcd.ndcgAt10.toFixed(4)} | ${arcd.recallAt100.toFixed(4)} |`);
}
