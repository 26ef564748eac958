import { checkInteger, compareSearchHits, cosineSimilarity, invalidArgument, matchesFilter, type DocumentChunk, type Embedding, type MetadataFilter, type VectorSearchHit, type VectorSearchOptions } from '@zerda/types';
import { VectorStoreBase, similarityFrom, type QueryHit, type VectorQuery, type VectorRecord } from '@zerda/vector-kit';
import type { Index as FaissIndex } from 'faiss-node';
import { loadFaiss } from './faiss-loader.js';
import { parseFaissOptions, type FaissIndexType, type ParsedFaissOptions, type FaissSearchOptions, type FaissVectorStoreOptions } from './faiss-options.js';
import { readStoreFile, restoreContents, writeStoreFile, type StoreFileContents } from './faiss-snapshot.js';
import { FAISS_DEFAULT_EF_CONSTRUCTION, FAISS_DEFAULT_EF_SEARCH, createFaissIndex, dot, normalized, squaredDistance, withoutEmbedding, type Entry } from './faiss-index.js';

export type { FaissIndexType, FaissSearchOptions, FaissVectorStoreOptions } from './faiss-options.js';

/** What the store can do besides the core (the kit adds `embeds`). */
const CAPABILITIES = { persistence: true, nativeFilter: false, textSearch: false };

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
export class FaissVectorStore extends VectorStoreBase {
  /** `flat` or `hnsw`. */
  readonly indexType: FaissIndexType;

  private readonly faiss = loadFaiss();
  /** The options as parsed (graph parameters, default path, over-fetch, exact-filter share, auto-compaction). */
  private readonly options: ParsedFaissOptions;
  private graphParametersApplied = false;
  private index: FaissIndex | undefined;
  private readonly entries = new Map<string, Entry>();
  /** Label to id; `null` marks a deleted HNSW label. */
  private labels: Array<string | null> = [];
  private deleted = 0;

  constructor(options: FaissVectorStoreOptions = {}) {
    const parsed = parseFaissOptions(options);
    // FAISS reports the inner product (of unit vectors, for cosine) and the squared l2 distance.
    super({ name: 'faiss', metric: parsed.metric, dimensions: parsed.dimensions, capabilities: CAPABILITIES, distance: 'similarity', searchOptions: ['efSearch'] });
    this.options = parsed;
    this.indexType = parsed.indexType;
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
      ? { m: this.options.m, efConstruction: this.options.efConstruction, efSearch: this.options.efSearch, applied: true }
      : { m: this.options.m, efConstruction: FAISS_DEFAULT_EF_CONSTRUCTION, efSearch: FAISS_DEFAULT_EF_SEARCH, applied: false };
  }

