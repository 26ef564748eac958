import { defaultAnalyzer } from '@zerda/text';
import { describe, expect, it } from 'vitest';
import { ChunkAnalysisCache } from './sentence-value.js';

describe('the chunk-analysis memo is bounded in characters, not only in entries', () => {
  it('keeps at most 2,000,000 characters of chunk text however large the chunks (English and Arabic)', () => {
    const cache = new ChunkAnalysisCache(defaultAnalyzer);
    const sentence = (index: number) => (index % 2 === 0 ? `Sentence ${index} about retrieval. ` : `جملة ${index} عن الاسترجاع، والتوليد؟ `);
    for (let chunk = 0; chunk < 60; chunk++) {
      let text = '';
      for (let index = 0; text.length < 100_000; index++) text += sentence(chunk * 10_000 + index);
      const analysis = cache.get(text);
      expect(analysis.sentences.length).toBeGreaterThan(1000);
      expect(cache.characters).toBeLessThanOrEqual(2_000_000);
    }
    expect(cache.size).toBeGreaterThan(0);
    // A chunk over 200,000 characters is analysed every time, not kept.
    const huge = 'word '.repeat(50_000);
    const before = cache.size;
    expect(cache.get(huge).sentences.length).toBeGreaterThan(0);
    expect(cache.characters).toBeLessThanOrEqual(2_000_000);
    expect(cache.size).toBeLessThanOrEqual(before);
  });
});
