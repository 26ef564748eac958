import { availableParallelism } from 'node:os';
import hnswlib from 'hnswlib-node';
import { invalidArgument, type DocumentChunk, type Embedding, type MetadataFilter, type SnapshotReader, type SnapshotWriter, type VectorSearchHit, type VectorSearchOptions } from '@zerda/types';
import { VectorStoreBase, pathOption, type QueryHit, type VectorQuery, type VectorRecord } from '@zerda/vector-kit';
import { MemoryVectorStore } from '@zerda/vector-memory';
import { hasManifest, readDirectory, removeLegacyFiles, type HnswManifest } from './hnswlib-directory.js';
import { readHnswSnapshot, writeHnswSnapshot, type HnswSnapshotState } from './hnswlib-snapshot.js';
import {
  DEFAULT_EF_SEARCH,
  MAXIMA,
  definedLoadOptions,
  directoryFormat,
  efSearchFor,
  integerOption,
  parseHnswOptions,
  parseLoadOverrides,
  savedEfSearch,
  type HnswLoadOptions,
  type HnswSearchOptions,
  type HnswVectorStoreOptions,
} from './hnswlib-options.js';
import { buildInParallel } from './parallel-build.js';
import { HnswLabels } from './hnswlib-records.js';

export { autoEfSearch, type HnswSearchOptions, type HnswVectorStoreOptions } from './hnswlib-options.js';

type HnswIndex = InstanceType<typeof hnswlib.HierarchicalNSW>;

/** Chunks sampled to estimate a filter's selectivity. */
const SELECTIVITY_SAMPLE = 1024;
/** Multiply-adds an exact filtered search may spend by default before the graph is preferred. */
const DEFAULT_EXACT_WORK = 4 * 1024 * 1024;

/** What the store can do besides the core (the kit adds `embeds`). */
const CAPABILITIES = { persistence: true, nativeFilter: true, textSearch: false, snapshot: true };

/**
 * An approximate-nearest-neighbour `VectorStore` on hnswlib-node's HNSW graph, persistent on disk.
 *
 * The graph answers unfiltered queries in well under a millisecond for tens of thousands of
 * vectors. Chunks and an exact copy of every vector live beside it in a `MemoryVectorStore`, which
 * serves `get`, the filter language, and exact answers when a filter is restrictive (a graph walk
 * that may only return 1% of the nodes either misses results or visits most of the graph). Labels
 * are our own integers mapped to chunk ids; deleting marks the label deleted and its slot is reused
 * by a later insert; re-adding an id updates its vector in place.
 *
 * Scores are similarities: cosine in [-1, 1], inner product as is, L2 as `1 / (1 + euclidean)`
 * (hnswlib's distances — `1 - cos`, `1 - dot`, squared euclidean — are converted).
 * Writes are serialized (one at a time, in call order); searches run at any time. Large batches
 * are inserted on several threads off the JavaScript thread (`buildThreads`,
 * `parallelBuildThreshold`) when the package's native helper is compiled.
 */
export class HnswVectorStore extends VectorStoreBase {
  // Settings; a loaded snapshot brings its own (see `adopt`).
  private settingM: number;
  private settingEfConstruction: number;
  /** A fixed candidate list, or undefined for `'auto'` (see {@link autoEfSearch}). */
  private settingEfSearch: number | undefined;
  private readonly efSearchGiven: boolean;
  private readonly exactSearchThresholdOption: number | undefined;
  private settingRandomSeed: number;
  private initialCapacity: number;
  private readonly buildThreadsOption: number | undefined;
  private readonly parallelThreshold: number;
  private directory: string | undefined;
  private exact: MemoryVectorStore;
  private index: HnswIndex | undefined;
  private labels = new HnswLabels();

  constructor(options: HnswVectorStoreOptions = {}) {
    const parsed = parseHnswOptions(options);
    // hnswlib reports 1 − cos, 1 − dot and the squared euclidean distance.
    super({ name: 'hnswlib', metric: parsed.metric, dimensions: parsed.dimensions, capabilities: CAPABILITIES, distance: 'one-minus', searchOptions: ['efSearch'] });
    this.settingM = parsed.M;
    this.settingEfConstruction = parsed.efConstruction;
    this.settingEfSearch = parsed.efSearch;
    this.efSearchGiven = parsed.efSearchGiven;
    this.initialCapacity = parsed.maxElements;
    this.exactSearchThresholdOption = parsed.exactSearchThreshold;
    this.settingRandomSeed = parsed.randomSeed;
    this.buildThreadsOption = parsed.buildThreads;
    this.parallelThreshold = parsed.parallelBuildThreshold;
    this.directory = parsed.directory;
    this.exact = new MemoryVectorStore({ metric: this.metric, ...(parsed.dimensions !== undefined ? { dimensions: parsed.dimensions } : {}) });
    if (parsed.dimensions !== undefined) this.index = this.createIndex(parsed.dimensions, this.initialCapacity);
  }

