import { checkInteger, invalidArgument, type VectorMetric, type VectorSearchOptions } from '@zerda/types';
import { checkKnownKeys, checkStoreOptions, dimensionsOption, metricOption, overFetchOption, pathOption } from '@zerda/vector-kit';

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

/** The options of a new store, checked, with their defaults. */
export interface ParsedFaissOptions {
  metric: VectorMetric;
  indexType: FaissIndexType;
  dimensions: number | undefined;
  m: number;
  efConstruction: number;
  efSearch: number;
  path: string | undefined;
  overFetch: number;
  exactFilterShare: number;
  autoCompact: number | false;
}

const OPTION_KEYS = ['metric', 'dimensions', 'index', 'hnsw', 'path', 'overFetch', 'exactFilterShare', 'autoCompact'];

function checkShare(value: unknown, field: string): number {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw invalidArgument(field, 'a number from 0 to 1', value);
  return value;
}

export function parseFaissOptions(input: FaissVectorStoreOptions | undefined): ParsedFaissOptions {
  const options = checkStoreOptions(input, OPTION_KEYS);
  if (options.index !== undefined && options.index !== 'flat' && options.index !== 'hnsw') throw invalidArgument('options.index', 'one of "flat", "hnsw"', options.index);
  const hnsw = options.hnsw ?? {};
  if (hnsw === null || typeof hnsw !== 'object') throw invalidArgument('options.hnsw', 'an object { m, efConstruction, efSearch }', hnsw);
  checkKnownKeys(hnsw, ['m', 'efConstruction', 'efSearch'], 'options.hnsw');
  return {
    metric: metricOption(options.metric),
    indexType: options.index ?? 'flat',
    dimensions: dimensionsOption(options.dimensions),
    m: hnsw.m === undefined ? 32 : checkInteger(hnsw.m, 'options.hnsw.m', 2, 256),
    efConstruction: hnsw.efConstruction === undefined ? 200 : checkInteger(hnsw.efConstruction, 'options.hnsw.efConstruction', 1, 100_000),
    efSearch: hnsw.efSearch === undefined ? 256 : checkInteger(hnsw.efSearch, 'options.hnsw.efSearch', 1, 100_000),
    path: pathOption(options.path, 'options.path', 'a file path'),
    overFetch: overFetchOption(options.overFetch),
    exactFilterShare: options.exactFilterShare === undefined ? 0.1 : checkShare(options.exactFilterShare, 'options.exactFilterShare'),
    autoCompact: options.autoCompact === undefined ? 0.25 : options.autoCompact === false ? false : checkShare(options.autoCompact, 'options.autoCompact'),
  };
}
