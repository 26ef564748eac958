import { ChunkFilter } from '@zerda/context-core';
import { charCounter, truncateAtWordBoundary, wordCounter } from '@zerda/text';
import { ZerdaError, type DocumentChunk, type ScoredChunk } from '@zerda/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GreedyCompression,
  HashDeduplication,
  PrefixDeduplication,
  ScoreRanking,
  asChunkFilter,
  asChunkRanker,
  validateChunk,
  type ScoredTuple,
} from './index.js';

function errorOf(action: () => unknown): ZerdaError {
  try {
    action();
  } catch (error) {
    expect(ZerdaError.isInstance(error)).toBe(true);
    return error as ZerdaError;
  }
  throw new Error('expected a ZerdaError');
}

const chunk = (docId: string, text: string) => ({ docId, text });

describe('validateChunk (spec: validate_chunk)', () => {
  it('passes silently for a good chunk', () => {
    expect(validateChunk({ docId: 'doc-1', text: 'some text' })).toBeUndefined();
    expect(validateChunk({ docId: 'doc-2', text: 'نص عربي مع تشكيلٍ' })).toBeUndefined();
  });

  it('refuses a chunk whose text is not a string, naming the field, with a TypeError as cause', () => {
    const error = errorOf(() => validateChunk({ docId: 'doc-1', text: 123 }));
    expect(error.message).toBe('chunk.text must be a string, got number 123');
    expect(error.code).toBe('ZERDA_INVALID_ARGUMENT');
    expect(error.details.field).toBe('chunk.text');
    expect(error.cause).toBeInstanceOf(TypeError);
    expect((error.cause as TypeError).message).toBe(error.message);
  });

  it('refuses non-objects and a missing docId', () => {
    expect(errorOf(() => validateChunk(null)).message).toBe('chunk must be an object with string text and docId, got null');
    expect(errorOf(() => validateChunk('text')).details.field).toBe('chunk');
    expect(errorOf(() => validateChunk({ text: 'x' })).message).toBe('chunk.docId must be a string, got undefined');
  });

  it('spec example 3: validating chunks before legacy processing fails early on the malformed one', () => {
    const raw: [unknown, number][] = [
      [chunk('a', 'first'), 0.9],
      [{ docId: 'b', text: ['not', 'text'] }, 0.8],
      [chunk('c', 'third'), 0.7],
    ];
    const validated: string[] = [];
    const error = errorOf(() => {
      for (const [candidate] of raw) {
        validateChunk(candidate);
        validated.push(candidate.docId);
      }
    });
    expect(validated).toEqual(['a']);
    expect(error.message).toBe('chunk.text must be a string, got array(2)');
  });
});

describe('PrefixDeduplication', () => {
  it('keeps the first tuple per lowercased prefix, in order', () => {
    const a = chunk('a', 'The Nile is the longest river in Africa. It flows north.');
    const b = chunk('b', 'THE NILE IS THE LONGEST river, says another source.');
    const c = chunk('c', 'Berlin is the capital of Germany and its largest city.');
    const input: ScoredTuple[] = [[a, 0.9], [b, 0.95], [c, 0.5]];
    expect(new PrefixDeduplication(20).deduplicate(input)).toEqual([[a, 0.9], [c, 0.5]]);
    expect(new PrefixDeduplication(40).deduplicate(input)).toEqual(input);
  });

  it('counts the prefix in characters (code points), Arabic included', () => {
    const first = chunk('a', 'مكتبة الإسكندرية 😀 مركز ثقافي كبير');
    const second = chunk('b', 'مكتبة الإسكندرية 😀 مكان آخر تماما');
    // The texts share 20 code points (the emoji is one, though two UTF-16 units) and differ at the 21st.
    expect(new PrefixDeduplication(20).deduplicate([[first, 1], [second, 1]])).toEqual([[first, 1]]);
    expect(new PrefixDeduplication(21).deduplicate([[first, 1], [second, 1]])).toHaveLength(2);
  });

  it('spec: a chunk shorter than the prefix is refused with the documented message; input untouched', () => {
    const shortChunk = { text: 'short' };
    const input: ScoredTuple[] = [[chunk('long', 'x'.repeat(150)), 0.5], [shortChunk, 0.9]];
    const copy = JSON.stringify(input);
    const error = errorOf(() => new PrefixDeduplication(100).deduplicate(input));
    expect(error.message).toBe('prefixLength 100 exceeds chunk text length 5 (chunks[1][0].text)');
    expect(error.details.field).toBe('chunks[1][0].text');
    expect(JSON.stringify(input)).toBe(copy);
    expect(errorOf(() => new PrefixDeduplication().deduplicate([[shortChunk, 0.9]])).message).toMatch(/^prefixLength 100 exceeds chunk text length 5/);
  });

  it('spec example 4: on failure, fall back to HashDeduplication, which has no length constraint', () => {
    const shortChunks: ScoredTuple[] = [[chunk('a', 'short'), 0.9], [chunk('b', 'SHORT'), 0.8], [chunk('c', 'other'), 0.7]];
    let unique: ScoredTuple[];
    try {
      unique = new PrefixDeduplication(200).deduplicate(shortChunks);
    } catch (error) {
      expect(ZerdaError.isInstance(error)).toBe(true);
      unique = new HashDeduplication().deduplicate(shortChunks);
    }
    expect(unique.map(([item]) => item.docId)).toEqual(['a', 'c']);
  });

  it('refuses a bad prefixLength and malformed tuples', () => {
    expect(errorOf(() => new PrefixDeduplication(0)).details.field).toBe('prefixLength');
    expect(errorOf(() => new PrefixDeduplication(2.5)).details.field).toBe('prefixLength');
    expect(errorOf(() => new PrefixDeduplication(5).deduplicate('x' as never)).details.field).toBe('chunks');
    expect(errorOf(() => new PrefixDeduplication(5).deduplicate([[{ text: 5 }, 1]] as never)).message).toBe('chunks[0][0].text must be a string, got number 5');
  });
});

