import { charCounter, defaultAnalyzer, fnv1a, wordCounter } from '@zerda/text';
import type { ContextTemplate, LengthCounter, QueryAnalysis, ScoredChunk } from '@zerda/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BIDI_CONTROLS, tokenLikeCounter } from './__fixtures__/chunks.js';
import { SmartContextComposer } from './index.js';

const WORDS = [
  'the', 'model', 'reads', 'context', 'budget', 'river', 'Nile', 'Paris', 'e.g.', '3.5', 'GPT-4', 'C++',
  'القاهرة', 'النِّيلِ', 'مكتبـــة', 'أحمد', 'إسلام', 'آمن', 'ٱلله', 'مستشفى', 'مدرسة', 'عَرَبِيٌّ', '٣٫٥',
  '😀', '👩‍👩‍👧', '🇸🇦', 'naïve', 'Ω', '中文', 'x',
];
const PUNCTUATION = [' ', ' ', ' ', ' ', '. ', '! ', '? ', '؟ ', '، ', '؛ ', '\n', '\n\n', '… ', ', ', ' - ', '\u200f', '\u200e'];

/** Text built from English, Arabic (harakat, tatweel, alef variants), emoji and punctuation, or arbitrary code units. */
const textArbitrary = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...PUNCTUATION)), { maxLength: 120 }).map((parts) => parts.map(([word, glue]) => word + glue).join('')) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 300 }) },
);

const chunkArbitrary = fc.record({
  text: textArbitrary,
  docId: fc.constantFrom('a', 'b', 'c'),
  index: fc.nat({ max: 4 }),
  source: fc.constantFrom('a.md', 'مصدر "عربي" <x>', 'https://example.org/?q=1&r=2'),
  title: fc.option(fc.constantFrom('Title', 'عنوان'), { nil: undefined }),
  embedding: fc.option(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 3, maxLength: 3 }), { nil: undefined }),
});

type ChunkSpec = typeof chunkArbitrary extends fc.Arbitrary<infer T> ? T : never;

function toScored(chunks: ChunkSpec[]): ScoredChunk[] {
  return chunks.map((chunk, rank) => ({
    chunk: {
      id: `${chunk.docId}#${chunk.index}#${rank}`,
      docId: chunk.docId,
      text: chunk.text,
      source: chunk.source,
      ...(chunk.title ? { title: chunk.title } : {}),
      metadata: {},
      position: { index: chunk.index },
      ...(chunk.embedding ? { embedding: chunk.embedding } : {}),
    },
    score: 1 / (rank + 1),
    scores: {},
  }));
}

const utf8 = new TextEncoder();

/** Counters: monotone ones (chars, words, tokens-like, bytes, UTF-16) and deliberately non-monotone ones. */
const counters: Record<string, LengthCounter> = {
  chars: charCounter,
  words: wordCounter,
  tokens: tokenLikeCounter,
  bytes: (text) => utf8.encode(text).length,
  utf16: (text) => text.length,
  hashed: (text) => fnv1a(text) % 3000,
  modulo: (text) => (text.length * 7919) % 4001,
  sine: (text) => Math.abs(Math.sin(text.length)) * 5000,
  constantPlusLength: (text) => 25 + text.length,
  negativeSometimes: (text) => (text.length % 5 === 0 ? -1 : text.length),
};

const customTemplate: ContextTemplate = (passages, context) =>
  passages.map((passage) => `${context.rtl ? '‹' : '<'}${passage.number}> ${passage.text}`).join('\n~~\n') + '\n[end]';

const analysisArbitrary = fc.option(
  fc.record({
    query: fc.constantFrom('Nile river', 'ما هو النيل؟', 'GPT-4 model budget', 'مكتبة القاهرة'),
    language: fc.constantFrom('ar', 'en', 'mixed', 'other') as fc.Arbitrary<QueryAnalysis['language']>,
    // 'other' (no question asked) composes as evidence: a minimum per chunk and a spread over chunks.
    intent: fc.constantFrom('factual', 'other') as fc.Arbitrary<QueryAnalysis['intent']>,
  }).map(({ query, language, intent }): QueryAnalysis => ({
    query,
    effectiveQuery: query,
    language,
    scriptMix: { arabic: 0.5, latin: 0.5, other: 0 },
    keywords: [...new Set(defaultAnalyzer.analyze(query))],
    complexity: 'simple',
    intent,
    suggestedBudget: 1000,
    suggestedChunks: 3,
  })),
  { nil: undefined },
);

