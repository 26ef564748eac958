import type { ZerdaError } from './errors.js';
import { fromLittleEndianBytes, littleEndianBytes, type PersistedTypedArray } from './little-endian.js';

/**
 * Snapshots: how a component (a keyword index, a vector store, a retriever) writes its data into a
 * snapshot and reads it back, without knowing where the bytes go. An engine snapshot directory
 * (`ContextEngine.save`), a store's own file or directory — each is a {@link SnapshotWriter} /
 * {@link SnapshotReader} implementation (the Node ones live in `@zerda/persistence`); the
 * component only names files and streams bytes, so its encoding is written once and runs anywhere.
 *
 * Guarantees every implementation keeps: files are written completely or the whole snapshot is
 * discarded (nothing half-written is ever opened); every file carries its size and SHA-256, and a
 * reader hands out no byte that failed them — a failed check is a `ZERDA_CORRUPT_SNAPSHOT` naming the
 * file and the check.
 */

/** One piece of a file: bytes, or text written as UTF-8. */
export type SnapshotPiece = Uint8Array | string;

/** The content of one snapshot file: whole, or as pieces streamed in order (so a large file is never held twice). */
export type SnapshotContent = SnapshotPiece | Iterable<SnapshotPiece> | AsyncIterable<SnapshotPiece>;

/** The checks a snapshot reader performs, as named in `ZERDA_CORRUPT_SNAPSHOT` errors. */
export type SnapshotCheck = 'exists' | 'size' | 'sha256' | 'format' | 'version' | 'json' | 'consistency' | 'pointer' | 'encoding';

/**
 * Where a component writes its part of a snapshot. File names are relative paths of lowercase
 * letters, digits, `.`, `-` and `_`, separated by `/`; each name is written once. Files are written
 * one at a time: await each `writeFile` before starting the next.
 */
export interface SnapshotWriter {
  /** Writes file `name` from `content` (streamed piece by piece). */
  writeFile(name: string, content: SnapshotContent): Promise<void>;
  /**
   * Creates an empty directory on the local file system for a component that writes files itself
   * (a native index that only writes to a path) and returns its absolute path. Every file left in
   * it when the snapshot is completed is sized and checksummed like the others. Writers that are
   * not backed by a directory (a single-file container) throw `ZERDA_UNSUPPORTED`.
   */
  directory(name: string): Promise<string>;
  /** A writer whose names are relative to `prefix/` (a component's own folder in the snapshot). */
  scope(prefix: string): SnapshotWriter;
}

/** Sequential, verified reading of one snapshot file. */
export interface SnapshotFileReader {
  /** The file's size in bytes. */
  readonly size: number;
  /** Bytes not read yet. */
  readonly remaining: number;
  /** The next `length` bytes (fewer than asked is a `size` failure: the file is shorter than recorded). */
  read(length: number): Promise<Uint8Array>;
  /**
   * Ends the reading: the whole file must have been read, and its checksum must match. Until
   * `close()` resolved, nothing read may be trusted (or kept).
   */
  close(): Promise<void>;
}

/** Where a component reads its part of a snapshot back. Names as for {@link SnapshotWriter}. */
export interface SnapshotReader {
  /** Whether the snapshot holds file `name`. */
  has(name: string): boolean;
  /** Opens file `name` for sequential reading (a missing file is an `exists` failure). */
  openFile(name: string): Promise<SnapshotFileReader>;
  /** The whole file, after its size and checksum were verified. */
  readFile(name: string): Promise<Uint8Array>;
  /** The absolute path of a directory written with {@link SnapshotWriter.directory}, every file in it verified first. */
  directory(name: string): Promise<string>;
  /** A reader whose names are relative to `prefix/`. */
  scope(prefix: string): SnapshotReader;
  /** A `ZERDA_CORRUPT_SNAPSHOT` error naming file `name` (relative to this scope) and the failed check. */
  corrupt(name: string, check: SnapshotCheck, reason: string, cause?: unknown): ZerdaError;
}

const utf8 = new TextEncoder();

/** Writes `value` as a small JSON file. */
export async function writeSnapshotJson(writer: SnapshotWriter, name: string, value: unknown): Promise<void> {
  await writer.writeFile(name, `${JSON.stringify(value)}\n`);
}

/** Reads a JSON file written by {@link writeSnapshotJson}; malformed JSON or a non-object is a `json` failure. */
export async function readSnapshotJson(reader: SnapshotReader, name: string): Promise<Record<string, unknown>> {
  const bytes = await reader.readFile(name);
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    throw reader.corrupt(name, 'json', `it is not valid UTF-8 JSON (${(error as Error).message})`, error);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw reader.corrupt(name, 'json', 'expected a JSON object');
  return value as Record<string, unknown>;
}

/** Writes a typed array as little-endian bytes. */
export async function writeSnapshotArray(writer: SnapshotWriter, name: string, array: PersistedTypedArray): Promise<void> {
  await writer.writeFile(name, littleEndianBytes(array));
}

