import {
  matchesFilter,
  toDocumentChunks,
  validateEmbedding,
  validateSearchOptions,
  type DocumentChunk,
  type Embedding,
  type VectorMetric,
  type VectorSearchHit,
  type VectorSearchOptions,
  type VectorStore,
} from '@zerda/types';
import { expectedSimilarity } from '../fixtures.js';

/**
 * The simplest store that keeps the contract: a Map scanned on every search. The conformance
 * package tests itself against it; `defects` switches on one bug at a time so its own tests can
 * prove that the suite notices each of them.
 */
export interface ReferenceStoreDefects {
  ignoresFilter?: boolean;
  writesBeforeValidating?: boolean;
  returnsDistances?: boolean;
  duplicatesOnReAdd?: boolean;
}

export class ReferenceStore implements VectorStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'reference';
  readonly capabilities = { persistence: true, nativeFilter: true, textSearch: false, embeds: false };
  dimensions: number | undefined;
  private rows: Array<{ chunk: DocumentChunk; vector: Float32Array }> = [];

  constructor(
    readonly metric: VectorMetric = 'cosine',
    private readonly defects: ReferenceStoreDefects = {},
  ) {}

  async add(chunks: DocumentChunk[]): Promise<void> {
    const validated = toDocumentChunks(chunks);
    let dimensions = this.dimensions;
    const vectors: Float32Array[] = [];
    for (const [i, chunk] of validated.entries()) {
      if (this.defects.writesBeforeValidating) {
        this.rows.push({ chunk, vector: Float32Array.from(chunk.embedding ?? []) });
      }
      const vector = validateEmbedding(chunk.embedding, `chunks[${i}].embedding`, dimensions);
      dimensions ??= vector.length;
      vectors.push(vector);
    }
    this.dimensions = dimensions;
    if (this.defects.writesBeforeValidating) {
      this.rows.splice(this.rows.length - validated.length, validated.length);
    }
    validated.forEach((chunk, i) => {
      const { embedding: _embedding, ...rest } = chunk;
      const at = this.defects.duplicatesOnReAdd ? -1 : this.rows.findIndex((row) => row.chunk.id === chunk.id);
      const row = { chunk: rest as DocumentChunk, vector: vectors[i]! };
      if (at >= 0) this.rows[at] = row;
      else this.rows.push(row);
    });
  }

  async search(vector: Embedding, options: VectorSearchOptions): Promise<VectorSearchHit[]> {
    const { k, filter } = validateSearchOptions(options);
    const query = validateEmbedding(vector, 'vector', this.dimensions);
    return this.rows
      .filter((row) => this.defects.ignoresFilter || matchesFilter(row.chunk, filter))
      .map((row) => ({ chunk: structuredClone(row.chunk), score: this.score(query, row.vector) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, k);
  }

  private score(query: Float32Array, stored: Float32Array): number {
    // The defect: the raw squared distance where a similarity is due.
    if (this.defects.returnsDistances) return query.reduce((sum, value, i) => sum + (value - stored[i]!) ** 2, 0);
    return expectedSimilarity(this.metric, query, stored);
  }

  async delete(ids: string[]): Promise<void> {
    const doomed = new Set(ids);
    this.rows = this.rows.filter((row) => !doomed.has(row.chunk.id));
  }

  async deleteByDocIds(docIds: string[]): Promise<void> {
    const doomed = new Set(docIds);
    this.rows = this.rows.filter((row) => !doomed.has(row.chunk.docId));
  }

  async count(): Promise<number> {
    return this.rows.length;
  }

  async clear(): Promise<void> {
    this.rows = [];
  }

  /** Persistence stand-in: a JSON round-trip, as a real store would do through a file. */
  reopened(): ReferenceStore {
    const copy = new ReferenceStore(this.metric, this.defects);
    copy.dimensions = this.dimensions;
    copy.rows = JSON.parse(JSON.stringify(this.rows.map((row) => ({ chunk: row.chunk, vector: Array.from(row.vector) })))).map(
      (row: { chunk: DocumentChunk; vector: number[] }) => ({ chunk: row.chunk, vector: Float32Array.from(row.vector) }),
    );
    return copy;
  }
}
