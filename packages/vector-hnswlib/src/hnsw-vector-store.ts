import { availableParallelism } from 'node:os';
import hnswlib from 'hnswlib-node';
import {
  validateSearchOptions,
  createError,
  invalidArgument,
  parseMetadataFilter,
  similarityFromOneMinusDistance,
  toDocumentChunks,
  validateEmbedding,
  type DocumentChunk,
  type Embedding,
  type MetadataFilter,
  type SnapshotReader,
  type SnapshotWriter,
  type VectorMetric,
  type VectorSearchHit,
  type VectorSearchOptions,
  type VectorStore,
  type VectorStoreCapabilities,
} from '@zerda/types';
import { MemoryVectorStore } from '@zerda/vector-memory';
import { hasManifest, readDirectory, removeLegacyFiles, type HnswManifest } from './store-directory.js';
import { HNSW_SNAPSHOT_FORMAT, HNSW_SNAPSHOT_VERSION, readHnswSnapshot, writeHnswSnapshot, type HnswSnapshotSettings, type HnswSnapshotState } from './hnsw-snapshot.js';
import { parallelBuildAddon, withTemporaryFiles } from './parallel-build.js';

type HnswIndex = InstanceType<typeof hnswlib.HierarchicalNSW>;

/** Options of {@link HnswVectorStore}. */
export interface HnswVectorStoreOptions {
  /** Vector dimension. When omitted, the first added vector sets it (the index is created then). */
  dimensions?: number;
  /** `cosine` (default), `ip` or `l2`. Scores are similarities whatever the metric. */
  metric?: VectorMetric;
  /** Graph degree: links per node per layer (layer 0 keeps `2 * M`). Default 24. */
  M?: number;
  /** Candidate list size while inserting; higher builds a better graph, slower. Default 100. */
  efConstruction?: number;
  /**
   * Candidate list size while searching (raised to `k` when smaller): a number, or `'auto'` (the
   * default): 256 up to 100,000 vectors, then growing as the cube root of the count (512 at 800,000,
   * 552 at a million) — a graph's recall at a fixed candidate list falls as it grows (a million
   * GloVe vectors: recall@10 0.92 at 256 against 0.955 at 100,000), and this keeps it.
   */
  efSearch?: number | 'auto';
  /** Initial capacity; the index doubles it (`resizeIndex`) whenever it is full. Default 1024. */
  maxElements?: number;
  /** Default directory for `save()` without an argument (`load`/`open` set it). */
  directory?: string;
  /**
   * A filtered search whose filter is estimated to match at most `max(exactSearchThreshold, 10 * k)`
   * chunks is answered exactly over just those chunks instead of through the graph. Default:
   * `max(2048, 4Mi / dimensions)` matches (a few milliseconds of exact scoring: 65k at 64-d, 10k at
   * 384-d); 0 sends every filtered search with more than `10 * k` estimated matches through the graph.
   */
  exactSearchThreshold?: number;
  /**
   * Seed of the level generator, so that builds are reproducible: identical inputs give identical
   * graphs on the single-threaded path. Batches built on several threads are not bit-reproducible.
   * Default 100.
   */
  randomSeed?: number;
  /**
   * Threads that insert a large batch (see `parallelBuildThreshold`). Default
   * `os.availableParallelism()`; 1 inserts every vector on the JavaScript thread, as before. Needs
   * the package's native helper (compiled on install); without it the store silently uses one thread.
   */
  buildThreads?: number;
  /**
   * An `add()` writing at least this many vectors builds in parallel, off the JavaScript thread:
   * the current graph is handed to the native helper, which inserts the batch on `buildThreads`
   * threads, and the result replaces the graph. Smaller batches insert one by one. Default 20,000.
   */
  parallelBuildThreshold?: number;
}

/** Search options of {@link HnswVectorStore.search}. */
export interface HnswSearchOptions extends VectorSearchOptions {
  /** Overrides `efSearch` for this query. */
  efSearch?: number;
}