/**
 * Reads a typed array written by {@link writeSnapshotArray}; a byte count that is not a whole
 * number of elements, or not `expectedLength` elements, is a `size` failure.
 */
export async function readSnapshotArray<T extends PersistedTypedArray>(
  reader: SnapshotReader,
  name: string,
  type: { new (buffer: ArrayBuffer, byteOffset: number, length: number): T; new (length: number): T; BYTES_PER_ELEMENT: number },
  expectedLength?: number,
): Promise<T> {
  const array = fromLittleEndianBytes(await reader.readFile(name), type);
  if (!array) throw reader.corrupt(name, 'size', `its size is not a whole number of ${type.BYTES_PER_ELEMENT}-byte values`);
  if (expectedLength !== undefined && array.length !== expectedLength) {
    throw reader.corrupt(name, 'consistency', `it holds ${array.length} values, ${expectedLength} were expected`);
  }
  return array;
}

/** The UTF-8 bytes of a string piece (used by writers). */
export function pieceBytes(piece: SnapshotPiece): Uint8Array {
  return typeof piece === 'string' ? utf8.encode(piece) : piece;
}

/** Iterates the pieces of any {@link SnapshotContent}, in order. */
export async function* snapshotPieces(content: SnapshotContent): AsyncGenerator<Uint8Array> {
  if (typeof content === 'string' || content instanceof Uint8Array) {
    yield pieceBytes(content);
    return;
  }
  for await (const piece of content as AsyncIterable<SnapshotPiece>) yield pieceBytes(piece);
}

/** Checks a snapshot file name (see {@link SnapshotWriter}); returns an error message or undefined. */
export function snapshotNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.length === 0 || name.length > 200) return 'a non-empty relative path of at most 200 characters';
  for (const part of name.split('/')) {
    if (!/^[a-z0-9_][a-z0-9._-]*$/.test(part) || part === '.' || part === '..') return 'a relative path of lowercase letters, digits, ".", "-" and "_" separated by "/"';
  }
  return undefined;
}

/** Joins a scope prefix and a name. */
export function scopedSnapshotName(prefix: string, name: string): string {
  return prefix.length === 0 ? name : `${prefix}/${name}`;
}

/**
 * A snapshot held in memory: a {@link SnapshotWriter} and a {@link SnapshotReader} over the same
 * map of files. For tests and for moving a component's state within a process; it has no native
 * directories and, its bytes never leaving memory, no checksums.
 */
export class InMemorySnapshot {
  readonly files = new Map<string, Uint8Array>();

  /** A writer into this snapshot. */
  writer(prefix = ''): SnapshotWriter {
    const files = this.files;
    return {
      async writeFile(name, content) {
        const full = scopedSnapshotName(prefix, name);
        const problem = snapshotNameProblem(full);
        if (problem) throw new RangeError(`snapshot file name ${JSON.stringify(full)} must be ${problem}`);
        if (files.has(full)) throw new RangeError(`snapshot file ${full} was written twice`);
        const pieces: Uint8Array[] = [];
        for await (const piece of snapshotPieces(content)) pieces.push(piece.slice());
        const bytes = new Uint8Array(pieces.reduce((total, piece) => total + piece.byteLength, 0));
        let offset = 0;
        for (const piece of pieces) {
          bytes.set(piece, offset);
          offset += piece.byteLength;
        }
        files.set(full, bytes);
      },
      async directory() {
        throw new RangeError('an in-memory snapshot has no native directories');
      },
      scope: (inner) => this.writer(scopedSnapshotName(prefix, inner)),
    };
  }

  /** A reader of this snapshot; `corrupt` errors come from `fail`. */
  reader(fail: (name: string, check: SnapshotCheck, reason: string, cause?: unknown) => ZerdaError, prefix = ''): SnapshotReader {
    const files = this.files;
    const get = (name: string): Uint8Array => {
      const bytes = files.get(scopedSnapshotName(prefix, name));
      if (!bytes) throw fail(scopedSnapshotName(prefix, name), 'exists', 'no such file');
      return bytes;
    };
    return {
      has: (name) => files.has(scopedSnapshotName(prefix, name)),
      async openFile(name) {
        const bytes = get(name);
        let position = 0;
        return {
          size: bytes.byteLength,
          get remaining() {
            return bytes.byteLength - position;
          },
          async read(length) {
            if (position + length > bytes.byteLength) throw fail(scopedSnapshotName(prefix, name), 'size', 'read past the end');
            const out = bytes.slice(position, position + length);
            position += length;
            return out;
          },
          async close() {},
        };
      },
      readFile: async (name) => get(name).slice(),
      async directory(name) {
        throw fail(scopedSnapshotName(prefix, name), 'exists', 'an in-memory snapshot has no native directories');
      },
      scope: (inner) => this.reader(fail, scopedSnapshotName(prefix, inner)),
      corrupt: (name, check, reason, cause) => fail(scopedSnapshotName(prefix, name), check, reason, cause),
    };
  }
}
