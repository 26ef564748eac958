// Measures what query-focused compression does to context quality on the project's retrieval datasets:
// BM25 top-k from @zerda/retriever, composed at a character budget with `compression: 'off'` and `'auto'`.
// Usage (after building text, types, retriever and composer):
//   node scripts/measure-compression.mjs [dataset=beir-scifact] [budget=2000] [topK=10]
// Datasets are read from $ZERDA_DATASETS or ../shared/datasets; nothing is copied.
import { loadBeirDataset, locateDatasets } from '@zerda/retriever/datasets';
import { KeywordRetriever } from '@zerda/retriever';
import { defaultAnalyzer, detectLanguage, scriptMix } from '@zerda/text';
import { SmartContextComposer } from '@zerda/composer';

const [name = 'beir-scifact', budgetText = '2000', topKText = '10'] = process.argv.slice(2);
const budget = Number(budgetText);
const topK = Number(topKText);
const root = locateDatasets(process.cwd());
if (!root) {
  console.error('datasets not found: set ZERDA_DATASETS or place them in ../shared/datasets');
  process.exit(1);
}
const dataset = loadBeirDataset(`${root}/${name}`);
const retriever = new KeywordRetriever();
await retriever.index(
  dataset.corpus.map((document) => ({ id: document.id, docId: document.id, text: document.text, title: document.title, source: document.id, metadata: {}, position: { index: 0 } })),
);
const composer = new SmartContextComposer();
const modes = ['off', 'auto'];
const totals = Object.fromEntries(modes.map((mode) => [mode, { kept: 0, coverage: 0, characters: 0, chunks: 0 }]));
let queries = 0;
let inTop = 0;
let coverageQueries = 0;
for (const query of dataset.queries) {
  const relevant = dataset.qrels.get(query.id);
  if (!relevant) continue;
  queries += 1;
  const isRelevant = (chunk) => (relevant.get(chunk.docId) ?? 0) > 0;
  const top = await retriever.retrieve(query.text, { topK });
  const keywords = [...new Set(defaultAnalyzer.analyze(query.text))];
  const analysis = { query: query.text, effectiveQuery: query.text, language: detectLanguage(query.text), scriptMix: scriptMix(query.text), keywords, complexity: 'simple', intent: 'factual', suggestedBudget: budget, suggestedChunks: topK };
  const relevantTop = top.filter((candidate) => isRelevant(candidate.chunk));
  if (relevantTop.length > 0) inTop += 1;
  // Query terms that the relevant passages of the top k contain: what a reader would need.
  const needed = new Set(relevantTop.flatMap((candidate) => defaultAnalyzer.analyze(candidate.chunk.text)).filter((term) => keywords.includes(term)));
  if (needed.size > 0) coverageQueries += 1;
  for (const mode of modes) {
    const result = composer.compose(top, { budget, analysis, compression: mode });
    const used = result.chunks.filter((chunk) => isRelevant(chunk.chunk));
    const total = totals[mode];
    if (used.length > 0) total.kept += 1;
    total.characters += used.reduce((sum, chunk) => sum + chunk.keptText.length, 0);
    total.chunks += result.chunks.length;
    if (needed.size > 0) {
      const present = new Set(defaultAnalyzer.analyze(used.map((chunk) => chunk.keptText).join(' ')).filter((term) => needed.has(term)));
      total.coverage += present.size / needed.size;
    }
  }
}
const percent = (value) => `${(100 * value).toFixed(1)}%`;
console.log(`${name}, budget ${budget} chars, top ${topK}: ${queries} queries, a relevant passage in the top ${topK} for ${percent(inTop / queries)}`);
for (const mode of modes) {
  const total = totals[mode];
  console.log(
    `${mode.padEnd(5)} relevant kept ${percent(total.kept / queries)} · query-term coverage ${percent(total.coverage / coverageQueries)} · relevant characters ${(total.characters / queries).toFixed(0)} · chunks ${(total.chunks / queries).toFixed(2)}`,
  );
}
