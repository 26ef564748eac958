import { describe, expect, it } from 'vitest';
import { ZerdaError } from '@zerda/types';
import { charCounter } from '@zerda/text';
import type { OversizeUnit } from './chunk-config.js';
import { RecursiveChunker } from './recursive-chunker.js';
import { stableDocumentId } from './chunk-builder.js';
import { expectChunkInvariants, isSingleWord } from './__fixtures__/invariants.js';

const paragraph = (seed: string, sentences: number) =>
  Array.from({ length: sentences }, (_, index) => `${seed} sentence number ${index + 1} is here.`).join(' ');

describe('RecursiveChunker', () => {
  it('returns no chunk for empty or blank text', () => {
    const chunker = new RecursiveChunker();
    expect(chunker.chunk('')).toEqual([]);
    expect(chunker.chunk(' \n\t\n ')).toEqual([]);
  });

  it('keeps a text that fits as one chunk, with trimmed exact offsets', () => {
    const text = '  \n Hello, world.  \n';
    const [chunk, ...rest] = new RecursiveChunker().chunk(text, 'greeting');
    expect(rest).toEqual([]);
    expect(chunk).toEqual({
      id: 'greeting#0',
      docId: 'greeting',
      text: 'Hello, world.',
      source: 'greeting',
      metadata: {},
      position: { index: 0, total: 1, start: 4, end: 17 },
    });
  });

  it('ends chunks at paragraph ends when paragraphs fit', () => {
    const paragraphs = [paragraph('Alpha', 2), paragraph('Beta', 2), paragraph('Gamma', 2), paragraph('Delta', 2)];
    const text = paragraphs.join('\n\n');
    const chunks = new RecursiveChunker({ size: 130 }).chunk(text);
    expectChunkInvariants(text, chunks, { size: 130, counter: charCounter });
    for (const chunk of chunks) {
      expect(paragraphs.some((p) => chunk.text.endsWith(p))).toBe(true);
      expect(paragraphs.some((p) => chunk.text.startsWith(p))).toBe(true);
    }
  });

  it('falls back to sentences, then clauses, then words', () => {
    const text = paragraph('Long', 6);
    const chunks = new RecursiveChunker({ size: 80 }).chunk(text);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(chunk.text.endsWith('.')).toBe(true);

    const clauses = 'first clause with words, second clause with words; third clause with words: fourth clause';
    const clauseChunks = new RecursiveChunker({ size: 40 }).chunk(clauses);
    expect(clauseChunks.map((chunk) => chunk.text)).toEqual([
      'first clause with words,',
      'second clause with words;',
      'third clause with words: fourth clause',
    ]);

    const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa';
    const wordChunks = new RecursiveChunker({ size: 12 }).chunk(words);
    expectChunkInvariants(words, wordChunks, { size: 12, counter: charCounter });
    expect(wordChunks.map((chunk) => chunk.text)).toContain('alpha beta');
  });

  it('repeats up to `overlap` from the end of a chunk, starting at a word', () => {
    const text = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen';
    const chunks = new RecursiveChunker({ size: 30, overlap: 12 }).chunk(text);
    expectChunkInvariants(text, chunks, { size: 30, overlap: 12, counter: charCounter });
    for (let index = 1; index < chunks.length; index++) {
      const previous = chunks[index - 1]!;
      const chunk = chunks[index]!;
      expect(chunk.position.start!).toBeLessThan(previous.position.end!);
      expect(text[chunk.position.start! - 1]).toBe(' ');
      const shared = text.slice(chunk.position.start!, previous.position.end!);
      expect(previous.text.endsWith(shared)).toBe(true);
      expect(chunk.text.startsWith(shared)).toBe(true);
    }
  });

  it('keeps an unsplittable 5,000-character word whole and reports it', () => {
    const word = 'x'.repeat(5000);
    const text = `Before the word. ${word} After the word.`;
    const reported: OversizeUnit[] = [];
    const chunker = new RecursiveChunker({ size: 100, onOversize: (unit) => reported.push(unit) });
    const { chunks, report } = chunker.chunkWithReport(text, 'long');
    expectChunkInvariants(text, chunks, { size: 100, counter: charCounter, oversize: isSingleWord });
    const oversize = chunks.filter((chunk) => chunk.metadata.oversize === true);
    expect(oversize.map((chunk) => chunk.text)).toEqual([word]);
    const expected = { docId: 'long', index: oversize[0]!.position.index, start: 17, end: 5017, length: 5000, size: 100, unit: 'chars' };
    expect(report.oversize).toEqual([expected]);
    expect(reported).toEqual([expected]);
    chunker.chunk('short');
    expect(chunker.lastReport).toEqual({ docId: stableDocumentId('short'), chunkCount: 1, oversize: [] });
  });

  it('splits a long run without spaces between its words, never inside one', () => {
    const url = 'https://example.com/' + Array.from({ length: 30 }, (_, index) => `segment${index}`).join('/');
    const chunks = new RecursiveChunker({ size: 40 }).chunk(url);
    expectChunkInvariants(url, chunks, { size: 40, counter: charCounter });
    expect(chunks.every((chunk) => chunk.metadata.oversize !== true)).toBe(true);
  });

  it('accepts the legacy docId string and the options object', () => {
    const legacy = new RecursiveChunker({ size: 25 }).chunk('First sentence here. Second sentence here.', 'doc-7');
    expect(legacy.map((chunk) => chunk.id)).toEqual(['doc-7#0', 'doc-7#1']);
    expect(legacy.every((chunk) => chunk.source === 'doc-7' && chunk.docId === 'doc-7')).toBe(true);

    const metadata = { lang: 'en', tags: ['a'] };
    const chunks = new RecursiveChunker({ size: 25 }).chunk('First sentence here. Second sentence here.', {
      docId: 'manual',
      source: 'https://example.com/manual',
      title: 'The manual',
      metadata,
    });
    expect(chunks).toHaveLength(2);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ docId: 'manual', source: 'https://example.com/manual', title: 'The manual', metadata: { lang: 'en', tags: ['a'] } });
    }
    chunks[0]!.metadata.lang = 'changed';
    expect(chunks[1]!.metadata.lang).toBe('en');
    expect(metadata.lang).toBe('en');
  });

  it('derives a stable docId from the text when none is given', () => {
    const chunker = new RecursiveChunker();
    const first = chunker.chunk('نص عربي قصير')[0]!;
    const again = chunker.chunk('نص عربي قصير')[0]!;
    const other = chunker.chunk('نص عربي آخر')[0]!;
    expect(first.docId).toMatch(/^doc-[0-9a-f]{14}$/);
    expect(again.docId).toBe(first.docId);
    expect(other.docId).not.toBe(first.docId);
    expect(first.id).toBe(`${first.docId}#0`);
  });

  it('rejects bad input with the field named', () => {
    const chunker = new RecursiveChunker();
    const cases: Array<[() => unknown, string, string]> = [
      [() => chunker.chunk(5 as never), 'text', 'text must be a string, got number 5'],
      [() => chunker.chunk('x', ''), 'docId', 'docId must be a non-empty string, got string ""'],
      [() => chunker.chunk('x', { docId: '' }), 'options.docId', ''],
      [() => chunker.chunk('x', { metadata: { score: Number.NaN } }), 'options.metadata.score', ''],
      [() => chunker.chunk('x', { doc: 'a' } as never), 'options.doc', ''],
    ];
    for (const [run, field, message] of cases) {
      let caught: unknown;
      try {
        run();
      } catch (error) {
        caught = error;
      }
      expect(ZerdaError.isInstance(caught), field).toBe(true);
      expect((caught as ZerdaError).code).toBe('ZERDA_INVALID_ARGUMENT');
      expect((caught as ZerdaError).details.field).toBe(field);
      if (message) expect((caught as ZerdaError).message).toBe(message);
    }
  });

  it('chunks a 1 MB document', () => {
    const text = Array.from({ length: 4000 }, (_, index) => `${paragraph(`P${index}`, 3)}\n\n`).join('').slice(0, 1_000_000);
    const chunks = new RecursiveChunker({ size: 1000, overlap: 100 }).chunk(text);
    expect(chunks.length).toBeGreaterThan(200);
    expect(chunks[chunks.length - 1]!.position.end).toBe(text.trimEnd().length);
  });
});
