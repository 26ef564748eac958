import fc from 'fast-check';
import { seededRandom, toDocumentChunk, type DocumentChunk } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { Bm25Index, type AnalyzedChunk, type WeightedTerm } from './bm25-index.js';
import { BLOCK_SIZE, MAX_BLOCK_SPAN } from './postings.js';
import type { Bm25Parameters } from './scoring.js';
import { WINDOW } from './pruning.js';

/**
 * Block-max pruning must return exactly the top k of scoring every live chunk: the same chunks, in
 * the same order, with bit-identical scores. The reference below shares no code with the index: it
 * scores each chunk from its analysed terms, summing the terms in the index's documented order
 * (highest weight first, ties in query order) with the documented expressions.
 */
interface ReferenceChunk {
  chunk: DocumentChunk;
  counts: Map<string, { text: number; title: number }>;
  textLength: number;
  titleLength: number;
  order: number;
}

/** The live chunks with their term counts (computed once per corpus, queried many times). */
function reference(entries: readonly AnalyzedChunk[], removed: ReadonlySet<string>): ReferenceChunk[] {
  return entries.flatMap((entry, order) => {
    if (removed.has(entry.chunk.id)) return [];
    const counts = new Map<string, { text: number; title: number }>();
    for (const [field, terms] of [['text', entry.textTerms], ['title', entry.titleTerms]] as const) {
      for (const term of terms) {
        const value = counts.get(term) ?? { text: 0, title: 0 };
        value[field] = Math.min(value[field] + 1, 0xffff);
        counts.set(term, value);
      }
    }
    return [{ chunk: entry.chunk, counts, textLength: entry.textTerms.length, titleLength: entry.titleTerms.length, order }];
  });
}

function naiveTopK(live: readonly ReferenceChunk[], query: readonly WeightedTerm[], k: number, parameters: Bm25Parameters, accept?: (chunk: DocumentChunk) => boolean) {
  const { k1, b, titleWeight } = parameters;
  const totalText = live.reduce((sum, chunk) => sum + chunk.textLength, 0);
  const totalTitle = live.reduce((sum, chunk) => sum + chunk.titleLength, 0);
  const averageLength = (totalText + titleWeight * totalTitle) / live.length;
  if (!(averageLength > 0)) return [];
  const terms = query
    .map(({ term, weight }) => {
      const documentFrequency = live.filter((chunk) => chunk.counts.has(term)).length;
      return { term, weight: Math.log(1 + (live.length - documentFrequency + 0.5) / (documentFrequency + 0.5)) * weight * (k1 + 1), documentFrequency };
    })
    .filter((term) => term.documentFrequency > 0);
  terms.sort((x, y) => y.weight - x.weight);
  const lengthFree = k1 * (1 - b);
  const lengthScale = (k1 * b) / averageLength;
  const scored: Array<{ chunk: DocumentChunk; score: number; order: number; matched: string[] }> = [];
  for (const chunk of live) {
    const norm = lengthFree + lengthScale * (chunk.textLength + titleWeight * chunk.titleLength);
    let score = 0;
    const matched: string[] = [];
    for (const term of terms) {
      const count = chunk.counts.get(term.term);
      if (!count) continue;
      const frequency = count.text + titleWeight * count.title;
      if (!(frequency > 0)) continue;
      score += (term.weight * frequency) / (frequency + norm);
      matched.push(term.term);
    }
    if (matched.length > 0 && (!accept || accept(chunk.chunk))) scored.push({ chunk: chunk.chunk, score, order: chunk.order, matched });
  }
  return scored
    .sort((x, y) => y.score - x.score || x.order - y.order)
    .slice(0, k)
    .map(({ chunk, score, matched }) => ({ id: chunk.id, score, matched }));
}

