// Measures keyword-retrieval quality on the evaluation datasets for a grid of settings.
// Usage: node scripts/quality.mjs [scifact|arcd] [json-settings...]
import { KeywordRetriever, evaluateRun } from '@zerda/retriever';
import { loadBeirDataset, locateDatasets } from '@zerda/retriever/datasets';
import { join } from 'node:path';

const root = locateDatasets(new URL('.', import.meta.url).pathname);
if (!root) { console.error('datasets not found: set ZERDA_DATASETS'); process.exit(1); }
const which = process.argv[2] ?? 'scifact';
const dataset = loadBeirDataset(join(root, which === 'arcd' ? 'arcd' : 'beir-scifact'));
const settings = process.argv.slice(3).map((text) => JSON.parse(text));
if (settings.length === 0) settings.push({});
for (const options of settings) {
  const retriever = new KeywordRetriever(options);
  const chunks = dataset.corpus.map((document) => ({ id: document.id, docId: document.id, text: document.text, title: document.title }));
  let start = performance.now();
  await retriever.index(chunks);
  const indexMs = performance.now() - start;
  const run = new Map();
  start = performance.now();
  for (const query of dataset.queries) {
    const hits = await retriever.retrieve(query.text, { topK: 100 });
    run.set(query.id, hits.map((hit) => hit.chunk.id));
  }
  const queryMs = (performance.now() - start) / dataset.queries.length;
  const summary = evaluateRun(run, dataset.qrels);
  console.log(JSON.stringify(options), `nDCG@10 ${summary.ndcgAt10.toFixed(4)} R@10 ${summary.recallAt10.toFixed(4)} R@100 ${summary.recallAt100.toFixed(4)} MRR@10 ${summary.mrrAt10.toFixed(4)} | index ${indexMs.toFixed(0)} ms, ${queryMs.toFixed(3)} ms/query, q=${summary.queries}`);
}
