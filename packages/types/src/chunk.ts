import * as z from 'zod';
import { metadataSchema, type Metadata } from './json.js';
import { parseOrThrow } from './validation.js';
import { invalidArgument } from './errors.js';
import { validateEmbedding } from './embedding.js';

/** An embedding vector. Stores keep `Float32Array`s; users may pass plain arrays. */
export type Embedding = Float32Array | number[];

export const embeddingSchema = z.union([
  z.instanceof(Float32Array),
  z.instanceof(Float64Array),
  z.array(z.number()),
]);

/** Where a chunk sits in its document: its index among the document's chunks and its character span. */
export interface ChunkPosition {
  /** 0-based index of the chunk within its document. */
  index: number;
  /** Number of chunks the document was split into, when known. */
  total?: number;
  /** Offset (UTF-16 code units, as `String.prototype.slice` uses) of the chunk's first character in the document. */
  start?: number;
  /** Offset one past the chunk's last character: `document.slice(start, end) === chunk.text`. */
  end?: number;
}

/** A unit of retrievable text. Every package exchanges chunks in this shape. */
export interface DocumentChunk {
  /** Unique within an index. Derived as `${docId}#${position.index}` when not given. */
  id: string;
  /** The document the chunk came from; `remove(docIds)` removes all of a document's chunks. */
  docId: string;
  text: string;
  /** Where the document came from (a URL, a file name, a collection); defaults to `docId`. */
  source: string;
  /** Optional title of the document; the keyword index can weight it separately. */
  title?: string;
  metadata: Metadata;
  position: ChunkPosition;
  /** Milliseconds since the Unix epoch; used by recency ranking. */
  timestamp?: number;
  embedding?: Embedding;
}

const positionSchema = z.strictObject({
  index: z.number().int().nonnegative(),
  total: z.number().int().positive().optional(),
  start: z.number().int().nonnegative().optional(),
  end: z.number().int().nonnegative().optional(),
});

const timestampSchema = z
  .union([z.number(), z.date(), z.string()])
  .transform((value, ctx) => {
    const ms = typeof value === 'number' ? value : value instanceof Date ? value.getTime() : Date.parse(value);
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: 'custom', message: 'timestamp must be a finite epoch-ms number, a valid Date or an ISO date string' });
      return z.NEVER;
    }
    return ms;
  });

/** The looser shape users pass in: only `docId` and `text` are required. */
export const documentChunkInputSchema = z.strictObject({
  id: z.string().min(1).optional(),
  docId: z.string().min(1),
  text: z.string(),
  source: z.string().optional(),
  title: z.string().optional(),
  metadata: metadataSchema.optional(),
  position: positionSchema.partial({ index: true }).optional(),
  timestamp: timestampSchema.optional(),
  embedding: embeddingSchema.optional(),
});

export type DocumentChunkInput = z.input<typeof documentChunkInputSchema>;

/**
 * Validates one chunk input and fills its defaults: `id` from docId and position, `source` from
 * docId, empty metadata, position index `fallbackIndex`. Throws a ZerdaError naming `field` on bad input.
 */
export function toDocumentChunk(input: unknown, fallbackIndex = 0, field = 'chunk'): DocumentChunk {
  // Embeddings are checked first so that a NaN is reported as ZERDA_INVALID_EMBEDDING, the code
  // every vector store uses, naming the offending element.
  const rawEmbedding = input !== null && typeof input === 'object' ? (input as { embedding?: unknown }).embedding : undefined;
  if (rawEmbedding !== undefined) validateEmbedding(rawEmbedding, `${field}.embedding`);
  const parsed = parseOrThrow(documentChunkInputSchema, input, field);
  const index = parsed.position?.index ?? fallbackIndex;
  const position: ChunkPosition = { index };
  if (parsed.position?.total !== undefined) position.total = parsed.position.total;
  if (parsed.position?.start !== undefined) position.start = parsed.position.start;
  if (parsed.position?.end !== undefined) position.end = parsed.position.end;
  const chunk: DocumentChunk = {
    id: parsed.id ?? `${parsed.docId}#${index}`,
    docId: parsed.docId,
    text: parsed.text,
    source: parsed.source ?? parsed.docId,
    metadata: parsed.metadata ?? {},
    position,
  };
  if (parsed.title !== undefined) chunk.title = parsed.title;
  if (parsed.timestamp !== undefined) chunk.timestamp = parsed.timestamp;
  if (parsed.embedding !== undefined) {
    chunk.embedding = parsed.embedding instanceof Float64Array ? Float32Array.from(parsed.embedding) : parsed.embedding;
  }
  return chunk;
}

/**
 * Validates a list of chunk inputs (each named `chunks[i]` in errors) and checks ids are unique
 * within the list. Chunks without a position are numbered per document in list order. Returns new objects; the inputs are not modified.
 */
export function toDocumentChunks(inputs: unknown, field = 'chunks'): DocumentChunk[] {
  if (!Array.isArray(inputs)) {
    parseOrThrow(z.array(z.unknown()), inputs, field);
  }
  const list = inputs as unknown[];
  const seen = new Set<string>();
  // A chunk without a position is the next chunk of its document: its index counts that
  // document's earlier chunks in the list (so whole documents get index 0, not their list index).
  const nextIndex = new Map<string, number>();
  const out: DocumentChunk[] = [];
  for (let i = 0; i < list.length; i++) {
    const item = list[i] as { docId?: unknown } | null;
    const docId = item && typeof item === 'object' && typeof item.docId === 'string' ? item.docId : '';
    const fallback = nextIndex.get(docId) ?? 0;
    const chunk = toDocumentChunk(list[i], fallback, `${field}[${i}]`);
    nextIndex.set(docId, Math.max(fallback, chunk.position.index) + 1);
    if (seen.has(chunk.id)) {
      // A duplicate id would silently overwrite another chunk in every store; refuse it up front.
      throw invalidArgument(`${field}[${i}].id`, 'unique within the list', chunk.id);
    }
    seen.add(chunk.id);
    out.push(chunk);
  }
  return out;
}