/** A corpus with a Zipf-like vocabulary: common terms get long, many-block lists; rare ones short. */
function randomCorpus(seed: number, size: number, vocabulary: number, options: { maxLength: number; titles: number; repeats: number }): AnalyzedChunk[] {
  const random = seededRandom(seed);
  const word = () => `t${Math.floor(vocabulary * random() ** 2.5)}`;
  return Array.from({ length: size }, (_, index) => {
    const length = Math.floor(random() * options.maxLength);
    const textTerms = Array.from({ length }, word);
    // Now and then a term repeated past what a one-byte frequency code holds (31 text, 7 title).
    if (random() < options.repeats) textTerms.push(...Array.from({ length: 32 + Math.floor(random() * 40) }, () => textTerms[0] ?? 't0'));
    const titleTerms = random() < options.titles ? Array.from({ length: 1 + Math.floor(random() * (random() < 0.05 ? 12 : 3)) }, word) : [];
    return { chunk: toDocumentChunk({ id: `c${index}`, docId: `d${index % 97}`, text: '', metadata: { bucket: index % 3 } }), textTerms, titleTerms };
  });
}

function hitsOf(index: Bm25Index, query: WeightedTerm[], k: number, parameters: Bm25Parameters, accept?: (chunk: DocumentChunk) => boolean) {
  return index.search(query, k, parameters, accept).hits.map(({ chunk, score, matched }) => ({ id: chunk.id, score, matched: [...matched] }));
}

const queryArbitrary = (vocabulary: number) =>
  fc.array(
    fc.record({
      term: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: vocabulary + 5 })).map((rank) => `t${rank}`),
      weight: fc.integer({ min: 1, max: 3 }),
    }),
    { minLength: 1, maxLength: 12 },
  ).map((terms) => [...new Map(terms.map((term) => [term.term, term])).values()]);

