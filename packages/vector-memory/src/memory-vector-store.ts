import {
  createError,
  invalidArgument,
  matchesFilter,
  parseMetadataFilter,
  toDocumentChunk,
  TopK,
  type DocumentChunk,
  type Embedding,
  type MetadataFilter,
  type SnapshotReader,
  type SnapshotWriter,
  type VectorMetric,
  type VectorSearchHit,
  type VectorSearchOptions,
} from '@zerda/types';
import { VectorStoreBase, dimensionsOption, metricOption, pathOption, validateVectors, type QueryHit, type VectorQuery, type VectorRecord } from '@zerda/vector-kit';
import { VectorPages } from './vector-pages.js';
import { readStoreBody, readStoreHeader, writeStoreSnapshot } from './memory-snapshot.js';
import { checkIdsOption, fileFormat, parseMemoryOptions, storeFile, type MemorySearchOptions, type MemoryVectorStoreJSON, type MemoryVectorStoreOptions } from './memory-options.js';
import { copyMetadata, dotAt, inverseNorm, squaredDistanceAt } from './memory-scoring.js';

export type { MemorySearchOptions, MemoryVectorStoreJSON, MemoryVectorStoreOptions } from './memory-options.js';

/**
 * Exact (brute-force) vector search held entirely in memory, in pure TypeScript. Vectors live in
 * contiguous `Float32Array` pages; chunk objects are kept without their embedding so each vector is
 * stored once. Search scans every row that passes the filter and keeps the top `k` in a bounded
 * heap, so results are exact for every metric and every filter.
 *
 * Guarantees (the `VectorStore` v1 contract, checked by `@zerda/vector-conformance`):
 * - `add` validates every chunk and every embedding before it writes anything: one bad chunk in a
 *   batch leaves the store untouched. Re-adding an id replaces the stored chunk.
 * - `search` returns at most `k` hits, best first, each matching the filter; scores are cosine
 *   similarity in [-1, 1], the raw inner product, or `1 / (1 + euclidean distance)`.
 * - Writes (and `save`/`writeSnapshot`) run one at a time in call order (the kit's write queue);
 *   each write applies in one synchronous step, so searches never see half of one.
 *
 * Cosine keeps the original vectors plus one inverse norm per row (rather than normalized rows), so
 * `get` and search hits return exactly the embedding that was added; a zero vector scores 0.
 */
export class MemoryVectorStore extends VectorStoreBase {
  private readonly path: string | undefined;
  private vectors: VectorPages | undefined;
  /** `1 / |row|` for cosine (0 for a zero vector); unused for other metrics. */
  private inverseNorms = new Float32Array(0);
  private chunks: DocumentChunk[] = [];
  private readonly rowById = new Map<string, number>();

  constructor(options: MemoryVectorStoreOptions = {}) {
    const parsed = parseMemoryOptions(options);
    super({
      name: 'memory',
      metric: parsed.metric,
      dimensions: parsed.dimensions,
      capabilities: { persistence: true, nativeFilter: true, textSearch: false, snapshot: true },
      // Scores are computed here: cosine and inner product as similarities, l2 as the squared distance.
      distance: 'similarity',
      embedder: parsed.embedder,
      searchOptions: ['ids'],
    });
    this.path = parsed.path;
  }

  /** Rough memory held by the store: allocated vector pages and norms (chunk objects are not counted). */
  get vectorBytes(): number {
    return (this.vectors?.allocatedBytes ?? 0) + this.inverseNorms.byteLength;
  }

  protected async doUpsert(records: VectorRecord[]): Promise<void> {
    this.writeRows(
      records.map((record) => record.chunk),
      records.map((record) => record.vector),
    );
  }

