import * as z from 'zod';
import {
  createError,
  describeValue,
  invalidArgument,
  metadataSchema,
  parseOrThrow,
  type ChunkOptions,
  type DocumentChunk,
  type Metadata,
} from '@zerda/types';
import type { ChunkConfig, ChunkReport, OversizeUnit } from './chunk-config.js';
import type { Measure } from './segmentation.js';
import type { Span } from './packing.js';

/** A span with the metadata its chunker attaches (heading path, language …). */
export interface AnnotatedSpan extends Span {
  metadata?: Metadata;
}

/** Chunks with the run's report (oversize units). */
export interface ChunkResult {
  chunks: DocumentChunk[];
  report: ChunkReport;
}

const chunkOptionsSchema = z.strictObject({
  docId: z.string().min(1).optional(),
  source: z.string().optional(),
  metadata: metadataSchema.optional(),
  title: z.string().optional(),
});

/** Per-call options after validation, with the document id filled in. */
export interface ResolvedChunkOptions {
  docId: string;
  source: string;
  metadata: Metadata;
  title?: string;
}

/**
 * A stable id for a text: `doc-` and 14 hex digits of a 53-bit hash (cyrb53) of its UTF-16 code
 * units. Re-chunking the same text gives the same id, so re-indexing replaces instead of duplicating.
 */
export function stableDocumentId(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const hash = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return `doc-${hash.toString(16).padStart(14, '0')}`;
}

/** Validates `text` and the options (object form, or the legacy docId string). */
export function parseChunkInput(text: unknown, options: ChunkOptions | string | undefined): { text: string; options: ResolvedChunkOptions } {
  if (typeof text !== 'string') throw invalidArgument('text', 'a string', text);
  let parsed: z.output<typeof chunkOptionsSchema>;
  if (typeof options === 'string') {
    if (options.length === 0) throw invalidArgument('docId', 'a non-empty string', options);
    parsed = { docId: options };
  } else {
    parsed = parseOrThrow(chunkOptionsSchema, options ?? {}, 'options');
  }
  const docId = parsed.docId ?? stableDocumentId(text);
  const resolved: ResolvedChunkOptions = { docId, source: parsed.source ?? docId, metadata: parsed.metadata ?? {} };
  if (parsed.title !== undefined) resolved.title = parsed.title;
  return { text, options: resolved };
}

/** Measures ranges of `text` with the configured counter, rejecting a counter that returns nonsense. */
export function createMeasure(config: ChunkConfig, text: string): Measure {
  return (start, end) => {
    const length = config.counter(text.slice(start, end));
    if (typeof length !== 'number' || !Number.isFinite(length) || length < 0) {
      throw createError('ZERDA_INVALID_CONFIG', {
        field: 'config.counter',
        expected: 'a function returning a finite number >= 0',
        received: `a counter that returned ${describeValue(length)}`,
      });
    }
    return length;
  };
}

/**
 * Turns spans into DocumentChunks (`id` `${docId}#${index}`, exact `position.start/end`, index and
 * total) and reports oversize spans to the config's `onOversize`. Chunk metadata is the caller's
 * metadata plus the span's own (the chunker's keys win) plus `oversize: true` where it applies.
 */
export function buildChunks(text: string, spans: readonly AnnotatedSpan[], options: ResolvedChunkOptions, config: ChunkConfig, measure: Measure): ChunkResult {
  const total = spans.length;
  const oversize: OversizeUnit[] = [];
  const chunks = spans.map((span, index): DocumentChunk => {
    const metadata: Metadata = { ...options.metadata, ...span.metadata };
    if (span.oversize) {
      metadata.oversize = true;
      oversize.push({
        docId: options.docId,
        index,
        start: span.start,
        end: span.end,
        length: measure(span.start, span.end),
        size: config.size,
        unit: config.unit,
      });
    }
    const chunk: DocumentChunk = {
      id: `${options.docId}#${index}`,
      docId: options.docId,
      text: text.slice(span.start, span.end),
      source: options.source,
      metadata,
      position: { index, total, start: span.start, end: span.end },
    };
    if (options.title !== undefined) chunk.title = options.title;
    return chunk;
  });
  if (config.onOversize) for (const unit of oversize) config.onOversize(unit);
  return { chunks, report: { docId: options.docId, chunkCount: chunks.length, oversize } };
}
