import { FILE_MAGIC } from './constants.js';
export { FILE_MAGIC };
import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import {
  createError,
  scopedSnapshotName,
  type SnapshotCheck,
  type SnapshotContent,
  type SnapshotReader,
  type SnapshotWriter,
} from '@zerda/types';
import { writeFileAtomic } from './atomic-file.js';
import { errorCode, hashFile, ioError, readAt, writeAll, writeContent } from './files.js';
import { ManifestReader, checkManifest, claimName, snapshotError, type SnapshotFileEntry, type SnapshotFormat, type SnapshotManifest } from './manifest.js';

/**
 * A single-file snapshot (a store's own file, e.g. `MemoryVectorStore.save('index.zvm')`): the same
 * files and manifest as a snapshot directory, back to back in one file.
 *
 *     "ZERDASNP"                       8 bytes
 *     file 1, file 2, …                the bytes of each file, in writing order
 *     footer                           the manifest as JSON, each file with its offset, size, SHA-256
 *     footer length (uint32 LE), SHA-256 of the footer (32 bytes), "ZERDAEND"
 *
 * It is written to a temporary sibling and renamed into place (see `writeFileAtomic`), so a crash
 * leaves the previous file or the new one, and the next save removes a killed save's temporary.
 */
const END_MAGIC = 'ZERDAEND';
const TRAILER_BYTES = 4 + 32 + 8;

interface ContainerState {
  handle: FileHandle;
  offset: number;
  entries: SnapshotFileEntry[];
  names: Set<string>;
  busy: boolean;
}

class ContainerWriter implements SnapshotWriter {
  constructor(
    private readonly state: ContainerState,
    private readonly prefix = '',
  ) {}

  async writeFile(name: string, content: SnapshotContent): Promise<void> {
    const full = scopedSnapshotName(this.prefix, name);
    claimName(this.state, full);
    this.state.busy = true;
    try {
      const written = await writeContent(this.state.handle, content);
      this.state.entries.push({ name: full, offset: this.state.offset, bytes: written.bytes, sha256: written.sha256 });
      this.state.offset += written.bytes;
    } finally {
      this.state.busy = false;
    }
  }

  async directory(): Promise<string> {
    throw createError('ZERDA_UNSUPPORTED', { operation: 'SnapshotWriter.directory', component: 'a single-file snapshot', reason: 'native files need a snapshot directory' });
  }

  scope(prefix: string): SnapshotWriter {
    return new ContainerWriter(this.state, scopedSnapshotName(this.prefix, prefix));
  }
}

/**
 * Saves a single-file snapshot at `path` (parent directories are created): `write` writes the
 * files through the writer. Atomic, flushed, checksummed; see the module comment.
 */
export async function writeSnapshotFile(
  path: string,
  format: SnapshotFormat,
  write: (writer: SnapshotWriter) => Promise<Record<string, unknown> | void>,
): Promise<{ path: string; bytes: number; manifest: SnapshotManifest }> {
  let manifest!: SnapshotManifest;
  const written = await writeFileAtomic(path, async (handle) => {
    await writeAll(handle, Buffer.from(FILE_MAGIC, 'latin1'));
    const state: ContainerState = { handle, offset: FILE_MAGIC.length, entries: [], names: new Set(), busy: false };
    const info = await write(new ContainerWriter(state));
    manifest = {
      format: format.format,
      formatVersion: format.formatVersion,
      zerdaVersion: format.zerdaVersion,
      createdAt: new Date().toISOString(),
      files: state.entries,
      ...(info ? { info } : {}),
    };
    const footer = Buffer.from(JSON.stringify(manifest), 'utf8');
    const trailer = Buffer.alloc(TRAILER_BYTES);
    trailer.writeUInt32LE(footer.byteLength, 0);
    createHash('sha256').update(footer).digest().copy(trailer, 4);
    trailer.write(END_MAGIC, 36, 'latin1');
    await writeAll(handle, footer);
    await writeAll(handle, trailer);
  });
  return { path, bytes: written.bytes, manifest };
}

/** Whether the file at `path` starts like a single-file snapshot (nothing else is checked). */
export async function isSnapshotFile(path: string): Promise<boolean> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, 'r');
    const head = new Uint8Array(FILE_MAGIC.length);
    const got = await readAt(handle, head, 0);
    return got === head.length && Buffer.from(head).toString('latin1') === FILE_MAGIC;
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}

/**
 * Opens a single-file snapshot: checks the trailer, the footer's SHA-256, format and version, and
 * calls `read` with a reader that verifies every file it hands out. Failures throw the format's
 * error code naming the part (`header`, `footer` or a file name) and the check.
 */
export async function readSnapshotFile<T>(path: string, format: SnapshotFormat, read: (reader: SnapshotReader, manifest: SnapshotManifest) => Promise<T>): Promise<T> {
  const fail = (file: string, check: SnapshotCheck, reason: string, cause?: unknown) => snapshotError(format, path, file, check, reason, cause);
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') throw fail('file', 'exists', 'the file does not exist', error);
    throw ioError('load', path, error);
  }
  try {
    const { size } = await handle.stat();
    const head = new Uint8Array(FILE_MAGIC.length);
    if ((await readAt(handle, head, 0)) < head.length || Buffer.from(head).toString('latin1') !== FILE_MAGIC) throw fail('header', 'format', 'it is not a zerda snapshot file');
    if (size < FILE_MAGIC.length + TRAILER_BYTES) throw fail('footer', 'size', 'it is too short to hold a footer (truncated)');
    const trailer = Buffer.alloc(TRAILER_BYTES);
    await readAt(handle, trailer, size - TRAILER_BYTES);
    if (trailer.toString('latin1', 36) !== END_MAGIC) throw fail('footer', 'size', 'it does not end with the zerda trailer (truncated or overwritten)');
    const footerBytes = trailer.readUInt32LE(0);
    const footerStart = size - TRAILER_BYTES - footerBytes;
    if (footerStart < FILE_MAGIC.length) throw fail('footer', 'size', `its footer length ${footerBytes} does not fit the file`);
    const footer = Buffer.alloc(footerBytes);
    await readAt(handle, footer, footerStart);
    if (!createHash('sha256').update(footer).digest().equals(trailer.subarray(4, 36))) throw fail('footer', 'sha256', 'its SHA-256 does not match (the file was changed or damaged)');
    let parsed: unknown;
    try {
      parsed = JSON.parse(footer.toString('utf8'));
    } catch (error) {
      throw fail('footer', 'json', 'it is not valid JSON', error);
    }
    const manifest = checkManifest(parsed, format, (check, reason) => fail('footer', check, reason), true);
    let end = FILE_MAGIC.length;
    for (const entry of manifest.files) {
      if (entry.offset! !== end || entry.offset! + entry.bytes > footerStart) throw fail('footer', 'consistency', `file ${entry.name} does not lie where the previous one ends`);
      end += entry.bytes;
    }
    if (end !== footerStart) throw fail('footer', 'consistency', `${footerStart - end} bytes before the footer belong to no file`);
    const reader = new ManifestReader(
      manifest.files,
      {
        open: async (entry) => ({ handle, offset: entry.offset!, release: async () => undefined }),
        hash: (entry) => hashFile(path, entry.offset!, entry.bytes),
        size: async (entry) => entry.bytes,
      },
      fail,
    );
    try {
      const result = await read(reader, manifest);
      await reader.verifyRemaining();
      return result;
    } catch (error) {
      throw (await reader.integrityFailure()) ?? error;
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
}
