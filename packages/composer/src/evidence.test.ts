import { charCounter } from '@zerda/text';
import type { QueryAnalysis, ScoredChunk } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { analysisOf, scored, tokenLikeCounter } from './__fixtures__/chunks.js';
import { SmartContextComposer } from './index.js';

// Six abstracts that all bear on the claim, best first: the first has the most matching sentences.
const ENGLISH = [
  'Vitamin D supplementation reduces fracture risk in older adults. In a cohort of 2,000 adults vitamin D lowered fractures. Vitamin D levels rose within weeks. Fracture risk fell most in the oldest adults. Vitamin D also improved muscle strength. Falls and fractures were recorded for five years. The adults took vitamin D daily.',
  'A randomised trial tested vitamin D against placebo for fracture prevention. Fractures were fewer with vitamin D. The trial enrolled older adults in nursing homes.',
  'Meta-analysis of vitamin D trials: the fracture risk reduction depends on the dose. Higher doses of vitamin D reduced hip fractures in older adults.',
  'Vitamin D without calcium did not reduce fracture risk in this trial of adults. Calcium intake was measured at baseline.',
  'Observational data link low vitamin D to fractures in older adults. Causality remains uncertain.',
  'Vitamin D and bone density in older adults: bone density rose, fracture risk was not measured.',
];
const ARABIC = [
  'يقلل فيتامين د خطر الكسور لدى كبار السن. في دراسة على ألفي شخص خفض فيتامين د الكسور. ارتفعت مستويات فيتامين د خلال أسابيع. انخفض خطر الكسور أكثر لدى الأكبر سنا. حسّن فيتامين د قوة العضلات أيضا. سُجلت حالات السقوط والكسور خمس سنوات. تناول المشاركون فيتامين د يوميا.',
  'اختبرت تجربة عشوائية فيتامين د مقابل دواء وهمي للوقاية من الكسور. كانت الكسور أقل مع فيتامين د. شملت التجربة كبار السن في دور الرعاية.',
  'تحليل تجميعي لتجارب فيتامين د: يعتمد انخفاض خطر الكسور على الجرعة. خفضت الجرعات الأعلى من فيتامين د كسور الورك لدى كبار السن.',
  'لم يقلل فيتامين د دون الكالسيوم خطر الكسور في هذه التجربة. قيس تناول الكالسيوم في البداية.',
  'تربط بيانات رصدية نقص فيتامين د بالكسور لدى كبار السن. تبقى السببية غير مؤكدة.',
  'فيتامين د وكثافة العظام لدى كبار السن: ارتفعت الكثافة ولم يُقس خطر الكسور.',
];

const chunksOf = (texts: readonly string[]): ScoredChunk[] => texts.map((text, index) => scored(`doc${index}#0`, text, {}, 1 - index * 0.05));
// The claims below are eight words or more: `moderate`, as the query analyzer says of them.
const asking = (query: string, intent: QueryAnalysis['intent'], complexity: QueryAnalysis['complexity'] = 'moderate'): QueryAnalysis => ({ ...analysisOf(query), intent, complexity });

