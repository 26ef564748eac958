import type { DocumentChunk, VectorMetric } from '@zerda/types';
import { backendError } from '@zerda/vector-kit';
import type { Index as FaissIndex } from 'faiss-node';
import type { Faiss } from './faiss-loader.js';
import type { FaissIndexType } from './faiss-options.js';

// FAISS indexes as this package builds them, and the vector arithmetic of its exact scoring.

/** FAISS's own HNSW defaults (faiss/impl/HNSW.h), in effect when they cannot be changed. */
export const FAISS_DEFAULT_EF_CONSTRUCTION = 40;
export const FAISS_DEFAULT_EF_SEARCH = 16;

export function normalized(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  // A zero vector stays zero: its inner product with anything is 0, its cosine similarity too.
  if (!(norm > 0)) return Float32Array.from(vector);
  const scale = 1 / Math.sqrt(norm);
  return Float32Array.from(vector, (value) => value * scale);
}

export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

export function squaredDistance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const difference = a[i]! - b[i]!;
    sum += difference * difference;
  }
  return sum;
}

export function withoutEmbedding(chunk: DocumentChunk): DocumentChunk {
  const { embedding: _embedding, ...rest } = chunk;
  return structuredClone(rest);
}

/** A stored chunk: without its embedding, the vector as given, and its FAISS label. */
export interface Entry {
  chunk: DocumentChunk;
  /** The vector as given (returned by `get` and search hits). */
  vector: Float32Array;
  label: number;
}

/** What an index is built with. */
export interface FaissIndexSettings {
  metric: VectorMetric;
  indexType: FaissIndexType;
  m: number;
  efConstruction: number;
  efSearch: number;
}

/**
 * A new, empty index: `Flat`, or `HNSW<m>,Flat` with the configured `efConstruction`/`efSearch`
 * when they can be set (`applied`; see {@link withGraphParameters}). Inner product for cosine (the
 * store indexes unit vectors) and ip, L2 for l2.
 */
export function createFaissIndex(faiss: Faiss, settings: FaissIndexSettings, dimensions: number): { index: FaissIndex; applied: boolean } {
  const metric = settings.metric === 'l2' ? faiss.MetricType.METRIC_L2 : faiss.MetricType.METRIC_INNER_PRODUCT;
  let index: FaissIndex;
  try {
    index = faiss.Index.fromFactory(dimensions, settings.indexType === 'hnsw' ? `HNSW${settings.m},Flat` : 'Flat', metric);
  } catch (error) {
    throw backendError('FAISS', 'index_factory', error);
  }
  return settings.indexType === 'hnsw' ? withGraphParameters(faiss, index, settings) : { index, applied: false };
}

/**
 * faiss-node exposes no setter for HNSW's `efConstruction` and `efSearch`, and FAISS's graph walk
 * explores `efSearch` candidates however many results are asked for — with its default of 16,
 * recall stays where it is. So a new, empty graph is serialised, the two fields are set in its
 * header and it is read back. In an empty graph the header holds (entry point −1, max level −1,
 * efConstruction 40, efSearch 16), a run of four 32-bit integers found exactly once; when the run
 * is not found exactly once (another FAISS layout), FAISS's defaults stay and
 * `FaissVectorStore.hnswParameters` says so.
 */
function withGraphParameters(faiss: Faiss, index: FaissIndex, settings: FaissIndexSettings): { index: FaissIndex; applied: boolean } {
  const buffer = index.toBuffer();
  const header = Buffer.from(new Int32Array([-1, -1, FAISS_DEFAULT_EF_CONSTRUCTION, FAISS_DEFAULT_EF_SEARCH]).buffer);
  const at = buffer.indexOf(header);
  if (at < 0 || buffer.indexOf(header, at + 1) >= 0) return { index, applied: false };
  buffer.writeInt32LE(settings.efConstruction, at + 8);
  buffer.writeInt32LE(settings.efSearch, at + 12);
  try {
    return { index: faiss.Index.fromBuffer(buffer), applied: true };
  } catch {
    return { index, applied: false };
  }
}

