/**
 * Child-process entry of the scale section's snapshot rows:
 * `node --expose-gc snapshot-open-worker.js <request.json> <result.json>`. Opens an engine snapshot
 * in a fresh process (so that the peak resident set is the open's own, not the build's), times
 * `ContextEngine.open` and the time to the first answer, and answers the given queries so that the
 * parent can check that the opened engine returns exactly what the saved one did.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { ContextResult } from '@zerda/types';
import { answersDigest, type OpenReport, type OpenRequest } from './snapshot-digest.js';
import { chooseEmbedder } from './embedding.js';
import { collectGarbage, peakRss } from './measure.js';

const [requestFile, resultFile] = process.argv.slice(2);
if (!requestFile || !resultFile) {
  console.error('usage: snapshot-open-worker.js <request.json> <result.json>');
  process.exit(2);
} else {
  const request = JSON.parse(readFileSync(requestFile, 'utf8')) as OpenRequest;
  const { ContextEngine } = await import('@zerda/context');
  const options: Record<string, unknown> = {};
  if (request.configuration === 'hybrid-hnsw') {
    const { HnswVectorStore } = await import('@zerda/vector-hnswlib');
    const choice = await chooseEmbedder(request.language);
    if (!choice.embedder) throw new Error(choice.reason ?? 'no embedder');
    await choice.embedder.embed(['warm up'], { kind: 'query' });
    options.embedder = choice.embedder;
    options.vectorDb = new HnswVectorStore();
  }
  collectGarbage();
  const baselineRssBytes = process.memoryUsage().rss;
  const started = performance.now();
  const engine = await ContextEngine.open(request.directory, options);
  const openMs = performance.now() - started;
  const peakRssBytes = peakRss();
  const results: ContextResult[] = [];
  let firstAnswerMs = openMs;
  for (const query of request.queries) {
    results.push(await engine.run(query, { overrideBudget: request.budget, useHistory: false, recordTurn: false }));
    if (results.length === 1) firstAnswerMs = performance.now() - started;
  }
  const report: OpenReport = { openMs, firstAnswerMs, baselineRssBytes, peakRssBytes, answers: answersDigest(results) };
  writeFileSync(resultFile, JSON.stringify(report));
  process.exit(0);
}
