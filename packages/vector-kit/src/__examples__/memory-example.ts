import { cosineSimilarity, matchesFilter, type DocumentChunk, type MetadataFilter, type VectorMetric } from '@zerda/types';
import { VectorStoreBase, checkStoreOptions, dimensionsOption, metricOption, type QueryHit, type VectorQuery, type VectorRecord } from '@zerda/vector-kit';

/** Options of {@link ExampleMemoryStore}. */
export interface ExampleMemoryStoreOptions {
  metric?: VectorMetric;
  dimensions?: number;
}

interface Stored {
  chunk: DocumentChunk;
  vector: Float32Array;
}

/** A brute-force in-memory store: four backend methods and two optional ones; the kit does the rest. */
export class ExampleMemoryStore extends VectorStoreBase {
  private readonly rows = new Map<string, Stored>();

  constructor(options?: ExampleMemoryStoreOptions) {
    const checked = checkStoreOptions(options, ['metric', 'dimensions']);
    super({
      name: 'example-memory',
      metric: metricOption(checked.metric),
      dimensions: dimensionsOption(checked.dimensions),
      capabilities: { persistence: false, nativeFilter: true, textSearch: false },
      // doQuery reports cosine and inner product as similarities, l2 as the squared distance.
      distance: 'similarity',
    });
  }

  protected async doUpsert(records: VectorRecord[]): Promise<void> {
    // Records are validated copies, but a Float32Array embedding is the caller's own: copy it.
    for (const { chunk, vector } of records) {
      const { embedding: _embedding, ...stored } = chunk;
      this.rows.set(chunk.id, { chunk: stored, vector: Float32Array.from(vector) });
    }
  }

  protected async doQuery({ vector, limit, filter }: VectorQuery<MetadataFilter>): Promise<QueryHit[]> {
    const hits: QueryHit[] = [];
    for (const row of this.rows.values()) {
      if (filter && !matchesFilter(row.chunk, filter)) continue;
      hits.push({ chunk: this.copy(row), distance: this.closeness(vector, row.vector) });
    }
    // Best first in the declared convention; the kit converts, orders ties by id and cuts to k.
    return hits.sort((a, b) => this.rank(a) - this.rank(b)).slice(0, limit);
  }

  protected async doDelete(key: 'id' | 'docId', values: string[]): Promise<void> {
    const doomed = new Set(values);
    for (const [id, row] of this.rows) if (doomed.has(key === 'id' ? id : row.chunk.docId)) this.rows.delete(id);
  }

  protected async doCount(): Promise<number> {
    return this.rows.size;
  }

  protected override async doFetch(ids: string[]): Promise<DocumentChunk[]> {
    return ids.flatMap((id) => {
      const row = this.rows.get(id);
      return row ? [this.copy(row)] : [];
    });
  }

  protected override async doListIds(): Promise<string[]> {
    return [...this.rows.keys()];
  }

  private closeness(query: Float32Array, vector: Float32Array): number {
    if (this.metric === 'cosine') return cosineSimilarity(query, vector);
    let sum = 0;
    for (let i = 0; i < query.length; i++) sum += this.metric === 'ip' ? query[i]! * vector[i]! : (query[i]! - vector[i]!) ** 2;
    return sum;
  }

  /** Lower is better: the squared distance for l2, the negated similarity otherwise. */
  private rank(hit: QueryHit): number {
    const value = 'distance' in hit ? hit.distance : hit.score;
    return this.metric === 'l2' ? value : -value;
  }

  /** A copy, so that callers cannot change what is stored. */
  private copy(row: Stored): DocumentChunk {
    return { ...structuredClone(row.chunk), embedding: Float32Array.from(row.vector) };
  }
}
