import {
  createError,
  describeValue,
  invalidArgument,
  matchesFilter,
  parseMetadataFilter,
  similarityFromDistance,
  toDocumentChunk,
  toDocumentChunks,
  validateEmbedding,
  type DocumentChunk,
  type EmbedFunction,
  type JsonValue,
  TopK,
  type Metadata,
  type Embedder,
  type SnapshotReader,
  type SnapshotWriter,
  type Embedding,
  type MetadataFilter,
  type VectorMetric,
  type VectorSearchHit,
  type VectorSearchOptions,
  type VectorStore,
  type VectorStoreCapabilities,
} from '@zerda/types';
import { VectorPages } from './vector-pages.js';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, readStoreBody, readStoreHeader, writeStoreSnapshot } from './store-snapshot.js';

/** Options of {@link MemoryVectorStore}. Every field is optional. */
export interface MemoryVectorStoreOptions {
  /** How vectors are compared. Scores are always similarities (see `VectorSearchHit.score`). Default `cosine`. */
  metric?: VectorMetric;
  /** Fixes the dimension up front; otherwise the first added vector sets it. */
  dimensions?: number;
  /** Embeds chunks that arrive without an `embedding` (batched, `kind: 'document'`). */
  embedder?: Embedder | EmbedFunction;
  /** Default file for `save()` without an argument. */
  path?: string;
}

/** Search options of {@link MemoryVectorStore.search}: the v1 options plus an optional id restriction. */
export interface MemorySearchOptions extends VectorSearchOptions {
  /** Only these chunks are candidates (unknown ids are ignored); the filter still applies. */
  ids?: readonly string[] | ReadonlySet<string>;
}

/** The JSON form produced by {@link MemoryVectorStore.toJSON} and read by {@link MemoryVectorStore.fromJSON}. */
export interface MemoryVectorStoreJSON {
  format: 'zerda-vector-memory';
  formatVersion: 1;
  metric: VectorMetric;
  dimensions: number | null;
  chunks: Array<Omit<DocumentChunk, 'embedding'> & { embedding: number[] }>;
}

const METRICS: readonly VectorMetric[] = ['cosine', 'ip', 'l2'];
const OPTION_KEYS = new Set(['metric', 'dimensions', 'embedder', 'path']);

/** The single-file snapshot format of `save`/`load` (the package version is read once, lazily). */
let cachedFormat: Promise<import('@zerda/persistence').SnapshotFormat> | undefined;
function fileFormat(): Promise<import('@zerda/persistence').SnapshotFormat> {
  cachedFormat ??= import('@zerda/persistence').then(async ({ packageVersion }) => {
    const version = await packageVersion(new URL('../package.json', import.meta.url));
    return { format: SNAPSHOT_FORMAT, formatVersion: SNAPSHOT_VERSION, producer: `@zerda/vector-memory ${version}`, zerdaVersion: version, errorCode: 'ZERDA_STORE_CORRUPT' as const };
  });
  return cachedFormat;
}

function checkDimensions(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw invalidArgument(field, 'a positive integer', value);
  return value;
}

function checkMetric(value: unknown, field: string): VectorMetric {
  if (!METRICS.includes(value as VectorMetric)) throw invalidArgument(field, `one of ${METRICS.map((m) => `"${m}"`).join(', ')}`, value);
  return value as VectorMetric;
}

function checkPath(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw invalidArgument(field, 'a non-empty file path', value);
  return value;
}

function ignore(): void {}

/** Deep copy of JSON-safe metadata; several times faster than `structuredClone` for small records. */
function copyJson(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyJson);
  const out: Record<string, JsonValue> = {};
  for (const key in value) out[key] = copyJson(value[key]!);
  return out;
}

function copyMetadata(metadata: Metadata): Metadata {
  return copyJson(metadata) as Metadata;
}