  /** Writes validated chunks and their vectors (of the store's dimension) in one synchronous step. */
  private writeRows(chunks: DocumentChunk[], vectors: Float32Array[]): void {
    const pages = (this.vectors ??= new VectorPages(vectors[0]!.length));
    let newRows = 0;
    for (const chunk of chunks) if (!this.rowById.has(chunk.id)) newRows++;
    pages.ensureCapacity(this.chunks.length + newRows);
    this.ensureNormCapacity(pages.capacity);
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

  private ensureNormCapacity(rows: number): void {
    if (this.metric !== 'cosine' || this.inverseNorms.length >= rows) return;
    const grown = new Float32Array(rows);
    grown.set(this.inverseNorms);
    this.inverseNorms = grown;
  }

  /**
   * Exact top-`k` search. The filter (validated with the shared filter language) is evaluated
   * before a row is scored; `k` larger than the number of matching chunks returns all of them.
   * `options.ids` (an array or Set of chunk ids) restricts the search to those chunks — scoring
   * only them, which is how a caller that already knows its candidates avoids a full scan.
   */
  override search(vector: Embedding, options: MemorySearchOptions): Promise<VectorSearchHit[]> {
    return super.search(vector, options);
  }

  protected override checkSearchOptions(options: VectorSearchOptions): void {
    checkIdsOption((options as MemorySearchOptions).ids);
  }

  protected async doQuery({ vector, limit, filter, options }: VectorQuery<MetadataFilter>): Promise<QueryHit[]> {
    const ids = (options as MemorySearchOptions).ids;
    let restrictTo: number[] | undefined;
    if (ids !== undefined) {
      const rows = new Set<number>();
      for (const id of ids as Iterable<string>) {
        const row = this.rowById.get(id);
        if (row !== undefined) rows.add(row);
      }
      restrictTo = [...rows];
    }
    if (this.chunks.length === 0 || !this.vectors || restrictTo?.length === 0) return [];
    return this.scan(vector, limit, filter, restrictTo);
  }

  private scan(query: Float32Array, k: number, filter: MetadataFilter | undefined, restrictTo: number[] | undefined): QueryHit[] {
    const pages = this.vectors!;
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

  /**
   * A predicate telling whether the chunk with a given id matches `filter` (validated once, here).
   * Unknown ids do not match. Lets an index that walks candidates one by one (a graph search)
   * evaluate the filter only on the chunks it visits.
   */
  createMatcher(filter: MetadataFilter): (id: string) => boolean {
    const parsed = parseMetadataFilter(filter, 'filter');
    return (id) => {
      const row = this.rowById.get(id);
      return row !== undefined && matchesFilter(this.chunks[row]!, parsed);
    };
  }

  /**
   * The fraction of chunks matching `filter`, estimated from at most `sampleSize` chunks spread
   * evenly over the store (exact when the store is no larger). Costs O(sampleSize), whatever the
   * store size, so a caller can pick a search strategy before paying for a full filter scan.
   */
  estimateMatchRate(filter: MetadataFilter, sampleSize = 1024): number {
    const parsed = parseMetadataFilter(filter, 'filter');
    if (!Number.isInteger(sampleSize) || sampleSize < 1) throw invalidArgument('sampleSize', 'a positive integer', sampleSize);
    const count = this.chunks.length;
    if (count === 0) return 0;
    const samples = Math.min(count, sampleSize);
    const stride = count / samples;
    let hits = 0;
    for (let i = 0; i < samples; i++) if (matchesFilter(this.chunks[Math.floor(i * stride)]!, parsed)) hits++;
    return hits / samples;
  }

  /**
   * Ids of the chunks matching `filter` (all ids without one), in storage order. Lets a caller
   * measure how selective a filter is before choosing a search strategy (the HNSW store does).
   */
  matchingIds(filter?: MetadataFilter): string[] {
    const parsed = filter === undefined ? undefined : parseMetadataFilter(filter, 'filter');
    const out: string[] = [];
    for (const chunk of this.chunks) if (!parsed || matchesFilter(chunk, parsed)) out.push(chunk.id);
    return out;
  }

  /** A copy of the stored chunk with its embedding, so callers cannot mutate the store. */
  private materialize(row: number): DocumentChunk {
    const stored = this.chunks[row]!;
    const copy: DocumentChunk = { ...stored, metadata: copyMetadata(stored.metadata), position: { ...stored.position } };
    copy.embedding = this.vectors!.read(row);
    return copy;
  }

  /** Deletes by id (swap-remove: the last row moves into the hole), or every chunk of the listed documents (one pass). */
  protected async doDelete(key: 'id' | 'docId', values: string[]): Promise<void> {
    if (key === 'id') {
      for (const id of values) this.removeId(id);
      return;
    }
    const wanted = new Set(values);
    const doomed: string[] = [];
    for (const chunk of this.chunks) if (wanted.has(chunk.docId)) doomed.push(chunk.id);
    for (const id of doomed) this.removeId(id);
  }

  private removeId(id: string): void {
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

  protected async doCount(): Promise<number> {
    return this.chunks.length;
  }

  /** Chunks with their embeddings, as copies. */
  protected override async doFetch(ids: string[]): Promise<DocumentChunk[]> {
    return ids.flatMap((id) => {
      const row = this.rowById.get(id);
      return row === undefined ? [] : [this.materialize(row)];
    });
  }

  /** Removes every chunk and frees the vector memory. A dimension fixed in the options is kept. */
  protected override async doClear(): Promise<void> {
    this.chunks = [];
    this.rowById.clear();
    this.vectors?.reset();
    this.vectors = undefined;
    this.inverseNorms = new Float32Array(0);
  }

  /** Every stored chunk with its embedding, in storage order (a fresh copy). */
  *entries(): Generator<DocumentChunk> {
    for (let row = 0; row < this.chunks.length; row++) yield this.materialize(row);
  }

  /**
   * Writes the store to `path` (or `options.path`) as a single-file snapshot (format version 2):
   * the vectors as little-endian float32 rows and the chunks as a column-wise table, each part
   * with its size and SHA-256 in a checksummed footer. The file goes to a temporary sibling that is
   * flushed and renamed over the target, so a crash during `save` leaves the previous file intact,
   * and temporaries of earlier saves that were killed are removed. Missing parent directories are
   * created. Writes issued during a save wait for it; nothing is copied (a million chunks are
   * streamed from the live pages). Node only (loaded on first use).
   */
  async save(path?: string): Promise<void> {
    const target = path === undefined ? this.path : pathOption(path, 'path');
    if (target === undefined) throw invalidArgument('path', 'a file path (no options.path was configured)', path);
    // Queued as a write: writes issued after `save` wait for it.
    await this.writes.run(async () => {
      const { writeSnapshotFile } = await import('@zerda/persistence');
      await writeSnapshotFile(target, await fileFormat(), (writer) => this.doWriteSnapshot(writer));
    });
  }

  /**
   * Writes the whole store into a snapshot (an engine snapshot's `vectors/` folder, or the file of
   * {@link save}): `store.json`, `vectors.f32` and the chunk table. Writes wait until it is done.
   */
  writeSnapshot(writer: SnapshotWriter): Promise<void> {
    return this.snapshotTo(writer);
  }

  protected override doWriteSnapshot(writer: SnapshotWriter): Promise<void> {
    const count = this.chunks.length;
    // Writes wait in the queue, so these live views stay consistent until the snapshot is complete.
    const segments = this.vectors ? [...this.vectors.segments(count)].map((segment) => segment.data) : [];
    return writeStoreSnapshot(writer, { metric: this.metric, dimensions: this.dimensionsValue ?? null, count }, segments, this.chunks.slice());
  }

  /**
   * Replaces the content of this empty store with a snapshot written by {@link writeSnapshot}.
   * The snapshot's metric must be this store's, and its dimension the one fixed in the options (if
   * any). Every file is verified before anything is adopted; a failure leaves the store empty.
   */
  readSnapshot(reader: SnapshotReader): Promise<void> {
    return this.restoreFrom(reader);
  }

  protected override async doReadSnapshot(reader: SnapshotReader): Promise<void> {
    const header = await readStoreHeader(reader);
    if (header.metric !== this.metric) {
      throw reader.corrupt('store.json', 'consistency', `the snapshot's store uses metric "${header.metric}", this store "${this.metric}" (create it with { metric: '${header.metric}' })`);
    }
    if (this.dimensionsValue !== undefined && header.dimensions !== null && header.dimensions !== this.dimensionsValue) {
      throw reader.corrupt('store.json', 'consistency', `the snapshot holds ${header.dimensions}-dimensional vectors, this store was created for ${this.dimensionsValue}`);
    }
    const dimensions = header.dimensions ?? this.dimensionsValue;
    const pages = dimensions === undefined ? undefined : new VectorPages(dimensions);
    pages?.ensureCapacity(header.count);
    const chunks = await readStoreBody(reader, header, (firstRow, rows) => pages!.writeRows(firstRow, rows), pages?.pageRows ?? 1);
    this.restore(chunks, pages, (reason) => reader.corrupt('vectors.f32', 'consistency', reason));
    if (dimensions !== undefined) this.dimensionsValue = dimensions;
  }

  /**
   * Opens a file written by {@link MemoryVectorStore.save} (this version's format, or the format-1
   * files of earlier versions, which carry no checksum). Fails with `ZERDA_STORE_CORRUPT` — naming
   * the path, the part and the failed check — when the file is truncated, damaged, malformed or
   * inconsistent, and with `ZERDA_STORE_IO` when it cannot be read. `options.metric` and
   * `options.dimensions`, if given, must match the file. Node only.
   */
  static async load(path: string, options: Omit<MemoryVectorStoreOptions, 'path'> = {}): Promise<MemoryVectorStore> {
    pathOption(path, 'path');
    const { isSnapshotFile, readSnapshotFile } = await import('@zerda/persistence');
    const corrupt = (reason: string) => createError('ZERDA_STORE_CORRUPT', { path, reason });
    const open = (header: { metric: VectorMetric; dimensions: number | null }): MemoryVectorStore => {
      if (options.metric !== undefined && options.metric !== header.metric) throw corrupt(`it was written with metric "${header.metric}", but options.metric is "${options.metric}"`);
      if (options.dimensions !== undefined && header.dimensions !== null && options.dimensions !== header.dimensions) {
        throw corrupt(`it holds ${header.dimensions}-dimensional vectors, but options.dimensions is ${options.dimensions}`);
      }
      return new MemoryVectorStore({ ...options, metric: header.metric, ...(header.dimensions !== null ? { dimensions: header.dimensions } : {}), path });
    };
    if (await isSnapshotFile(path)) {
      return readSnapshotFile(path, await fileFormat(), async (reader) => {
        const store = open(await readStoreHeader(reader));
        await store.readSnapshot(reader);
        return store;
      });
    }
    const { readStoreFile } = await storeFile();
    const file = await readStoreFile(path);
    const store = open(file.header);
    const dimensions = file.header.dimensions;
    let pages: VectorPages | undefined;
    if (dimensions !== null && file.header.count > 0) {
      pages = new VectorPages(dimensions);
      pages.ensureCapacity(file.header.count);
      pages.writeRows(0, file.vectors);
    }
    store.restore(file.chunks, pages, corrupt);
    return store;
  }

  /** Fills an empty store from already-verified chunks and their vectors (one row per chunk, in `pages`). */
  private restore(chunks: DocumentChunk[], pages: VectorPages | undefined, corrupt: (reason: string) => Error): void {
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

  /**
   * A JSON-safe snapshot (embeddings as number arrays). Convenient for small stores and tests;
   * prefer `save` for large ones (a million 384-d vectors as JSON text would exceed V8's string limit).
   */
  toJSON(): MemoryVectorStoreJSON {
    const chunks: MemoryVectorStoreJSON['chunks'] = [];
    for (let row = 0; row < this.chunks.length; row++) {
      const chunk = this.materialize(row);
      chunks.push({ ...chunk, embedding: Array.from(chunk.embedding as Float32Array) });
    }
    return { format: 'zerda-vector-memory', formatVersion: 1, metric: this.metric, dimensions: this.dimensionsValue ?? null, chunks };
  }

  /**
   * Rebuilds a store from {@link MemoryVectorStore.toJSON} output (or its `JSON.parse`d text).
   * Every chunk and embedding is validated; a malformed snapshot fails with a ZerdaError.
   */
  static fromJSON(json: unknown, options: Omit<MemoryVectorStoreOptions, 'metric' | 'dimensions'> = {}): MemoryVectorStore {
    if (json === null || typeof json !== 'object' || (json as MemoryVectorStoreJSON).format !== 'zerda-vector-memory') {
      throw invalidArgument('json.format', '"zerda-vector-memory" (the output of MemoryVectorStore.toJSON())', (json as { format?: unknown } | null)?.format ?? json);
    }
    const snapshot = json as MemoryVectorStoreJSON;
    if (snapshot.formatVersion !== 1) throw invalidArgument('json.formatVersion', '1', snapshot.formatVersion);
    const metric = metricOption(snapshot.metric ?? null, 'json.metric');
    const dimensions = snapshot.dimensions === null ? undefined : dimensionsOption(snapshot.dimensions ?? 0, 'json.dimensions', Infinity);
    if (!Array.isArray(snapshot.chunks)) throw invalidArgument('json.chunks', 'an array of chunks', snapshot.chunks);
    const store = new MemoryVectorStore({ ...options, metric, ...(dimensions !== undefined ? { dimensions } : {}) });
    const ids = new Set<string>();
    const chunks = snapshot.chunks.map((chunk, i) => {
      const parsed = toDocumentChunk(chunk, i, `json.chunks[${i}]`);
      if (parsed.embedding === undefined) throw invalidArgument(`json.chunks[${i}].embedding`, 'an embedding', undefined);
      if (ids.has(parsed.id)) throw invalidArgument(`json.chunks[${i}].id`, 'unique within the snapshot', parsed.id);
      ids.add(parsed.id);
      return parsed;
    });
    if (chunks.length === 0) return store;
    const validated = validateVectors(chunks, dimensions);
    store.dimensionsValue = validated.dimensions;
    store.writeRows(chunks, validated.vectors);
    return store;
  }
}
