import { expect } from 'vitest';
import { tokenize } from '@zerda/text';
import type { DocumentChunk, LengthCounter } from '@zerda/types';

const WHITESPACE_ONLY = /^\s*$/u;

/**
 * Rebuilds the covered text from the chunks alone, dropping the overlap: the first chunk, then for
 * each next chunk either its part after the previous end (overlap) or the whitespace gap from the
 * original text followed by the chunk.
 */
export function reassemble(text: string, chunks: readonly DocumentChunk[]): string {
  let out = '';
  let previousEnd = -1;
  for (const chunk of chunks) {
    const start = chunk.position.start as number;
    const end = chunk.position.end as number;
    if (previousEnd < 0) out = chunk.text;
    else if (start >= previousEnd) out += text.slice(previousEnd, start) + chunk.text;
    else out += chunk.text.slice(previousEnd - start);
    previousEnd = end;
  }
  return out;
}

export interface InvariantOptions {
  size: number;
  overlap?: number;
  counter: LengthCounter;
  /** How an oversize chunk may look: one word-ish token (prose) or one line (code). */
  oversize?: (chunk: DocumentChunk) => boolean;
}

/**
 * The guarantees every chunker makes, checked on one document:
 * 1. offsets: `text.slice(start, end) === chunk.text`, index/total right, ids `${docId}#${index}`;
 * 2. chunks are trimmed and non-empty; starts and ends strictly increase;
 * 3. coverage: everything outside the chunks is whitespace, so `reassemble` (chunks minus overlap,
 *    whitespace gaps from the original) equals the text between the first start and the last end,
 *    which is the text without its leading and trailing whitespace;
 * 4. size: only chunks flagged `metadata.oversize` exceed `size`, and those are one unsplittable unit;
 * 5. overlap: the part shared with the previous chunk measures at most `overlap`;
 * 6. no boundary falls inside a word or between a letter and its combining marks.
 */
export function expectChunkInvariants(text: string, chunks: readonly DocumentChunk[], options: InvariantOptions): void {
  const total = chunks.length;
  if (WHITESPACE_ONLY.test(text)) {
    expect(chunks).toEqual([]);
    return;
  }
  expect(total).toBeGreaterThan(0);
  const docId = chunks[0]?.docId as string;
  let previous: DocumentChunk | undefined;
  for (const [index, chunk] of chunks.entries()) {
    const start = chunk.position.start as number;
    const end = chunk.position.end as number;
    expect(text.slice(start, end)).toBe(chunk.text);
    expect(chunk.position.index).toBe(index);
    expect(chunk.position.total).toBe(total);
    expect(chunk.docId).toBe(docId);
    expect(chunk.id).toBe(`${docId}#${index}`);
    expect(chunk.text.length).toBeGreaterThan(0);
    expect(chunk.text.trim()).toBe(chunk.text);
    if (chunk.metadata.oversize === true) {
      expect(options.counter(chunk.text)).toBeGreaterThan(options.size);
      if (options.oversize) expect(options.oversize(chunk), `oversize chunk ${JSON.stringify(chunk.text.slice(0, 60))}`).toBe(true);
    } else {
      expect(options.counter(chunk.text), `chunk ${index} ${JSON.stringify(chunk.text.slice(0, 60))}`).toBeLessThanOrEqual(options.size);
    }
    if (previous) {
      const previousStart = previous.position.start as number;
      const previousEnd = previous.position.end as number;
      expect(start).toBeGreaterThan(previousStart);
      expect(end).toBeGreaterThan(previousEnd);
      if (start < previousEnd) {
        expect(options.counter(text.slice(start, previousEnd))).toBeLessThanOrEqual(options.overlap ?? 0);
      } else {
        expect(text.slice(previousEnd, start)).toMatch(WHITESPACE_ONLY);
      }
    } else {
      expect(text.slice(0, start)).toMatch(WHITESPACE_ONLY);
    }
    previous = chunk;
  }
  const first = chunks[0] as DocumentChunk;
  const last = chunks[total - 1] as DocumentChunk;
  expect(text.slice(last.position.end as number)).toMatch(WHITESPACE_ONLY);
  expect(reassemble(text, chunks)).toBe(text.slice(first.position.start as number, last.position.end as number));
  expect(reassemble(text, chunks)).toBe(text.trim());

  const boundaries = new Set<number>();
  for (const chunk of chunks) {
    boundaries.add(chunk.position.start as number);
    boundaries.add(chunk.position.end as number);
  }
  for (const token of tokenize(text)) {
    for (let inside = token.start + 1; inside < token.end; inside++) {
      expect(boundaries.has(inside), `boundary at ${inside} inside the word ${JSON.stringify(token.text)}`).toBe(false);
    }
  }
  for (const boundary of boundaries) {
    expect(/^\p{M}/u.test(text.slice(boundary)) && boundary > 0 && !/\s/u.test(text[boundary - 1] as string), `boundary at ${boundary} before a combining mark`).toBe(false);
  }
}

/** An oversize prose chunk is a single word (with its attached punctuation). */
export function isSingleWord(chunk: DocumentChunk): boolean {
  return !/\s/u.test(chunk.text) && tokenize(chunk.text).length <= 1;
}