  /** Graph degree (links per node per layer). */
  get M(): number {
    return this.settingM;
  }

  /** Candidate list size while inserting. */
  get efConstruction(): number {
    return this.settingEfConstruction;
  }

  /** The candidate list a search uses by default now: the fixed `efSearch`, or `'auto'`'s for the current count. */
  get efSearch(): number {
    return this.settingEfSearch ?? efSearchFor(this.labels.size);
  }

  /** The `efSearch` setting: a fixed number, or `'auto'`. */
  get efSearchSetting(): number | 'auto' {
    return this.settingEfSearch ?? 'auto';
  }

  /** Seed of the level generator. */
  get randomSeed(): number {
    return this.settingRandomSeed;
  }

  /** Threads that insert a batch of at least `parallelBuildThreshold` vectors (1: one by one, on the JavaScript thread). */
  get buildThreads(): number {
    return this.buildThreadsOption ?? Math.max(1, availableParallelism());
  }

  /** Vectors an `add()` must write to be built in parallel. */
  get parallelBuildThreshold(): number {
    return this.parallelThreshold;
  }

  /** Slots the graph can hold before it grows (live + deleted-but-not-reused + free). */
  get capacity(): number {
    return this.index?.getMaxElements() ?? 0;
  }

  private createIndex(dimensions: number, capacity: number): HnswIndex {
    const index = new hnswlib.HierarchicalNSW(this.metric, dimensions);
    // allowReplaceDeleted: inserts reuse slots freed by markDelete, so deletes do not leak capacity.
    index.initIndex(capacity, this.M, this.efConstruction, this.randomSeed, true);
    index.setEf(this.efSearch);
    return index;
  }

  /**
   * Writes a validated batch (the kit checked every chunk and embedding). A batch of at least
   * `parallelBuildThreshold` vectors is inserted on `buildThreads` threads off the JavaScript thread
   * (searches keep answering from the previous graph meanwhile); smaller ones one by one.
   */
  protected async doUpsert(records: VectorRecord[]): Promise<void> {
    const chunks = records.map((record) => record.chunk);
    const vectors = records.map((record) => record.vector);
    const dimensions = vectors[0]!.length;
    if (records.length >= this.parallelThreshold && this.buildThreads > 1 && (await this.addInParallel(chunks, vectors, dimensions))) return;
    // The exact store validates again and writes all or nothing; only then is the graph touched.
    await this.exact.add(chunks);
    this.index ??= this.createIndex(dimensions, this.initialCapacity);
    this.writeIndex(chunks, vectors);
  }

  /**
   * The parallel path of `add` (the batch is validated). The current graph is written to an unnamed
   * temporary file, the native helper inserts the batch into a copy on `buildThreads` threads and
   * writes it out, and hnswlib-node reads it back — all off the JavaScript thread, while searches
   * still use the current graph. Nothing of the store changes until the new graph is read back and
   * the exact store has taken the batch; then labels, counters and the graph are switched in one
   * synchronous step. Returns false, with the store untouched, when the helper is not compiled or
   * the build fails: the caller then inserts one by one.
   */
  private async addInParallel(chunks: DocumentChunk[], vectors: Float32Array[], dimensions: number): Promise<boolean> {
    const current = this.index;
    const built = await buildInParallel({
      current,
      space: this.metric,
      dimensions,
      M: this.M,
      efConstruction: this.efConstruction,
      randomSeed: this.randomSeed,
      initialCapacity: this.initialCapacity,
      threads: this.buildThreads,
      ids: chunks.map((chunk) => chunk.id),
      vectors,
      labelOf: (id) => this.labels.labelOf(id),
      nextLabel: this.labels.next,
      deletedSlots: this.labels.deletedSlots,
    });
    if (!built) return false;
    // The exact store validates again and writes all or nothing: if it refuses, the new graph is dropped.
    try {
      await this.exact.add(chunks);
    } catch (error) {
      this.free(built.index);
      throw error;
    }
    // From here on synchronous: no search or write sees a half-switched store. (Each graph search sets
    // its own ef.)
    this.index = built.index;
    this.labels.adopt(
      chunks.map((chunk) => chunk.id),
      built.labels,
      built.nextLabel,
      built.deletedSlots,
    );
    // Nothing else holds the previous graph: searches take `this.index` synchronously, and snapshots run in the write queue.
    if (current) this.free(current);
    return true;
  }

