import { createError, invalidArgument, matchesFilter, parseMetadataFilter, toDocumentChunk, type DocumentChunk, type Embedding, type MetadataFilter, type SnapshotReader, type SnapshotWriter, type VectorMetric, type VectorSearchHit, type VectorSearchOptions } from '@zerda/types';
import { VectorStoreBase, dimensionsOption, metricOption, pathOption, validateVectors, type QueryHit, type VectorQuery, type VectorRecord } from '@zerda/vector-kit';
import { VectorPages } from './vector-pages.js';
import { readStoreBody, readStoreHeader, writeStoreSnapshot } from './memory-snapshot.js';
import { checkIdsOption, fileFormat, parseMemoryOptions, type MemorySearchOptions, type MemoryVectorStoreJSON, type MemoryVectorStoreOptions } from './memory-options.js';
import { MemoryRows } from './memory-records.js';

export type { MemorySearchOptions, MemoryVectorStoreJSON, MemoryVectorStoreOptions } from './memory-options.js';

/**
 * The file format module, loaded on the first `load` of a format-1 file so that importing the store
 * loads no Node built-in. `#store-file` is a conditional import (package.json `imports`): Node.js,
 * Bun and Deno get the `node:fs` implementation; browsers and workers get one that fails with
 * `ZERDA_UNSUPPORTED` (use `toJSON()`/`fromJSON()` there), so bundlers never see `node:fs`. Not
 * exported from a module: declaration files must not name `#store-file` (node10 resolution cannot).
 */
function storeFile(): Promise<typeof import('#store-file')> {
  return import('#store-file');
}

/** What the store can do besides the core (the kit adds `embeds`). */
const CAPABILITIES = { persistence: true, nativeFilter: true, textSearch: false, snapshot: true };

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
  private readonly rows: MemoryRows;

  constructor(options: MemoryVectorStoreOptions = {}) {
    const parsed = parseMemoryOptions(options);
    // Scores are computed here: cosine and inner product as similarities, l2 as the squared distance.
    super({ name: 'memory', metric: parsed.metric, dimensions: parsed.dimensions, embedder: parsed.embedder, capabilities: CAPABILITIES, distance: 'similarity', searchOptions: ['ids'] });
    this.path = parsed.path;
    this.rows = new MemoryRows(parsed.metric);
  }

  /** Rough memory held by the store: allocated vector pages and norms (chunk objects are not counted). */
  get vectorBytes(): number {
    return this.rows.vectorBytes;
  }

  protected async doUpsert(records: VectorRecord[]): Promise<void> {
    this.rows.write(
      records.map((record) => record.chunk),
      records.map((record) => record.vector),
    );
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
        const row = this.rows.rowOf(id);
        if (row !== undefined) rows.add(row);
      }
      if (rows.size === 0) return [];
      restrictTo = [...rows];
    }
    return this.rows.scan(vector, limit, filter, restrictTo);
  }

  /**
   * A predicate telling whether the chunk with a given id matches `filter` (validated once, here).
   * Unknown ids do not match. Lets an index that walks candidates one by one (a graph search)
   * evaluate the filter only on the chunks it visits.
   */
  createMatcher(filter: MetadataFilter): (id: string) => boolean {
    const parsed = parseMetadataFilter(filter, 'filter');
    return (id) => {
      const row = this.rows.rowOf(id);
      return row !== undefined && matchesFilter(this.rows.chunks[row]!, parsed);
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
    const count = this.rows.chunks.length;
    if (count === 0) return 0;
    const samples = Math.min(count, sampleSize);
    const stride = count / samples;
    let hits = 0;
    for (let i = 0; i < samples; i++) if (matchesFilter(this.rows.chunks[Math.floor(i * stride)]!, parsed)) hits++;
    return hits / samples;
  }

  /**
   * Ids of the chunks matching `filter` (all ids without one), in storage order. Lets a caller
   * measure how selective a filter is before choosing a search strategy (the HNSW store does).
   */
  matchingIds(filter?: MetadataFilter): string[] {
    const parsed = filter === undefined ? undefined : parseMetadataFilter(filter, 'filter');
    const out: string[] = [];
    for (const chunk of this.rows.chunks) if (!parsed || matchesFilter(chunk, parsed)) out.push(chunk.id);
    return out;
  }

  /** Deletes by id (swap-remove: the last row moves into the hole), or every chunk of the listed documents (one pass). */
  protected async doDelete(key: 'id' | 'docId', values: string[]): Promise<void> {
    if (key === 'id') {
      for (const id of values) this.rows.remove(id);
      return;
    }
    const wanted = new Set(values);
    for (const id of this.rows.chunks.filter((chunk) => wanted.has(chunk.docId)).map((chunk) => chunk.id)) this.rows.remove(id);
  }

  protected async doCount(): Promise<number> {
    return this.rows.chunks.length;
  }

  /** Chunks with their embeddings, as copies. */
  protected override async doFetch(ids: string[]): Promise<DocumentChunk[]> {
    return ids.flatMap((id) => {
      const row = this.rows.rowOf(id);
      return row === undefined ? [] : [this.rows.materialize(row)];
    });
  }

  /** Removes every chunk and frees the vector memory. A dimension fixed in the options is kept. */
  protected override async doClear(): Promise<void> {
    this.rows.clear();
  }

  /** Every stored chunk with its embedding, in storage order (a fresh copy). */
  *entries(): Generator<DocumentChunk> {
    for (let row = 0; row < this.rows.chunks.length; row++) yield this.rows.materialize(row);
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
    const { chunks, vectors } = this.rows;
    // Writes wait in the queue, so these live views stay consistent until the snapshot is complete.
    const segments = vectors ? [...vectors.segments(chunks.length)].map((segment) => segment.data) : [];
    return writeStoreSnapshot(writer, { metric: this.metric, dimensions: this.dimensionsValue ?? null, count: chunks.length }, segments, chunks.slice());
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
    this.rows.adopt(chunks, pages, (reason) => reader.corrupt('vectors.f32', 'consistency', reason));
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
    store.rows.adopt(file.chunks, pages, corrupt);
    return store;
  }

  /**
   * A JSON-safe snapshot (embeddings as number arrays). Convenient for small stores and tests;
   * prefer `save` for large ones (a million 384-d vectors as JSON text would exceed V8's string limit).
   */
  toJSON(): MemoryVectorStoreJSON {
    const chunks: MemoryVectorStoreJSON['chunks'] = [];
    for (let row = 0; row < this.rows.chunks.length; row++) {
      const chunk = this.rows.materialize(row);
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
    store.rows.write(chunks, validated.vectors);
    return store;
  }
}