describe('Bm25Index: block-max pruning equals exhaustive scoring (property)', () => {
  it('on random corpora, queries, k, parameters, filters and writes: same ids, order, scores and matched terms as a naive BM25', () => {
    fc.assert(
      fc.property(
        fc.record({
          seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
          size: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: WINDOW - 50, max: 3 * WINDOW + 100 })),
          vocabulary: fc.integer({ min: 5, max: 3000 }),
          maxLength: fc.integer({ min: 1, max: 60 }),
          titles: fc.double({ min: 0, max: 1, noNaN: true }),
          repeats: fc.constantFrom(0, 0.01),
          added: fc.integer({ min: 0, max: 400 }),
          removed: fc.integer({ min: 0, max: 30 }),
        }),
        fc.record({ k1: fc.constantFrom(0, 0.9, 1.2, 2), b: fc.constantFrom(0, 0.4, 0.75, 1), titleWeight: fc.constantFrom(0, 1, 2.5) }),
        fc.array(fc.tuple(queryArbitrary(3000), fc.constantFrom(1, 3, 10, 30, 100), fc.boolean()), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        // Few length classes: chunks past them take the unclassed path (norm from their lengths).
        fc.constantFrom(undefined, 1, 4),
        (corpus, parameters, queries, knownParameters, lengthClasses) => {
          const entries = randomCorpus(corpus.seed, corpus.size + corpus.added, corpus.vocabulary, corpus);
          const index = new Bm25Index(undefined, { pruning: true, ...(knownParameters ? { parameters } : {}), ...(lengthClasses !== undefined ? { lengthClasses } : {}) });
          index.rebuild(entries.slice(0, corpus.size));
          // Writes after the build: a delta segment, tombstones and a changed average length.
          if (corpus.added > 0) index.add(entries.slice(corpus.size));
          const removed = new Set<string>();
          const random = seededRandom(corpus.seed ^ 0x5bd1e995);
          for (let count = 0; count < corpus.removed; count++) removed.add(`c${Math.floor(random() * entries.length)}`);
          index.removeChunks([...removed]);
          const live = reference(entries, removed);
          for (const [query, k, filtered] of queries) {
            const accept = filtered ? (chunk: DocumentChunk) => chunk.metadata.bucket !== 1 : undefined;
            expect(hitsOf(index, query, k, parameters, accept)).toEqual(naiveTopK(live, query, k, parameters, accept));
          }
        },
      ),
      { numRuns: 50 },
    );
  }, 300_000);

  it('a compacted and a reloaded index prune the same way', () => {
    const parameters = { k1: 1.2, b: 0.75, titleWeight: 1 };
    const entries = randomCorpus(11, 3 * WINDOW, 800, { maxLength: 40, titles: 0.3, repeats: 0.01 });
    const index = new Bm25Index(undefined, { pruning: true, parameters });
    index.rebuild(entries.slice(0, 2 * WINDOW));
    index.add(entries.slice(2 * WINDOW));
    index.removeDocuments(['d5', 'd6']);
    index.compact();
    const removed = new Set(entries.filter(({ chunk }) => chunk.docId === 'd5' || chunk.docId === 'd6').map(({ chunk }) => chunk.id));
    const reloaded = new Bm25Index(undefined, { pruning: true, parameters });
    reloaded.load(index.snapshot());
    const live = reference(entries, removed);
    fc.assert(
      fc.property(queryArbitrary(800), fc.constantFrom(1, 10, 50), (query, k) => {
        const expected = naiveTopK(live, query, k, parameters);
        expect(hitsOf(index, query, k, parameters)).toEqual(expected);
        expect(hitsOf(reloaded, query, k, parameters)).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  }, 120_000);

  it('blocks break before their ordinals span 16 bits, and such lists still search exactly', () => {
    // A term in every 30 000th chunk of 140 000: each block of it is cut by the span, not the size.
    const size = 2 * MAX_BLOCK_SPAN + 10_000;
    const entries: AnalyzedChunk[] = Array.from({ length: size }, (_, index) => ({
      chunk: toDocumentChunk({ id: `c${index}`, docId: `d${index}`, text: '' }),
      textTerms: index % 30_000 === 7 ? ['rare', 'common'] : index % 3 === 0 ? ['common'] : ['other'],
      titleTerms: [],
    }));
    const parameters = { k1: 1.2, b: 0.75, titleWeight: 1 };
    const index = new Bm25Index(undefined, { pruning: true, parameters });
    index.rebuild(entries);
    const query = [{ term: 'rare', weight: 1 }, { term: 'common', weight: 1 }];
    expect(hitsOf(index, query, 5, parameters)).toEqual(naiveTopK(reference(entries, new Set()), query, 5, parameters));
    expect(hitsOf(index, query, 5, parameters).map(({ id }) => id)).toEqual(['c7', 'c30007', 'c60007', 'c90007', 'c120007']);
    // The common term fills whole blocks.
    expect(index.stats().postings).toBeGreaterThan(BLOCK_SIZE * 100);
  }, 120_000);

  it('reports which query terms each hit contains', () => {
    const index = new Bm25Index();
    index.rebuild([
      { chunk: toDocumentChunk({ id: 'a', docId: 'a', text: '' }), textTerms: ['river', 'bank'], titleTerms: [] },
      { chunk: toDocumentChunk({ id: 'b', docId: 'b', text: '' }), textTerms: ['money'], titleTerms: ['bank'] },
      { chunk: toDocumentChunk({ id: 'c', docId: 'c', text: '' }), textTerms: ['water'], titleTerms: [] },
    ]);
    const { hits, checked } = index.search([{ term: 'bank', weight: 1 }, { term: 'river', weight: 1 }, { term: 'unknown', weight: 1 }], 10, { k1: 1.2, b: 0.75, titleWeight: 1 });
    expect(new Set(checked)).toEqual(new Set(['bank', 'river', 'unknown']));
    expect(Object.fromEntries(hits.map((hit) => [hit.chunk.id, [...hit.matched].sort()]))).toEqual({ a: ['bank', 'river'], b: ['bank'] });
  });
});