  /**
   * Frees a graph now rather than whenever V8 collects its small wrapper (hnswlib-node has no
   * dispose; re-initialising to one slot deletes the native graph).
   */
  private free(index: HnswIndex): void {
    index.initIndex(1, this.M, this.efConstruction, this.randomSeed, true);
  }

  private writeIndex(chunks: DocumentChunk[], vectors: Float32Array[]): void {
    const index = this.index!;
    const inserts = this.labels.countNew(chunks.map((chunk) => chunk.id));
    const needed = index.getCurrentCount() + Math.max(0, inserts - this.labels.deletedSlots);
    if (needed > index.getMaxElements()) index.resizeIndex(Math.max(needed, index.getMaxElements() * 2));
    chunks.forEach((chunk, i) => {
      const existing = this.labels.labelOf(chunk.id);
      if (existing !== undefined) {
        index.addPoint(Array.from(vectors[i]!), existing, false); // updates the vector and repairs its links
        return;
      }
      const { label, reuse } = this.labels.insert(chunk.id);
      index.addPoint(Array.from(vectors[i]!), label, reuse);
    });
  }

  /**
   * Top-`k` search. Unfiltered queries walk the graph with `ef = max(efSearch, k)`. With a filter,
   * its selectivity is estimated from a fixed sample of 1024 chunks: when few chunks are expected to
   * match (at most `max(exactSearchThreshold, 10 * k)`) the matching chunks are found and scored
   * exactly; otherwise the graph walk admits only matching nodes (the filter is evaluated on visited
   * nodes only) with `ef` raised in proportion to the selectivity. A walk that finds fewer than `k`
   * results falls back to exact search, so `k` above the number of matches returns them all.
   */
  override search(vector: Embedding, options: HnswSearchOptions): Promise<VectorSearchHit[]> {
    return super.search(vector, options);
  }

  protected override checkSearchOptions(options: VectorSearchOptions): void {
    if (options.efSearch !== undefined) integerOption(options.efSearch, 'options.efSearch', 1, DEFAULT_EF_SEARCH, MAXIMA.efSearch);
  }

  protected async doQuery({ vector: query, limit: k, filter, options }: VectorQuery<MetadataFilter>): Promise<QueryHit[]> {
    const efSearch = (options.efSearch as number | undefined) ?? this.efSearch;
    const live = await this.exact.count();
    if (live === 0 || !this.index) return [];
    if (!filter) {
      if (k >= live) return this.exact.search(query, { k });
      return (await this.graphSearch(query, k, Math.max(efSearch, k))) ?? this.exact.search(query, { k });
    }
    // Estimate selectivity from a fixed-size sample, so that a wide filter never pays for a full scan.
    const threshold = this.effectiveExactThreshold(k);
    const estimatedMatches = this.exact.estimateMatchRate(filter, SELECTIVITY_SAMPLE) * live;
    if (estimatedMatches <= threshold) return this.exactFiltered(query, k, filter);
    const matches = this.exact.createMatcher(filter);
    // A walk that may keep 1 node in 1/p must consider about 1/p times more candidates to find as many.
    // But hnswlib only stops early once it holds `ef` admitted nodes: an ef above the number of matches
    // would walk the whole graph, so it stays at half the estimated matches.
    const base = Math.max(efSearch, k);
    const raised = Math.min(Math.ceil((base * live) / estimatedMatches), base * 20, Math.floor(estimatedMatches / 2));
    const ef = Math.max(base, raised);
    const admit = (label: number): boolean => {
      const id = this.labels.idOf(label);
      return id !== undefined && matches(id);
    };
    return (await this.graphSearch(query, k, ef, admit)) ?? this.exactFiltered(query, k, filter);
  }

  /** Exact answer over just the chunks matching `filter` (one filter pass, then scoring only the matches). */
  private async exactFiltered(query: Float32Array, k: number, filter: MetadataFilter): Promise<VectorSearchHit[]> {
    const ids = this.exact.matchingIds(filter);
    return ids.length === 0 ? [] : this.exact.search(query, { k, ids });
  }

