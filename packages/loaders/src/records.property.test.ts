import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadDocuments } from './index.js';

// Field text with everything CSV and JSON must survive: commas, quotes, line breaks, tabs, Arabic with diacritics, emoji.
const fieldText = fc
  .array(fc.constantFrom('a', 'Z', ' ', ',', '"', '\n', '\t', ';', 'مكتبة', 'تَجْرِبَةٌ', '٢٠٢٤', '😀', "'"), { minLength: 1, maxLength: 12 })
  .map((parts) => parts.join(''))
  .filter((text) => text.trim() !== '');

function csvField(value: string): string {
  return `"${value.replace(/"/g, '""')}"`;
}

describe('records (property)', () => {
  it('a CSV written with RFC 4180 quoting loads back record for record, text for text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fieldText, fieldText), { minLength: 1, maxLength: 8 }), async (rows) => {
        const csv = `id,text,note\r\n${rows.map(([text, note], index) => `r${index},${csvField(text)},${csvField(note)}`).join('\r\n')}\r\n`;
        const { documents, report } = await loadDocuments({ data: csv, type: 'csv', source: 'rows.csv' });
        expect(report.failed).toEqual([]);
        expect(documents.map((document) => document.docId)).toEqual(rows.map((_, index) => `rows.csv#r${index}`));
        expect(documents.map((document) => document.text)).toEqual(rows.map(([text]) => text.trim()));
        expect(documents.map((document) => document.metadata.note)).toEqual(rows.map(([, note]) => note));
      }),
      { numRuns: 100 },
    );
  });

  it('JSONL and JSON arrays of the same records load the same documents', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ text: fieldText, lang: fc.constantFrom('ar', 'en') }), { minLength: 1, maxLength: 8 }), async (records) => {
        const lines = await loadDocuments({ data: records.map((record) => JSON.stringify(record)).join('\n'), type: 'jsonl', source: 'r' });
        const array = await loadDocuments({ data: JSON.stringify(records), type: 'json', source: 'r' });
        const view = (result: typeof lines) => result.documents.map((document) => [document.docId, document.text, document.metadata.lang]);
        expect(view(lines)).toEqual(records.map((record, index) => [`r#${index + 1}`, record.text.trim(), record.lang]));
        expect(view(array)).toEqual(view(lines));
      }),
      { numRuns: 100 },
    );
  });
});
