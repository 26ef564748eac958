import { ZerdaError } from '@zerda/types';
import { checkNotBinary, decodeText, isKnownEncoding } from './decode.js';
import { isStackOverflow, limitExceeded, messageOf, unreadable } from './errors.js';
import type { ResolvedLimits } from './limits.js';
import type { RecordResult } from './parsers/records.js';
import type { DocumentFormat, FieldMapping, ParsedDocument } from './types.js';

/** What a parser needs besides the bytes (plain data: it crosses to the worker). */
export interface ParseSettings {
  fields?: FieldMapping;
  encoding?: string;
  limits: ResolvedLimits;
}

// <meta charset="windows-1256"> or content="text/html; charset=…" near the start of an HTML file.
const META_CHARSET = /<meta[^>]+charset\s*=\s*["']?\s*([\w-]+)/i;

/**
 * The encoding an HTML page is read with: the caller's, else the one its `<meta>` declares (a
 * UTF-16 declaration in a page read as bytes means UTF-8, as in browsers; an unknown label is
 * ignored), else UTF-8.
 */
function declaredCharset(bytes: Uint8Array): string | undefined {
  const declared = META_CHARSET.exec(new TextDecoder('latin1').decode(bytes.subarray(0, 2048)))?.[1]?.toLowerCase();
  if (!declared || !isKnownEncoding(declared)) return undefined;
  return declared.startsWith('utf-16') ? 'utf-8' : declared;
}

/**
 * Loads the parser of a format (parsers load on first use: a worker that only reads Markdown never
 * loads PDF.js). Separate from parsing, so that a time limit measures the document, not the import.
 */
export async function loadParser(format: DocumentFormat): Promise<void> {
  switch (format) {
    case 'markdown':
      await import('./parsers/markdown.js');
      return;
    case 'html':
      await import('./parsers/html.js');
      return;
    case 'pdf':
      await import('./parsers/pdf.js');
      return;
    case 'docx':
      await import('./parsers/docx.js');
      return;
    case 'csv':
    case 'tsv':
    case 'json':
    case 'jsonl':
      await import('./parsers/records.js');
      return;
    case 'text':
      return;
  }
}

async function parseFormat(format: DocumentFormat, bytes: Uint8Array, file: string, settings: ParseSettings): Promise<RecordResult> {
  const fields: FieldMapping = settings.fields ?? {};
  const one = (document: ParsedDocument): RecordResult => ({ documents: [document], failures: [] });
  const isText = format !== 'pdf' && format !== 'docx';
  const utf16 = isText ? checkNotBinary(bytes, file, format) : undefined;
  const text = (encoding = settings.encoding): string => decodeText(bytes, file, format, utf16 ?? encoding);
  switch (format) {
    case 'markdown': {
      const { parseMarkdown } = await import('./parsers/markdown.js');
      return one(parseMarkdown(text(), file));
    }
    case 'text':
      return one({ text: text().trim(), metadata: {} });
    case 'html': {
      let html: string;
      const declared = settings.encoding ?? declaredCharset(bytes);
      try {
        html = text(declared);
      } catch (error) {
        // A wrong <meta charset> is common: the bytes get a second chance as UTF-8.
        if (settings.encoding || !declared || declared === 'utf-8') throw error;
        html = text('utf-8');
      }
      const { parseHtml } = await import('./parsers/html.js');
      return one(parseHtml(html, settings.limits));
    }
    case 'pdf': {
      const { parsePdf } = await import('./parsers/pdf.js');
      return one(await parsePdf(bytes, file, settings.limits));
    }
    case 'docx': {
      const { parseDocx } = await import('./parsers/docx.js');
      return one(await parseDocx(bytes, file, settings.limits));
    }
    case 'csv':
    case 'tsv':
      return (await import('./parsers/records.js')).parseDelimited(text(), fields, file, format);
    case 'json':
      return (await import('./parsers/records.js')).parseJsonRecords(text(), fields, file);
    case 'jsonl':
      return (await import('./parsers/records.js')).parseJsonLines(text(), fields, file);
  }
}

/**
 * Parses one document's bytes in its format. Every failure is a `ZerdaError`: a parser that
 * recursed too deeply becomes a `ZERDA_DOCUMENT_LIMIT` error (limit `nesting`), anything else
 * unexpected a `ZERDA_DOCUMENT_UNREADABLE` one (kind `corrupt`).
 */
export async function parseDocument(format: DocumentFormat, bytes: Uint8Array, file: string, settings: ParseSettings): Promise<RecordResult> {
  try {
    return await parseFormat(format, bytes, file, settings);
  } catch (error) {
    if (ZerdaError.isInstance(error)) throw error;
    if (isStackOverflow(error)) throw limitExceeded(file, format, 'nesting', undefined, `its structure is nested too deeply to parse (${messageOf(error)})`);
    throw unreadable(file, format, 'corrupt', `it could not be parsed (${messageOf(error)})`, error);
  }
}
