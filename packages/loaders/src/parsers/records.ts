import { parse as parseCsv } from 'csv-parse/sync';
import type { JsonValue, Metadata, ZerdaError } from '@zerda/types';
import { unreadable, messageOf } from '../errors.js';
import type { FieldMapping, ParsedDocument } from '../types.js';
import { toJsonValue } from './markdown.js';

const TEXT_FIELDS = ['text', 'content', 'body', 'passage'];
const ID_FIELDS = ['id', '_id'];
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Documents of a record file, plus the records that could not become one. */
export interface RecordResult {
  documents: ParsedDocument[];
  failures: Array<{ record: string; error: ZerdaError }>;
}

function stringOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * Turns one record into a document with the field mapping. CSV values are strings; those that look
 * like numbers become numbers in metadata (so `{ year: { $gte: 2010 } }` filters work), never in
 * the text, title or id.
 */
function recordToDocument(record: Record<string, unknown>, number: number, fields: FieldMapping, fromCsv: boolean, file: string, format: string): ParsedDocument {
  const keys = Object.keys(record);
  const textFields = fields.text === undefined ? TEXT_FIELDS.filter((key) => keys.includes(key)).slice(0, 1) : Array.isArray(fields.text) ? fields.text : [fields.text];
  const titleField = fields.title ?? (keys.includes('title') ? 'title' : undefined);
  const idField = fields.id ?? ID_FIELDS.find((key) => keys.includes(key));
  const used = new Set<string>([...textFields, ...(titleField ? [titleField] : []), ...(idField ? [idField] : [])]);
  let text: string;
  if (textFields.length > 0) {
    text = textFields.map((key) => stringOf(record[key]).trim()).filter((part) => part !== '').join('\n\n');
  } else {
    // No text field: every field as "name: value", so nothing in the record is lost.
    text = keys
      .filter((key) => !used.has(key))
      .map((key) => `${key}: ${stringOf(record[key])}`)
      .join('\n');
  }
  if (text.trim() === '') {
    const named = textFields.length > 0 ? `its text field${textFields.length > 1 ? 's' : ''} (${textFields.join(', ')}) ${textFields.length > 1 ? 'are' : 'is'} empty or missing` : 'it has no fields';
    throw unreadable(`${file}#${number}`, format, 'empty', named);
  }
  const metadata: Metadata = { record: number };
  const metadataFields = fields.metadata === 'none' ? [] : Array.isArray(fields.metadata) ? fields.metadata : textFields.length > 0 ? keys.filter((key) => !used.has(key)) : [];
  for (const key of metadataFields) {
    if (key === '__proto__' || !(key in record)) continue;
    const raw = record[key];
    let value: JsonValue | undefined = toJsonValue(raw);
    if (fromCsv && typeof raw === 'string' && NUMBER.test(raw.trim()) && Number.isFinite(Number(raw))) value = Number(raw);
    if (value !== undefined) metadata[key] = value;
  }
  const title = titleField ? stringOf(record[titleField]).trim() : '';
  const id = idField ? stringOf(record[idField]).trim() : '';
  return { text, ...(title ? { title } : {}), metadata, recordId: id || String(number) };
}

function fromRecords(records: unknown[], fields: FieldMapping, fromCsv: boolean, file: string, format: string, lineOf: (index: number) => number): RecordResult {
  const result: RecordResult = { documents: [], failures: [] };
  const seen = new Set<string>();
  records.forEach((value, index) => {
    const number = lineOf(index);
    try {
      const record = typeof value === 'string' ? { text: value } : value;
      if (record === null || typeof record !== 'object' || Array.isArray(record)) {
        throw unreadable(`${file}#${number}`, format, 'corrupt', 'a record must be an object (or a string)');
      }
      const document = recordToDocument(record as Record<string, unknown>, number, fields, fromCsv, file, format);
      // Two records with one id would overwrite each other: the second keeps its record number.
      if (seen.has(document.recordId!)) document.recordId = `${document.recordId}~${number}`;
      seen.add(document.recordId!);
      result.documents.push(document);
    } catch (error) {
      result.failures.push({ record: String(number), error: error as ZerdaError });
    }
  });
  return result;
}

/**
 * CSV or TSV (csv-parse): a header row names the fields, each further row is a record. A row that
 * cannot be read (more or fewer fields than the header, a quote never closed) fails alone, named by
 * its record number and line, and the other rows load; a quote inside a field is kept as text.
 */
export function parseDelimited(text: string, fields: FieldMapping, file: string, format: 'csv' | 'tsv'): RecordResult {
  const rows: Array<{ record: Record<string, string>; number: number }> = [];
  const failures: RecordResult['failures'] = [];
  // Record numbers count data rows from 1 (the header is not a record), skipped rows included, so
  // that one bad row does not renumber the rows after it.
  let number = 0;
  try {
    parseCsv(text, {
      columns: true,
      bom: true,
      skip_empty_lines: true,
      delimiter: format === 'tsv' ? '\t' : ',',
      relax_quotes: true,
      trim: false,
      skip_records_with_error: true,
      on_record: (record: Record<string, string>) => {
        rows.push({ record, number: ++number });
        return null;
      },
      on_skip: (error: { message: string; lines?: number } | undefined) => {
        number++;
        const line = error?.lines === undefined ? '' : ` (line ${error.lines})`;
        failures.push({ record: String(number), error: unreadable(`${file}#${number}`, format, 'corrupt', `record ${number}${line} is not valid ${format.toUpperCase()}: ${messageOf(error)}`) });
        return undefined;
      },
    });
  } catch (error) {
    throw unreadable(file, format, 'corrupt', `it is not valid ${format.toUpperCase()} (${messageOf(error)})`, error);
  }
  const result = fromRecords(rows.map((row) => row.record), fields, true, file, format, (index) => rows[index]!.number);
  for (const failure of failures) result.failures.push(failure);
  return result;
}

/** JSON: an array of records, or one record. */
export function parseJsonRecords(text: string, fields: FieldMapping, file: string): RecordResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw unreadable(file, 'json', 'corrupt', `it is not valid JSON (${messageOf(error)})`, error);
  }
  const records = Array.isArray(value) ? value : [value];
  return fromRecords(records, fields, false, file, 'json', (index) => index + 1);
}

/** JSONL: one JSON record per line; a malformed line fails alone (named by its line number). */
export function parseJsonLines(text: string, fields: FieldMapping, file: string): RecordResult {
  const records: unknown[] = [];
  const lines: number[] = [];
  const failures: RecordResult['failures'] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      records.push(JSON.parse(line));
      lines.push(index + 1);
    } catch (error) {
      failures.push({ record: String(index + 1), error: unreadable(`${file}#${index + 1}`, 'jsonl', 'corrupt', `line ${index + 1} is not valid JSON (${messageOf(error)})`, error) });
    }
  });
  const result = fromRecords(records, fields, false, file, 'jsonl', (index) => lines[index]!);
  for (const failure of failures) result.failures.push(failure);
  return result;
}
