import { TopK, matchesFilter, type DocumentChunk, type MetadataFilter, type VectorMetric } from '@zerda/types';
import type { QueryHit } from '@zerda/vector-kit';
import { copyMetadata, dotAt, inverseNorm, squaredDistanceAt } from './memory-scoring.js';
import { VectorPages } from './vector-pages.js';

/**
 * The records of a memory store: chunks without their embedding (one row each), the vectors in
 * contiguous pages, and for cosine one inverse norm per row (the original vectors are kept, so
 * `get` and hits return exactly the embedding that was added; a zero vector scores 0). Every
 * method is synchronous: a write applies in one step.
 */
export class MemoryRows {
  vectors: VectorPages | undefined;
  /** `1 / |row|` for cosine (0 for a zero vector); unused for other metrics. */
  private inverseNorms = new Float32Array(0);
  chunks: DocumentChunk[] = [];
  private readonly rowById = new Map<string, number>();

  constructor(private readonly metric: VectorMetric) {}

  /** Allocated vector pages and norms, in bytes (chunk objects are not counted). */
  get vectorBytes(): number {
    return (this.vectors?.allocatedBytes ?? 0) + this.inverseNorms.byteLength;
  }

  /** The row of a chunk id, if stored. */
  rowOf(id: string): number | undefined {
    return this.rowById.get(id);
  }

  /** Writes validated chunks (their embedding is dropped) and their vectors, of one dimension; re-written ids replace their row. */
  write(chunks: DocumentChunk[], vectors: Float32Array[]): void {
    const pages = (this.vectors ??= new VectorPages(vectors[0]!.length));
    let newRows = 0;
    for (const chunk of chunks) if (!this.rowById.has(chunk.id)) newRows++;
    pages.ensureCapacity(this.chunks.length + newRows);
    if (this.metric === 'cosine' && this.inverseNorms.length < pages.capacity) {
      const grown = new Float32Array(pages.capacity);
      grown.set(this.inverseNorms);
      this.inverseNorms = grown;
    }
    for (let i = 0; i < chunks.length; i++) {
      const chunk = chunks[i]!;
      delete chunk.embedding;
      let row = this.rowById.get(chunk.id);
      if (row === undefined) {
        row = this.chunks.length;
        this.chunks.push(chunk);
        this.rowById.set(chunk.id, row);
      } else {
        this.chunks[row] = chunk;
      }
      pages.write(row, vectors[i]!);
      if (this.metric === 'cosine') this.inverseNorms[row] = inverseNorm(vectors[i]!);
    }
  }

  /** Removes a chunk (swap-remove: the last row moves into the hole); an unknown id is ignored. */
  remove(id: string): void {
    const row = this.rowById.get(id);
    if (row === undefined) return;
    const last = this.chunks.length - 1;
    this.rowById.delete(id);
    if (row !== last) {
      const moved = this.chunks[last]!;
      this.chunks[row] = moved;
      this.rowById.set(moved.id, row);
      this.vectors!.copyRow(last, row);
      if (this.metric === 'cosine') this.inverseNorms[row] = this.inverseNorms[last]!;
    }
    this.chunks.pop();
  }

  /** Drops every row and frees the vector memory. */
  clear(): void {
    this.chunks = [];
    this.rowById.clear();
    this.vectors?.reset();
    this.vectors = undefined;
    this.inverseNorms = new Float32Array(0);
  }

  /** A copy of the stored chunk with its embedding, so callers cannot mutate the store. */
  materialize(row: number): DocumentChunk {
    const stored = this.chunks[row]!;
    const copy: DocumentChunk = { ...stored, metadata: copyMetadata(stored.metadata), position: { ...stored.position } };
    copy.embedding = this.vectors!.read(row);
    return copy;
  }

  /**
   * The exact top `k` rows matching `filter` (among `restrictTo` when given), best first, ties by
   * id; hits carry cosine or the inner product as is, l2 as the squared distance.
   */
  scan(query: Float32Array, k: number, filter: MetadataFilter | undefined, restrictTo: number[] | undefined): QueryHit[] {
    const pages = this.vectors;
    if (!pages || this.chunks.length === 0) return [];
    const dimensions = pages.dimensions;
    const chunks = this.chunks;
    const queryScale = this.metric === 'cosine' ? inverseNorm(query) : 1;
    const norms = this.inverseNorms;
    // Ties are broken by id so that results do not depend on the (delete-dependent) row order.
    const heap = new TopK(Math.min(k, restrictTo?.length ?? chunks.length), (a, b) => chunks[a]!.id < chunks[b]!.id);
    // rank: higher is better; l2 ranks by negative squared distance.
    const l2 = this.metric === 'l2';
    const cosine = this.metric === 'cosine';
    const score = (data: Float32Array, base: number, row: number): void => {
      if (filter && !matchesFilter(chunks[row]!, filter)) return;
      if (l2) heap.push(-squaredDistanceAt(query, data, base, dimensions), row);
      else heap.push(cosine ? dotAt(query, data, base, dimensions) * queryScale * norms[row]! : dotAt(query, data, base, dimensions), row);
    };
    if (restrictTo) {
      for (const row of restrictTo) score(pages.page(row), pages.offset(row), row);
    } else {
      // Full scan page by page: contiguous rows, no per-row page lookup.
      for (const segment of pages.segments(chunks.length)) {
        for (let local = 0, base = 0; local < segment.rows; local++, base += dimensions) score(segment.data, base, segment.firstRow + local);
      }
    }
    return heap.sorted().map(({ rank, item }) => ({ chunk: this.materialize(item), distance: l2 ? -rank : rank }));
  }

  /** Fills empty rows from already-verified chunks and their vectors (one row per chunk, in `pages`); checks ids and values first. */
  adopt(chunks: DocumentChunk[], pages: VectorPages | undefined, corrupt: (reason: string) => Error): void {
    const dimensions = pages?.dimensions;
    if (chunks.length === 0 || pages === undefined || dimensions === undefined) return;
    const rowById = new Map<string, number>();
    const inverseNorms = new Float32Array(this.metric === 'cosine' ? pages.capacity : 0);
    for (const segment of pages.segments(chunks.length)) {
      const data = segment.data;
      for (let local = 0; local < segment.rows; local++) {
        const row = segment.firstRow + local;
        const id = chunks[row]!.id;
        if (rowById.has(id)) throw corrupt(`chunk id ${JSON.stringify(id)} appears twice`);
        rowById.set(id, row);
        const start = local * dimensions;
        for (let d = start; d < start + dimensions; d++) if (!Number.isFinite(data[d]!)) throw corrupt(`vector ${row} holds a non-finite value`);
        if (this.metric === 'cosine') inverseNorms[row] = inverseNorm(data, start, start + dimensions);
      }
    }
    // Everything checked: adopt.
    this.vectors = pages;
    this.chunks = chunks;
    for (const [id, row] of rowById) this.rowById.set(id, row);
    this.inverseNorms = inverseNorms;
  }
}