  /** Matches up to which a filtered search is answered exactly (see `exactSearchThreshold`). */
  private effectiveExactThreshold(k: number): number {
    // Default: about 4M multiply-adds of exact scoring (a few ms), e.g. 65k matches at 64-d, 10k at 384-d.
    const configured = this.exactSearchThresholdOption ?? Math.max(2048, Math.floor(DEFAULT_EXACT_WORK / (this.exact.dimensions ?? 1)));
    return Math.max(configured, 10 * k);
  }

  /** One graph walk (hits with hnswlib's distances); `undefined` when it found fewer than `k` results (the caller falls back to exact search). */
  private async graphSearch(query: Float32Array, k: number, ef: number, admit?: (label: number) => boolean): Promise<QueryHit[] | undefined> {
    const index = this.index!;
    index.setEf(ef);
    const result = admit ? index.searchKnn(Array.from(query), k, admit) : index.searchKnn(Array.from(query), k);
    if (result.neighbors.length < k) return undefined;
    const distances = new Map<string, number>();
    result.neighbors.forEach((label, i) => {
      const id = this.labels.idOf(label);
      if (id !== undefined) distances.set(id, result.distances[i]!);
    });
    const chunks = await this.exact.get([...distances.keys()]);
    if (chunks.length < k) return undefined; // a concurrent delete removed some: answer exactly instead
    return chunks.map((chunk) => ({ chunk, distance: distances.get(chunk.id)! }));
  }

  /** Deletes by id (graph nodes are marked deleted and their slots reused later), or every chunk of the listed documents. */
  protected async doDelete(key: 'id' | 'docId', values: string[]): Promise<void> {
    const ids = key === 'id' ? values : this.exact.matchingIds({ docId: { $in: values } });
    await this.exact.delete(ids);
    for (const id of ids) {
      const label = this.labels.release(id);
      if (label !== undefined) this.index!.markDelete(label);
    }
  }

  protected doCount(): Promise<number> {
    return this.exact.count();
  }

  /** Chunks with the embeddings as added. */
  protected override doFetch(ids: string[]): Promise<DocumentChunk[]> {
    return this.exact.get(ids);
  }

  /** Removes everything; the graph is recreated at the initial capacity. */
  protected override async doClear(): Promise<void> {
    await this.exact.clear();
    const dimensions = this.exact.dimensions;
    this.index = dimensions === undefined ? undefined : this.createIndex(dimensions, this.initialCapacity);
    this.labels = new HnswLabels();
  }

  /**
   * Saves to `directory` (or `options.directory`; created if missing) as a snapshot directory
   * (format 2): the graph, the chunks with their exact vectors and the label map, each file sized and
   * checksummed in a manifest. A new generation is written beside the previous one and `CURRENT` is
   * switched atomically, so a crash at any point leaves the previous save loadable, and whatever a
   * killed save left (partial generation, temporaries, its lock) is removed by the next save — as are
   * the files of a format-1 save. Writes wait for the save; a second process saving into the same
   * directory meanwhile fails with `ZERDA_STORE_IO` naming it.
   */
  save(directory?: string): Promise<void> {
    return this.writes.run(async () => {
      const target = pathOption(directory, 'directory', 'a non-empty directory path') ?? this.directory;
      if (target === undefined) throw invalidArgument('directory', 'a directory path (no options.directory was configured)', directory);
      const { writeSnapshotDirectory } = await import('@zerda/persistence');
      await writeSnapshotDirectory(target, await directoryFormat(), (writer) => this.doWriteSnapshot(writer));
      await removeLegacyFiles(target);
      this.directory ??= target;
    });
  }

  /** Writes the whole store into a snapshot (an engine snapshot's folder); writes wait until it is done. */
  writeSnapshot(writer: SnapshotWriter): Promise<void> {
    return this.snapshotTo(writer);
  }

  protected override async doWriteSnapshot(writer: SnapshotWriter): Promise<void> {
    await writeHnswSnapshot(
      writer,
      {
        metric: this.metric,
        dimensions: this.exact.dimensions ?? null,
        count: await this.exact.count(),
        M: this.M,
        efConstruction: this.efConstruction,
        // 'auto' is recorded as its base value and a flag (a reader of version 1 without the flag sees a number).
        efSearch: this.settingEfSearch ?? DEFAULT_EF_SEARCH,
        efSearchAuto: this.settingEfSearch === undefined,
        randomSeed: this.randomSeed,
        maxElements: this.index?.getMaxElements() ?? this.initialCapacity,
        nextLabel: this.labels.next,
        deletedSlots: this.labels.deletedSlots,
      },
      this.index,
      this.exact,
      this.labels.byId,
    );
  }

