import type { DocumentFormat } from './types.js';

const BY_EXTENSION: Record<string, DocumentFormat> = {
  md: 'markdown',
  markdown: 'markdown',
  mdown: 'markdown',
  txt: 'text',
  text: 'text',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  pdf: 'pdf',
  docx: 'docx',
  csv: 'csv',
  tsv: 'tsv',
  json: 'json',
  jsonl: 'jsonl',
  ndjson: 'jsonl',
};

const BY_MIME: Record<string, DocumentFormat> = {
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/csv': 'csv',
  'text/tab-separated-values': 'tsv',
  'application/json': 'json',
  'application/x-ndjson': 'jsonl',
  'application/jsonl': 'jsonl',
  'application/x-jsonlines': 'jsonl',
};

const NAMES: readonly DocumentFormat[] = ['markdown', 'text', 'html', 'pdf', 'docx', 'csv', 'tsv', 'json', 'jsonl'];

/** File extensions the loaders read, for messages. */
export const SUPPORTED_EXTENSIONS = Object.keys(BY_EXTENSION).map((extension) => `.${extension}`).join(', ');

/** The extension of a path, lower case, without the dot ('' when there is none). */
export function extensionOf(path: string): string {
  const name = path.split(/[\\/]/).pop() ?? '';
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** The format of a file from its extension, or undefined. */
export function formatOfPath(path: string): DocumentFormat | undefined {
  return BY_EXTENSION[extensionOf(path)];
}

/** The format a buffer's `type` names: a format name, an extension or a MIME type (parameters ignored). */
export function formatOfType(type: string): DocumentFormat | undefined {
  const value = type.trim().toLowerCase().split(';')[0]!.trim();
  if ((NAMES as readonly string[]).includes(value)) return value as DocumentFormat;
  return BY_MIME[value] ?? BY_EXTENSION[value.replace(/^\./, '')];
}

/**
 * The format of a file without an extension, from its first bytes: a PDF or ZIP signature, else
 * text. Returns undefined for other binary content (a NUL byte early on).
 */
export function sniffFormat(bytes: Uint8Array): DocumentFormat | undefined {
  const head = bytes.subarray(0, 8);
  if (head[0] === 0x25 && head[1] === 0x50 && head[2] === 0x44 && head[3] === 0x46) return 'pdf';
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return 'docx';
  if (bytes.subarray(0, 4096).includes(0)) return undefined;
  return 'text';
}