describe('HashDeduplication', () => {
  it('spec example 1: chunk1 kept once', () => {
    const chunk1 = chunk('1', 'Paris is the capital of France.');
    const chunk2 = chunk('2', 'Berlin is the capital of Germany.');
    expect(new HashDeduplication().deduplicate([[chunk1, 0.9], [chunk2, 0.8], [chunk1, 0.95]])).toEqual([[chunk1, 0.9], [chunk2, 0.8]]);
  });

  it('normalises like the modern filter: whitespace, case, harakat, tatweel, alef and yeh variants, digits', () => {
    const variants = [
      'The  Nile\n flows NORTH.',
      'the nile flows north.',
      'يَمُرُّ نَهْرُ النّيـــل بأسوان ٢٠٢٤',
      'يمر نهر النيل باسوان 2024',
      'إلى مستشفى',
      'الى مستشفي',
    ].map((text, index) => [chunk(String(index), text), 1] as const);
    expect(new HashDeduplication().deduplicate(variants).map(([item]) => item.docId)).toEqual(['0', '2', '4']);
  });

  it('agrees with ChunkFilter (exact duplicates only) on which chunks are duplicates', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('Nile river', 'nile  RIVER', 'النِّيل', 'النيـل', 'نهر', 'Berlin Wall', 'berlin wall', ' ٣ rivers', '3 rivers'), { maxLength: 12 }), (texts) => {
        const documents: DocumentChunk[] = texts.map((text, index) => ({ id: `c${index}`, docId: `c${index}`, text, source: 's', metadata: {}, position: { index: 0 } }));
        // Decreasing scores: the filter keeps the best-scored copy, the legacy class the first; here they coincide.
        const scored: ScoredChunk[] = documents.map((document, index) => ({ chunk: document, score: 1 - index / 100, scores: {} }));
        const filter = new ChunkFilter({ nearDuplicates: { enabled: false }, noise: false, minLength: 0 });
        const modern = (filter.filter(scored) as { kept: ScoredChunk[] }).kept.map((item) => item.chunk.id);
        const legacy = new HashDeduplication().deduplicate(documents.map((document, index) => [document, 1 - index / 100] as const)).map(([item]) => item.id);
        expect(legacy).toEqual(modern);
      }),
      { numRuns: 200 },
    );
  });

  it('does not raise on short or empty chunks', () => {
    expect(new HashDeduplication().deduplicate([[chunk('a', ''), 1], [chunk('b', ' '), 1], [chunk('c', 'x'), 1]])).toHaveLength(2);
  });
});

