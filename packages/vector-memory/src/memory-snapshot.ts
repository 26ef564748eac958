import {
  fromLittleEndianBytes,
  isVectorMetric,
  littleEndianBytes,
  readChunkTable,
  readSnapshotJson,
  writeChunkTable,
  writeSnapshotJson,
  type DocumentChunk,
  type SnapshotReader,
  type SnapshotWriter,
  type VectorMetric,
} from '@zerda/types';

/**
 * The snapshot layout of a memory store (inside an engine snapshot, or as the files of a `.zvm`
 * single-file snapshot): `store.json` (format, metric, dimension, count), `vectors.f32` (every row,
 * little-endian float32, in storage order) and the chunks as a chunk table under `chunks/`.
 */
export const SNAPSHOT_FORMAT = 'zerda-vector-memory';
export const SNAPSHOT_VERSION = 2;

export interface StoreSnapshotHeader {
  metric: VectorMetric;
  dimensions: number | null;
  count: number;
}

/** Writes a store's state; `segments` are contiguous views of the rows in storage order. */
export async function writeStoreSnapshot(writer: SnapshotWriter, header: StoreSnapshotHeader, segments: Float32Array[], chunks: readonly DocumentChunk[]): Promise<void> {
  await writeSnapshotJson(writer, 'store.json', { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, ...header });
  await writer.writeFile(
    'vectors.f32',
    (function* () {
      for (const segment of segments) yield littleEndianBytes(segment);
    })(),
  );
  await writeChunkTable(writer.scope('chunks'), chunks);
}

/** Reads `store.json` and checks it. */
export async function readStoreHeader(reader: SnapshotReader): Promise<StoreSnapshotHeader> {
  const header = await readSnapshotJson(reader, 'store.json');
  if (header.format !== SNAPSHOT_FORMAT) throw reader.corrupt('store.json', 'format', `expected format "${SNAPSHOT_FORMAT}", got ${JSON.stringify(header.format)}`);
  if (header.version !== SNAPSHOT_VERSION) throw reader.corrupt('store.json', 'version', `memory store snapshot version ${JSON.stringify(header.version)} is not supported (this version reads ${SNAPSHOT_VERSION})`);
  if (!isVectorMetric(header.metric)) throw reader.corrupt('store.json', 'consistency', `unknown metric ${JSON.stringify(header.metric)}`);
  const { count, dimensions } = header;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) throw reader.corrupt('store.json', 'consistency', `invalid count ${JSON.stringify(count)}`);
  if (!(dimensions === null || (typeof dimensions === 'number' && Number.isInteger(dimensions) && dimensions > 0))) throw reader.corrupt('store.json', 'consistency', `invalid dimensions ${JSON.stringify(dimensions)}`);
  if (count > 0 && dimensions === null) throw reader.corrupt('store.json', 'consistency', 'it holds vectors but no dimension');
  return { metric: header.metric as VectorMetric, dimensions: dimensions as number | null, count };
}

/**
 * Reads the vectors row block by row block into `sink` (so that a large store is never held twice)
 * and then the chunks. The caller adopts nothing before this resolved: every file was verified.
 */
export async function readStoreBody(
  reader: SnapshotReader,
  header: StoreSnapshotHeader,
  sink: (firstRow: number, rows: Float32Array) => void,
  rowsPerBlock: number,
): Promise<DocumentChunk[]> {
  const dimensions = header.dimensions ?? 0;
  const file = await reader.openFile('vectors.f32');
  const expected = header.count * dimensions * 4;
  if (file.size !== expected) throw reader.corrupt('vectors.f32', 'consistency', `it has ${file.size} bytes, ${header.count} vectors of ${dimensions} dimensions need ${expected}`);
  for (let row = 0; row < header.count; row += rowsPerBlock) {
    const rows = Math.min(rowsPerBlock, header.count - row);
    sink(row, fromLittleEndianBytes(await file.read(rows * dimensions * 4), Float32Array)!);
  }
  await file.close();
  const chunks = await readChunkTable(reader.scope('chunks'));
  if (chunks.length !== header.count) throw reader.corrupt('chunks/table.json', 'consistency', `it holds ${chunks.length} chunks, store.json says ${header.count}`);
  return chunks;
}
