import fc from 'fast-check';
import { tokenCounter } from '@zerda/context-core';
import { charCounter, truncateAtWordBoundary } from '@zerda/text';
import { describe, expect, it } from 'vitest';
import { auditContext, collapseWhitespace, contributionOf, isGoldContribution, packNaively, summarizeAudits } from './context-metrics.js';

const english =
  'Vitamin D deficiency is common in older adults. It has been linked to a higher risk of fractures in several cohorts. ' +
  'A randomized trial of 2,000 participants found no reduction in fracture rates with supplementation. ' +
  'The authors conclude that routine supplementation is not justified for fracture prevention alone.';
const arabic =
  'جمال أحمد حمزة خاشقجي صحفي وإعلامي سعودي، رأس عدّة مناصب لعدد من الصحف في السعودية. ' +
  'تقلّد منصب مستشار، كما أنّه مدير عام قناة العرب الإخبارية سابقًا. ' +
  'وُلد في المدينة المنورة عام ١٩٥٨ وتوفي في إسطنبول عام ٢٠١٨؟ نعم، في القنصلية السعودية.';

describe('contributionOf', () => {
  it('credits the opening run found verbatim', () => {
    const context = `Header\n\n${english.slice(0, 150)} and then other text.`;
    const contribution = contributionOf(collapseWhitespace(context), english);
    expect(contribution.characters).toBe(150);
    expect(isGoldContribution(contribution)).toBe(false);
  });

  it('credits whole later sentences, as query-focused compression keeps them', () => {
    const sentences = english.split('. ');
    const compressed = `${sentences[0]}. […] ${sentences[2]}. ${sentences[3]}`;
    const contribution = contributionOf(collapseWhitespace(compressed), english);
    expect(contribution.characters).toBeGreaterThanOrEqual(200);
    expect(isGoldContribution(contribution)).toBe(true);
  });

  it('ignores whitespace differences but not changed words', () => {
    const reflowed = english.replace(/ /g, '\n  ');
    expect(contributionOf(collapseWhitespace(reflowed), english).characters).toBe(collapseWhitespace(english).length);
    const altered = english.replace('randomized', 'randomised');
    expect(contributionOf(collapseWhitespace(altered), english).characters).toBeLessThan(collapseWhitespace(english).length);
  });

  it('counts a short document whole', () => {
    const short = 'A short relevant passage of forty chars.';
    expect(isGoldContribution(contributionOf(`x ${short} y`, short))).toBe(true);
    expect(isGoldContribution(contributionOf(`x ${short.slice(0, 20)} y`, short))).toBe(false);
  });

  it('works on Arabic text with harakat, Arabic punctuation and digits', () => {
    const context = collapseWhitespace(`مقدمة\n${arabic}`);
    const contribution = contributionOf(context, arabic);
    expect(contribution.characters).toBe(collapseWhitespace(arabic).length);
    expect(isGoldContribution(contribution)).toBe(true);
    // Without the diacritics the text is not verbatim any more: only the part before the first shadda matches.
    const stripped = arabic.replace(/[\u064B-\u0652]/g, '');
    expect(contributionOf(collapseWhitespace(stripped), arabic).characters).toBeLessThan(200);
  });

  it('finds nothing in an empty context', () => {
    expect(contributionOf('', english).characters).toBe(0);
    expect(isGoldContribution(contributionOf('', english))).toBe(false);
  });
});

describe('auditContext', () => {
  it('splits a context into relevant, duplicate and irrelevant characters', () => {
    const other = 'Unrelated text about the migration of birds across the northern hemisphere in spring.';
    const context = `${english}\n\n${other}\n\n${english.split('. ')[1]}.`;
    const audit = auditContext(context, [english]);
    expect(audit.gold).toBe(true);
    expect(audit.relevant).toBe(collapseWhitespace(english).length);
    expect(audit.duplicate).toBeGreaterThan(50);
    expect(audit.irrelevant).toBeGreaterThanOrEqual(other.length);
    expect(audit.relevant + audit.duplicate + audit.irrelevant).toBe(audit.characters);
  });

  it('reports no gold when no relevant document is present', () => {
    const audit = auditContext('Something else entirely, long enough to be a sentence of its own.', [english, arabic]);
    expect(audit.gold).toBe(false);
    expect(audit.relevant).toBe(0);
  });
});

describe('summarizeAudits', () => {
  it('averages gold and scales shares by the budget used', () => {
    const full = { gold: true, characters: 100, relevant: 50, duplicate: 10, irrelevant: 40 };
    const half = { gold: false, characters: 50, relevant: 0, duplicate: 0, irrelevant: 50 };
    const summary = summarizeAudits([
      { audit: full, used: 100, budget: 100 },
      { audit: half, used: 50, budget: 100 },
    ]);
    expect(summary.goldInContext).toBe(0.5);
    expect(summary.budgetUsed).toBeCloseTo(0.75);
    expect(summary.duplicateShare).toBeCloseTo(0.05);
    expect(summary.irrelevantShare).toBeCloseTo((0.4 + 0.5) / 2);
  });
});

describe('packNaively', () => {
  it('never exceeds the budget and keeps the first document first', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 300 }), { maxLength: 12 }), fc.integer({ min: 0, max: 2000 }), (contents, budget) => {
        const packed = packNaively(contents, budget, charCounter);
        expect(charCounter(packed)).toBeLessThanOrEqual(budget);
        if (charCounter(contents.join('\n\n')) <= budget) expect(packed).toBe(contents.join('\n\n'));
      }),
    );
  });

  it('gives the same cut as truncating the whole text, with a token counter too', () => {
    const tokens = tokenCounter('cl100k_base');
    const contents = Array.from({ length: 10 }, (_, index) => (index % 2 === 0 ? english : arabic).repeat(3));
    for (const budget of [0, 7, 250, 500, 1000]) {
      expect(packNaively(contents, budget, tokens)).toBe(truncateAtWordBoundary(contents.join('\n\n'), budget, tokens, { ellipsis: '' }));
    }
    for (const budget of [1000, 2000, 4000]) expect(packNaively(contents, budget, charCounter)).toBe(truncateAtWordBoundary(contents.join('\n\n'), budget, charCounter, { ellipsis: '' }));
  });

  it('cuts Arabic text at a word boundary', () => {
    const packed = packNaively([arabic, english], 60, charCounter);
    expect(charCounter(packed)).toBeLessThanOrEqual(60);
    expect(arabic.startsWith(packed)).toBe(true);
    expect(arabic[packed.length]).toMatch(/\s|،/);
  });
});
