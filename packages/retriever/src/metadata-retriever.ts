import {
  invalidArgument,
  matchesFilter,
  parseMetadataFilter,
  toDocumentChunks,
  type DocumentChunk,
  type MetadataFilter,
  type RetrieveOptions,
  type Retriever,
  type ScoredChunk,
} from '@zerda/types';
import { optionsObject, parseDocIds, parseName, parseRetrieveOptions, rejectUnknownOptions } from './retrieve-options.js';
import { WriteQueue } from './write-queue.js';

/** Options of {@link MetadataRetriever}. */
export interface MetadataRetrieverOptions {
  /** Name recorded in `ScoredChunk.retrievers`. Default `'metadata'`. */
  name?: string;
}

/**
 * True when a chunk passes `filter` in the shared filter language (its metadata plus its own
 * `docId` and `source`). `undefined` passes everything. The filter is assumed valid
 * (see `parseMetadataFilter`).
 */
export function chunkMatchesFilter(chunk: DocumentChunk, filter: MetadataFilter | undefined): boolean {
  return matchesFilter(chunk, filter);
}

/**
 * Keeps the chunks (or scored chunks) that pass `filter`, in their order — the metadata stage used
 * to restrict candidates. The filter is validated first (a ZerdaError names `filter` and the
 * offending path); `undefined` keeps everything.
 */
export function restrict<T extends DocumentChunk | ScoredChunk>(items: readonly T[], filter: MetadataFilter | undefined): T[] {
  if (!Array.isArray(items)) throw invalidArgument('items', 'an array of chunks or scored chunks', items);
  if (filter === undefined) return items.slice();
  const parsed = parseMetadataFilter(filter, 'filter');
  return items.filter((item, index) => {
    const inner = typeof item === 'object' && item !== null ? (item as Partial<ScoredChunk>).chunk : undefined;
    const chunk = (typeof inner === 'object' && inner !== null ? inner : item) as DocumentChunk;
    if (typeof chunk !== 'object' || chunk === null || typeof chunk.metadata !== 'object' || chunk.metadata === null) {
      throw invalidArgument(`items[${index}]`, 'a DocumentChunk or a ScoredChunk', item);
    }
    return matchesFilter(chunk, parsed);
  });
}

/**
 * Metadata-only retrieval: returns the chunks that match the caller's filter, in insertion order,
 * each with `score` 1 and `scores.metadata` 1. The query text is not used — this retriever answers
 * filters, so without a filter it returns nothing (in a hybrid, it then neither helps nor harms).
 * Updating a chunk (adding an existing id) keeps its place.
 */
export class MetadataRetriever implements Retriever {
  readonly name: string;
  private chunksById = new Map<string, DocumentChunk>();
  private readonly writes = new WriteQueue();

  constructor(options: MetadataRetrieverOptions = {}) {
    const record = optionsObject(options, 'options');
    rejectUnknownOptions(record, ['name'], 'options');
    this.name = parseName(record.name, 'metadata');
  }

  /** Up to `topK` chunks matching `options.filter`, in insertion order; [] without a filter. */
  async retrieve(query: string, options?: RetrieveOptions): Promise<ScoredChunk[]> {
    const { topK, filter } = parseRetrieveOptions(query, options);
    if (!filter || topK === 0) return [];
    const results: ScoredChunk[] = [];
    for (const chunk of this.chunksById.values()) {
      if (!matchesFilter(chunk, filter)) continue;
      results.push({ chunk, score: 1, scores: { metadata: 1 }, retrievers: [this.name] });
      if (results.length >= topK) break;
    }
    return results;
  }

  /** Replaces the corpus. */
  async index(chunks: DocumentChunk[]): Promise<void> {
    const validated = toDocumentChunks(chunks, 'chunks');
    await this.writes.run(() => {
      this.chunksById = new Map(validated.map((chunk) => [chunk.id, chunk]));
    });
  }

  /** Adds or replaces (by id) chunks. */
  async add(chunks: DocumentChunk[]): Promise<void> {
    const validated = toDocumentChunks(chunks, 'chunks');
    await this.writes.run(() => {
      for (const chunk of validated) this.chunksById.set(chunk.id, chunk);
    });
  }

  /** Removes every chunk of the given documents. */
  async remove(docIds: string[]): Promise<void> {
    const removed = new Set(parseDocIds(docIds, 'docIds'));
    await this.writes.run(() => {
      if (removed.size === 0) return;
      for (const [id, chunk] of this.chunksById) if (removed.has(chunk.docId)) this.chunksById.delete(id);
    });
  }

  size(): number {
    return this.chunksById.size;
  }

  /** The held chunks in insertion order. */
  chunks(): DocumentChunk[] {
    return [...this.chunksById.values()];
  }
}
