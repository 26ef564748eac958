import {
  compareSearchHits,
  cosineSimilarity,
  createError,
  invalidArgument,
  matchesFilter,
  similarityFromDistance,
  toDocumentChunks,
  validateEmbedding,
  validateIdList,
  validateSearchOptions,
  type DocumentChunk,
  type Embedding,
  type VectorMetric,
  type VectorSearchHit,
  type VectorSearchOptions,
  type VectorStore,
  type VectorStoreCapabilities,
  checkInteger,
} from '@zerda/types';
import type { Index as FaissIndex } from 'faiss-node';
import { loadFaiss } from './faiss-loader.js';
import { readStoreFile, writeStoreFile, type StoreFileContents } from './store-file.js';

/** The FAISS index kinds this store builds. */
export type FaissIndexType = 'flat' | 'hnsw';

/** Options of {@link FaissVectorStore}. */
export interface FaissVectorStoreOptions {
  /** Similarity: `cosine` (vectors normalised, inner product), `ip` or `l2`. Default `cosine`. */
  metric?: VectorMetric;
  /** Embedding dimension; otherwise the first added vector decides. */
  dimensions?: number;
  /** `flat` (exact; default) or `hnsw` (approximate, for large stores). */
  index?: FaissIndexType;
  /**
   * HNSW settings: `m` links per node (default 32); `efConstruction`, the candidate list while
   * inserting (default 200); `efSearch`, the candidate list a search explores (default 256, as in
   * @zerda/vector-hnswlib; 128 gave recall@10 0.944 at 100k on @zerda/bench's GloVe vectors).
   * faiss-node has no setter for the last two; see
   * {@link FaissVectorStore.hnswParameters}.
   */
  hnsw?: { m?: number; efConstruction?: number; efSearch?: number };
  /** The file `save()` writes and `FaissVectorStore.load` reads when no path is given. */
  path?: string;
  /** First over-fetch factor for filtered searches answered by FAISS. Default 4. */
  overFetch?: number;
  /** When a filter keeps at most this share of the chunks, they are scored exactly instead of searched. Default 0.1. */
  exactFilterShare?: number;
  /** HNSW: rebuild the index when deleted entries exceed this share of it (`false`: only on `compact()`). Default 0.25. */
  autoCompact?: number | false;
}

/** Search knobs besides `k` and `filter`. */
export interface FaissSearchOptions extends VectorSearchOptions {
  /**
   * How many candidates to ask FAISS for (at least `k`; the best `k` that pass are returned). The
   * graph walk itself explores the index's `efSearch`, fixed when the index is created.
   */
  efSearch?: number;
}

interface Entry {
  chunk: DocumentChunk;
  /** The vector as given (returned by `get` and search hits). */
  vector: Float32Array;
  label: number;
}

/** FAISS's own HNSW defaults (faiss/impl/HNSW.h), in effect when they cannot be changed. */
const FAISS_DEFAULT_EF_CONSTRUCTION = 40;
const FAISS_DEFAULT_EF_SEARCH = 16;

const OPTION_KEYS = new Set(['metric', 'dimensions', 'index', 'hnsw', 'path', 'overFetch', 'exactFilterShare', 'autoCompact']);
const METRICS: readonly VectorMetric[] = ['cosine', 'ip', 'l2'];


function checkShare(value: unknown, field: string): number {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw invalidArgument(field, 'a number from 0 to 1', value);
  return value;
}

function normalized(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  // A zero vector stays zero: its inner product with anything is 0, its cosine similarity too.
  if (!(norm > 0)) return Float32Array.from(vector);
  const scale = 1 / Math.sqrt(norm);
  return Float32Array.from(vector, (value) => value * scale);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

function squaredDistance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const difference = a[i]! - b[i]!;
    sum += difference * difference;
  }
  return sum;
}

function withoutEmbedding(chunk: DocumentChunk): DocumentChunk {
  const { embedding: _embedding, ...rest } = chunk;
  return structuredClone(rest);
}

