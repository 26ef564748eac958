import type { DocumentChunk, Embedding } from './chunk.js';
import { createError, invalidArgument } from './errors.js';
import { parseMetadataFilter, type MetadataFilter } from './filter.js';
import type { SnapshotReader, SnapshotWriter } from './snapshot.js';

/** Distance a store indexes with. Scores returned are always similarities (see {@link similarityFromDistance}). */
export type VectorMetric = 'cosine' | 'ip' | 'l2';

/** Every {@link VectorMetric}, in one list: the one option parsers and snapshot readers check against. */
export const VECTOR_METRICS: readonly VectorMetric[] = Object.freeze(['cosine', 'ip', 'l2'] as const);

/** True when `value` is one of {@link VECTOR_METRICS}. */
export function isVectorMetric(value: unknown): value is VectorMetric {
  return VECTOR_METRICS.includes(value as VectorMetric);
}

/** Optional abilities a store declares; callers and the conformance suite branch on these. */
export interface VectorStoreCapabilities {
  /** `save`/`load` (or a database) keep the data across restarts. */
  persistence: boolean;
  /** Filters are evaluated inside the store (otherwise the caller over-fetches and post-filters). */
  nativeFilter: boolean;
  /** The store answers keyword queries (`textSearch`). */
  textSearch: boolean;
  /** The store embeds chunks without embeddings through its own embedder. */
  embeds: boolean;
  /**
   * `writeSnapshot`/`readSnapshot` keep the store's whole content inside a snapshot (in-process
   * stores: memory, HNSW). A store without it (a database or a server) is recorded in an engine
   * snapshot by its {@link VectorStoreIdentity} and must be passed again when the snapshot is opened.
   */
  snapshot?: boolean;
}

/**
 * What identifies a store's data, as recorded in an engine snapshot and compared when it is opened:
 * the backend, its metric and dimension, and where the data lives (table, collection, index and
 * namespace — never credentials).
 */
export interface VectorStoreIdentity {
  name: string;
  metric: VectorMetric;
  dimensions: number | null;
  location: string | null;
}

export interface VectorSearchOptions {
  k: number;
  filter?: MetadataFilter;
  /** Backend-specific knobs (e.g. `efSearch`). */
  [option: string]: unknown;
}

export interface VectorSearchHit {
  chunk: DocumentChunk;
  /** Similarity, higher is better: cosine in [-1, 1], inner product as is, l2 as 1 / (1 + euclidean distance). */
  score: number;
}

/**
 * VectorStore, version 1: the contract every backend package implements. The required core is small
 * (add, search, delete, count); the rest is optional and declared in `capabilities`.
 *
 * Promises every implementation keeps (checked by `@zerda/vector-conformance`):
 * - `add` rejects a wrong dimension or a non-finite value with a ZerdaError before writing anything;
 *   re-adding an id replaces the stored chunk.
 * - `search` returns at most `k` hits, sorted by descending similarity, each matching `filter`.
 * - `k` larger than the store returns everything; an empty store returns `[]`.
 */
export interface VectorStore {
  readonly specificationVersion: 'v1';
  /** Short backend name (`memory`, `hnswlib`, `pgvector` …). */
  readonly name: string;
  readonly metric: VectorMetric;
  /** Known once the first vector was added, or from construction. */
  readonly dimensions: number | undefined;
  readonly capabilities: VectorStoreCapabilities;

  /** Adds or replaces chunks. Each needs an `embedding` unless `capabilities.embeds`. */
  add(chunks: DocumentChunk[]): Promise<void>;
  search(vector: Embedding, options: VectorSearchOptions): Promise<VectorSearchHit[]>;
  /** Deletes chunks by id; unknown ids are ignored. */
  delete(ids: string[]): Promise<void>;
  count(): Promise<number>;

  /** Deletes every chunk of the given documents. */
  deleteByDocIds?(docIds: string[]): Promise<void>;
  /** Fetches chunks by id (missing ids are skipped). */
  get?(ids: string[]): Promise<DocumentChunk[]>;
  /** Keyword search inside the store (when `capabilities.textSearch`). Scores are similarities >= 0. */
  textSearch?(query: string, options: VectorSearchOptions): Promise<VectorSearchHit[]>;
  /** Removes everything. */
  clear?(): Promise<void>;
  /** Persists to `path` (or the store's configured location). */
  save?(path?: string): Promise<void>;
  /**
   * Where the data lives, for identity checks (`"public"."zerda_chunks"`, a collection name, an
   * index/namespace); undefined for in-process stores. Never holds credentials.
   */
  readonly location?: string;
  /**
   * Writes the whole store into a snapshot (when `capabilities.snapshot`). Writes issued meanwhile
   * wait until it is done, so the snapshot is one consistent state.
   */
  writeSnapshot?(writer: SnapshotWriter): Promise<void>;
  /**
   * Replaces the content of this (empty) store with a snapshot written by `writeSnapshot`. A
   * snapshot that does not match the store's fixed settings (metric, dimension) is refused.
   */
  readSnapshot?(reader: SnapshotReader): Promise<void>;
  /** Releases connections and handles. */
  close?(): Promise<void>;
}