const METRICS: readonly VectorMetric[] = ['cosine', 'ip', 'l2'];
/** Chunks sampled to estimate a filter's selectivity. */
const SELECTIVITY_SAMPLE = 1024;
/** Multiply-adds an exact filtered search may spend by default before the graph is preferred. */
const DEFAULT_EXACT_WORK = 4 * 1024 * 1024;
/**
 * Graph defaults chosen on @zerda/bench's 100k synthetic GloVe vectors (100 dimensions), recall@10
 * against exact: M 24 / efConstruction 100 builds in under half the CPU time of M 16 /
 * efConstruction 200 (34.9 s vs 75.4 s) at the same recall (0.954 vs 0.955 at ef 256); ef 256 is
 * the smallest of 64…384 reaching 0.95 there (128 gave 0.913–0.921).
 */
const DEFAULT_M = 24;
const DEFAULT_EF_CONSTRUCTION = 100;
const DEFAULT_EF_SEARCH = 256;
/** Vectors up to which `efSearch: 'auto'` is {@link DEFAULT_EF_SEARCH}. */
const AUTO_EF_SEARCH_BASE = 100_000;

/**
 * The candidate list of `efSearch: 'auto'` for a graph of `count` vectors: 256 up to 100,000, then
 * 256 · (count / 100,000)^(1/3), rounded up. Measured on a million composed GloVe vectors (100
 * dimensions, 200 SciFact queries, recall@10 against exact search): 256 → 0.917, 384 → 0.937,
 * 512 → 0.953, 640 → 0.959, while 256 reaches 0.955 at 100,000 — the list must about double for ten
 * times the vectors; the cube root gives 552 at a million.
 */
export function autoEfSearch(count: number): number {
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) throw invalidArgument('count', 'a non-negative integer (a number of vectors)', count);
  return efSearchFor(count);
}

/** {@link autoEfSearch} without validation (the store's own counts). */
function efSearchFor(count: number): number {
  return count <= AUTO_EF_SEARCH_BASE ? DEFAULT_EF_SEARCH : Math.min(MAXIMA.efSearch, Math.ceil(DEFAULT_EF_SEARCH * Math.cbrt(count / AUTO_EF_SEARCH_BASE)));
}
/**
 * Batches from this size build in parallel. Handing the graph over costs four passes over it
 * (hnswlib-node writes it, the helper loads it, saves the result, hnswlib-node reads that back),
 * ~0.3 s per 100k nodes of 100 dimensions here, while two threads save ~0.45 ms of the ~0.6-0.9 ms
 * an insert takes at 200k nodes (README, "Parallel build"). So 20,000 vectors gain ~9 s against a
 * ~3 s hand-over at a million nodes, and stay ahead up to about three million nodes on two cores
 * (more cores, further); smaller batches take only seconds on one thread anyway.
 */
const DEFAULT_PARALLEL_BUILD_THRESHOLD = 20_000;

/** The directory format of `save`/`load` (the package version is read once, lazily). */
let cachedFormat: Promise<import('@zerda/persistence').SnapshotFormat> | undefined;
function directoryFormat(): Promise<import('@zerda/persistence').SnapshotFormat> {
  cachedFormat ??= import('@zerda/persistence').then(async ({ packageVersion }) => {
    const version = await packageVersion(new URL('../package.json', import.meta.url));
    return {
      format: HNSW_SNAPSHOT_FORMAT,
      formatVersion: HNSW_SNAPSHOT_VERSION,
      producer: `@zerda/vector-hnswlib ${version}`,
      zerdaVersion: version,
      errorCode: 'ZERDA_STORE_CORRUPT' as const,
    };
  });
  return cachedFormat;
}

const OPTION_KEYS = ['dimensions', 'metric', 'M', 'efConstruction', 'efSearch', 'maxElements', 'directory', 'exactSearchThreshold', 'randomSeed', 'buildThreads', 'parallelBuildThreshold'];

/**
 * Largest values handed to hnswlib: beyond them its native code allocates without bound or
 * overflows (M = 2^53 crashed the process with a segmentation fault instead of an error).
 */