const LETTERS = /[\p{L}\p{M}\p{N}]/u;

describe('the budget is never exceeded', () => {
  it('holds for random chunks, budgets, counters, templates, orderings, compression modes and lead modes (1,000 runs)', () => {
    fc.assert(
      fc.property(
        fc.array(chunkArbitrary, { maxLength: 10 }),
        fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.double({ min: 0, max: 5000, noNaN: true })),
        fc.constantFrom(...Object.keys(counters)),
        fc.constantFrom('default', 'numbered', 'markdown', 'xml', 'citations', 'custom'),
        fc.constantFrom('rank', 'document', 'edges'),
        fc.constantFrom('auto', 'always', 'off'),
        analysisArbitrary,
        fc.option(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 3, maxLength: 3 }), { nil: undefined }),
        fc.constantFrom<'sentences' | 'words'>('sentences', 'words'),
        (chunks, budget, counterName, templateName, ordering, compression, analysis, queryEmbedding, lead) => {
          const counter = counters[counterName]!;
          const composer = new SmartContextComposer({ ordering, compression }, { policy: { lead } });
          const scoredChunks = toScored(chunks);
          const before = JSON.stringify(scoredChunks);
          const template = templateName === 'custom' ? customTemplate : (templateName as 'default');
          const result = composer.compose(scoredChunks, {
            budget,
            counter,
            template,
            ...(analysis ? { analysis } : {}),
            ...(queryEmbedding ? { queryEmbedding } : {}),
          });
          // The promise: within the budget under this counter, or nothing at all.
          expect(result.context === '' || counter(result.context) <= budget).toBe(true);
          expect(result.stats.length).toBe(counter(result.context));
          // Every chunk is accounted for exactly once.
          const accounted = [...result.chunks.map((chunk) => chunk.chunk.id), ...result.skipped.map((skip) => skip.chunkId)].sort();
          expect(accounted).toEqual(scoredChunks.map((chunk) => chunk.chunk.id).sort());
          for (const used of result.chunks) {
            const text = used.chunk.text;
            expect(used.keptRatio).toBeGreaterThan(0);
            expect(used.keptRatio).toBeLessThanOrEqual(1);
            if (used.fit === 'whole') {
              expect(used.keptText).toBe(text);
            } else {
              expect(charCounter(used.keptText)).toBeGreaterThanOrEqual(50);
            }
            if (used.fit === 'truncated') {
              const prefix = used.keptText.endsWith('…') ? used.keptText.slice(0, -1) : used.keptText;
              expect(text.startsWith(prefix)).toBe(true);
              // Never inside a word, never between a letter and its combining marks.
              const next = text.slice(prefix.length, prefix.length + 1);
              expect(/^\p{M}/u.test(next)).toBe(false);
              const previous = prefix.slice(-1);
              if (LETTERS.test(previous) && LETTERS.test(next)) {
                expect(/\p{Script=Arabic}/u.test(previous) === /\p{Script=Arabic}/u.test(next)).toBe(false);
              }
            }
          }
          // Directional text is never marked up: no bidi control appears that the input did not have.
          const inputControls = scoredChunks.reduce((sum, chunk) => sum + (chunk.chunk.text.match(BIDI_CONTROLS)?.length ?? 0), 0);
          expect((result.context.match(BIDI_CONTROLS)?.length ?? 0) <= inputControls).toBe(true);
          expect(JSON.stringify(scoredChunks)).toBe(before);
        },
      ),
      { numRuns: 1000 },
    );
  }, 300_000);

  it('uses most of the budget with the character counter when the chunks are long enough', () => {
    fc.assert(
      fc.property(fc.integer({ min: 300, max: 5000 }), fc.constantFrom('default', 'citations', 'xml'), (budget, template) => {
        const sentence = (index: number) => `Sentence number ${index} of a long passage about rivers and cities and their history. `;
        const chunks = toScored(
          Array.from({ length: 8 }, (_, index) => ({
            text: Array.from({ length: 40 }, (_, sentenceIndex) => sentence(index * 100 + sentenceIndex)).join(''),
            docId: 'a',
            index,
            source: 'a.md',
            title: undefined,
            embedding: undefined,
          })),
        );
        const result = new SmartContextComposer().compose(chunks, { budget, template: template as 'default' });
        const length = charCounter(result.context);
        expect(length).toBeLessThanOrEqual(budget);
        expect(length).toBeGreaterThan(budget * 0.75);
      }),
      { numRuns: 100 },
    );
  }, 120_000);
});
