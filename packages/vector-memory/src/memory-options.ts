import { invalidArgument, type DocumentChunk, type EmbedFunction, type Embedder, type VectorMetric, type VectorSearchOptions } from '@zerda/types';
import { checkStoreOptions, dimensionsOption, embedderOption, metricOption, pathOption } from '@zerda/vector-kit';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from './memory-snapshot.js';

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

/** The options, checked (unknown keys, metric, dimension, embedder, path). */
export interface ParsedMemoryOptions {
  metric: VectorMetric;
  dimensions: number | undefined;
  embedder: Embedder | EmbedFunction | undefined;
  path: string | undefined;
}

const OPTION_KEYS = ['metric', 'dimensions', 'embedder', 'path'];

export function parseMemoryOptions(options: MemoryVectorStoreOptions | undefined): ParsedMemoryOptions {
  const checked = checkStoreOptions(options, OPTION_KEYS);
  return {
    metric: metricOption(checked.metric),
    // A pure TypeScript store has no dimension limit of its own.
    dimensions: dimensionsOption(checked.dimensions, 'options.dimensions', Infinity),
    embedder: embedderOption(checked.embedder),
    path: pathOption(checked.path, 'options.path'),
  };
}

/** Checks the `ids` search option: an array or Set of chunk ids. */
export function checkIdsOption(ids: unknown): void {
  if (ids === undefined) return;
  if (!(Array.isArray(ids) || ids instanceof Set) || [...ids].some((id) => typeof id !== 'string')) {
    throw invalidArgument('options.ids', 'an array or Set of chunk ids', ids);
  }
}

/** The single-file snapshot format of `save`/`load` (the package version is read once, lazily). */
let cachedFormat: Promise<import('@zerda/persistence').SnapshotFormat> | undefined;
export function fileFormat(): Promise<import('@zerda/persistence').SnapshotFormat> {
  cachedFormat ??= import('@zerda/persistence').then(async ({ packageVersion }) => {
    const version = await packageVersion(new URL('../package.json', import.meta.url));
    return { format: SNAPSHOT_FORMAT, formatVersion: SNAPSHOT_VERSION, producer: `@zerda/vector-memory ${version}`, zerdaVersion: version, errorCode: 'ZERDA_STORE_CORRUPT' as const };
  });
  return cachedFormat;
}