/** The identity of a store (see {@link VectorStoreIdentity}). */
export function vectorStoreIdentity(store: VectorStore): VectorStoreIdentity {
  return { name: store.name, metric: store.metric, dimensions: store.dimensions ?? null, location: typeof store.location === 'string' ? store.location : null };
}

/** Converts a backend's raw distance (or inner product) into zerda's similarity for that metric. */
export function similarityFromDistance(metric: VectorMetric, distance: number, options: { squared?: boolean } = {}): number {
  if (typeof distance !== 'number') throw invalidArgument('distance', 'a number', distance);
  if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an options object', options);
  switch (metric) {
    case 'cosine':
      return 1 - distance; // cosine distance = 1 - cos
    case 'ip':
      return -distance; // backends report negative inner product as a distance
    case 'l2': {
      const euclidean = options.squared ? Math.sqrt(Math.max(0, distance)) : distance;
      return 1 / (1 + euclidean);
    }
    default:
      throw invalidArgument('metric', 'one of "cosine", "ip", "l2"', metric);
  }
}

/**
 * Similarity from a distance in the convention hnswlib, Chroma and LanceDB share: cosine 1 − cos
 * (clamped back into [-1, 1] against rounding), inner product 1 − dot, l2 squared.
 */
export function similarityFromOneMinusDistance(metric: VectorMetric, distance: number): number {
  if (typeof distance !== 'number') throw invalidArgument('distance', 'a number', distance);
  switch (metric) {
    case 'cosine':
      return Math.max(-1, Math.min(1, similarityFromDistance('cosine', distance)));
    case 'ip':
      return similarityFromDistance('ip', distance - 1);
    case 'l2':
      return similarityFromDistance('l2', distance, { squared: true });
    default:
      throw invalidArgument('metric', 'one of "cosine", "ip", "l2"', metric);
  }
}

/**
 * Cosine similarity of two equally long vectors, in [-1, 1]; 0 when either vector is all zeros (or
 * so small that its norm underflows). The one implementation every package uses for MMR, diversity
 * and relevance, so that they all agree. Vectors of different lengths throw ZERDA_DIMENSION_MISMATCH.
 */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) {
    throw createError('ZERDA_DIMENSION_MISMATCH', { field: 'cosineSimilarity(b)', received: String(b.length), expected: String(a.length) });
  }
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  // Multiply the roots, not the squares: tiny vectors would underflow to a zero denominator.
  const denominator = Math.sqrt(normA) * Math.sqrt(normB);
  if (!(denominator > 0) || !Number.isFinite(dot)) return 0;
  return Math.max(-1, Math.min(1, dot / denominator));
}

/**
 * Validates the part of `search`/`textSearch` options every store shares: an options object whose
 * `k` is a non-negative integer (ZERDA_INVALID_ARGUMENT naming `options.k`) and whose optional
 * `filter` is valid in the filter language (ZERDA_INVALID_FILTER naming the offending path), and
 * which has no key but `k`, `filter` and the store's own `extraKeys` (a typo must not pass
 * silently). Backend-specific knobs are checked by the store.
 */
export function validateSearchOptions(options: unknown, extraKeys: readonly string[] = []): { k: number; filter: MetadataFilter | undefined } {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('options', 'an object with k', options);
  for (const key of Object.keys(options)) {
    if (key !== 'k' && key !== 'filter' && !extraKeys.includes(key)) {
      throw invalidArgument(`options.${key}`, `a known option (one of ${['k', 'filter', ...extraKeys].join(', ')})`, `unknown key "${key}"`);
    }
  }
  const { k, filter } = options as { k?: unknown; filter?: unknown };
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 0) throw invalidArgument('options.k', 'a non-negative integer', k);
  return { k, filter: filter === undefined ? undefined : parseMetadataFilter(filter, 'options.filter') };
}

/** Validates a list of chunk or document ids (`delete`, `deleteByDocIds`, `get`), naming `field[i]` on failure. */
export function validateIdList(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) throw invalidArgument(field, 'an array of strings', value);
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') throw invalidArgument(`${field}[${i}]`, 'a string', value[i]);
  return value as string[];
}

/** Orders search hits best first, ties by chunk id, so that every store returns equal scores in the same order. */
export function compareSearchHits(a: VectorSearchHit, b: VectorSearchHit): number {
  return b.score - a.score || (a.chunk.id < b.chunk.id ? -1 : a.chunk.id > b.chunk.id ? 1 : 0);
}
