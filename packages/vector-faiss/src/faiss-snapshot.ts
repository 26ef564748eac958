import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createError, littleEndianBytes, type DocumentChunk, type VectorMetric } from '@zerda/types';
import type { Index as FaissIndex } from 'faiss-node';
import type { Entry } from './faiss-index.js';
import type { Faiss } from './faiss-loader.js';

/** First bytes of a store file. */
export const STORE_FILE_MAGIC = 'ZFAISS\u0000\u0001';
/** Version of the layout below. */
export const STORE_FILE_VERSION = 1;

/**
 * What a store file holds. Layout: the 8-byte magic, a uint32 (little-endian) header length, the
 * header as UTF-8 JSON (everything below except the binary parts, plus their byte lengths and the
 * SHA-256 of the binary payload), then the FAISS index (`toBuffer`), then the vectors as
 * little-endian float32, in chunk order.
 */
export interface StoreFileContents {
  metric: VectorMetric;
  indexType: 'flat' | 'hnsw';
  dimensions: number;
  hnsw: { m: number; efSearch: number; efConstruction?: number };
  /** Label to chunk id (`null`: a deleted HNSW label). */
  labels: Array<string | null>;
  /** Live chunks, without embeddings. */
  chunks: DocumentChunk[];
  /** Their vectors, as given. */
  vectors: Float32Array[];
  /** The serialised FAISS index (absent before the first vector). */
  index: Buffer | undefined;
}

/** The JSON header: the contents but for the binary parts, which it describes. */
interface Header extends Omit<StoreFileContents, 'vectors' | 'index'> {
  format: 'zerda-faiss';
  version: number;
  indexBytes: number;
  vectorBytes: number;
  sha256: string;
}

function corrupt(path: string, reason: string, cause?: unknown) {
  return createError('ZERDA_STORE_CORRUPT', { path, reason }, cause);
}

/** Writes `contents` to `path` atomically (temporary file in the same directory, fsync, rename, fsync of the directory), creating missing directories. */
export async function writeStoreFile(path: string, contents: StoreFileContents): Promise<void> {
  // Little-endian float32 rows (a view per row on little-endian platforms, no per-value writes).
  const vectorBytes = Buffer.concat(contents.vectors.map((vector) => littleEndianBytes(vector instanceof Float32Array ? vector : Float32Array.from(vector))));
  const index = contents.index ?? Buffer.alloc(0);
  const sha256 = createHash('sha256').update(index).update(vectorBytes).digest('hex');
  const header: Header = {
    format: 'zerda-faiss',
    version: STORE_FILE_VERSION,
    metric: contents.metric,
    indexType: contents.indexType,
    dimensions: contents.dimensions,
    hnsw: contents.hnsw,
    labels: contents.labels,
    chunks: contents.chunks,
    indexBytes: index.length,
    vectorBytes: vectorBytes.length,
    sha256,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(headerBytes.length, 0);
  // Temporary sibling, flush, rename, flush of the directory — and the temporaries of earlier saves
  // that were killed are removed (see @zerda/persistence).
  const { writeFileAtomic } = await import('@zerda/persistence');
  await writeFileAtomic(path, [Buffer.from(STORE_FILE_MAGIC, 'latin1'), length, headerBytes, index, vectorBytes]);
}

/** Reads and verifies a file written by {@link writeStoreFile}. */
export async function readStoreFile(path: string): Promise<StoreFileContents> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw createError('ZERDA_STORE_IO', { operation: 'load', path, reason: error instanceof Error ? error.message : String(error) }, error);
  }
  const magic = Buffer.from(STORE_FILE_MAGIC, 'latin1');
  if (bytes.length < magic.length + 4 || !bytes.subarray(0, magic.length).equals(magic)) throw corrupt(path, 'it is not a zerda FAISS store file');
  const headerLength = bytes.readUInt32LE(magic.length);
  const headerStart = magic.length + 4;
  if (headerStart + headerLength > bytes.length) throw corrupt(path, 'the file is truncated (header)');
  let header: Header;
  try {
    header = JSON.parse(bytes.subarray(headerStart, headerStart + headerLength).toString('utf8')) as Header;
  } catch (error) {
    throw corrupt(path, 'its header is not valid JSON', error);
  }
  if (header.format !== 'zerda-faiss') throw corrupt(path, `unknown format ${JSON.stringify(header.format)}`);
  if (!(header.version <= STORE_FILE_VERSION)) throw corrupt(path, `layout version ${header.version}; this package reads up to ${STORE_FILE_VERSION} (upgrade @zerda/vector-faiss)`);
  const indexStart = headerStart + headerLength;
  const vectorStart = indexStart + header.indexBytes;
  if (vectorStart + header.vectorBytes !== bytes.length) throw corrupt(path, `the file is ${bytes.length} bytes; its header describes ${vectorStart + header.vectorBytes}`);
  const index = bytes.subarray(indexStart, vectorStart);
  const vectorBytes = bytes.subarray(vectorStart);
  if (createHash('sha256').update(index).update(vectorBytes).digest('hex') !== header.sha256) throw corrupt(path, 'its checksum does not match (the file was modified or damaged)');
  if (header.vectorBytes !== header.chunks.length * header.dimensions * 4) throw corrupt(path, 'the vector section does not match the chunk count and dimension');
  const vectors = header.chunks.map((_, row) => {
    const vector = new Float32Array(header.dimensions);
    for (let i = 0; i < header.dimensions; i++) vector[i] = vectorBytes.readFloatLE((row * header.dimensions + i) * 4);
    return vector;
  });
  return {
    metric: header.metric,
    indexType: header.indexType,
    dimensions: header.dimensions,
    hnsw: header.hnsw,
    labels: header.labels,
    chunks: header.chunks,
    vectors,
    index: header.indexBytes > 0 ? Buffer.from(index) : undefined,
  };
}

/**
 * What a file holds beyond its header, checked: the FAISS index (it must hold one vector per
 * label, of the file's dimension) and each chunk's entry with its label. Fails with
 * `ZERDA_STORE_CORRUPT` naming `path`.
 */
export function restoreContents(faiss: Faiss, contents: StoreFileContents, path: string): { index: FaissIndex | undefined; entries: Map<string, Entry> } {
  let index: FaissIndex | undefined;
  if (contents.index) {
    try {
      index = faiss.Index.fromBuffer(contents.index);
    } catch (error) {
      throw createError('ZERDA_STORE_CORRUPT', { path, reason: `FAISS cannot read its index: ${error instanceof Error ? error.message : String(error)}` }, error);
    }
    if (index.ntotal() !== contents.labels.length || index.getDimension() !== contents.dimensions) {
      throw createError('ZERDA_STORE_CORRUPT', { path, reason: `the index holds ${index.ntotal()} vectors of ${index.getDimension()} dimensions, the file lists ${contents.labels.length} of ${contents.dimensions}` });
    }
  }
  const labelOf = new Map<string, number>();
  contents.labels.forEach((id, label) => {
    if (id !== null) labelOf.set(id, label);
  });
  const entries = new Map<string, Entry>();
  contents.chunks.forEach((chunk, i) => {
    const label = labelOf.get(chunk.id);
    if (label === undefined) throw createError('ZERDA_STORE_CORRUPT', { path, reason: `chunk ${JSON.stringify(chunk.id)} has no label in the index` });
    entries.set(chunk.id, { chunk, vector: contents.vectors[i]!, label });
  });
  if (entries.size !== labelOf.size) throw createError('ZERDA_STORE_CORRUPT', { path, reason: 'the label map and the chunks disagree' });
  return { index, entries };
}
