import { ChromaClient } from 'chromadb';
import { checkBoolean, checkInteger, invalidArgument, type VectorMetric } from '@zerda/types';
import { checkStoreOptions, dimensionsOption, metricOption, overFetchOption } from '@zerda/vector-kit';

/** Options of {@link ChromaVectorStore}. */
export interface ChromaVectorStoreOptions {
  /** A `ChromaClient` (`new ChromaClient({ host, port })`); default: one for `url`. */
  client?: ChromaClient;
  /** The server, e.g. `http://127.0.0.1:8000` (used when no `client` is given). Default `http://localhost:8000`. */
  url?: string;
  /** Collection name: 3–512 of `[a-zA-Z0-9._-]`, starting and ending with a letter or digit. Default `zerda_chunks`. */
  collection?: string;
  /** Distance of the collection's HNSW index (`cosine`, `ip`, `l2`); scores are always similarities. Default `cosine`, or the collection's. */
  metric?: VectorMetric;
  /** Embedding dimension; otherwise read from the collection or set by the first vector. */
  dimensions?: number;
  /** Records per request (capped by the server's maximum batch size). Default 1,000. */
  batchSize?: number;
  /** Return embeddings with hits and `get`. Default true. */
  includeEmbeddings?: boolean;
  /** First over-fetch factor when part of a filter is checked after the query (string ranges). Default 4. */
  overFetch?: number;
  /**
   * HNSW settings for a new collection. Defaults `efSearch` 256, `efConstruction` 100,
   * `maxNeighbors` 24 — those of @zerda/vector-hnswlib (Chroma's index is hnswlib): Chroma's own
   * 100 / 100 / 16 gave recall@10 0.86 at 100k on @zerda/bench's GloVe vectors.
   */
  hnsw?: { efSearch?: number; efConstruction?: number; maxNeighbors?: number };
}

/** Chroma's HNSW configuration of a new collection, in its own key names. */
export interface ChromaHnswSettings {
  ef_search: number;
  ef_construction: number;
  max_neighbors: number;
}

/** {@link ChromaVectorStoreOptions}, checked, with the defaults filled in. */
export interface ResolvedChromaOptions {
  client: ChromaClient;
  collection: string;
  metric: VectorMetric;
  dimensions: number | undefined;
  batchSize: number;
  includeEmbeddings: boolean;
  overFetch: number;
  hnsw: ChromaHnswSettings;
}

const OPTION_KEYS = ['client', 'url', 'collection', 'metric', 'dimensions', 'batchSize', 'includeEmbeddings', 'overFetch', 'hnsw'];
const COLLECTION_NAME = /^[a-zA-Z0-9](?:[a-zA-Z0-9._-]{1,510})[a-zA-Z0-9]$/;

function clientFor(url: string): ChromaClient {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidArgument('options.url', 'a URL such as http://127.0.0.1:8000', url);
  }
  const ssl = parsed.protocol === 'https:';
  const port = parsed.port ? Number(parsed.port) : ssl ? 443 : 80;
  return new ChromaClient({ host: parsed.hostname, port, ssl });
}

function checkClient(options: ChromaVectorStoreOptions): ChromaClient {
  if (options.client === undefined) return clientFor(options.url ?? 'http://localhost:8000');
  if (!(options.client instanceof ChromaClient)) throw invalidArgument('options.client', 'a ChromaClient from the chromadb package', options.client);
  if (options.url !== undefined) throw invalidArgument('options.url', 'absent when options.client is given', options.url);
  return options.client;
}

function checkHnsw(value: ChromaVectorStoreOptions['hnsw']): ChromaHnswSettings {
  const hnsw = value ?? {};
  if (hnsw === null || typeof hnsw !== 'object') throw invalidArgument('options.hnsw', 'an object { efSearch, efConstruction, maxNeighbors }', hnsw);
  return {
    ef_search: hnsw.efSearch === undefined ? 256 : checkInteger(hnsw.efSearch, 'options.hnsw.efSearch', 1, 100_000),
    ef_construction: hnsw.efConstruction === undefined ? 100 : checkInteger(hnsw.efConstruction, 'options.hnsw.efConstruction', 1, 100_000),
    max_neighbors: hnsw.maxNeighbors === undefined ? 24 : checkInteger(hnsw.maxNeighbors, 'options.hnsw.maxNeighbors', 2, 1000),
  };
}

/** Checks the options of a {@link ChromaVectorStore} (a ZerdaError names the first bad field) and fills in the defaults. */
export function resolveChromaOptions(input: ChromaVectorStoreOptions | undefined): ResolvedChromaOptions {
  const options = checkStoreOptions(input, OPTION_KEYS);
  const client = checkClient(options);
  const collection = options.collection ?? 'zerda_chunks';
  if (typeof collection !== 'string' || !COLLECTION_NAME.test(collection) || collection.includes('..')) {
    throw invalidArgument('options.collection', 'a Chroma collection name: 3–512 of [a-zA-Z0-9._-], starting and ending with a letter or digit, no ".."', collection);
  }
  return {
    client,
    collection,
    metric: metricOption(options.metric),
    dimensions: dimensionsOption(options.dimensions),
    batchSize: options.batchSize === undefined ? 1000 : checkInteger(options.batchSize, 'options.batchSize', 1, 100_000),
    includeEmbeddings: options.includeEmbeddings === undefined ? true : checkBoolean(options.includeEmbeddings, 'options.includeEmbeddings'),
    overFetch: overFetchOption(options.overFetch),
    hnsw: checkHnsw(options.hnsw),
  };
}
