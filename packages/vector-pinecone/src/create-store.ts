import { Pinecone } from '@pinecone-database/pinecone';
import { createError, invalidArgument, type VectorMetric } from '@zerda/types';
import type { PineconeVectorStoreOptions } from './pinecone-options.js';
import { PineconeVectorStore } from './pinecone-vector-store.js';

/** Options of {@link createPineconeStore}. */
export interface CreatePineconeStoreOptions extends Omit<PineconeVectorStoreOptions, 'index' | 'metric' | 'dimensions'> {
  /** A Pinecone API key (default: the `PINECONE_API_KEY` environment variable). */
  apiKey?: string;
  /** The index name (it must exist; create it in the Pinecone console or with the client). */
  indexName: string;
  /** An existing client to use instead of `apiKey`. */
  client?: Pinecone;
}

const METRIC_FROM_PINECONE: Record<string, VectorMetric> = { cosine: 'cosine', dotproduct: 'ip', euclidean: 'l2' };

/**
 * Connects to an existing Pinecone index and builds a store on it: the index's metric and
 * dimension are read with `describeIndex`, so they always match what Pinecone computes.
 */
export async function createPineconeStore(options: CreatePineconeStoreOptions): Promise<PineconeVectorStore> {
  if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an options object with indexName', options);
  const { apiKey, indexName, client, ...storeOptions } = options;
  if (typeof indexName !== 'string' || indexName.length === 0) throw invalidArgument('options.indexName', 'the name of an existing Pinecone index', indexName);
  let pinecone = client;
  if (!pinecone) {
    const key = apiKey ?? process.env.PINECONE_API_KEY;
    if (typeof key !== 'string' || key.length === 0) throw invalidArgument('options.apiKey', 'a Pinecone API key (or set PINECONE_API_KEY)', key);
    pinecone = new Pinecone({ apiKey: key });
  }
  let description;
  try {
    description = await pinecone.describeIndex(indexName);
  } catch (error) {
    throw createError('ZERDA_BACKEND_ERROR', { component: 'Pinecone', operation: `describeIndex(${JSON.stringify(indexName)})`, reason: error instanceof Error ? error.message : String(error) }, error);
  }
  const metric = METRIC_FROM_PINECONE[String(description.metric)];
  if (!metric) {
    throw createError('ZERDA_UNSUPPORTED', { operation: `index metric ${String(description.metric)}`, component: 'PineconeVectorStore', reason: 'zerda supports cosine, dotproduct and euclidean indexes' });
  }
  if (typeof description.dimension !== 'number') {
    throw createError('ZERDA_UNSUPPORTED', { operation: `index ${indexName} without a dimension`, component: 'PineconeVectorStore', reason: 'zerda needs a dense-vector index' });
  }
  const index = description.host ? pinecone.index({ host: description.host }) : pinecone.index({ name: indexName });
  return new PineconeVectorStore({ label: `pinecone index ${indexName}`, ...storeOptions, index, metric, dimensions: description.dimension });
}
