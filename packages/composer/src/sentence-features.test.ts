import { defaultAnalyzer } from '@zerda/text';
import type { QueryAnalysis } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { FEATURE_NAMES, analyzeChunk, featureRecord, sentenceFeatures } from './index.js';

const analysis = { query: 'nile delta', effectiveQuery: 'nile delta', keywords: ['nile', 'delta'], language: 'en', intent: 'question', answerType: 'other', complexity: 'simple' } as unknown as QueryAnalysis;

function featuresOf(texts: readonly string[]) {
  const signals = texts.map((text, index) => ({ analysis: analyzeChunk(text, defaultAnalyzer), rank: index + 1, strength: 10 - index }));
  return sentenceFeatures(signals, analysis, ['nile', 'delta'], defaultAnalyzer).map((sentences) => sentences.map((sentence) => featureRecord(sentence.vector)));
}

describe('sentence features: where the query matches best (language- and style-independent)', () => {
  it('mark the best-matching sentence of each chunk, its neighbours by distance, the one after it, and coverage relative to the best anywhere', () => {
    const [first, second] = featuresOf([
      'Cairo is large. The Nile delta is wide. It holds the answer. Markets are busy.',
      'Rivers flow. The Nile is long.',
    ]);
    expect(first!.map((sentence) => sentence.bestHere)).toEqual([0, 1, 0, 0]);
    expect(first!.map((sentence) => sentence.nearBest)).toEqual([0.5, 1, 0.5, 0.25]);
    expect(first!.map((sentence) => sentence.afterBest)).toEqual([0, 0, 1, 0]);
    expect(first![1]!.relativeCoverage).toBe(1);
    expect(second![1]!.bestHere).toBe(1);
    expect(second![1]!.relativeCoverage).toBeGreaterThan(0);
    expect(second![1]!.relativeCoverage).toBeLessThan(1);
  });

  it('are 0 in a chunk without any query term', () => {
    const [only] = featuresOf(['Cairo is large. Markets are busy.']);
    for (const sentence of only!) expect([sentence.bestHere, sentence.nearBest, sentence.afterBest, sentence.relativeCoverage]).toEqual([0, 0, 0, 0]);
  });

  it('are in the feature list a model is fitted on', () => {
    for (const name of ['bestHere', 'nearBest', 'afterBest', 'relativeCoverage']) expect(FEATURE_NAMES).toContain(name);
  });
});
