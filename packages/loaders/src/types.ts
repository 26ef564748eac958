import type { Metadata, ZerdaError } from '@zerda/types';

/** Formats the loaders read. */
export type DocumentFormat = 'markdown' | 'text' | 'html' | 'pdf' | 'docx' | 'csv' | 'tsv' | 'json' | 'jsonl';

/** Character range of one PDF page in a document's `text` (`text.slice(start, end)` is the page). */
export interface PageRange {
  /** 1-based page number. */
  page: number;
  start: number;
  end: number;
}

/**
 * A loaded document, ready for `engine.indexDocuments` or a chunker: `text` (Markdown for Markdown,
 * HTML and DOCX, so headings and lists reach the structure-aware chunker), a `docId` that stays the
 * same when the same file is loaded again, the `source` to cite, a title when the document has one,
 * and JSON-safe `metadata` (always `format`; front matter, `lang`, `pages` … per format).
 */
export interface LoadedDocument {
  text: string;
  docId: string;
  source: string;
  title?: string;
  metadata: Metadata;
  /** SHA-256 (hex) of the bytes the document was read from: the file, or the buffer. */
  contentHash: string;
}

/** A document given as bytes or text instead of a path. */
export interface BufferInput {
  data: Uint8Array | ArrayBuffer | string;
  /** A format name (`pdf`, `markdown` …), a file extension (`.md`) or a MIME type (`application/pdf`). */
  type: string;
  /** Where it came from, used as `source` and for the `docId` (default: `buffer-` + 16 hex digits of its hash). */
  source?: string;
}

/** A path (file or directory, searched recursively) or a {@link BufferInput}. */
export type LoadInput = string | BufferInput;

/**
 * How CSV, TSV, JSON and JSONL records become documents. Field names are column names (CSV) or
 * top-level keys (JSON).
 */
export interface FieldMapping {
  /** The field(s) holding the text; several are joined by blank lines. Default: the first of `text`, `content`, `body`, `passage` present, else every field as `name: value` lines. */
  text?: string | string[];
  /** The field holding the title (default `title` when present). */
  title?: string;
  /** The field holding a stable record id for the `docId` (default `id` or `_id` when present, else the record number). */
  id?: string;
  /** Fields copied into `metadata`: a list, `'rest'` (default: every field not used as text, title or id) or `'none'`. */
  metadata?: string[] | 'rest' | 'none';
}

/** A file about to be parsed, as `skip` sees it. */
export interface SkipCandidate {
  source: string;
  docId: string;
  format: DocumentFormat;
  contentHash: string;
  size: number;
}

/** Progress after each file. Totals are known after the scan (`phase: 'scan'`). */
export interface LoadProgress {
  phase: 'scan' | 'load';
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  documents: number;
  failed: number;
  skipped: number;
  /** The file just handled (phase `load`). */
  source?: string;
}

/**
 * Bounds on the work one document may cost. An exceeded limit refuses that document (a
 * `report.failed` entry whose `ZerdaError` has code `ZERDA_DOCUMENT_LIMIT` and `details.limit`
 * naming the limit); the other documents load. The defaults keep a 2-core, 4 GB machine responsive.
 */
export interface DocumentLimits {
  /** Milliseconds one file may take to parse; the worker parsing it is stopped after that (default 120 000). */
  timeMs?: number;
  /** Heap (MiB) of the worker that parses documents; a document that needs more is refused (default 1024). */
  memoryMb?: number;
  /** Bytes the parts of a DOCX that are read (everything but media) may inflate to, in total (default 16 MiB: mammoth needs about a hundred times a document's XML in heap). Checked before inflating and while inflating. */
  maxInflatedBytes?: number;
  /** Entries a DOCX (a ZIP archive) may hold (default 10 000). */
  maxZipEntries?: number;
  /** Bytes one compressed PDF stream (a page's content, a font …) may inflate to (default 64 MiB). */
  maxPdfStreamBytes?: number;
  /** Element nesting of an HTML page above which it is read by a linear text extraction instead of Readability and the Markdown converter (default 200). */
  maxHtmlDepth?: number;
  /** Elements of an HTML page above which it is read by the linear text extraction (default 50 000). */
  maxHtmlElements?: number;
}

/** Options of `loadDocuments` / `streamDocuments`. Unknown keys are rejected. */
export interface LoadOptions {
  /** Globs (picomatch) a file inside a directory input must match, relative to that directory (default: every file). */
  include?: string | string[];
  /** Globs that exclude files inside a directory input (always excluded: `node_modules`, and dot files unless `hidden`). */
  exclude?: string | string[];
  /** Include dot files and dot directories of directory inputs (default false). */
  hidden?: boolean;
  /** `source` and `docId` of files are their paths relative to this directory (default: the working directory). */
  root?: string;
  /** Record mapping for CSV, TSV, JSON and JSONL. */
  fields?: FieldMapping;
  /** Encoding of text formats when the bytes carry no byte-order mark (default `utf-8`; e.g. `windows-1256`). */
  encoding?: string;
  /** Files larger than this fail with a clear error instead of being read (default 256 MiB). */
  maxFileBytes?: number;
  /** Limits on the time, memory and structure one document may cost (see {@link DocumentLimits}). */
  limits?: DocumentLimits;
  /**
   * Where documents are parsed: `worker` (default) in a worker thread with `limits.memoryMb` of heap,
   * stopped after `limits.timeMs`, so that no document can take the process down; `none` in this
   * thread (the structural limits still apply, time and memory do not).
   */
  isolation?: 'worker' | 'none';
  /** Metadata merged into every document (document metadata wins). */
  metadata?: Metadata;
  /** Return true to leave a file out (e.g. unchanged since the last run); it is listed in `report.skipped`. */
  skip?: (file: SkipCandidate) => boolean | Promise<boolean>;
  /** Called after the scan and after each file. */
  onProgress?: (progress: LoadProgress) => void;
  /** Stops between two files; the stream rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** A file or record that could not be loaded, with the `ZerdaError` that says why. */
export interface FailedLoad {
  source: string;
  error: ZerdaError;
}

/** A file left out by `skip`. */
export interface SkippedLoad {
  source: string;
  docId: string;
  contentHash: string;
}

/** What happened to every input. */
export interface LoadReport {
  /** Files (and buffers) considered. */
  files: number;
  /** Documents produced. */
  documents: number;
  failed: FailedLoad[];
  skipped: SkippedLoad[];
}

/** What a format parser returns for one file: one document, or one per record. */
export interface ParsedDocument {
  text: string;
  title?: string;
  metadata: Metadata;
  /** Appended to the file's docId (`#<id>`) for records. */
  recordId?: string;
}
