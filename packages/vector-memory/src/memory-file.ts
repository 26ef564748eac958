import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import { createInterface } from 'node:readline';
import { createError, isVectorMetric, toDocumentChunk, type DocumentChunk, type VectorMetric, type ZerdaError } from '@zerda/types';

/**
 * The format-1 file layout of a saved memory store, still read by `MemoryVectorStore.load` (this
 * version writes format 2, a checksummed single-file snapshot; see memory-snapshot.ts):
 *   line 1: a JSON header `{ format, formatVersion, metric, dimensions, count, littleEndian }` and `\n`
 *   then:   `count * dimensions` float32 values (the vectors, row by row)
 *   then:   `count` JSON lines, one chunk each (without its embedding), in row order
 * Binary vectors keep a million 384-d rows at 1.5 GB instead of ~4 GB of decimal text, and reading
 * them back is a straight copy.
 */
export const FILE_FORMAT = 'zerda-vector-memory';
export const FILE_FORMAT_VERSION = 1;
const MAX_HEADER_BYTES = 64 * 1024;

export interface StoreFileHeader {
  metric: VectorMetric;
  dimensions: number | null;
  count: number;
}

function ioError(operation: string, path: string, error: unknown): ZerdaError {
  return createError('ZERDA_STORE_IO', { operation, path, reason: error instanceof Error ? error.message : String(error) }, error);
}


/** Reads and validates a format-1 file (written by versions before 0.2; they carry no checksum). */
export async function readStoreFile(path: string): Promise<{ header: StoreFileHeader; vectors: Float32Array; chunks: DocumentChunk[] }> {
  const corrupt = (reason: string) => createError('ZERDA_STORE_CORRUPT', { path, reason });
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw corrupt('the file does not exist');
    throw ioError('load', path, error);
  }
  let header: StoreFileHeader;
  let vectors: Float32Array;
  let chunkStart: number;
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(Math.min(MAX_HEADER_BYTES, size));
    await handle.read(head, 0, head.length, 0);
    const newline = head.indexOf(0x0a);
    if (newline < 0) throw corrupt('no header line (not a zerda memory vector store file, or truncated)');
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(head.subarray(0, newline).toString('utf8')) as Record<string, unknown>;
    } catch {
      throw corrupt('the header is not valid JSON');
    }
    if (parsed === null || typeof parsed !== 'object' || parsed.format !== FILE_FORMAT) throw corrupt(`the header does not name the format "${FILE_FORMAT}"`);
    if (parsed.formatVersion !== FILE_FORMAT_VERSION) throw corrupt(`format version ${JSON.stringify(parsed.formatVersion)} is not supported (expected ${FILE_FORMAT_VERSION})`);
    if (!isVectorMetric(parsed.metric)) throw corrupt(`unknown metric ${JSON.stringify(parsed.metric)}`);
    const count = parsed.count;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) throw corrupt(`invalid count ${JSON.stringify(count)}`);
    const dimensions = parsed.dimensions;
    if (!(dimensions === null || (typeof dimensions === 'number' && Number.isInteger(dimensions) && dimensions > 0))) throw corrupt(`invalid dimensions ${JSON.stringify(dimensions)}`);
    if (count > 0 && dimensions === null) throw corrupt('it holds vectors but no dimensions');
    if ((parsed.littleEndian === true) !== (endianness() === 'LE')) throw corrupt('it was written on a machine with the other byte order');
    header = { metric: parsed.metric as VectorMetric, dimensions: dimensions as number | null, count };
    const vectorBytes = count * (dimensions ?? 0) * 4;
    chunkStart = newline + 1 + vectorBytes;
    if (size < chunkStart) throw corrupt(`it is truncated: ${count} vectors need ${vectorBytes} bytes after the header, the file has ${Math.max(0, size - newline - 1)}`);
    vectors = new Float32Array(count * (dimensions ?? 0));
    const target = new Uint8Array(vectors.buffer);
    let done = 0;
    while (done < vectorBytes) {
      // Reads are capped at 1 GiB per call (the platform limit for one read is about 2 GiB).
      const { bytesRead } = await handle.read(target, done, Math.min(vectorBytes - done, 1 << 30), newline + 1 + done);
      if (bytesRead === 0) throw corrupt('it ended inside the vector block');
      done += bytesRead;
    }
  } catch (error) {
    await handle.close().catch(() => undefined);
    if ((error as { code?: string }).code?.startsWith('ZERDA_')) throw error;
    throw ioError('load', path, error);
  }
  await handle.close().catch(() => undefined);

  const chunks: DocumentChunk[] = [];
  const lines = createInterface({ input: createReadStream(path, { start: chunkStart, encoding: 'utf8' }), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (line.length === 0) continue;
      if (chunks.length >= header.count) throw corrupt(`it holds more chunk lines than the header's count (${header.count})`);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw corrupt(`chunk line ${chunks.length + 1} is not valid JSON`);
      }
      try {
        chunks.push(toDocumentChunk(value, chunks.length, `chunks[${chunks.length}]`));
      } catch (error) {
        throw corrupt(`chunk line ${chunks.length + 1} is not a valid chunk (${(error as Error).message})`);
      }
    }
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('ZERDA_')) throw error;
    throw ioError('load', path, error);
  } finally {
    lines.close();
  }
  if (chunks.length !== header.count) throw corrupt(`the header announces ${header.count} chunks but ${chunks.length} were found`);
  return { header, vectors, chunks };
}