/**
 * A `VectorStore` on FAISS through faiss-node: an exact flat index or an HNSW graph, in process,
 * saved to and loaded from one file. FAISS knows vectors by position ("labels"), renumbers them
 * when some are removed from a flat index, and cannot remove from HNSW at all; this store keeps
 * its own label-to-id map, renumbers it exactly as FAISS does on flat removals, and on HNSW marks
 * removed labels deleted (skipped in results) until `compact()` — or the `autoCompact`
 * threshold — rebuilds the graph from the live vectors.
 *
 * FAISS has no metadata: filters are evaluated with `matchesFilter`. A filter that keeps few
 * chunks is answered by scoring those chunks exactly; otherwise FAISS is asked for more
 * candidates than `k` (growing until `k` matches are found, or the whole index was searched).
 */
export class FaissVectorStore implements VectorStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'faiss';
  readonly metric: VectorMetric;
  readonly capabilities: VectorStoreCapabilities = Object.freeze({ persistence: true, nativeFilter: false, textSearch: false, embeds: false });
  /** `flat` or `hnsw`. */
  readonly indexType: FaissIndexType;

  private readonly faiss = loadFaiss();
  private dimensionsValue: number | undefined;
  private readonly m: number;
  private readonly efConstruction: number;
  private readonly efSearch: number;
  private graphParametersApplied = false;
  private readonly path: string | undefined;
  private readonly overFetch: number;
  private readonly exactFilterShare: number;
  private readonly autoCompact: number | false;
  private index: FaissIndex | undefined;
  private readonly entries = new Map<string, Entry>();
  /** Label to id; `null` marks a deleted HNSW label. */
  private labels: Array<string | null> = [];
  private deleted = 0;

  constructor(options: FaissVectorStoreOptions = {}) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('options', 'an options object', options);
    for (const key of Object.keys(options)) {
      if (!OPTION_KEYS.has(key)) throw invalidArgument(`options.${key}`, `a known option (one of ${[...OPTION_KEYS].join(', ')})`, `unknown key "${key}"`);
    }
    if (options.metric !== undefined && !METRICS.includes(options.metric)) throw invalidArgument('options.metric', 'one of "cosine", "ip", "l2"', options.metric);
    this.metric = options.metric ?? 'cosine';
    if (options.index !== undefined && options.index !== 'flat' && options.index !== 'hnsw') throw invalidArgument('options.index', 'one of "flat", "hnsw"', options.index);
    this.indexType = options.index ?? 'flat';
    this.dimensionsValue = options.dimensions === undefined ? undefined : checkInteger(options.dimensions, 'options.dimensions', 1, 65_536);
    const hnsw = options.hnsw ?? {};
    if (hnsw === null || typeof hnsw !== 'object') throw invalidArgument('options.hnsw', 'an object { m, efConstruction, efSearch }', hnsw);
    for (const key of Object.keys(hnsw)) {
      if (!['m', 'efConstruction', 'efSearch'].includes(key)) throw invalidArgument(`options.hnsw.${key}`, 'one of m, efConstruction, efSearch', `unknown key "${key}"`);
    }
    this.m = hnsw.m === undefined ? 32 : checkInteger(hnsw.m, 'options.hnsw.m', 2, 256);
    this.efConstruction = hnsw.efConstruction === undefined ? 200 : checkInteger(hnsw.efConstruction, 'options.hnsw.efConstruction', 1, 100_000);
    this.efSearch = hnsw.efSearch === undefined ? 256 : checkInteger(hnsw.efSearch, 'options.hnsw.efSearch', 1, 100_000);
    if (options.path !== undefined && (typeof options.path !== 'string' || options.path.length === 0)) throw invalidArgument('options.path', 'a file path', options.path);
    this.path = options.path;
    this.overFetch = options.overFetch === undefined ? 4 : checkInteger(options.overFetch, 'options.overFetch', 1, 1000);
    this.exactFilterShare = options.exactFilterShare === undefined ? 0.1 : checkShare(options.exactFilterShare, 'options.exactFilterShare');
    this.autoCompact = options.autoCompact === undefined ? 0.25 : options.autoCompact === false ? false : checkShare(options.autoCompact, 'options.autoCompact');
  }

  /** The vector dimension: from the options or set by the first added vector. */
  get dimensions(): number | undefined {
    return this.dimensionsValue;
  }

  /** Labels FAISS holds that belong to deleted chunks (HNSW only; `compact()` drops them). */
  get deletedCount(): number {
    return this.deleted;
  }

  /**
   * The HNSW graph's settings as FAISS holds them. `applied` is false when the configured
   * `efConstruction`/`efSearch` could not be set (a FAISS build whose serialised layout differs),
   * in which case FAISS's defaults (40 and 16) are in effect; always false for flat indexes.
   */
  get hnswParameters(): { m: number; efConstruction: number; efSearch: number; applied: boolean } {
    return this.graphParametersApplied
      ? { m: this.m, efConstruction: this.efConstruction, efSearch: this.efSearch, applied: true }
      : { m: this.m, efConstruction: FAISS_DEFAULT_EF_CONSTRUCTION, efSearch: FAISS_DEFAULT_EF_SEARCH, applied: false };
  }

  private newIndex(dimensions: number): FaissIndex {
    const metric = this.metric === 'l2' ? this.faiss.MetricType.METRIC_L2 : this.faiss.MetricType.METRIC_INNER_PRODUCT;
    let index: FaissIndex;
    try {
      index = this.faiss.Index.fromFactory(dimensions, this.indexType === 'hnsw' ? `HNSW${this.m},Flat` : 'Flat', metric);
    } catch (error) {
      throw createError('ZERDA_BACKEND_ERROR', { component: 'FAISS', operation: 'index_factory', reason: error instanceof Error ? error.message : String(error) }, error);
    }
    return this.indexType === 'hnsw' ? this.withGraphParameters(index) : index;
  }

  /**
   * faiss-node exposes no setter for HNSW's `efConstruction` and `efSearch`, and FAISS's graph walk
   * explores `efSearch` candidates however many results are asked for — with its default of 16,
   * recall stays where it is. So a new, empty graph is serialised, the two fields are set in its
   * header and it is read back. In an empty graph the header holds (entry point −1, max level −1,
   * efConstruction 40, efSearch 16), a run of four 32-bit integers found exactly once; when the run
   * is not found exactly once (another FAISS layout), FAISS's defaults stay and
   * {@link hnswParameters} says so.
   */
  private withGraphParameters(index: FaissIndex): FaissIndex {
    this.graphParametersApplied = false;
    const buffer = index.toBuffer();
    const header = Buffer.from(new Int32Array([-1, -1, FAISS_DEFAULT_EF_CONSTRUCTION, FAISS_DEFAULT_EF_SEARCH]).buffer);
    const at = buffer.indexOf(header);
    if (at < 0 || buffer.indexOf(header, at + 1) >= 0) return index;
    buffer.writeInt32LE(this.efConstruction, at + 8);
    buffer.writeInt32LE(this.efSearch, at + 12);
    try {
      const patched = this.faiss.Index.fromBuffer(buffer);
      this.graphParametersApplied = true;
      return patched;
    } catch {
      return index;
    }
  }

  /** The vector FAISS indexes: unit length for cosine, as given otherwise. */
  private indexed(vector: Float32Array): Float32Array {
    return this.metric === 'cosine' ? normalized(vector) : vector;
  }

  /** Appends entries' vectors to the index; their labels continue from the index's count. */
  private appendToIndex(entries: Entry[]): void {
    if (entries.length === 0) return;
    const dimensions = this.dimensionsValue!;
    const flat = new Array<number>(entries.length * dimensions);
    entries.forEach((entry, row) => {
      const vector = this.indexed(entry.vector);
      for (let i = 0; i < dimensions; i++) flat[row * dimensions + i] = vector[i]!;
    });
    const first = this.index!.ntotal();
    this.index!.add(flat);
    entries.forEach((entry, row) => {
      entry.label = first + row;
      this.labels[entry.label] = entry.chunk.id;
    });
  }

  /** Removes labels from the index: flat indexes renumber (as FAISS does); HNSW marks them deleted. */
  private removeLabels(labels: number[]): void {
    if (labels.length === 0) return;
    if (this.indexType === 'hnsw') {
      for (const label of labels) {
        if (this.labels[label] !== null) {
          this.labels[label] = null;
          this.deleted += 1;
        }
      }
      return;
    }
    const removed = new Set(labels);
    this.index!.removeIds([...removed].sort((a, b) => a - b));
    // IndexFlat::remove_ids keeps the remaining vectors in order and numbers them from 0.
    this.labels = this.labels.filter((_, label) => !removed.has(label));
    this.labels.forEach((id, label) => {
      if (id !== null) this.entries.get(id)!.label = label;
    });
  }

  private maybeCompact(): void {
    if (this.indexType !== 'hnsw' || this.autoCompact === false || this.deleted === 0) return;
    if (this.deleted > this.autoCompact * this.labels.length) this.compact();
  }

  /**
   * Rebuilds the index from the live vectors: drops deleted HNSW labels and renumbers densely.
   * Costs a full HNSW build; flat indexes never need it.
   */
  compact(): void {
    if (!this.index || this.dimensionsValue === undefined) return;
    const live = this.labels.flatMap((id) => (id === null ? [] : [this.entries.get(id)!]));
    this.index = this.newIndex(this.dimensionsValue);
    this.labels = [];
    this.deleted = 0;
    this.appendToIndex(live);
  }

  /**
   * Adds or replaces chunks (each needs an `embedding`). The whole call is validated before the
   * index changes; a replaced chunk's old vector is removed (flat) or marked deleted (HNSW).
   */
  async add(chunks: DocumentChunk[]): Promise<void> {
    const validated = toDocumentChunks(chunks, 'chunks');
    if (validated.length === 0) return;
    let dimensions = this.dimensionsValue;
    const incoming: Entry[] = [];
    for (let i = 0; i < validated.length; i++) {
      const chunk = validated[i]!;
      if (chunk.embedding === undefined) {
        throw createError('ZERDA_INVALID_EMBEDDING', { field: `chunks[${i}].embedding`, expected: 'an embedding (this store does not embed text)', received: 'undefined' });
      }
      const vector = Float32Array.from(validateEmbedding(chunk.embedding, `chunks[${i}].embedding`, dimensions));
      dimensions ??= vector.length;
      incoming.push({ chunk: withoutEmbedding(chunk), vector, label: -1 });
    }
    this.dimensionsValue = dimensions;
    this.index ??= this.newIndex(dimensions!);
    const replaced = incoming.flatMap((entry) => {
      const old = this.entries.get(entry.chunk.id);
      return old ? [old.label] : [];
    });
    this.removeLabels(replaced);
    for (const entry of incoming) this.entries.set(entry.chunk.id, entry);
    this.appendToIndex(incoming);
    this.maybeCompact();
  }

  private score(query: Float32Array, vector: Float32Array): number {
    switch (this.metric) {
      case 'cosine':
        return cosineSimilarity(query, vector);
      case 'ip':
        return dot(query, vector);
      case 'l2':
        return similarityFromDistance('l2', squaredDistance(query, vector), { squared: true });
    }
  }

  private toSimilarity(distance: number): number {
    if (this.metric === 'l2') return similarityFromDistance('l2', distance, { squared: true });
    // FAISS reports the inner product itself (of unit vectors, for cosine).
    return this.metric === 'cosine' ? Math.max(-1, Math.min(1, distance)) : distance;
  }

  private hit(entry: Entry, score: number): VectorSearchHit {
    return { chunk: { ...structuredClone(entry.chunk), embedding: Float32Array.from(entry.vector) }, score };
  }

  /** FAISS's `search`, with `k` clamped to what the index holds (FAISS throws above it). */
  private searchIndex(query: Float32Array, k: number): Array<{ entry: Entry; score: number }> {
    const total = this.index!.ntotal();
    const { distances, labels } = this.index!.search(Array.from(this.indexed(query)), Math.min(k, total));
    const out: Array<{ entry: Entry; score: number }> = [];
    labels.forEach((label, i) => {
      const id = label >= 0 ? this.labels[label] : null;
      if (id !== null && id !== undefined) out.push({ entry: this.entries.get(id)!, score: this.toSimilarity(distances[i]!) });
    });
    return out;
  }

  /**
   * The `k` chunks most similar to `vector`, best first, each matching `filter`. Flat indexes
   * are exact; an HNSW graph walk explores the index's `efSearch` candidates. Deleted HNSW labels and chunks the
   * filter rejects are skipped, with more candidates fetched until `k` remain.
   */
  async search(vector: Embedding, options: FaissSearchOptions): Promise<VectorSearchHit[]> {
    const { k, filter } = validateSearchOptions(options, ['efSearch']);
    const candidates = options.efSearch === undefined ? undefined : checkInteger(options.efSearch, 'options.efSearch', 1, 100_000);
    const query = validateEmbedding(vector, 'vector', this.dimensionsValue);
    if (k === 0 || !this.index || this.entries.size === 0) return [];
    const exactly = (entries: Iterable<Entry>): VectorSearchHit[] =>
      [...entries]
        .map((entry) => this.hit(entry, this.score(query, entry.vector)))
        .sort(compareSearchHits)
        .slice(0, k);
    let allowed: Set<string> | undefined;
    if (filter) {
      const matching = [...this.entries.values()].filter((entry) => matchesFilter(entry.chunk, filter));
      if (matching.length === 0) return [];
      // Few matches: scoring them directly is exact and cheaper than over-fetching.
      if (matching.length <= Math.max(k, this.exactFilterShare * this.entries.size)) return exactly(matching);
      allowed = new Set(matching.map((entry) => entry.chunk.id));
    }
    // Asking for everything: an HNSW graph search may not reach every node, a scan does.
    if (k >= this.entries.size) return exactly(this.entries.values());
    const total = this.index.ntotal();
    const share = allowed ? allowed.size / this.entries.size : 1;
    let fetch = Math.min(total, Math.ceil((k + this.deleted) / share) * (allowed ? this.overFetch : 1));
    if (this.indexType === 'hnsw' && candidates !== undefined) fetch = Math.min(total, Math.max(fetch, candidates));
    for (;;) {
      const found = this.searchIndex(query, fetch).filter(({ entry }) => !allowed || allowed.has(entry.chunk.id));
      if (fetch >= total && found.length < Math.min(k, allowed?.size ?? this.entries.size)) {
        // The whole graph was searched and some chunks were not reached: score them all.
        return exactly(allowed ? [...allowed].map((id) => this.entries.get(id)!) : this.entries.values());
      }
      if (found.length >= k || fetch >= total) {
        return found
          .map(({ entry, score }) => this.hit(entry, score))
          .sort(compareSearchHits)
          .slice(0, k);
      }
      fetch = Math.min(total, fetch * 4);
    }
  }

  /** Deletes chunks by id (unknown ids are ignored). */
  async delete(ids: string[]): Promise<void> {
    const wanted = validateIdList(ids, 'ids');
    const labels: number[] = [];
    for (const id of new Set(wanted)) {
      const entry = this.entries.get(id);
      if (!entry) continue;
      labels.push(entry.label);
      this.entries.delete(id);
    }
    if (labels.length === 0) return;
    this.removeLabels(labels);
    this.maybeCompact();
  }

  /** Deletes every chunk of the given documents. */
  async deleteByDocIds(docIds: string[]): Promise<void> {
    const documents = new Set(validateIdList(docIds, 'docIds'));
    if (documents.size === 0) return;
    await this.delete([...this.entries.values()].filter((entry) => documents.has(entry.chunk.docId)).map((entry) => entry.chunk.id));
  }

  /** Fetches chunks by id (with their embeddings), in the order asked; missing ids are skipped. */
  async get(ids: string[]): Promise<DocumentChunk[]> {
    return validateIdList(ids, 'ids').flatMap((id) => {
      const entry = this.entries.get(id);
      return entry ? [this.hit(entry, 0).chunk] : [];
    });
  }

  /** Number of stored chunks. */
  async count(): Promise<number> {
    return this.entries.size;
  }

  /** Removes every chunk; the dimension stays. */
  async clear(): Promise<void> {
    this.entries.clear();
    this.labels = [];
    this.deleted = 0;
    this.index = this.dimensionsValue === undefined ? undefined : this.newIndex(this.dimensionsValue);
  }

  private contents(): StoreFileContents {
    const live = this.labels.flatMap((id) => (id === null ? [] : [this.entries.get(id)!]));
    return {
      metric: this.metric,
      indexType: this.indexType,
      dimensions: this.dimensionsValue ?? 0,
      // efConstruction is recorded only when the graph really has it (and efSearch): load() reads it that way.
      hnsw: this.graphParametersApplied ? { m: this.m, efConstruction: this.efConstruction, efSearch: this.efSearch } : { m: this.m, efSearch: this.efSearch },
      labels: this.labels,
      chunks: live.map((entry) => entry.chunk),
      vectors: live.map((entry) => entry.vector),
      index: this.index ? this.index.toBuffer() : undefined,
    };
  }

  /**
   * Writes the index, the chunks and their vectors to one file, atomically: a temporary file in
   * the same directory, flushed, then renamed over `path` — a crash leaves the old file or the
   * new one, never a mix. The file carries a SHA-256 checksum that `load` verifies.
   */
  async save(path?: string): Promise<void> {
    const target = path ?? this.path;
    if (typeof target !== 'string' || target.length === 0) throw invalidArgument('path', 'a file path (or options.path)', target);
    await writeStoreFile(target, this.contents());
  }

  /** Reads a store written by `save` (checksum, format version and index size are verified). */
  static async load(path: string, options: Pick<FaissVectorStoreOptions, 'overFetch' | 'exactFilterShare' | 'autoCompact' | 'path'> = {}): Promise<FaissVectorStore> {
    if (typeof path !== 'string' || path.length === 0) throw invalidArgument('path', 'a file path', path);
    const faiss = loadFaiss();
    const contents = await readStoreFile(path);
    const store = new FaissVectorStore({
      ...options,
      metric: contents.metric,
      index: contents.indexType,
      hnsw: contents.hnsw,
      ...(contents.dimensions > 0 ? { dimensions: contents.dimensions } : {}),
      path: options.path ?? path,
    });
    if (contents.index) {
      let index: FaissIndex;
      try {
        index = faiss.Index.fromBuffer(contents.index);
      } catch (error) {
        throw createError('ZERDA_STORE_CORRUPT', { path, reason: `FAISS cannot read its index: ${error instanceof Error ? error.message : String(error)}` }, error);
      }
      if (index.ntotal() !== contents.labels.length || index.getDimension() !== contents.dimensions) {
        throw createError('ZERDA_STORE_CORRUPT', { path, reason: `the index holds ${index.ntotal()} vectors of ${index.getDimension()} dimensions, the file lists ${contents.labels.length} of ${contents.dimensions}` });
      }
      store.index = index;
      store.graphParametersApplied = contents.indexType === 'hnsw' && contents.hnsw.efConstruction !== undefined;
    }
    store.labels = contents.labels;
    store.deleted = contents.labels.filter((id) => id === null).length;
    const labelOf = new Map<string, number>();
    contents.labels.forEach((id, label) => {
      if (id !== null) labelOf.set(id, label);
    });
    contents.chunks.forEach((chunk, i) => {
      const label = labelOf.get(chunk.id);
      if (label === undefined) throw createError('ZERDA_STORE_CORRUPT', { path, reason: `chunk ${JSON.stringify(chunk.id)} has no label in the index` });
      store.entries.set(chunk.id, { chunk, vector: contents.vectors[i]!, label });
    });
    if (store.entries.size !== labelOf.size) throw createError('ZERDA_STORE_CORRUPT', { path, reason: 'the label map and the chunks disagree' });
    return store;
  }

  /** Nothing to release (the index lives in this process's memory). */
  async close(): Promise<void> {}
}
