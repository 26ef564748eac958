import fc from 'fast-check';
import { describe, it } from 'vitest';
import { charCounter, wordCounter } from '@zerda/text';
import type { LengthCounter } from '@zerda/types';
import { RecursiveChunker } from './recursive-chunker.js';
import { ArabicTextChunker } from './arabic-text-chunker.js';
import { StructureAwareChunker } from './structure-aware-chunker.js';
import { ContextAwareChunker } from './context-aware-chunker.js';
import { arabicText, markdownText, mixedText, sizing } from './__fixtures__/arbitraries.js';
import { expectChunkInvariants, isSingleWord } from './__fixtures__/invariants.js';

// A tokenizer-like counter: about four characters per token, at least one per word.
const roughTokens: LengthCounter = Object.assign((text: string) => Math.max(wordCounter(text), Math.ceil(text.length / 4)), { unit: 'tokens' });
const counters: Array<[string, LengthCounter | undefined]> = [
  ['chars', undefined],
  ['words', wordCounter],
  ['tokens', roughTokens],
];

describe.each(counters)('invariants with the %s counter', (_name, counter) => {
  const measure = counter ?? charCounter;

  it('RecursiveChunker: exact offsets, coverage, size, overlap, whole words', () => {
    fc.assert(
      fc.property(mixedText, sizing, (text, config) => {
        const chunker = new RecursiveChunker({ ...config, ...(counter ? { counter } : {}) });
        expectChunkInvariants(text, chunker.chunk(text, 'doc'), { ...config, counter: measure, oversize: isSingleWord });
      }),
      { numRuns: 150 },
    );
  });

  it('ArabicTextChunker: the same guarantees on Arabic and mixed text', () => {
    fc.assert(
      fc.property(fc.oneof(arabicText, mixedText), sizing, (text, config) => {
        const chunker = new ArabicTextChunker({ ...config, ...(counter ? { counter } : {}) });
        expectChunkInvariants(text, chunker.chunk(text, 'doc'), { ...config, counter: measure, oversize: isSingleWord });
      }),
      { numRuns: 150 },
    );
  });

  it('StructureAwareChunker: the same guarantees on Markdown and on arbitrary text', () => {
    fc.assert(
      fc.property(fc.oneof(markdownText, mixedText), sizing, (text, config) => {
        const chunker = new StructureAwareChunker({ ...config, ...(counter ? { counter } : {}) });
        // An oversize Markdown chunk is one word, or one line of code.
        expectChunkInvariants(text, chunker.chunk(text, 'doc'), {
          ...config,
          counter: measure,
          oversize: (chunk) => isSingleWord(chunk) || !/[\r\n]/u.test(chunk.text),
        });
      }),
      { numRuns: 150 },
    );
  });
});

describe('ContextAwareChunker invariants', () => {
  // A deterministic bag-of-letters embedding: similar texts, similar vectors.
  const embed = (texts: string[]) =>
    texts.map((text) => {
      const vector = new Array<number>(8).fill(0);
      for (const char of text) vector[(char.codePointAt(0) ?? 0) % 8] = (vector[(char.codePointAt(0) ?? 0) % 8] as number) + 1;
      return vector;
    });

  it('keeps exact offsets, coverage, size and overlap whatever the similarities', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(mixedText, arabicText), sizing, fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 2 }), async (text, config, breakpointPercentile, bufferSize) => {
        const chunker = new ContextAwareChunker({ ...config, embedder: embed, breakpointPercentile, bufferSize });
        expectChunkInvariants(text, await chunker.chunk(text, 'doc'), { ...config, counter: charCounter, oversize: isSingleWord });
      }),
      { numRuns: 120 },
    );
  });
});