describe('ScoreRanking', () => {
  const tuples = (): ScoredTuple[] => [
    [chunk('a', 'alpha'), 0.2],
    [chunk('b', 'beta'), 0.9],
    [chunk('c', 'gamma'), 0.5],
    [chunk('d', 'delta'), 0.9],
    [chunk('e', 'إبسلون'), -1],
  ];

  it('sorts by score, highest first, stably, and returns all when maxChunks is undefined or null', () => {
    const ids = (list: ScoredTuple[]) => list.map(([item]) => item.docId);
    expect(ids(new ScoreRanking().rank(tuples()))).toEqual(['b', 'd', 'c', 'a', 'e']);
    expect(ids(new ScoreRanking().rank(tuples(), null))).toEqual(['b', 'd', 'c', 'a', 'e']);
    expect(ids(new ScoreRanking().rank(tuples(), 2))).toEqual(['b', 'd']);
    expect(new ScoreRanking().rank(tuples(), 0)).toEqual([]);
    expect(new ScoreRanking().rank(tuples(), 99)).toHaveLength(5);
  });

  it('does not modify the input', () => {
    const input = tuples();
    const copy = JSON.stringify(input);
    new ScoreRanking().rank(input, 3);
    expect(JSON.stringify(input)).toBe(copy);
  });

  it('refuses bad maxChunks and non-numeric scores', () => {
    expect(errorOf(() => new ScoreRanking().rank(tuples(), -1)).details.field).toBe('maxChunks');
    expect(errorOf(() => new ScoreRanking().rank(tuples(), 1.5)).details.field).toBe('maxChunks');
    expect(errorOf(() => new ScoreRanking().rank([[chunk('a', 'x'), Number.NaN]])).message).toBe('chunks[0][1] must be a number (the score), got number NaN');
    expect(errorOf(() => new ScoreRanking().rank([[chunk('a', 'x'), '0.5']] as never)).details.field).toBe('chunks[0][1]');
  });
});

describe('GreedyCompression (the six documented steps)', () => {
  const separator = '\n---\n';
  const compression = new GreedyCompression();
  const sentence = (n: number) => `Part ${n} explains one idea in a complete sentence of ordinary length.`;

  it('MIN_CONTENT_LENGTH is 50 and truncate is the shared truncation', () => {
    expect(GreedyCompression.MIN_CONTENT_LENGTH).toBe(50);
    const text = 'The quick brown fox jumps over the lazy dog near the river bank.';
    expect(GreedyCompression.truncate(text, 20)).toBe(truncateAtWordBoundary(text, 20));
    expect(GreedyCompression.truncate(text, 5, wordCounter)).toBe(truncateAtWordBoundary(text, 5, wordCounter));
  });

  it('step 1: a context within the target is returned unchanged', () => {
    const context = ['Header', sentence(1), 'Footer'].join(separator);
    expect(compression.compress(context, context.length, charCounter, separator)).toBe(context);
  });

  it("step 2: a target of 0 gives ''; a negative target, which no context can meet, is refused", () => {
    expect(compression.compress('some context that is long', 0, charCounter, separator)).toBe('');
    const error = errorOf(() => compression.compress('some context that is long', -5, charCounter, separator));
    expect(error.code).toBe('ZERDA_INVALID_ARGUMENT');
    expect(error.message).toMatch(/^target must be a number >= 0, got number -5/);
  });

  it('step 3: with two parts or fewer, the whole context is cut at a word boundary', () => {
    const context = `${sentence(1)}${separator}${sentence(2)}`;
    expect(compression.compress(context, 40, charCounter, separator)).toBe(truncateAtWordBoundary(context, 40));
    const arabic = 'يمر نهر النيل بمصر والسودان ويصب في البحر المتوسط بعد رحلة طويلة';
    const cut = compression.compress(arabic, 30, charCounter, separator);
    expect(cut).toBe(truncateAtWordBoundary(arabic, 30));
    expect(arabic.startsWith(cut.slice(0, -1))).toBe(true);
  });

  it('step 4: header and footer kept, middle parts greedily, the first that does not fit cut (not dropped), then stop', () => {
    const parts = ['Header: context for the query', sentence(1), sentence(2), sentence(3), sentence(4), 'Footer: end of context'];
    const context = parts.join(separator);
    const overhead = parts[0]!.length + parts[5]!.length + 2 * separator.length;
    const target = overhead + 2 * sentence(1).length + separator.length + 30;
    const result = compression.compress(context, target, charCounter, separator);
    const resultParts = result.split(separator);
    expect(resultParts[0]).toBe(parts[0]);
    expect(resultParts.at(-1)).toBe(parts[5]);
    expect(resultParts.slice(1, 3)).toEqual([sentence(1), sentence(2)]);
    expect(resultParts).toHaveLength(5);
    expect(resultParts[3]!.endsWith('…')).toBe(true);
    expect(sentence(3).startsWith(resultParts[3]!.slice(0, -1))).toBe(true);
    expect(result.length).toBeLessThanOrEqual(target);
  });

  it('step 5: with less than MIN_CONTENT_LENGTH of room, only the header is kept (cut to the target)', () => {
    const parts = ['Header line that introduces the context', sentence(1), sentence(2), 'Footer line'];
    const context = parts.join(separator);
    const overhead = parts[0]!.length + parts[3]!.length + 2 * separator.length;
    expect(compression.compress(context, overhead + 49, charCounter, separator)).toBe(parts[0]);
    expect(compression.compress(context, 20, charCounter, separator)).toBe(truncateAtWordBoundary(parts[0]!, 20));
  });

  it('step 6: a result still over the target under a non-additive counter is cut as a whole', () => {
    const parts = ['Header', sentence(1), sentence(2), sentence(3), 'Footer'];
    const context = parts.join(separator);
    // A penalty growing with the square of the separators a text contains: the joined result costs more than its parts.
    const counter = (text: string) => text.length + 10 * (text.split(separator).length - 1) ** 2;
    const target = 260;
    const result = compression.compress(context, target, counter, separator);
    expect(counter(result)).toBeLessThanOrEqual(target);
    // Cut as a whole: a prefix of header, first part and the cut second part, ending in one ellipsis.
    expect(result.endsWith('…')).toBe(true);
    expect(context.startsWith(result.slice(0, -1))).toBe(true);
    expect(result.endsWith('Footer')).toBe(false);
    expect(result.split(separator).length).toBeGreaterThanOrEqual(3);
  });

  it('spec example 2: the full legacy pipeline', () => {
    const retrieved: ScoredTuple[] = Array.from({ length: 30 }, (_, index) => [chunk(`d${index % 20}`, `${sentence(index % 20)} ${'More detail follows here. '.repeat(3)}`), (index % 20) / 20]);
    let chunks = new HashDeduplication().deduplicate(retrieved);
    expect(chunks).toHaveLength(20);
    chunks = new ScoreRanking().rank(chunks, 10);
    expect(chunks.map(([, score]) => score)).toEqual([0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5]);
    const context = chunks.map(([item]) => item.text).join('\n---\n');
    const compressed = new GreedyCompression().compress(context, 1500, charCounter, '\n---\n');
    expect(compressed.length).toBeLessThanOrEqual(1500);
    expect(compressed.startsWith(chunks[0]![0].text)).toBe(true);
    expect(compressed.endsWith(chunks[9]![0].text)).toBe(true);
  });

  it('never exceeds the target under monotone counters', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 120 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 800 }),
        fc.constantFrom(charCounter, wordCounter, (text: string) => text.length),
        (parts, target, counter) => {
          const result = compression.compress(parts.join(separator), target, counter, separator);
          expect(counter(result)).toBeLessThanOrEqual(target);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses bad input naming the argument', () => {
    expect(errorOf(() => compression.compress(5 as never, 10)).details.field).toBe('context');
    expect(errorOf(() => compression.compress('x', Number.NaN)).details.field).toBe('target');
    expect(errorOf(() => compression.compress('x', 10, 'len' as never)).details.field).toBe('counter');
    expect(errorOf(() => compression.compress('x', 10, charCounter, '')).details.field).toBe('separator');
    expect(errorOf(() => compression.compress('a long text', 1, () => Number.NaN)).details.field).toBe('counter');
  });
});

