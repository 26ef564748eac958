import { describe, expect, it } from 'vitest';
import { chunkRecipe, composeEmbedding, poolWordCounts, sentencePool, syntheticChunk, syntheticCorpus } from './synthetic-corpus.js';

const documents = [
  { id: '1', title: 'Vitamin D and fractures', text: 'Vitamin D deficiency is common in older adults. It has been linked to fractures in cohorts. Short.' },
  { id: '2', title: 'Sleep and memory', text: 'Sleep deprivation impairs memory consolidation in adults. Naps partly restore recall performance.' },
  { id: '3', title: 'خاشقجي', text: 'جمال خاشقجي صحفي وإعلامي سعودي معروف. تقلّد منصب مستشار في مؤسسات عدة.' },
];

describe('synthetic corpus', () => {
  const pool = sentencePool(documents);

  it('draws sentences of 20–400 characters, Arabic included', () => {
    expect(pool.sentences).toContain('Sleep deprivation impairs memory consolidation in adults.');
    expect(pool.sentences).toContain('جمال خاشقجي صحفي وإعلامي سعودي معروف.');
    expect(pool.sentences).not.toContain('Short.');
    expect(pool.titles).toHaveLength(3);
  });

  it('is deterministic and every smaller corpus is a prefix of a larger one', () => {
    const small = syntheticCorpus(pool, 7, 50);
    const large = syntheticCorpus(pool, 7, 200);
    expect(large.slice(0, 50)).toEqual(small);
    expect(syntheticChunk(pool, 7, 123)).toEqual(large[123]);
    expect(syntheticCorpus(pool, 8, 50)).not.toEqual(small);
  });

  it('makes valid chunks of 2–5 pool sentences, four per document', () => {
    for (const chunk of syntheticCorpus(pool, 1, 40)) {
      expect(chunk.id).toMatch(/^syn-\d+$/);
      expect(chunk.docId).toBe(`syn-doc-${Math.floor(Number(chunk.id.slice(4)) / 4)}`);
      const used = pool.sentences.filter((sentence) => chunk.text.includes(sentence));
      expect(used.length).toBeGreaterThanOrEqual(1);
      expect(chunk.text.length).toBeGreaterThan(40);
      expect(pool.titles).toContain(chunk.title);
    }
  });

  it('composes a unit-length embedding weighted by the parts\' word counts', () => {
    const counts = poolWordCounts(pool);
    const axis = (dimension: number): Float32Array => Float32Array.from({ length: 3 }, (_, index) => (index === dimension ? 1 : 0));
    const embeddings = { sentences: pool.sentences.map((_, index) => axis(index % 2)), titles: pool.titles.map(() => axis(2)), ...counts };
    const recipe = chunkRecipe(pool, 3, 0);
    const vector = composeEmbedding(recipe, embeddings, new Float32Array(3));
    expect(Math.hypot(...vector)).toBeCloseTo(1, 6);
    const expected = [0, 0, counts.titleWords[recipe.title]!];
    for (const sentence of recipe.sentences) expected[sentence % 2]! += counts.sentenceWords[sentence]!;
    const norm = Math.hypot(...expected);
    expected.forEach((value, index) => expect(vector[index]).toBeCloseTo(value / norm, 6));
    expect(syntheticChunk(pool, 3, 0).text).toBe(recipe.sentences.map((sentence) => pool.sentences[sentence]).join(' '));
  });
});
