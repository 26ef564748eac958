import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DocumentChunk } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { loadBeirDataset, type BeirDataset } from './datasets.js';
import { evaluateRun, type EvaluationSummary } from './evaluation.js';
import { KeywordRetriever, type KeywordRetrieverOptions } from './keyword-retriever.js';

// Quality regression on real data (not part of the repository): $ZERDA_DATASETS or <repo>/../shared/datasets.
const repositoryRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const datasetsRoot = process.env.ZERDA_DATASETS ?? resolve(repositoryRoot, '../shared/datasets');
const scifact = join(datasetsRoot, 'beir-scifact');
const arcd = join(datasetsRoot, 'arcd');
const available = existsSync(join(scifact, 'queries.jsonl')) && existsSync(join(arcd, 'queries.jsonl'));
if (!available) console.warn(`[quality] skipped: evaluation datasets not found in ${datasetsRoot} (set ZERDA_DATASETS to the folder holding beir-scifact/ and arcd/)`);

async function evaluate(dataset: BeirDataset, options: KeywordRetrieverOptions = {}): Promise<EvaluationSummary> {
  const retriever = new KeywordRetriever(options);
  await retriever.index(dataset.corpus.map((document) => ({ id: document.id, docId: document.id, text: document.text, title: document.title })) as DocumentChunk[]);
  const run = new Map<string, string[]>();
  for (const query of dataset.queries) run.set(query.id, (await retriever.retrieve(query.text, { topK: 100 })).map((hit) => hit.chunk.id));
  return evaluateRun(run, dataset.qrels);
}

describe.skipIf(!available)(`keyword retrieval quality (datasets in ${datasetsRoot})`, () => {
  it('BEIR SciFact, title + text, default settings: nDCG@10 >= 0.665 (BEIR BM25)', async () => {
    const summary = await evaluate(loadBeirDataset(scifact));
    console.info('[quality] scifact', summary);
    expect(summary.queries).toBe(300);
    expect(summary.ndcgAt10).toBeGreaterThanOrEqual(0.665);
    expect(summary.recallAt100).toBeGreaterThanOrEqual(0.9);
  }, 180_000);

  it('ARCD (Arabic), default Arabic analysis, strict qrels: nDCG@10 >= 0.80', async () => {
    const summary = await evaluate(loadBeirDataset(arcd));
    console.info('[quality] arcd', summary);
    expect(summary.queries).toBe(1395);
    expect(summary.ndcgAt10).toBeGreaterThanOrEqual(0.8);
    expect(summary.recallAt10).toBeGreaterThanOrEqual(0.93);
  }, 180_000);

  it('Arabic stemming beats no stemming on ARCD (the analysis earns its keep)', async () => {
    const dataset = loadBeirDataset(arcd);
    const light = await evaluate(dataset);
    const none = await evaluate(dataset, { analyzer: { arabic: { stemmer: 'none' } } });
    expect(light.ndcgAt10).toBeGreaterThan(none.ndcgAt10 + 0.02);
  }, 180_000);
});