const MAXIMA = {
  dimensions: 65_536,
  M: 512,
  efConstruction: 100_000,
  efSearch: 100_000,
  maxElements: 1_000_000_000,
  exactSearchThreshold: 1_000_000_000,
  randomSeed: 2 ** 31 - 1,
  buildThreads: 1024,
  parallelBuildThreshold: 1_000_000_000,
} as const;

/** One process warning when a parallel build fails (the batch is then inserted on one thread). */
let warnedParallelFailure = false;

/** The `efSearch` option: a fixed number, or undefined for `'auto'` (also when not given). */
function efSearchOption(value: unknown, field: string): number | undefined {
  if (value === undefined || value === 'auto') return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAXIMA.efSearch) {
    throw invalidArgument(field, `an integer from 1 to ${MAXIMA.efSearch}, or 'auto'`, value);
  }
  return value;
}

/** The `efSearch` a snapshot recorded: `'auto'` (undefined) when flagged, else the fixed number (snapshots before the flag kept a fixed one). */
function savedEfSearch(settings: HnswSnapshotSettings): number | undefined {
  return settings.efSearchAuto === true ? undefined : settings.efSearch;
}

function integerOption(value: unknown, field: string, minimum: number, fallback: number, maximum: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum || value > maximum) throw invalidArgument(field, `an integer from ${minimum} to ${maximum}`, value);
  return value;
}

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
export class HnswVectorStore implements VectorStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'hnswlib';
  readonly metric: VectorMetric;
  readonly capabilities: VectorStoreCapabilities = Object.freeze({ persistence: true, nativeFilter: true, textSearch: false, embeds: false, snapshot: true });
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
  private labelById = new Map<string, number>();
  private idByLabel = new Map<number, string>();
  private nextLabel = 0;
  /** Marked-deleted slots not yet reused by an insert. */
  private deletedSlots = 0;
  /** Tail of the write queue: every write waits for the previous one. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: HnswVectorStoreOptions = {}) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('options', 'an options object', options);
    for (const key of Object.keys(options)) {
      if (!OPTION_KEYS.includes(key)) throw invalidArgument(`options.${key}`, `a known option (one of ${OPTION_KEYS.join(', ')})`, `unknown key "${key}"`);
    }
    if (options.metric !== undefined && !METRICS.includes(options.metric)) throw invalidArgument('options.metric', 'one of "cosine", "ip", "l2"', options.metric);
    this.metric = options.metric ?? 'cosine';
    const dimensions = options.dimensions === undefined ? undefined : integerOption(options.dimensions, 'options.dimensions', 1, 0, MAXIMA.dimensions);
    this.settingM = integerOption(options.M, 'options.M', 2, DEFAULT_M, MAXIMA.M);
    this.settingEfConstruction = integerOption(options.efConstruction, 'options.efConstruction', 1, DEFAULT_EF_CONSTRUCTION, MAXIMA.efConstruction);
    this.settingEfSearch = efSearchOption(options.efSearch, 'options.efSearch');
    this.efSearchGiven = options.efSearch !== undefined;
    this.initialCapacity = integerOption(options.maxElements, 'options.maxElements', 1, 1024, MAXIMA.maxElements);
    this.exactSearchThresholdOption = options.exactSearchThreshold === undefined ? undefined : integerOption(options.exactSearchThreshold, 'options.exactSearchThreshold', 0, 0, MAXIMA.exactSearchThreshold);
    this.settingRandomSeed = integerOption(options.randomSeed, 'options.randomSeed', 0, 100, MAXIMA.randomSeed);
    this.buildThreadsOption = options.buildThreads === undefined ? undefined : integerOption(options.buildThreads, 'options.buildThreads', 1, 1, MAXIMA.buildThreads);
    this.parallelThreshold = integerOption(options.parallelBuildThreshold, 'options.parallelBuildThreshold', 1, DEFAULT_PARALLEL_BUILD_THRESHOLD, MAXIMA.parallelBuildThreshold);
    if (options.directory !== undefined && (typeof options.directory !== 'string' || options.directory.length === 0)) {
      throw invalidArgument('options.directory', 'a non-empty directory path', options.directory);
    }
    this.directory = options.directory;
    this.exact = new MemoryVectorStore({ metric: this.metric, ...(dimensions !== undefined ? { dimensions } : {}) });
    if (dimensions !== undefined) this.index = this.createIndex(dimensions, this.initialCapacity);
  }

  /** The vector dimension: from the options, or set by the first added vector. */
  get dimensions(): number | undefined {
    return this.exact.dimensions;
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
    return this.settingEfSearch ?? efSearchFor(this.labelById.size);
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

  /** Runs `operation` after every write queued before it; a failure does not block later writes. */
  private exclusive<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.queue.then(operation, operation);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Adds or replaces chunks (each needs an `embedding`). The whole batch is validated before
   * anything is written: a wrong dimension, a NaN or a malformed chunk rejects it with a ZerdaError
   * and leaves the store unchanged. A batch of at least `parallelBuildThreshold` vectors is inserted
   * on `buildThreads` threads off the JavaScript thread (searches keep answering from the previous
   * graph meanwhile); smaller ones one by one.
   */
  add(chunks: DocumentChunk[]): Promise<void> {
    return this.exclusive(async () => {
      if (Array.isArray(chunks)) {
        chunks.forEach((input, i) => {
          const embedding = (input as Partial<DocumentChunk> | null)?.embedding;
          if (embedding !== undefined) validateEmbedding(embedding, `chunks[${i}].embedding`);
        });
      }
      const validated = toDocumentChunks(chunks, 'chunks');
      if (validated.length === 0) return;
      let dimensions = this.exact.dimensions;
      const vectors: Float32Array[] = [];
      validated.forEach((chunk, i) => {
        if (chunk.embedding === undefined) {
          throw createError('ZERDA_INVALID_EMBEDDING', { field: `chunks[${i}].embedding`, expected: 'an embedding (this store does not embed text)', received: 'undefined' });
        }
        const vector = validateEmbedding(chunk.embedding, `chunks[${i}].embedding`, dimensions);
        dimensions ??= vector.length;
        vectors.push(vector);
      });
      if (validated.length >= this.parallelThreshold && this.buildThreads > 1 && (await this.addInParallel(validated, vectors, dimensions!))) return;
      // The exact store validates again and writes all or nothing; only then is the graph touched.
      await this.exact.add(validated);
      this.index ??= this.createIndex(dimensions!, this.initialCapacity);
      this.writeIndex(validated, vectors);
    });
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
    const addon = parallelBuildAddon();
    if (!addon) return false;
    // The same labels, slot reuse and capacity as `writeIndex` would use.
    const current = this.index;
    const labels = new Uint32Array(chunks.length);
    const replaceDeleted = new Uint8Array(chunks.length);
    let nextLabel = this.nextLabel;
    let reusable = this.deletedSlots;
    let inserts = 0;
    chunks.forEach((chunk, i) => {
      const existing = this.labelById.get(chunk.id);
      if (existing !== undefined) {
        labels[i] = existing;
        return;
      }
      inserts++;
      labels[i] = nextLabel++;
      if (reusable > 0) {
        replaceDeleted[i] = 1;
        reusable--;
      }
    });
    const currentCount = current?.getCurrentCount() ?? 0;
    const currentCapacity = current?.getMaxElements() ?? this.initialCapacity;
    const expectedCount = currentCount + Math.max(0, inserts - this.deletedSlots);
    const capacity = expectedCount > currentCapacity ? Math.max(expectedCount, currentCapacity * 2) : currentCapacity;
    const packed = new Float32Array(chunks.length * dimensions);
    vectors.forEach((vector, i) => packed.set(vector, i * dimensions));

    let built: HnswIndex;
    try {
      built = await withTemporaryFiles(addon, 2, async ([input, output]) => {
        const extend = current !== undefined && currentCount > 0;
        if (extend) await current.writeIndex(input!);
        await addon.build({
          space: this.metric,
          dimensions,
          M: this.M,
          efConstruction: this.efConstruction,
          randomSeed: this.randomSeed,
          maxElements: capacity,
          ...(extend ? { input: input! } : {}),
          output: output!,
          vectors: packed,
          labels,
          replaceDeleted,
          threads: this.buildThreads,
        });
        const index = new hnswlib.HierarchicalNSW(this.metric, dimensions);
        await index.readIndex(output!, true);
        return index;
      });
      if (built.getCurrentCount() !== expectedCount || built.getMaxElements() !== capacity) {
        const message = `the built graph holds ${built.getCurrentCount()} of ${built.getMaxElements()} slots, expected ${expectedCount} of ${capacity}`;
        // Free the refused graph now, not whenever V8 collects its small wrapper.
        built.initIndex(1, this.M, this.efConstruction, this.randomSeed, true);
        throw new Error(message);
      }
    } catch (error) {
      if (!warnedParallelFailure) {
        warnedParallelFailure = true;
        process.emitWarning(`parallel HNSW build failed, inserting on one thread instead: ${error instanceof Error ? error.message : String(error)}`, { code: 'ZERDA_HNSW_PARALLEL_BUILD' });
      }
      return false;
    }
    // The exact store validates again and writes all or nothing: if it refuses, the new graph is dropped.
    try {
      await this.exact.add(chunks);
    } catch (error) {
      built.initIndex(1, this.M, this.efConstruction, this.randomSeed, true);
      throw error;
    }
    // From here on synchronous: no search or write sees a half-switched store. (Each graph search sets
    // its own ef.)
    this.index = built;
    chunks.forEach((chunk, i) => {
      const label = labels[i]!;
      if (this.labelById.has(chunk.id)) return;
      this.labelById.set(chunk.id, label);
      this.idByLabel.set(label, chunk.id);
    });
    this.nextLabel = nextLabel;
    this.deletedSlots = reusable;
    // Free the previous graph now rather than whenever V8 collects its small wrapper (hnswlib-node has
    // no dispose; re-initialising to one slot deletes the old native graph). Nothing else holds it:
    // searches take `this.index` synchronously, and snapshots run under the write lock.
    current?.initIndex(1, this.M, this.efConstruction, this.randomSeed, true);
    return true;
  }

  private writeIndex(chunks: DocumentChunk[], vectors: Float32Array[]): void {
    const index = this.index!;
    let inserts = 0;
    for (const chunk of chunks) if (!this.labelById.has(chunk.id)) inserts++;
    const needed = index.getCurrentCount() + Math.max(0, inserts - this.deletedSlots);
    if (needed > index.getMaxElements()) index.resizeIndex(Math.max(needed, index.getMaxElements() * 2));
    chunks.forEach((chunk, i) => {
      const existing = this.labelById.get(chunk.id);
      if (existing !== undefined) {
        index.addPoint(Array.from(vectors[i]!), existing, false); // updates the vector and repairs its links
        return;
      }
      const label = this.nextLabel++;
      const reuse = this.deletedSlots > 0;
      index.addPoint(Array.from(vectors[i]!), label, reuse);
      if (reuse) this.deletedSlots--;
      this.labelById.set(chunk.id, label);
      this.idByLabel.set(label, chunk.id);
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
  async search(vector: Embedding, options: HnswSearchOptions): Promise<VectorSearchHit[]> {
    const { k, filter } = validateSearchOptions(options, ['efSearch']);
    const efSearch = options.efSearch === undefined ? this.efSearch : integerOption(options.efSearch, 'options.efSearch', 1, DEFAULT_EF_SEARCH, MAXIMA.efSearch);
    const query = validateEmbedding(vector, 'vector', this.exact.dimensions);
    const live = await this.exact.count();
    if (k === 0 || live === 0 || !this.index) return [];

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
      const id = this.idByLabel.get(label);
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

  /** One graph walk; `undefined` when it found fewer than `k` results (the caller falls back to exact search). */
  private async graphSearch(query: Float32Array, k: number, ef: number, admit?: (label: number) => boolean): Promise<VectorSearchHit[] | undefined> {
    const index = this.index!;
    index.setEf(ef);
    const result = admit ? index.searchKnn(Array.from(query), k, admit) : index.searchKnn(Array.from(query), k);
    if (result.neighbors.length < k) return undefined;
    const ids: string[] = [];
    const scores = new Map<string, number>();
    result.neighbors.forEach((label, i) => {
      const id = this.idByLabel.get(label);
      if (id === undefined) return;
      ids.push(id);
      scores.set(id, this.similarity(result.distances[i]!));
    });
    const chunks = await this.exact.get(ids);
    if (chunks.length < k) return undefined; // a concurrent delete removed some: answer exactly instead
    return chunks
      .map((chunk) => ({ chunk, score: scores.get(chunk.id)! }))
      .sort((a, b) => b.score - a.score || (a.chunk.id < b.chunk.id ? -1 : a.chunk.id > b.chunk.id ? 1 : 0));
  }

  /** The backend's distance → zerda similarity (its convention: 1 − cos, 1 − dot, squared l2). */
  private similarity(distance: number): number {
    return similarityFromOneMinusDistance(this.metric, distance);
  }

  /** Deletes chunks by id (their graph nodes are marked deleted and reused later). Unknown ids are ignored. */
  delete(ids: string[]): Promise<void> {
    return this.exclusive(async () => {
      if (!Array.isArray(ids)) throw invalidArgument('ids', 'an array of chunk ids', ids);
      ids.forEach((id, i) => {
        if (typeof id !== 'string') throw invalidArgument(`ids[${i}]`, 'a string', id);
      });
      await this.exact.delete(ids);
      this.unlink(ids);
    });
  }

  private unlink(ids: Iterable<string>): void {
    for (const id of ids) {
      const label = this.labelById.get(id);
      if (label === undefined) continue;
      this.index!.markDelete(label);
      this.deletedSlots++;
      this.labelById.delete(id);
      this.idByLabel.delete(label);
    }
  }

  /** Deletes every chunk of the given documents. */
  deleteByDocIds(docIds: string[]): Promise<void> {
    return this.exclusive(async () => {
      if (!Array.isArray(docIds)) throw invalidArgument('docIds', 'an array of document ids', docIds);
      docIds.forEach((docId, i) => {
        if (typeof docId !== 'string') throw invalidArgument(`docIds[${i}]`, 'a string', docId);
      });
      if (docIds.length === 0) return;
      const ids = this.exact.matchingIds({ docId: { $in: docIds } });
      await this.exact.delete(ids);
      this.unlink(ids);
    });
  }

  async count(): Promise<number> {
    return this.exact.count();
  }

  /** Fetches chunks (with the embeddings as added) by id; missing ids are skipped. */
  async get(ids: string[]): Promise<DocumentChunk[]> {
    return this.exact.get(ids);
  }

  /** Removes everything; the graph is recreated at the initial capacity. */
  clear(): Promise<void> {
    return this.exclusive(async () => {
      await this.exact.clear();
      const dimensions = this.exact.dimensions;
      this.index = dimensions === undefined ? undefined : this.createIndex(dimensions, this.initialCapacity);
      this.labelById = new Map();
      this.idByLabel = new Map();
      this.nextLabel = 0;
      this.deletedSlots = 0;
    });
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
    return this.exclusive(async () => {
      if (directory !== undefined && (typeof directory !== 'string' || directory.length === 0)) throw invalidArgument('directory', 'a non-empty directory path', directory);
      const target = directory ?? this.directory;
      if (target === undefined) throw invalidArgument('directory', 'a directory path (no options.directory was configured)', directory);
      const { writeSnapshotDirectory } = await import('@zerda/persistence');
      await writeSnapshotDirectory(target, await directoryFormat(), (writer) => this.writeState(writer));
      await removeLegacyFiles(target);
      this.directory ??= target;
    });
  }

  /** Writes the whole store into a snapshot (an engine snapshot's folder); writes wait until it is done. */
  writeSnapshot(writer: SnapshotWriter): Promise<void> {
    return this.exclusive(() => this.writeState(writer));
  }

  private async writeState(writer: SnapshotWriter): Promise<void> {
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
        nextLabel: this.nextLabel,
        deletedSlots: this.deletedSlots,
      },
      this.index,
      this.exact,
      this.labelById,
    );
  }

  /**
   * Replaces the content of this empty store with a snapshot written by {@link writeSnapshot}. The
   * snapshot's metric must be this store's (and its dimension the one in the options, if given);
   * the graph settings (M, efConstruction, seed, capacity) come from the snapshot, `efSearch` too
   * unless it was given in the options. Everything is checked before anything is adopted.
   */
  readSnapshot(reader: SnapshotReader): Promise<void> {
    return this.exclusive(async () => {
      if ((await this.exact.count()) > 0) throw createError('ZERDA_UNSUPPORTED', { operation: 'readSnapshot', component: 'an HnswVectorStore that holds chunks', reason: 'restore into an empty store' });
      const state = await readHnswSnapshot(reader, { metric: this.metric, dimensions: this.exact.dimensions });
      this.adopt(state, this.efSearchGiven ? this.settingEfSearch : savedEfSearch(state.settings));
    });
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
    this.index?.setEf(this.efSearch);
    this.labelById = new Map();
    this.idByLabel = new Map();
    for (const [id, label] of state.labelById) {
      this.labelById.set(id, label);
      this.idByLabel.set(label, id);
    }
    this.nextLabel = settings.nextLabel;
    this.deletedSlots = settings.deletedSlots;
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
    options: Pick<HnswVectorStoreOptions, 'metric' | 'dimensions' | 'efSearch' | 'exactSearchThreshold' | 'buildThreads' | 'parallelBuildThreshold'> & { verify?: boolean } = {},
  ): Promise<HnswVectorStore> {
    if (typeof directory !== 'string' || directory.length === 0) throw invalidArgument('directory', 'a non-empty directory path', directory);
    const { verify, ...overrides } = options;
    const { hasSnapshotDirectory, readSnapshotDirectory } = await import('@zerda/persistence');
    // Search and build knobs are not saved: they apply to the store as loaded. Checked before reading.
    const efSearchOverride = overrides.efSearch === undefined ? null : efSearchOption(overrides.efSearch, 'options.efSearch');
    if (overrides.exactSearchThreshold !== undefined) integerOption(overrides.exactSearchThreshold, 'options.exactSearchThreshold', 0, 0, MAXIMA.exactSearchThreshold);
    if (overrides.buildThreads !== undefined) integerOption(overrides.buildThreads, 'options.buildThreads', 1, 1, MAXIMA.buildThreads);
    if (overrides.parallelBuildThreshold !== undefined) integerOption(overrides.parallelBuildThreshold, 'options.parallelBuildThreshold', 1, 1, MAXIMA.parallelBuildThreshold);
    const thresholdOption: Pick<HnswVectorStoreOptions, 'exactSearchThreshold' | 'buildThreads' | 'parallelBuildThreshold'> = {
      ...(overrides.exactSearchThreshold !== undefined ? { exactSearchThreshold: overrides.exactSearchThreshold } : {}),
      ...(overrides.buildThreads !== undefined ? { buildThreads: overrides.buildThreads } : {}),
      ...(overrides.parallelBuildThreshold !== undefined ? { parallelBuildThreshold: overrides.parallelBuildThreshold } : {}),
    };
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
      return HnswVectorStore.load(options.directory, {
        ...(rest.metric !== undefined ? { metric: rest.metric } : {}),
        ...(rest.dimensions !== undefined ? { dimensions: rest.dimensions } : {}),
        ...(rest.efSearch !== undefined ? { efSearch: rest.efSearch } : {}),
        ...(rest.exactSearchThreshold !== undefined ? { exactSearchThreshold: rest.exactSearchThreshold } : {}),
        ...(rest.buildThreads !== undefined ? { buildThreads: rest.buildThreads } : {}),
        ...(rest.parallelBuildThreshold !== undefined ? { parallelBuildThreshold: rest.parallelBuildThreshold } : {}),
        ...(verify !== undefined ? { verify } : {}),
      });
    }
    return new HnswVectorStore(rest);
  }
}