describe('adapters to the modern strategy interfaces', () => {
  const scored = (id: string, text: string, score: number): ScoredChunk => ({
    chunk: { id, docId: id, text, source: 's', metadata: {}, position: { index: 0 } },
    score,
    scores: { composite: score, keyword: score * 3 },
  });

  it('asChunkFilter runs a legacy deduplication as a ChunkFilter and reports what it removed', async () => {
    const input = [scored('a', 'Same text', 0.9), scored('b', 'same  TEXT', 0.8), scored('c', 'Other', 0.7)];
    const outcome = await asChunkFilter(new HashDeduplication()).filter(input);
    expect(outcome.kept).toEqual([input[0], input[2]]);
    expect(outcome.dropped).toEqual([{ chunkId: 'b', reason: 'duplicate', detail: 'removed by HashDeduplication' }]);
  });

  it('asChunkRanker runs a legacy ranking as a ChunkRanker, honouring maxChunks and keeping the scores', async () => {
    const input = [scored('a', 'x', 0.1), scored('b', 'y', 0.7), scored('c', 'z', 0.4)];
    const ranked = await asChunkRanker(new ScoreRanking()).rank(input, { maxChunks: 2 });
    expect(ranked).toEqual([input[1], input[2]]);
    expect(ranked[0]?.scores.keyword).toBeCloseTo(2.1);
  });

  it('refuses objects that are not legacy strategies', () => {
    expect(errorOf(() => asChunkFilter({} as never)).details.field).toBe('strategy');
    expect(errorOf(() => asChunkRanker(null as never)).details.field).toBe('strategy');
  });
});
