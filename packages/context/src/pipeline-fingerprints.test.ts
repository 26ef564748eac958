import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChunkFilter } from '@zerda/context-core';
import type { ChunkFilter as ChunkFilterContract, Retriever, ScoredChunk } from '@zerda/types';
import { KeywordRetriever } from '@zerda/retriever';
import { loadBeirDataset, locateDatasets } from '@zerda/retriever/datasets';
import { describe, expect, it } from 'vitest';
import { ContextEngine } from './engine.js';

// Speed work on retrieval, filtering and ranking must not change a single decision. Two checks on
// real data (SciFact, ARCD), skipped when the datasets are absent:
// - the stages before composition give exactly the fingerprints the main branch gave before that
//   work (scripts/pipeline-fingerprints.mjs wrote them from main's builds);
// - whole run() results are the same with and without the shortcuts (the keyword retriever's term
//   matches handed to the ranker, the filter's memoised text features).
const root = locateDatasets(import.meta.dirname);
const available = root !== undefined && ['beir-scifact', 'arcd'].every((name) => {
  try {
    loadBeirDataset(join(root, name));
    return true;
  } catch {
    return false;
  }
});
if (!available) console.warn('datasets not found (set ZERDA_DATASETS or place them in ../shared/datasets): skipping the pipeline fingerprint checks');

/** The keyword retriever without its term matches: the ranker must analyse every chunk itself. */
class WithoutTermMatches implements Retriever {
  readonly name = 'keyword';
  constructor(private readonly inner: KeywordRetriever) {}
  async retrieve(query: string, options?: Parameters<Retriever['retrieve']>[1]): Promise<ScoredChunk[]> {
    return (await this.inner.retrieve(query, options)).map(({ termMatches: _termMatches, ...hit }) => hit);
  }
  async index(chunks: Parameters<KeywordRetriever['index']>[0]): Promise<void> {
    await this.inner.index(chunks);
  }
}

/** A new ChunkFilter for every call: nothing memoised. */
const freshFilter: ChunkFilterContract = { filter: (chunks, options) => new ChunkFilter().filter(chunks, options) };

describe.skipIf(!available)('run() pipeline: identical decisions', { timeout: 300_000 }, () => {
  it("retrieval, filtering, ranking and whole runs' contexts give the fingerprints recorded from the main branch", () => {
    const script = new URL('../scripts/pipeline-fingerprints.mjs', import.meta.url).pathname;
    const current = JSON.parse(execFileSync(process.execPath, [script], { encoding: 'utf8', maxBuffer: 1 << 26 }));
    const recorded = JSON.parse(readFileSync(new URL('./__fixtures__/pipeline-fingerprints.json', import.meta.url), 'utf8'));
    expect(Object.keys(recorded.arcd).length).toBeGreaterThan(100);
    expect(current).toEqual(recorded);
  });

  for (const name of ['beir-scifact', 'arcd']) {
    it(`${name}: run() gives the same contexts and chunks with and without the shortcuts`, async () => {
      const dataset = loadBeirDataset(join(root!, name));
      const chunks = dataset.corpus.map((document) => ({ id: document.id, docId: document.id, text: document.text, source: document.id, ...(document.title ? { title: document.title } : {}) }));
      const config = { cache: { enabled: false }, multiTurn: { enabled: false }, adaptive: { enabled: false } };
      const fast = await new ContextEngine({ config }).index(chunks);
      const plain = await new ContextEngine({ config, retriever: new WithoutTermMatches(new KeywordRetriever()), chunkFilter: freshFilter }).index(chunks);
      const judged = new Set(dataset.qrels.keys());
      const queries = dataset.queries.filter((query) => judged.has(query.id)).slice(0, 60);
      const view = (result: Awaited<ReturnType<ContextEngine['run']>>) => ({
        context: result.context,
        chunks: result.chunks.map((used) => [used.chunk.id, used.score, used.scores.keywordBoost, used.keptText]),
        dropped: result.dropped,
        counts: result.counts,
      });
      for (const query of queries) {
        // Twice on the fast engine: the second run reads the filter's memo.
        for (let pass = 0; pass < 2; pass++) expect(view(await fast.run(query.text))).toEqual(view(await plain.run(query.text)));
      }
    });
  }
});
