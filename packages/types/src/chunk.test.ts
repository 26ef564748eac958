import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ZerdaError, toDocumentChunk, toDocumentChunks } from './index.js';

describe('toDocumentChunk', () => {
  it('fills defaults: id from docId and index, source from docId, empty metadata', () => {
    const chunk = toDocumentChunk({ docId: 'doc-1', text: 'مرحبا بالعالم' }, 3);
    expect(chunk).toEqual({ id: 'doc-1#3', docId: 'doc-1', text: 'مرحبا بالعالم', source: 'doc-1', metadata: {}, position: { index: 3 } });
  });

  it('keeps given fields and normalises timestamps to epoch milliseconds', () => {
    const chunk = toDocumentChunk({
      id: 'x', docId: 'd', text: 't', source: 's', title: 'T', metadata: { lang: 'ar', tags: ['a'] },
      position: { index: 1, total: 4, start: 10, end: 20 }, timestamp: new Date('2024-01-01T00:00:00Z'), embedding: new Float64Array([1, 2]),
    });
    expect(chunk.timestamp).toBe(Date.UTC(2024, 0, 1));
    expect(chunk.position).toEqual({ index: 1, total: 4, start: 10, end: 20 });
    expect(chunk.embedding).toBeInstanceOf(Float32Array);
    expect(toDocumentChunk({ docId: 'd', text: 't', timestamp: '2020-05-01' }).timestamp).toBe(Date.parse('2020-05-01'));
  });

  it.each([
    [{ docId: 'a', text: 5 }, 'chunk.text must be a string, got number 5'],
    [{ text: 'x' }, 'chunk.docId must be a string, got undefined'],
    [{ docId: 'a', text: 'x', metadata: { n: Number.NaN } }, 'chunk.metadata.n must be a JSON value'],
    [{ docId: 'a', text: 'x', timestamp: 'not a date' }, 'chunk.timestamp'],
    [{ docId: 'a', text: 'x', extra: 1 }, 'chunk.extra must be a known option'],
    [{ docId: 'a', text: 'x', position: { index: -1 } }, 'chunk.position.index must be >= 0, got number -1'],
    ['text', 'chunk must be an object, got string "text"'],
    [{ docId: 'a', text: 'x', metadata: JSON.parse('{"__proto__": 1}') }, 'chunk.metadata.__proto__ must be a key other than __proto__'],
    [{ docId: 'a', text: 'x', embedding: [1, Number.NaN] }, 'chunk.embedding[1] must be a finite number, got number NaN'],
  ])('rejects %j with a ZerdaError naming the field', (input, message) => {
    let thrown: unknown;
    try {
      toDocumentChunk(input);
    } catch (error) {
      thrown = error;
    }
    expect(ZerdaError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toContain(message);
  });

  it('toDocumentChunks numbers chunks without a position per document', () => {
    const chunks = toDocumentChunks([{ docId: 'a', text: 'x' }, { docId: 'b', text: 'y' }, { docId: 'a', text: 'z' }, { docId: 'c', text: 'w', position: { index: 4 } }]);
    expect(chunks.map((chunk) => [chunk.id, chunk.position.index])).toEqual([['a#0', 0], ['b#0', 0], ['a#1', 1], ['c#4', 4]]);
  });

  it('toDocumentChunks names the list index and refuses duplicate ids', () => {
    expect(() => toDocumentChunks([{ docId: 'a', text: 'x' }, { docId: 'b', text: 1 }])).toThrow('chunks[1].text must be a string, got number 1');
    expect(() => toDocumentChunks([{ id: 'same', docId: 'a', text: 'x' }, { id: 'same', docId: 'b', text: 'y' }])).toThrow(
      'chunks[1].id must be unique within the list',
    );
    expect(() => toDocumentChunks('nope')).toThrow(/chunks must be an array/);
  });

  it('never throws on arbitrary Unicode text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(toDocumentChunk({ docId: 'd', text }).text).toBe(text);
      }),
    );
  });
});
