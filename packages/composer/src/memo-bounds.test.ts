import { defaultAnalyzer } from '@zerda/text';
import { describe, expect, it } from 'vitest';
import { ChunkAnalysisCache } from './sentence-value.js';
import { SmartContextComposer } from './smart-context-composer.js';

describe('the chunk-analysis memo is bounded in characters, not only in entries', () => {
  it('keeps at most 2,000,000 characters of chunk text however large the chunks (English and Arabic)', () => {
    const cache = new ChunkAnalysisCache(defaultAnalyzer, 2_000_000);
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

describe('SmartContextComposer options.analysisCacheCharacters', () => {
  it('bounds the analyses kept, and 0 keeps none (the same contexts either way)', () => {
    const chunks = Array.from({ length: 6 }, (_, index) => ({
      chunk: { id: `c${index}`, documentId: `d${index}`, text: index % 2 ? `المدينة رقم ${index} تقع جنوب النهر، وفيها متحف؟ نعم.` : `City ${index} lies south of the river. It has a museum.`, source: 's', position: { index: 0 } },
      score: 1 - index / 10,
    }));
    const options = { budget: 120, analysis: { query: 'where is the museum', keywords: ['museum'], language: 'en' as const, answerType: 'place' as const } };
    const contexts = [8_000_000, 0, 50].map((characters) => new SmartContextComposer({}, { analysisCacheCharacters: characters }).compose(chunks as never, options as never).context);
    expect(contexts[1]).toBe(contexts[0]);
    expect(contexts[2]).toBe(contexts[0]);
    expect(contexts[0]!.length).toBeGreaterThan(0);
  });

  it('is refused unless an integer >= 0, naming the option', () => {
    for (const bad of [-1, 1.5, Number.NaN, '10', null]) {
      expect(() => new SmartContextComposer({}, { analysisCacheCharacters: bad as never })).toThrow(/options\.analysisCacheCharacters.*integer >= 0/);
    }
  });
});