  private newIndex(dimensions: number): FaissIndex {
    const { index, applied } = createFaissIndex(this.faiss, { metric: this.metric, indexType: this.indexType, m: this.options.m, efConstruction: this.options.efConstruction, efSearch: this.options.efSearch }, dimensions);
    this.graphParametersApplied = applied;
    return index;
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
    if (this.indexType !== 'hnsw' || this.options.autoCompact === false || this.deleted === 0) return;
    if (this.deleted > this.options.autoCompact * this.labels.length) this.compact();
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
   * Writes a validated batch: a replaced chunk's old vector is removed (flat) or marked deleted (HNSW).
   */
  protected async doUpsert(records: VectorRecord[]): Promise<void> {
    const incoming: Entry[] = records.map(({ chunk, vector }) => ({ chunk: withoutEmbedding(chunk), vector: Float32Array.from(vector), label: -1 }));
    this.index ??= this.newIndex(this.dimensionsValue!);
    const replaced = incoming.flatMap((entry) => {
      const old = this.entries.get(entry.chunk.id);
      return old ? [old.label] : [];
    });
    this.removeLabels(replaced);
    for (const entry of incoming) this.entries.set(entry.chunk.id, entry);
    this.appendToIndex(incoming);
    this.maybeCompact();
  }

  /** The similarity of a stored vector, scored exactly (as FAISS would report it, then converted). */
  private score(query: Float32Array, vector: Float32Array): number {
    if (this.metric === 'cosine') return cosineSimilarity(query, vector);
    return this.toSimilarity(this.metric === 'ip' ? dot(query, vector) : squaredDistance(query, vector));
  }

  /** FAISS reports the inner product (of unit vectors, for cosine) and the squared l2 distance. */
  private toSimilarity(distance: number): number {
    return similarityFrom(this.metric, 'similarity', distance);
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
  override search(vector: Embedding, options: FaissSearchOptions): Promise<VectorSearchHit[]> {
    return super.search(vector, options);
  }

  protected override checkSearchOptions(options: VectorSearchOptions): void {
    if (options.efSearch !== undefined) checkInteger(options.efSearch, 'options.efSearch', 1, 100_000);
  }

  /** FAISS has no metadata: the filter is evaluated here, on the candidates FAISS returns. */
  protected async doQuery({ vector: query, limit: k, filter, options }: VectorQuery<MetadataFilter>): Promise<QueryHit[]> {
    const candidates = options.efSearch as number | undefined;
    if (!this.index || this.entries.size === 0) return [];
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
      if (matching.length <= Math.max(k, this.options.exactFilterShare * this.entries.size)) return exactly(matching);
      allowed = new Set(matching.map((entry) => entry.chunk.id));
    }
    // Asking for everything: an HNSW graph search may not reach every node, a scan does.
    if (k >= this.entries.size) return exactly(this.entries.values());
    const total = this.index.ntotal();
    const share = allowed ? allowed.size / this.entries.size : 1;
    let fetch = Math.min(total, Math.ceil((k + this.deleted) / share) * (allowed ? this.options.overFetch : 1));
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

  /** Deletes by id, or every chunk of the listed documents (unknown ones are ignored). */
  protected async doDelete(key: 'id' | 'docId', values: string[]): Promise<void> {
    const documents = key === 'docId' ? new Set(values) : undefined;
    const ids = documents ? [...this.entries.values()].filter((entry) => documents.has(entry.chunk.docId)).map((entry) => entry.chunk.id) : values;
    const labels: number[] = [];
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (!entry) continue;
      labels.push(entry.label);
      this.entries.delete(id);
    }
    if (labels.length === 0) return;
    this.removeLabels(labels);
    this.maybeCompact();
  }

  /** Chunks with their embeddings. */
  protected override async doFetch(ids: string[]): Promise<DocumentChunk[]> {
    return ids.flatMap((id) => {
      const entry = this.entries.get(id);
      return entry ? [this.hit(entry, 0).chunk] : [];
    });
  }

  protected async doCount(): Promise<number> {
    return this.entries.size;
  }

  /** Removes every chunk; the dimension stays. */
  protected override async doClear(): Promise<void> {
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
      hnsw: this.graphParametersApplied ? { m: this.options.m, efConstruction: this.options.efConstruction, efSearch: this.options.efSearch } : { m: this.options.m, efSearch: this.options.efSearch },
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
    const target = path ?? this.options.path;
    if (typeof target !== 'string' || target.length === 0) throw invalidArgument('path', 'a file path (or options.path)', target);
    // In the write queue: the file holds every write issued before the call.
    await this.writes.run(() => writeStoreFile(target, this.contents()));
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
    const { index, entries } = restoreContents(faiss, contents, path);
    if (index) {
      store.index = index;
      store.graphParametersApplied = contents.indexType === 'hnsw' && contents.hnsw.efConstruction !== undefined;
    }
    store.labels = contents.labels;
    store.deleted = contents.labels.filter((id) => id === null).length;
    for (const [id, entry] of entries) store.entries.set(id, entry);
    return store;
  }

  /** Nothing to release (the index lives in this process's memory). */
  async close(): Promise<void> {}
}
