// Fingerprints of what run()'s stages before composition decide — retrieval (ids and BM25 scores),
// filtering (kept ids, drops with their reasons) and ranking (ids, composite scores, keyword boost) —
// for a fixed query set of SciFact and ARCD, stage by stage as ContextEngine.run() chains them with
// its defaults; and the contexts whole run() calls give (default engine, keyword only) at three
// character budgets and one cl100k token budget, so that a speed change to composition is checked too.
// A speed change to any stage must leave every fingerprint as it was; a change meant to alter
// decisions (a new composer model) writes the fixture again with --write and says so in its commit.
//
//   node scripts/pipeline-fingerprints.mjs                 prints the fingerprints as JSON
//   node scripts/pipeline-fingerprints.mjs --write         writes src/__fixtures__/pipeline-fingerprints.json
//   node scripts/pipeline-fingerprints.mjs --retriever M --core M   uses other builds of @zerda/retriever and
//        @zerda/context-core (module paths), e.g. the main branch's, to produce the "before" fixture
//
// src/pipeline-fingerprints.test.ts runs this script and compares with the fixture. Needs the
// datasets ($ZERDA_DATASETS or ../shared/datasets) and the built packages.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadBeirDataset, locateDatasets } from '@zerda/retriever/datasets';

const { values } = parseArgs({ options: { write: { type: 'boolean', default: false }, retriever: { type: 'string' }, core: { type: 'string' }, queries: { type: 'string', default: '150' }, contextQueries: { type: 'string', default: '100' } } });
const { KeywordRetriever } = await import(values.retriever ?? '@zerda/retriever');
const { ChunkFilter, CompositeRanker, QueryAnalyzer } = await import(values.core ?? '@zerda/context-core');
const root = locateDatasets(new URL('.', import.meta.url).pathname);
if (!root) {
  console.error('datasets not found: set ZERDA_DATASETS');
  process.exit(2);
}
const digest = (value) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
const { ContextEngine } = await import(new URL('../dist/index.js', import.meta.url).href);
const { tokenCounter } = await import(values.core ?? '@zerda/context-core');
const fingerprints = {};
for (const name of ['beir-scifact', 'arcd']) {
  const dataset = loadBeirDataset(join(root, name));
  const chunks = dataset.corpus.map((document) => ({ id: document.id, docId: document.id, text: document.text, source: document.id, metadata: {}, position: { index: 0, total: 1 }, ...(document.title ? { title: document.title } : {}) }));
  const retriever = new KeywordRetriever();
  await retriever.index(chunks);
  const analyzer = new QueryAnalyzer();
  const filter = new ChunkFilter();
  const ranker = new CompositeRanker();
  const judged = new Set(dataset.qrels.keys());
  const queries = dataset.queries.filter((query) => judged.has(query.id)).slice(0, Number(values.queries));
  const now = Date.UTC(2026, 0, 1);
  fingerprints[name] = {};
  for (const query of queries) {
    const analysis = analyzer.analyze(query.text);
    const retrieved = await retriever.retrieve(query.text, { topK: Math.max(30, analysis.suggestedChunks), analysis });
    const filtered = filter.filter(retrieved, { analysis });
    const ranked = ranker.rank(filtered.kept, { analysis, maxChunks: analysis.suggestedChunks, sourceQuality: {}, now });
    fingerprints[name][query.id] = digest({
      retrieved: retrieved.map((hit) => [hit.chunk.id, hit.score]),
      kept: filtered.kept.map((hit) => hit.chunk.id),
      dropped: filtered.dropped.map((drop) => [drop.chunkId, drop.reason, drop.duplicateOf ?? null]),
      ranked: ranked.map((hit) => [hit.chunk.id, hit.score, hit.scores.keywordBoost]),
    });
  }
  // Whole runs: the contexts composed from the same stages (with the guard), and what each chunk kept.
  const config = { cache: { enabled: false }, multiTurn: { enabled: false }, adaptive: { enabled: false } };
  const engines = [
    ['chars', [300, 1000, 2000], await new ContextEngine({ config }).index(chunks)],
    ['cl100k', [250], await new ContextEngine({ config, lengthCounter: tokenCounter('cl100k_base') }).index(chunks)],
  ];
  fingerprints[`${name} contexts`] = {};
  for (const query of queries.slice(0, Number(values.contextQueries))) {
    const contexts = [];
    for (const [, budgets, engine] of engines) {
      for (const budget of budgets) {
        const result = await engine.run(query.text, { overrideBudget: budget });
        contexts.push([budget, result.context, result.chunks.map((used) => [used.chunk.id, used.fit, used.keptText.length])]);
      }
    }
    fingerprints[`${name} contexts`][query.id] = digest(contexts);
  }
}
const output = JSON.stringify(fingerprints, null, 1);
if (values.write) writeFileSync(new URL('../src/__fixtures__/pipeline-fingerprints.json', import.meta.url), `${output}\n`);
else process.stdout.write(`${output}\n`);