/** Dot product of `query` with the row starting at `base` in `data`. */
function dotAt(query: Float32Array, data: Float32Array, base: number, dimensions: number): number {
  // Four independent accumulators let the CPU overlap the multiply-adds.
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let d = 0;
  for (const end = dimensions - 3; d < end; d += 4) {
    s0 += query[d]! * data[base + d]!;
    s1 += query[d + 1]! * data[base + d + 1]!;
    s2 += query[d + 2]! * data[base + d + 2]!;
    s3 += query[d + 3]! * data[base + d + 3]!;
  }
  for (; d < dimensions; d++) s0 += query[d]! * data[base + d]!;
  return s0 + s1 + s2 + s3;
}

/** Squared euclidean distance between `query` and the row starting at `base` in `data`. */
function squaredDistanceAt(query: Float32Array, data: Float32Array, base: number, dimensions: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let d = 0;
  for (const end = dimensions - 3; d < end; d += 4) {
    const e0 = query[d]! - data[base + d]!;
    const e1 = query[d + 1]! - data[base + d + 1]!;
    const e2 = query[d + 2]! - data[base + d + 2]!;
    const e3 = query[d + 3]! - data[base + d + 3]!;
    s0 += e0 * e0;
    s1 += e1 * e1;
    s2 += e2 * e2;
    s3 += e3 * e3;
  }
  for (; d < dimensions; d++) {
    const e = query[d]! - data[base + d]!;
    s0 += e * e;
  }
  return s0 + s1 + s2 + s3;
}

/** Sum of squares of a vector, in double precision. */
function squaredNorm(vector: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  return sum;
}

/**
 * The file format module, loaded on the first `save`/`load` so that importing the store loads no
 * Node built-in. `#store-file` is a conditional import (package.json `imports`): Node.js, Bun and
 * Deno get the `node:fs` implementation; browsers and workers get one that fails with
 * `ZERDA_UNSUPPORTED` (use `toJSON()`/`fromJSON()` there), so bundlers never see `node:fs`.
 */
function storeFile(): Promise<typeof import('#store-file')> {
  return import('#store-file');
}

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
 * - Writes happen in one synchronous step, so concurrent `add`/`delete` calls never interleave.
 *
 * Cosine keeps the original vectors plus one inverse norm per row (rather than normalized rows), so
 * `get` and search hits return exactly the embedding that was added; a zero vector scores 0.
 */
