import { describe, expect, it } from 'vitest';
import { tokenCounter } from '@zerda/context';
import type { BenchDataset } from './datasets.js';
import { buildConversation, messageLengths, promptText, runStrategy, STRATEGIES } from './long-conversations.js';
import { insertLongConversationsSection, SECTION_HEADING } from './long-conversations-report.js';

function dataset(language: 'en' | 'ar'): BenchDataset {
  const documents = Array.from({ length: 40 }, (_, index) => ({
    id: `d${index}`,
    title: language === 'ar' ? `موضوع ${index}` : `Topic ${index}`,
    text: index === 7 ? (language === 'ar' ? 'تأسست المكتبة الوطنية عام ١٨٧٠ في المدينة القديمة.' : 'The national library was founded in 1870 in the old town.') : `${language === 'ar' ? 'نص عادي' : 'Plain filler text'} ${index}. `.repeat(30),
  }));
  return {
    name: `tiny-${language}`,
    language,
    documents,
    queries: [{ id: 'q', text: language === 'ar' ? 'متى تأسست المكتبة الوطنية؟' : 'When was the national library founded?' }],
    qrels: new Map([['q', new Map([['d7', 1]])]]),
    full: { documents: 40, queries: 1 },
    answers: new Map([['q', [language === 'ar' ? '١٨٧٠' : '1870']]]),
  };
}

describe('long conversations benchmark', () => {
  for (const language of ['en', 'ar'] as const) {
    it(`builds a 20–200 turn conversation whose lookup holds the gold passage, the same for a seed (${language})`, { timeout: 60_000 }, async () => {
      const first = buildConversation(dataset(language), 'q', 3)!;
      expect(buildConversation(dataset(language), 'q', 3)).toEqual(first);
      expect(first.turns).toBeGreaterThanOrEqual(20);
      expect(first.turns).toBeLessThanOrEqual(200);
      expect(first.messages.at(-1)!.role).toBe('user');
      const lookup = first.messages[first.referredMessage + 2]!;
      expect(promptText([lookup])).toContain(language === 'ar' ? '١٨٧٠' : '1870');
      const counter = tokenCounter('o200k_base');
      const lengths = messageLengths(first.messages, counter);
      const everything = await runStrategy('everything', first, lengths, 1e9, counter);
      expect(everything).toMatchObject({ fits: true, answer: true, referredTurn: true });
      for (const strategy of STRATEGIES) {
        const outcome = await runStrategy(strategy, first, lengths, 2048, counter);
        if (strategy === 'everything') expect(outcome.fits).toBe(lengths.reduce((sum, length) => sum + length, 0) <= 2048);
        else expect(outcome.fits).toBe(true);
      }
    });
  }

  it('replaces its section in BENCHMARKS.md, or inserts it before the systems section', () => {
    const section = `${SECTION_HEADING}\n\nnew\n`;
    const inserted = insertLongConversationsSection('# b\n\n## A\n\na\n\n## How each system was used\n\nx\n', section);
    expect(inserted).toBe(`# b\n\n## A\n\na\n\n${section}\n## How each system was used\n\nx\n`);
    expect(insertLongConversationsSection(inserted, `${SECTION_HEADING}\n\nnewer\n`)).toBe(`# b\n\n## A\n\na\n\n${SECTION_HEADING}\n\nnewer\n\n## How each system was used\n\nx\n`);
  });
});
