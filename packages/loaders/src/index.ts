/**
 * @zerda/loaders — documents from files, folders and buffers (Markdown, HTML, PDF, DOCX, text,
 * CSV/TSV/JSON/JSONL) with metadata and a per-file error report, ready for a zerda chunker or
 * `engine.indexDocuments`. Node only (it reads the file system).
 */
export { loadDocuments, streamDocuments, DocumentStream } from './load.js';
export { pagesOfRange } from './parsers/pdf.js';
export { layoutPdfPage, type PdfTextRun } from './pdf-layout.js';
export { htmlToMarkdown } from './parsers/html.js';
export { formatOfPath, formatOfType, SUPPORTED_EXTENSIONS } from './formats.js';
export type { DocumentLimitName, UnreadableKind } from './errors.js';
export { DEFAULT_LIMITS } from './limits.js';
export type {
  BufferInput,
  DocumentFormat,
  DocumentLimits,
  FailedLoad,
  FieldMapping,
  LoadInput,
  LoadOptions,
  LoadProgress,
  LoadReport,
  LoadedDocument,
  PageRange,
  SkipCandidate,
  SkippedLoad,
} from './types.js';
