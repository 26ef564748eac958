import fc from 'fast-check';
import { Analyzer } from '@zerda/text';
import { toDocumentChunk } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { Bm25Index, type AnalyzedChunk, type WeightedTerm } from './bm25-index.js';

// A Zipf-distributed corpus large enough that common terms have thousands of postings, so the
// MaxScore pruning path (lists >= 1024 postings) is exercised.
function zipfCorpus(count: number, vocabulary: number, seed: number): AnalyzedChunk[] {
  let state = seed >>> 0;
  const random = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const harmonic = Array.from({ length: vocabulary }, (_, index) => 1 / (index + 1));
  const total = harmonic.reduce((sum, value) => sum + value, 0);
  const cumulative: number[] = [];
  harmonic.reduce((sum, value) => (cumulative.push((sum + value) / total), sum + value), 0);
  const word = () => {
    const target = random();
    let low = 0;
    let high = vocabulary - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return `w${low}`;
  };
  return Array.from({ length: count }, (_, index) => ({
    chunk: toDocumentChunk({ id: `c${index}`, docId: `d${index % 50}`, text: '', metadata: { bucket: index % 3 } }),
    textTerms: Array.from({ length: 10 + Math.floor(random() * 50) }, word),
    titleTerms: random() < 0.3 ? [word(), word()] : [],
  }));
}

const corpus = zipfCorpus(6000, 800, 7);
const parameters = { k1: 0.9, b: 0.4, titleWeight: 1.5 };

function build(pruning: boolean): Bm25Index {
  const index = new Bm25Index(undefined, { pruning });
  index.rebuild(corpus.slice(0, 5000));
  index.add(corpus.slice(5000));
  index.removeDocuments(['d3', 'd17']);
  return index;
}

describe('Bm25Index: MaxScore pruning', () => {
  const pruned = build(true);
  const exhaustive = build(false);

  it('returns exactly what scoring every posting returns', () => {
    const termArbitrary = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 799 })).map((rank) => `w${rank}`);
    fc.assert(
      fc.property(fc.array(fc.record({ term: termArbitrary, weight: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 8 }), fc.constantFrom(1, 3, 10, 50), fc.boolean(), (query: WeightedTerm[], k, filtered) => {
        const accept = filtered ? (chunk: { metadata: Record<string, unknown> }) => chunk.metadata.bucket === 1 : undefined;
        expect(pruned.search(query, k, parameters, accept)).toEqual(exhaustive.search(query, k, parameters, accept));
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  it('really has long lists to prune (the test would be vacuous otherwise)', () => {
    const stats = pruned.stats();
    expect(stats.postings / stats.terms).toBeGreaterThan(100);
    expect(pruned.search([{ term: "w0", weight: 1 }], 5, parameters).hits).toHaveLength(5);
  });
});

describe('Bm25Index: snapshot validation', () => {
  it('rejects postings out of chunk order', async () => {
    const { validateSnapshot } = await import('./bm25-snapshot.js');
    const index = new Bm25Index();
    const analyzer = new Analyzer();
    index.rebuild(['alpha beta', 'alpha gamma'].map((text, position) => ({ chunk: toDocumentChunk({ docId: `d${position}`, text }), textTerms: analyzer.analyze(text), titleTerms: [] })));
    const snapshot = index.snapshot();
    expect(validateSnapshot(snapshot)).toBeUndefined();
    const alpha = snapshot.terms.indexOf('alpha');
    const start = snapshot.offsets[alpha]!;
    [snapshot.postingChunks[start], snapshot.postingChunks[start + 1]] = [snapshot.postingChunks[start + 1]!, snapshot.postingChunks[start]!];
    expect(validateSnapshot(snapshot)).toMatch(/increasing chunk order/);
  });
});