describe('evidence composition: a query that asks no question', () => {
  for (const [language, texts, claim] of [
    ['English', ENGLISH, 'vitamin D reduces fracture risk in older adults'],
    ['Arabic', ARABIC, 'فيتامين د يقلل خطر الكسور لدى كبار السن'],
  ] as const) {
    it(`${language}: every passage keeps at least a tenth of the budget, and the context spreads over more documents than a question's`, () => {
      const composer = new SmartContextComposer();
      const off = new SmartContextComposer({ evidence: { minChunkShare: 0, spread: 1 } });
      let claimDocuments = 0;
      let questionDocuments = 0;
      for (const budget of [300, 400, 500, 600]) {
        const claimResult = composer.compose(chunksOf(texts), { budget, analysis: asking(claim, 'other') });
        const questionResult = composer.compose(chunksOf(texts), { budget, analysis: asking(claim, 'factual') });
        expect(charCounter(claimResult.context)).toBeLessThanOrEqual(budget);
        for (const used of claimResult.chunks) {
          const whole = charCounter(used.chunk.text);
          expect(Math.min(whole, charCounter(used.keptText.replace(/ \[…\] /gu, ' ')))).toBeGreaterThanOrEqual(Math.min(whole, budget / 10));
        }
        // Never fewer documents than the question's composition, and more over the budgets together.
        expect(claimResult.chunks.length).toBeGreaterThanOrEqual(questionResult.chunks.length);
        claimDocuments += claimResult.chunks.length;
        questionDocuments += questionResult.chunks.length;
        // Turned off, a claim is composed like a question.
        expect(off.compose(chunksOf(texts), { budget, analysis: asking(claim, 'other') }).context).toBe(questionResult.context);
      }
      expect(claimDocuments).toBeGreaterThan(questionDocuments);
    });
  }
});

describe('a keyword search keeps the floor of a question', () => {
  // A short query that asks no question looks a fact up: with margin 1 (the value fit never preferred)
  // its context is lead packing of the ranking, as a question's is; a claim's stays spread for evidence.
  const floor = new SmartContextComposer({}, { policy: { margin: 1 } });
  for (const [language, texts, search, claim] of [
    ['English', ENGLISH, 'vitamin D fracture', 'vitamin D reduces fracture risk in older adults'],
    ['Arabic', ARABIC, 'فيتامين د الكسور', 'فيتامين د يقلل خطر الكسور لدى كبار السن'],
  ] as const) {
    it(`${language}: a keyword search falls back to lead packing; a claim keeps its evidence`, () => {
      let searchDocuments = 0;
      let claimDocuments = 0;
      for (const budget of [300, 500, 800]) {
        const lead = floor.compose(chunksOf(texts), { budget, analysis: asking(search, 'factual', 'simple'), compression: 'off' });
        const keywords = floor.compose(chunksOf(texts), { budget, analysis: asking(search, 'other', 'simple') });
        // Lead packing cuts its last passage at a word where the readable cut stops at a sentence.
        expect(keywords.chunks.map((used) => used.chunk.id)).toEqual(lead.chunks.map((used) => used.chunk.id));
        keywords.chunks.slice(0, -1).forEach((used) => expect(used.fit).toBe('whole'));
        const evidence = floor.compose(chunksOf(texts), { budget, analysis: asking(claim, 'other') });
        expect(evidence.chunks.length).toBeGreaterThanOrEqual(keywords.chunks.length);
        searchDocuments += keywords.chunks.length;
        claimDocuments += evidence.chunks.length;
      }
      expect(claimDocuments).toBeGreaterThan(searchDocuments);
    });
  }
});

describe('evidence composition: budgets in tokens and bad settings', () => {
  it('converts the minimum into characters at each chunk’s own rate when the budget is in tokens', () => {
    const composer = new SmartContextComposer({ evidence: { minChunkShare: 0.3, spread: 1 } });
    const budget = 200;
    const result = composer.compose(chunksOf(ENGLISH), { budget, counter: tokenLikeCounter, analysis: asking('vitamin D fracture risk', 'other') });
    expect(tokenLikeCounter(result.context)).toBeLessThanOrEqual(budget);
    for (const used of result.chunks) {
      // 30 % of 200 tokens is 60 tokens: every chunk used keeps about that much (or is whole).
      if (used.fit !== 'whole') expect(tokenLikeCounter(used.keptText)).toBeGreaterThanOrEqual(50);
    }
  });

  it('rejects evidence settings out of range, naming the field', () => {
    expect(() => new SmartContextComposer({ evidence: { minChunkShare: 2 } })).toThrow(/evidence\.minChunkShare/);
    expect(() => new SmartContextComposer({ evidence: { spread: 0 } })).toThrow(/evidence\.spread/);
    expect(() => new SmartContextComposer({ evidence: { minShare: 0.1 } as never })).toThrow(/minShare/);
  });
});
