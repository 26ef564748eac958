import { describe, expect, it } from 'vitest';
import { KeywordRetriever } from './keyword-retriever.js';
import { bm25Contribution, chunkNorm, inverseDocumentFrequency, lengthNormalization, termWeight } from './index.js';

// The exported formula is the one the index scores with: a score computed by hand from it equals
// the retriever's to the last bit (what a backend's own copy, e.g. pgvector's SQL, is tested against).
describe('the exported BM25 formula', () => {
  it('reproduces KeywordRetriever scores exactly, with title counts and lengths', async () => {
    const parameters = { k1: 1.2, b: 0.75, titleWeight: 2 };
    const retriever = new KeywordRetriever(parameters);
    await retriever.index([
      { id: 'a', docId: 'a', text: 'zebra apple' },
      { id: 'b', docId: 'b', text: 'apple banana cherry' },
      { id: 'c', docId: 'c', text: 'zebra zebra zebra', title: 'zebra' },
    ].map((chunk) => ({ ...chunk, source: chunk.id, metadata: {}, position: { index: 0, total: 1 } })));
    const hits = await retriever.retrieve('zebra', { topK: 3 });
    // Lengths: a 2, b 3, c 3 text + 1 title (counting titleWeight times); zebra is in 2 of 3 chunks.
    const averageLength = (2 + 3 + (3 + 2 * 1)) / 3;
    const normalization = lengthNormalization(parameters, averageLength);
    const weight = termWeight(inverseDocumentFrequency(3, 2), 1, parameters.k1);
    const expected = {
      c: bm25Contribution(weight, 3 + 2 * 1, chunkNorm(normalization, 3, 1, parameters.titleWeight)),
      a: bm25Contribution(weight, 1, chunkNorm(normalization, 2, 0, parameters.titleWeight)),
    };
    expect(hits.map((hit) => [hit.chunk.id, hit.score])).toEqual([
      ['c', expected.c],
      ['a', expected.a],
    ]);
  });

  it('is (w · tf) / (tf + norm), growing with tf and shrinking with the norm', () => {
    expect(bm25Contribution(2, 3, 1)).toBe(1.5);
    expect(bm25Contribution(1, 2, 1)).toBeGreaterThan(bm25Contribution(1, 1, 1));
    expect(bm25Contribution(1, 1, 2)).toBeLessThan(bm25Contribution(1, 1, 1));
    expect(chunkNorm({ lengthFree: 0.3, lengthScale: 0.5 }, 4, 1, 2)).toBe(0.3 + 0.5 * 6);
  });
});
