import { checkInteger, invalidArgument, type VectorMetric, type VectorSearchOptions } from '@zerda/types';
import { checkStoreOptions, dimensionsOption, metricOption, pathOption } from '@zerda/vector-kit';
import { HNSW_SNAPSHOT_FORMAT, HNSW_SNAPSHOT_VERSION, type HnswSnapshotSettings } from './hnswlib-snapshot.js';

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

/**
 * Graph defaults chosen on @zerda/bench's 100k synthetic GloVe vectors (100 dimensions), recall@10
 * against exact: M 24 / efConstruction 100 builds in under half the CPU time of M 16 /
 * efConstruction 200 (34.9 s vs 75.4 s) at the same recall (0.954 vs 0.955 at ef 256); ef 256 is
 * the smallest of 64…384 reaching 0.95 there (128 gave 0.913–0.921).
 */
export const DEFAULT_M = 24;
export const DEFAULT_EF_CONSTRUCTION = 100;
export const DEFAULT_EF_SEARCH = 256;
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
export function efSearchFor(count: number): number {
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
export const DEFAULT_PARALLEL_BUILD_THRESHOLD = 20_000;

/** The directory format of `save`/`load` (the package version is read once, lazily). */
let cachedFormat: Promise<import('@zerda/persistence').SnapshotFormat> | undefined;
export function directoryFormat(): Promise<import('@zerda/persistence').SnapshotFormat> {
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

export const OPTION_KEYS = ['dimensions', 'metric', 'M', 'efConstruction', 'efSearch', 'maxElements', 'directory', 'exactSearchThreshold', 'randomSeed', 'buildThreads', 'parallelBuildThreshold'];

/**
 * Largest values handed to hnswlib: beyond them its native code allocates without bound or
 * overflows (M = 2^53 crashed the process with a segmentation fault instead of an error).
 */
export const MAXIMA = {
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


/** The `efSearch` option: a fixed number, or undefined for `'auto'` (also when not given). */
export function efSearchOption(value: unknown, field: string): number | undefined {
  if (value === undefined || value === 'auto') return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAXIMA.efSearch) {
    throw invalidArgument(field, `an integer from 1 to ${MAXIMA.efSearch}, or 'auto'`, value);
  }
  return value;
}

/** The `efSearch` a snapshot recorded: `'auto'` (undefined) when flagged, else the fixed number (snapshots before the flag kept a fixed one). */
export function savedEfSearch(settings: HnswSnapshotSettings): number | undefined {
  return settings.efSearchAuto === true ? undefined : settings.efSearch;
}

export function integerOption(value: unknown, field: string, minimum: number, fallback: number, maximum: number): number {
  return value === undefined ? fallback : checkInteger(value, field, minimum, maximum);
}

/** The options of a new store, checked, with their defaults. */
export interface ParsedHnswOptions {
  metric: VectorMetric;
  dimensions: number | undefined;
  M: number;
  efConstruction: number;
  /** A fixed candidate list, or undefined for `'auto'`. */
  efSearch: number | undefined;
  efSearchGiven: boolean;
  maxElements: number;
  exactSearchThreshold: number | undefined;
  randomSeed: number;
  buildThreads: number | undefined;
  parallelBuildThreshold: number;
  directory: string | undefined;
}

export function parseHnswOptions(input: HnswVectorStoreOptions | undefined): ParsedHnswOptions {
  const options = checkStoreOptions(input, OPTION_KEYS);
  return {
    metric: metricOption(options.metric),
    dimensions: dimensionsOption(options.dimensions, 'options.dimensions', MAXIMA.dimensions),
    M: integerOption(options.M, 'options.M', 2, DEFAULT_M, MAXIMA.M),
    efConstruction: integerOption(options.efConstruction, 'options.efConstruction', 1, DEFAULT_EF_CONSTRUCTION, MAXIMA.efConstruction),
    efSearch: efSearchOption(options.efSearch, 'options.efSearch'),
    efSearchGiven: options.efSearch !== undefined,
    maxElements: integerOption(options.maxElements, 'options.maxElements', 1, 1024, MAXIMA.maxElements),
    exactSearchThreshold: options.exactSearchThreshold === undefined ? undefined : integerOption(options.exactSearchThreshold, 'options.exactSearchThreshold', 0, 0, MAXIMA.exactSearchThreshold),
    randomSeed: integerOption(options.randomSeed, 'options.randomSeed', 0, 100, MAXIMA.randomSeed),
    buildThreads: options.buildThreads === undefined ? undefined : integerOption(options.buildThreads, 'options.buildThreads', 1, 1, MAXIMA.buildThreads),
    parallelBuildThreshold: integerOption(options.parallelBuildThreshold, 'options.parallelBuildThreshold', 1, DEFAULT_PARALLEL_BUILD_THRESHOLD, MAXIMA.parallelBuildThreshold),
    directory: pathOption(options.directory, 'options.directory', 'a non-empty directory path'),
  };
}

/** What `HnswVectorStore.load` takes besides `verify`: checks of the saved metric and dimension, and knobs for the loaded store. */
export type HnswLoadOptions = Pick<HnswVectorStoreOptions, 'metric' | 'dimensions' | 'efSearch' | 'exactSearchThreshold' | 'buildThreads' | 'parallelBuildThreshold'>;

const LOAD_KEYS = ['metric', 'dimensions', 'efSearch', 'exactSearchThreshold', 'buildThreads', 'parallelBuildThreshold'] as const;

/** The load options among a store's options (those given). */
export function definedLoadOptions(options: HnswVectorStoreOptions): HnswLoadOptions {
  return Object.fromEntries(LOAD_KEYS.filter((key) => options[key] !== undefined).map((key) => [key, options[key]])) as HnswLoadOptions;
}

/**
 * Checks the knobs `load` applies to the loaded store (search and build knobs are not saved):
 * `efSearchOverride` is `null` when not given (the saved setting applies), and `knobs` the build
 * and threshold options to construct the store with.
 */
export function parseLoadOverrides(overrides: HnswLoadOptions): { efSearchOverride: number | undefined | null; knobs: Pick<HnswVectorStoreOptions, 'exactSearchThreshold' | 'buildThreads' | 'parallelBuildThreshold'> } {
  const efSearchOverride = overrides.efSearch === undefined ? null : efSearchOption(overrides.efSearch, 'options.efSearch');
  if (overrides.exactSearchThreshold !== undefined) integerOption(overrides.exactSearchThreshold, 'options.exactSearchThreshold', 0, 0, MAXIMA.exactSearchThreshold);
  if (overrides.buildThreads !== undefined) integerOption(overrides.buildThreads, 'options.buildThreads', 1, 1, MAXIMA.buildThreads);
  if (overrides.parallelBuildThreshold !== undefined) integerOption(overrides.parallelBuildThreshold, 'options.parallelBuildThreshold', 1, 1, MAXIMA.parallelBuildThreshold);
  const knobs = definedLoadOptions({ exactSearchThreshold: overrides.exactSearchThreshold, buildThreads: overrides.buildThreads, parallelBuildThreshold: overrides.parallelBuildThreshold });
  return { efSearchOverride, knobs };
}
