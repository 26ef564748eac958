import { charCounter, splitSentences } from '@zerda/text';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Composition } from './composition.js';
import type { Candidate } from './passages.js';
import { ENGLISH_LABELS, resolveTemplate } from './templates.js';
import { fitByValue, fitMeasures, type CandidateValues } from './value-fit.js';

/** One composition of `texts` (best first) in `budget` characters, with the default template. */
function compositionOf(texts: readonly string[], budget: number): Composition {
  const candidates: Candidate[] = texts.map((text, index) => {
    const chunk = { id: `c${index}`, docId: `d${index}`, text, source: `s${index}`, metadata: {}, position: { index: 0 } };
    return { chunk, scored: { chunk, score: 1, scores: { keyword: 1 } }, rank: index + 1 };
  });
  return new Composition({
    candidates,
    budget,
    counter: charCounter,
    template: resolveTemplate('default'),
    templateContext: { rtl: false, labels: ENGLISH_LABELS, separator: '\n\n' },
    ordering: 'rank',
    gapMarker: ' […] ',
    minChunkLength: 0,
  });
}

function valuesOf(text: string, values: (sentence: string, index: number) => number): CandidateValues {
  const sentences = splitSentences(text);
  return { sentences, values: sentences.map((sentence, index) => values(sentence.text, index)) };
}

describe('fitByValue: the sentence worth most first', () => {
  // One long sentence very likely to hold the answer among short ones each a little likely: per
  // character the short ones are worth more, so the greedy by density fills the budget with them.
  const long = 'The flood of 1952 reached the delta in the second week of July and covered the fields of every village between the river and the desert.';
  const text = `${long} Rain fell. Roads shut. Wind rose. Birds left. Ships sank. Crops died. Men fled. Dogs ran.`;
  const values = valuesOf(text, (sentence) => (sentence === long ? 0.9 : 0.15));
  const budget = charCounter(long) + 30;

  it('the greedy by density crowds the long sentence out; taking the sentence worth most first keeps it and holds more', () => {
    const composition = compositionOf([text], budget);
    const byDensity = fitByValue(composition, [values]);
    const byValue = fitByValue(composition, [values], { first: 'value' });
    expect(byValue).toBeDefined();
    const kept = (fit: typeof byDensity) => fit.fitted.flatMap((item) => item.spans.map((span) => text.slice(span.start, span.end))).join(' ');
    expect(kept(byDensity)).not.toContain(long);
    expect(kept(byValue!)).toContain(long);
    const map = new Map([[composition.setup.candidates[0]!, values]]);
    expect(fitMeasures(byValue!.fitted, map).presence).toBeGreaterThan(fitMeasures(byDensity.fitted, map).presence);
    expect(composition.fits(byValue!.fitted)).toBe(true);
  });

  it('is undefined when the greedy by density takes the same sentence first', () => {
    const dense = valuesOf(text, (sentence) => (sentence === long ? 0.99 : 0.01));
    expect(fitByValue(compositionOf([text], budget), [dense], { first: 'value' })).toBeUndefined();
  });

  it('always fits, and keeps the sentence worth most among those that fit alone (property)', () => {
    const sentence = fc.array(fc.constantFrom('river', 'delta', 'النيل', 'القاهرة', '1952', 'water', 'يجري'), { minLength: 1, maxLength: 25 }).map((words) => `${words.join(' ')}.`);
    fc.assert(
      fc.property(fc.array(fc.array(fc.tuple(sentence, fc.oneof(fc.constantFrom(0.9, 0.3, 0.15, 0.01), fc.double({ min: 0.001, max: 0.999, noNaN: true }))), { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 }), fc.integer({ min: 40, max: 600 }), (chunks, budget) => {
        const texts = chunks.map((pairs) => pairs.map(([words]) => words).join(' '));
        const composition = compositionOf(texts, budget);
        const values = texts.map((chunkText, index) => valuesOf(chunkText, (_, position) => chunks[index]![position]?.[1] ?? 0.001));
        // The sentence worth most among those that fit alone, in their chunk's frame, with room to spare
        // for what the fit estimates a frame to cost (it prices a passage with the separator to the next).
        const spare = compositionOf(texts, Math.max(0, budget - 10));
        let best = 0;
        values.forEach((entry, index) =>
          entry.sentences.forEach((kept, position) => {
            if (spare.fits([{ candidate: spare.setup.candidates[index]!, spans: [{ start: kept.start, end: kept.end }], fit: 'compressed' }])) best = Math.max(best, entry.values[position]!);
          }),
        );
        const byValue = fitByValue(composition, values, { first: 'value' }) ?? fitByValue(composition, values);
        expect(composition.fits(byValue.fitted)).toBe(true);
        const map = new Map(composition.setup.candidates.map((candidate, index) => [candidate, values[index]!]));
        expect(fitMeasures(byValue.fitted, map).presence).toBeGreaterThanOrEqual(best - 1e-6);
      }),
      { numRuns: 300 },
    );
  });
});