export class MemoryVectorStore implements VectorStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'memory';
  readonly metric: VectorMetric;
  readonly capabilities: VectorStoreCapabilities;

  private dimensionsValue: number | undefined;
  private readonly embedder: Embedder | EmbedFunction | undefined;
  private readonly path: string | undefined;
  private vectors: VectorPages | undefined;
  /** `1 / |row|` for cosine (0 for a zero vector); unused for other metrics. */
  private inverseNorms = new Float32Array(0);
  private chunks: DocumentChunk[] = [];
  private readonly rowById = new Map<string, number>();
  /** The `save` in progress: writes wait for it, so the file is a consistent snapshot without copying the vectors. */
  private saving: Promise<void> | undefined;

  constructor(options: MemoryVectorStoreOptions = {}) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('options', 'an options object', options);
    for (const key of Object.keys(options)) {
      if (!OPTION_KEYS.has(key)) throw invalidArgument(`options.${key}`, `a known option (one of ${[...OPTION_KEYS].join(', ')})`, `unknown key "${key}"`);
    }
    this.metric = options.metric === undefined ? 'cosine' : checkMetric(options.metric, 'options.metric');
    this.dimensionsValue = options.dimensions === undefined ? undefined : checkDimensions(options.dimensions, 'options.dimensions');
    const embedder = options.embedder;
    if (embedder !== undefined && typeof embedder !== 'function' && !(embedder !== null && typeof embedder === 'object' && typeof (embedder as Embedder).embed === 'function')) {
      throw invalidArgument('options.embedder', 'an Embedder (an object with embed(texts)) or a function (texts) => embeddings', embedder);
    }
    this.embedder = embedder;
    this.path = options.path === undefined ? undefined : checkPath(options.path, 'options.path');
    this.capabilities = Object.freeze({ persistence: true, nativeFilter: true, textSearch: false, embeds: embedder !== undefined, snapshot: true });
  }

  /** The vector dimension: from the options, or set by the first added vector. */
  get dimensions(): number | undefined {
    return this.dimensionsValue;
  }

  /** Rough memory held by the store: allocated vector pages and norms (chunk objects are not counted). */
  get vectorBytes(): number {
    return (this.vectors?.allocatedBytes ?? 0) + this.inverseNorms.byteLength;
  }

  /**
   * Adds or replaces chunks. Chunks without an embedding are embedded with the configured embedder
   * (or rejected when there is none). Validation of the whole batch happens first; the write is
   * all-or-nothing.
   */
  async add(chunks: DocumentChunk[]): Promise<void> {
    // Embeddings first, so a NaN is reported as ZERDA_INVALID_EMBEDDING whatever array type carries it.
    if (Array.isArray(chunks)) {
      chunks.forEach((input, i) => {
        const embedding = (input as Partial<DocumentChunk> | null)?.embedding;
        if (embedding !== undefined) validateEmbedding(embedding, `chunks[${i}].embedding`);
      });
    }
    const validated = toDocumentChunks(chunks, 'chunks');
    if (validated.length === 0) return;
    await this.embedMissing(validated);
    // Checked and followed by the write in the same synchronous step (no await in between).
    while (this.saving) await this.saving.catch(ignore);
    // From here on everything is synchronous: validation and write cannot interleave with other calls.
    this.writeValidated(validated);
  }

  private async embedMissing(chunks: DocumentChunk[]): Promise<void> {
    const missing: number[] = [];
    for (let i = 0; i < chunks.length; i++) if (chunks[i]!.embedding === undefined) missing.push(i);
    if (missing.length === 0) return;
    const embedder = this.embedder;
    if (!embedder) {
      const first = missing[0]!;
      throw createError('ZERDA_INVALID_EMBEDDING', {
        field: `chunks[${first}].embedding`,
        expected: 'an embedding (this store has no embedder to compute one)',
        received: 'undefined',
      });
    }
    const texts = missing.map((i) => chunks[i]!.text);
    let embeddings: Embedding[];
    try {
      embeddings = typeof embedder === 'function' ? await embedder(texts) : await embedder.embed(texts, { kind: 'document' });
    } catch (error) {
      throw createError('ZERDA_BACKEND_ERROR', { component: 'embedder', operation: 'embed', reason: error instanceof Error ? error.message : String(error) }, error);
    }
    if (!Array.isArray(embeddings) || embeddings.length !== texts.length) {
      throw createError('ZERDA_BACKEND_ERROR', {
        component: 'embedder',
        operation: 'embed',
        reason: `expected ${texts.length} embeddings, got ${describeValue(embeddings)}`,
      });
    }
    for (let j = 0; j < missing.length; j++) chunks[missing[j]!]!.embedding = embeddings[j]!;
  }

  private writeValidated(chunks: DocumentChunk[]): void {
    let dimensions = this.dimensionsValue;
    const vectors: Float32Array[] = [];
    for (let i = 0; i < chunks.length; i++) {
      const vector = validateEmbedding(chunks[i]!.embedding, `chunks[${i}].embedding`, dimensions);
      dimensions ??= vector.length;
      vectors.push(vector);
    }
    // Nothing was written so far; now the batch is known good.
    if (this.dimensionsValue === undefined) this.dimensionsValue = dimensions;
    const pages = (this.vectors ??= new VectorPages(dimensions!));
    let newRows = 0;
    for (const chunk of chunks) if (!this.rowById.has(chunk.id)) newRows++;
    const needed = this.chunks.length + newRows;
    pages.ensureCapacity(needed);
    this.ensureNormCapacity(pages.capacity);
    for (let i = 0; i < chunks.length; i++) {
      const chunk = chunks[i]!;
      const vector = vectors[i]!;
      delete chunk.embedding;
      let row = this.rowById.get(chunk.id);
      if (row === undefined) {
        row = this.chunks.length;
        this.chunks.push(chunk);
        this.rowById.set(chunk.id, row);
      } else {
        this.chunks[row] = chunk;
      }
      pages.write(row, vector);
      if (this.metric === 'cosine') {
        const norm = Math.sqrt(squaredNorm(vector));
        this.inverseNorms[row] = norm > 0 ? 1 / norm : 0;
      }
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
  async search(vector: Embedding, options: MemorySearchOptions): Promise<VectorSearchHit[]> {
    if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an object with k', options);
    const k = options.k;
    if (typeof k !== 'number' || !Number.isInteger(k) || k < 0) throw invalidArgument('options.k', 'a non-negative integer', k);
    const filter = options.filter === undefined ? undefined : parseMetadataFilter(options.filter, 'options.filter');
    const query = validateEmbedding(vector, 'vector', this.dimensionsValue);
    let restrictTo: number[] | undefined;
    if (options.ids !== undefined) {
      const ids = options.ids;
      if (!(Array.isArray(ids) || ids instanceof Set) || [...ids].some((id) => typeof id !== 'string')) {
        throw invalidArgument('options.ids', 'an array or Set of chunk ids', ids);
      }
      restrictTo = [];
      const seen = new Set<number>();
      for (const id of ids as Iterable<string>) {
        const row = this.rowById.get(id);
        if (row !== undefined && !seen.has(row)) {
          seen.add(row);
          restrictTo.push(row);
        }
      }
    }
    if (k === 0 || this.chunks.length === 0 || !this.vectors || restrictTo?.length === 0) return [];
    return this.scan(query, k, filter, restrictTo);
  }

  private scan(query: Float32Array, k: number, filter: MetadataFilter | undefined, restrictTo: number[] | undefined): VectorSearchHit[] {
    const pages = this.vectors!;
    const dimensions = pages.dimensions;
    const chunks = this.chunks;
    const metric = this.metric;
    let queryScale = 1;
    if (metric === 'cosine') {
      const norm = Math.sqrt(squaredNorm(query));
      queryScale = norm > 0 ? 1 / norm : 0;
    }
    const norms = this.inverseNorms;
    const candidates = restrictTo?.length ?? chunks.length;
    // Ties are broken by id so that results do not depend on the (delete-dependent) row order.
    const heap = new TopK(Math.min(k, candidates), (a, b) => chunks[a]!.id < chunks[b]!.id);
    // rank: higher is better; l2 ranks by negative squared distance and is converted once at the end.
    const l2 = metric === 'l2';
    const cosine = metric === 'cosine';
    if (restrictTo) {
      for (const row of restrictTo) {
        if (filter && !matchesFilter(chunks[row]!, filter)) continue;
        const data = pages.page(row);
        const base = pages.offset(row);
        if (l2) heap.push(-squaredDistanceAt(query, data, base, dimensions), row);
        else heap.push(cosine ? dotAt(query, data, base, dimensions) * queryScale * norms[row]! : dotAt(query, data, base, dimensions), row);
      }
    } else {
      // Full scan page by page: contiguous rows, no per-row page lookup.
      for (const segment of pages.segments(chunks.length)) {
        const data = segment.data;
        for (let local = 0, base = 0; local < segment.rows; local++, base += dimensions) {
          const row = segment.firstRow + local;
          if (filter && !matchesFilter(chunks[row]!, filter)) continue;
          if (l2) heap.push(-squaredDistanceAt(query, data, base, dimensions), row);
          else heap.push(cosine ? dotAt(query, data, base, dimensions) * queryScale * norms[row]! : dotAt(query, data, base, dimensions), row);
        }
      }
    }
    return heap.sorted().map(({ rank, item }) => ({ chunk: this.materialize(item), score: this.toSimilarity(rank) }));
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

  private toSimilarity(rank: number): number {
    switch (this.metric) {
      case 'cosine':
        // float32 rounding can step just outside [-1, 1]; the contract promises the range.
        return Math.max(-1, Math.min(1, rank));
      case 'ip':
        return rank;
      case 'l2':
        return similarityFromDistance('l2', -rank, { squared: true });
    }
  }

  /** A copy of the stored chunk with its embedding, so callers cannot mutate the store. */
  private materialize(row: number): DocumentChunk {
    const stored = this.chunks[row]!;
    const copy: DocumentChunk = { ...stored, metadata: copyMetadata(stored.metadata), position: { ...stored.position } };
    copy.embedding = this.vectors!.read(row);
    return copy;
  }

  /** Deletes chunks by id (swap-remove: the last row moves into the hole). Unknown ids are ignored. */
  async delete(ids: string[]): Promise<void> {
    if (!Array.isArray(ids)) throw invalidArgument('ids', 'an array of chunk ids', ids);
    for (let i = 0; i < ids.length; i++) if (typeof ids[i] !== 'string') throw invalidArgument(`ids[${i}]`, 'a string', ids[i]);
    // Checked and followed by the write in the same synchronous step (no await in between).
    while (this.saving) await this.saving.catch(ignore);
    for (const id of ids) this.removeId(id);
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

  /** Deletes every chunk whose `docId` is listed (one pass over the store). */
  async deleteByDocIds(docIds: string[]): Promise<void> {
    if (!Array.isArray(docIds)) throw invalidArgument('docIds', 'an array of document ids', docIds);
    for (let i = 0; i < docIds.length; i++) if (typeof docIds[i] !== 'string') throw invalidArgument(`docIds[${i}]`, 'a string', docIds[i]);
    const wanted = new Set(docIds);
    if (wanted.size === 0) return;
    // Checked and followed by the write in the same synchronous step (no await in between).
    while (this.saving) await this.saving.catch(ignore);
    const doomed: string[] = [];
    for (const chunk of this.chunks) if (wanted.has(chunk.docId)) doomed.push(chunk.id);
    for (const id of doomed) this.removeId(id);
  }

  async count(): Promise<number> {
    return this.chunks.length;
  }

  /** Fetches chunks (with their embeddings) by id, in the order asked; missing ids are skipped. */
  async get(ids: string[]): Promise<DocumentChunk[]> {
    if (!Array.isArray(ids)) throw invalidArgument('ids', 'an array of chunk ids', ids);
    const out: DocumentChunk[] = [];
    for (const id of ids) {
      const row = typeof id === 'string' ? this.rowById.get(id) : undefined;
      if (row !== undefined) out.push(this.materialize(row));
    }
    return out;
  }

  /** Removes every chunk and frees the vector memory. A dimension fixed in the options is kept. */
  async clear(): Promise<void> {
    // Checked and followed by the write in the same synchronous step (no await in between).
    while (this.saving) await this.saving.catch(ignore);
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
    const target = path === undefined ? this.path : checkPath(path, 'path');
    if (target === undefined) throw invalidArgument('path', 'a file path (no options.path was configured)', path);
    // The write lock is taken in this synchronous step: writes issued after `save` wait for it.
    await this.exclusiveRead(async () => {
      const { writeSnapshotFile } = await import('@zerda/persistence');
      await writeSnapshotFile(target, await fileFormat(), (writer) => this.writeState(writer));
    });
  }

  /**
   * Writes the whole store into a snapshot (an engine snapshot's `vectors/` folder, or the file of
   * {@link save}): `store.json`, `vectors.f32` and the chunk table. Writes wait until it is done.
   */
  async writeSnapshot(writer: SnapshotWriter): Promise<void> {
    await this.exclusiveRead(() => this.writeState(writer));
  }

  /** Runs `operation` with writes held back (they wait for `saving`), one reader of the live state at a time. */
  private async exclusiveRead<T>(operation: () => Promise<T>): Promise<T> {
    // Checked and followed by the assignment in the same synchronous step (no await in between).
    while (this.saving) await this.saving.catch(ignore);
    // Synchronous from here to the assignment of `saving`.
    const running = operation();
    const saving = running.then(ignore, ignore);
    this.saving = saving;
    try {
      return await running;
    } finally {
      if (this.saving === saving) this.saving = undefined;
    }
  }

  private writeState(writer: SnapshotWriter): Promise<void> {
    const count = this.chunks.length;
    // Writes wait for `saving`, so these live views stay consistent until the snapshot is complete.
    const segments = this.vectors ? [...this.vectors.segments(count)].map((segment) => segment.data) : [];
    return writeStoreSnapshot(writer, { metric: this.metric, dimensions: this.dimensionsValue ?? null, count }, segments, this.chunks.slice());
  }

  /**
   * Replaces the content of this empty store with a snapshot written by {@link writeSnapshot}.
   * The snapshot's metric must be this store's, and its dimension the one fixed in the options (if
   * any). Every file is verified before anything is adopted; a failure leaves the store empty.
   */
  async readSnapshot(reader: SnapshotReader): Promise<void> {
    if (this.chunks.length > 0) throw createError('ZERDA_UNSUPPORTED', { operation: 'readSnapshot', component: 'a MemoryVectorStore that holds chunks', reason: 'restore into an empty store' });
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
    while (this.saving) await this.saving.catch(ignore);
    if (this.chunks.length > 0) throw createError('ZERDA_UNSUPPORTED', { operation: 'readSnapshot', component: 'a MemoryVectorStore that holds chunks', reason: 'chunks were added while the snapshot was read' });
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
    checkPath(path, 'path');
    const { isSnapshotFile, readSnapshotFile } = await import('@zerda/persistence');
    const corrupt = (reason: string) => createError('ZERDA_STORE_CORRUPT', { path, reason });
    const check = (header: { metric: VectorMetric; dimensions: number | null }): void => {
      if (options.metric !== undefined && options.metric !== header.metric) throw corrupt(`it was written with metric "${header.metric}", but options.metric is "${options.metric}"`);
      if (options.dimensions !== undefined && header.dimensions !== null && options.dimensions !== header.dimensions) {
        throw corrupt(`it holds ${header.dimensions}-dimensional vectors, but options.dimensions is ${options.dimensions}`);
      }
    };
    if (await isSnapshotFile(path)) {
      return readSnapshotFile(path, await fileFormat(), async (reader) => {
        const header = await readStoreHeader(reader);
        check(header);
        const store = new MemoryVectorStore({ ...options, metric: header.metric, ...(header.dimensions !== null ? { dimensions: header.dimensions } : {}), path });
        await store.readSnapshot(reader);
        return store;
      });
    }
    const { readStoreFile } = await storeFile();
    const file = await readStoreFile(path);
    check(file.header);
    const store = new MemoryVectorStore({ ...options, metric: file.header.metric, ...(file.header.dimensions !== null ? { dimensions: file.header.dimensions } : {}), path });
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
        let sum = 0;
        for (let d = local * dimensions, end = d + dimensions; d < end; d++) {
          const value = data[d]!;
          if (!Number.isFinite(value)) throw corrupt(`vector ${row} holds a non-finite value`);
          sum += value * value;
        }
        if (this.metric === 'cosine') inverseNorms[row] = sum > 0 ? 1 / Math.sqrt(sum) : 0;
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
    const metric = checkMetric(snapshot.metric, 'json.metric');
    const dimensions = snapshot.dimensions === null ? undefined : checkDimensions(snapshot.dimensions, 'json.dimensions');
    if (!Array.isArray(snapshot.chunks)) throw invalidArgument('json.chunks', 'an array of chunks', snapshot.chunks);
    const store = new MemoryVectorStore({ ...options, metric, ...(dimensions !== undefined ? { dimensions } : {}) });
    const chunks = snapshot.chunks.map((chunk, i) => {
      const parsed = toDocumentChunk(chunk, i, `json.chunks[${i}]`);
      if (parsed.embedding === undefined) throw invalidArgument(`json.chunks[${i}].embedding`, 'an embedding', undefined);
      return parsed;
    });
    const ids = new Set<string>();
    chunks.forEach((chunk, i) => {
      if (ids.has(chunk.id)) throw invalidArgument(`json.chunks[${i}].id`, 'unique within the snapshot', chunk.id);
      ids.add(chunk.id);
    });
    if (chunks.length > 0) store.writeValidated(chunks);
    return store;
  }
}