  /**
   * Replaces the content of this empty store with a snapshot written by {@link writeSnapshot}. The
   * snapshot's metric must be this store's (and its dimension the one in the options, if given);
   * the graph settings (M, efConstruction, seed, capacity) come from the snapshot, `efSearch` too
   * unless it was given in the options. Everything is checked before anything is adopted.
   */
  readSnapshot(reader: SnapshotReader): Promise<void> {
    return this.restoreFrom(reader);
  }

  protected override async doReadSnapshot(reader: SnapshotReader): Promise<void> {
    const state = await readHnswSnapshot(reader, { metric: this.metric, dimensions: this.exact.dimensions });
    this.adopt(state, this.efSearchGiven ? this.settingEfSearch : savedEfSearch(state.settings));
  }

  private adopt(state: HnswSnapshotState, efSearch: number | undefined): void {
    const settings = state.settings;
    this.settingM = settings.M;
    this.settingEfConstruction = settings.efConstruction;
    this.settingRandomSeed = settings.randomSeed;
    this.settingEfSearch = efSearch;
    this.initialCapacity = settings.maxElements;
    this.exact = state.exact;
    this.index = state.index;
    this.dimensionsValue = state.exact.dimensions;
    this.index?.setEf(this.efSearch);
    this.labels = HnswLabels.restore(state.labelById, settings.nextLabel, settings.deletedSlots);
  }

  /**
   * Opens a directory written by {@link HnswVectorStore.save} (format 2, or format 1 of earlier
   * versions). Everything is checked before the store is returned — file sizes and checksums (skip
   * the checksums with `verify: false`), settings, that chunks, labels and graph agree — and any
   * problem fails with `ZERDA_STORE_CORRUPT` naming the path, the file and what is wrong. `metric`
   * and `dimensions`, when given, must match; `efSearch` and `exactSearchThreshold` may be changed.
   */
  static async load(
    directory: string,
    options: HnswLoadOptions & { verify?: boolean } = {},
  ): Promise<HnswVectorStore> {
    pathOption(directory, 'directory', 'a non-empty directory path');
    if (directory === undefined) throw invalidArgument('directory', 'a non-empty directory path', directory);
    const { verify, ...overrides } = options;
    const { hasSnapshotDirectory, readSnapshotDirectory } = await import('@zerda/persistence');
    // Search and build knobs are not saved: they apply to the store as loaded. Checked before reading.
    const { efSearchOverride, knobs: thresholdOption } = parseLoadOverrides(overrides);
    if (await hasSnapshotDirectory(directory)) {
      return readSnapshotDirectory(
        directory,
        await directoryFormat(),
        async (reader) => {
          const state = await readHnswSnapshot(reader, { metric: overrides.metric, dimensions: overrides.dimensions });
          const store = new HnswVectorStore({ metric: state.settings.metric, directory, ...thresholdOption });
          store.adopt(state, efSearchOverride === null ? savedEfSearch(state.settings) : efSearchOverride);
          return store;
        },
        { verify: verify ?? true },
      );
    }
    const loaded = await readDirectory(directory, { verify: verify ?? true, expectMetric: overrides.metric, expectDimensions: overrides.dimensions });
    const manifest: HnswManifest = loaded.manifest;
    const store = new HnswVectorStore({ metric: manifest.metric, directory, ...thresholdOption });
    store.adopt(
      {
        settings: { ...manifest },
        exact: loaded.exact,
        index: loaded.index,
        labelById: new Map(loaded.labels.ids.map((id, i) => [id, loaded.labels.labels[i]!])),
      },
      efSearchOverride === null ? manifest.efSearch : efSearchOverride,
    );
    return store;
  }

  /** Loads `options.directory` when it holds a saved store, or creates an empty store that will save there. */
  static async open(options: HnswVectorStoreOptions & { directory: string; verify?: boolean }): Promise<HnswVectorStore> {
    const { verify, ...rest } = options;
    const { hasSnapshotDirectory } = await import('@zerda/persistence');
    if ((await hasSnapshotDirectory(options.directory)) || (await hasManifest(options.directory))) {
      return HnswVectorStore.load(options.directory, { ...definedLoadOptions(rest), ...(verify !== undefined ? { verify } : {}) });
    }
    return new HnswVectorStore(rest);
  }
}
