import { describe, expect, it } from 'vitest';
import { SAMPLE_TEXT, splitDocuments } from './documents.js';

describe('splitDocuments', () => {
  it('splits at --- lines, takes # titles and detects each language', () => {
    const documents = splitDocuments(SAMPLE_TEXT);
    expect(documents.map((document) => [document.docId, document.title, document.metadata.lang])).toEqual([
      ['pasted-1', 'التوليد المعزز بالاسترجاع', 'ar'],
      ['pasted-2', 'Keyword search with BM25', 'en'],
      ['pasted-3', 'Vector search', 'en'],
    ]);
    expect(documents[0]!.text.startsWith('التوليد المعزَّز')).toBe(true);
    expect(documents[0]!.text).toContain('\n\nوتعتمد');
  });

  it('keeps a text without separators or titles as one document, and skips empty parts', () => {
    expect(splitDocuments('just one text')).toEqual([{ docId: 'pasted-1', source: 'pasted-1', text: 'just one text', metadata: { lang: 'en' } }]);
    expect(splitDocuments('---\n\n---\nنص عربي قصير\n----')).toHaveLength(1);
    expect(splitDocuments('   ')).toEqual([]);
    // A dash run inside a line is text, not a separator.
    expect(splitDocuments('a --- b')).toHaveLength(1);
  });

  it('rejects a non-string', () => {
    expect(() => splitDocuments(5 as never)).toThrow('pasted text must be a string, got number');
  });
});
