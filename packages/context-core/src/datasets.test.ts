import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeText, words } from '@zerda/text';
import { toDocumentChunk, type ScoredChunk } from '@zerda/types';
import { ChunkFilter } from './chunk-filter.js';
import { findInjections } from './injection-patterns.js';
import { jaccard, shingleSet } from './minhash.js';
import { QueryAnalyzer } from './query-analyzer.js';

// Real queries and passages nobody on this project wrote (see ../shared/datasets/README.md).
const root = process.env.ZERDA_DATASETS ?? resolve(import.meta.dirname, '../../../../shared/datasets');
const arcd = resolve(root, 'arcd');
const scifact = resolve(root, 'beir-scifact');
const available = existsSync(resolve(arcd, 'queries.jsonl')) && existsSync(resolve(scifact, 'queries.jsonl'));
if (!available) console.warn(`datasets not found at ${root} (set ZERDA_DATASETS): skipping dataset checks of @zerda/context-core`);

function readJsonl<T>(path: string): T[] {
  const raw = path.endsWith('.gz') ? gunzipSync(readFileSync(path)).toString('utf8') : readFileSync(path, 'utf8');
  return raw
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as T);
}

describe.skipIf(!available)('context-core on real data', { timeout: 120_000 }, () => {
  const analyzer = new QueryAnalyzer();

  it('ARCD (1,395 Arabic questions): detected as Arabic, and nearly all get an intent', () => {
    const queries = readJsonl<{ text: string }>(resolve(arcd, 'queries.jsonl'));
    const analyses = queries.map((query) => analyzer.analyze(query.text));
    const arabic = analyses.filter((analysis) => analysis.language === 'ar').length / analyses.length;
    const withIntent = analyses.filter((analysis) => analysis.intent !== 'other').length / analyses.length;
    const factual = analyses.filter((analysis) => analysis.intent === 'factual').length / analyses.length;
    expect(arabic).toBeGreaterThan(0.99);
    // What is left as `other` is mostly misspelt question words (م for ما, كتى for متى).
    expect(withIntent).toBeGreaterThan(0.95);
    // Reading-comprehension questions ask for facts (who, when, where, how many, which).
    expect(factual).toBeGreaterThan(0.7);
  });

  it('SciFact (300 English claims): English, and statements are not mistaken for questions', () => {
    const queries = readJsonl<{ text: string }>(resolve(scifact, 'queries.jsonl'));
    const analyses = queries.map((query) => analyzer.analyze(query.text));
    expect(analyses.every((analysis) => analysis.language === 'en')).toBe(true);
    expect(analyses.filter((analysis) => analysis.intent === 'other').length / analyses.length).toBeGreaterThan(0.9);
  });

  it('no prompt-injection false positive on 5,643 real passages (SciFact abstracts, Arabic Wikipedia)', () => {
    const documents = [
      ...readJsonl<{ title: string; text: string }>(resolve(scifact, 'corpus.jsonl.gz')),
      ...readJsonl<{ title: string; text: string }>(resolve(arcd, 'corpus.jsonl')),
    ];
    expect(documents.length).toBeGreaterThan(5000);
    const flagged = documents.filter((doc) => findInjections(`${doc.title}\n${doc.text}`).length > 0);
    expect(flagged).toEqual([]);
  });

  it('ARCD passages: LSH finds every near-duplicate pair an exhaustive comparison finds', () => {
    const corpus = readJsonl<{ id: string; title: string; text: string }>(resolve(arcd, 'corpus.jsonl'));
    const chunks: ScoredChunk[] = corpus.map((doc, i) => ({ chunk: toDocumentChunk({ id: doc.id, docId: doc.id, text: doc.text, title: doc.title }), score: 1 - i / corpus.length, scores: {} }));
    const outcome = new ChunkFilter({ minLength: 0, noise: false, exactDuplicates: false }).filter(chunks);

    // Exhaustive reference: every pair, exact shingle Jaccard, same greedy best-first rule.
    const sets = chunks.map((item) => shingleSet(words(normalizeText(item.chunk.text)), 3));
    const kept: number[] = [];
    const expected = new Set<string>();
    for (let i = 0; i < sets.length; i++) {
      const set = sets[i] as Set<number>;
      if (set.size > 0 && kept.some((k) => jaccard(set, sets[k] as Set<number>) >= 0.8)) expected.add(chunks[i]!.chunk.id);
      else kept.push(i);
    }
    const found = new Set(outcome.dropped.filter((drop) => drop.reason === 'near_duplicate').map((drop) => drop.chunkId));
    expect(expected.size).toBeGreaterThan(0);
    expect([...found].sort()).toEqual([...expected].sort());
  });
});
