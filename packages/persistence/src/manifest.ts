import { createHash, type Hash } from 'node:crypto';
import { open, stat, type FileHandle } from 'node:fs/promises';
import {
  createError,
  scopedSnapshotName,
  snapshotNameProblem,
  type SnapshotCheck,
  type SnapshotFileReader,
  type ContentSharingReader,
  type ZerdaError,
} from '@zerda/types';
import { hashInBackground } from './background-hash.js';
import { hashFile, hashRange, readAt } from './files.js';

/** One file of a snapshot as its manifest records it. */
export interface SnapshotFileEntry {
  name: string;
  bytes: number;
  sha256: string;
  /** Where the file starts inside a single-file container (absent in a directory snapshot). */
  offset?: number;
}

/** The manifest of a snapshot: what it is, who wrote it, and every file with its size and SHA-256. */
export interface SnapshotManifest {
  format: string;
  formatVersion: number;
  /** Version of the package that wrote it. */
  zerdaVersion: string;
  /** ISO time of the save. */
  createdAt: string;
  files: SnapshotFileEntry[];
  /** A small summary chosen by the writer (counts, settings), for `inspect`-style tools. */
  info?: Record<string, unknown>;
}

/** What a format is called and which versions of it a reader opens. */
export interface SnapshotFormat {
  /** Format name recorded in the manifest, e.g. `zerda-engine-snapshot`. */
  format: string;
  /** The version written. */
  formatVersion: number;
  /** Versions read (the written one included). Default: only `formatVersion`. */
  readableVersions?: readonly number[];
  /** Package and version doing the writing or reading, e.g. `@zerda/context 0.1.0`, for messages. */
  producer: string;
  /** Version recorded as `zerdaVersion`. */
  zerdaVersion: string;
  /**
   * The error code of a failed check: `ZERDA_CORRUPT_SNAPSHOT` (default) or, for a store's own
   * file, `ZERDA_STORE_CORRUPT` (the code stores document).
   */
  errorCode?: 'ZERDA_CORRUPT_SNAPSHOT' | 'ZERDA_STORE_CORRUPT';
}

/**
 * The bookkeeping both snapshot writers share: checks a file name against the naming rule, that it
 * was not written before, and that no other file is being written; then claims it.
 */
export function claimName(state: { names: Set<string>; busy: boolean }, full: string, kind: 'file' | 'directory' = 'file'): void {
  const problem = snapshotNameProblem(full);
  if (problem) throw createError('ZERDA_INVALID_ARGUMENT', { field: 'name', expected: problem, received: JSON.stringify(full) });
  if (state.names.has(full)) throw createError('ZERDA_INVALID_ARGUMENT', { field: 'name', expected: `a ${kind} name not used before in this snapshot`, received: full });
  if (state.busy) throw new Error(`SnapshotWriter: ${full} while another file is being written: await each writeFile`);
  state.names.add(full);
}

/** Builds the error of a failed check on `file` of the snapshot at `path`. */
export function snapshotError(format: Pick<SnapshotFormat, 'errorCode'>, path: string, file: string, check: SnapshotCheck, reason: string, cause?: unknown): ZerdaError {
  if (format.errorCode === 'ZERDA_STORE_CORRUPT') {
    return createError('ZERDA_STORE_CORRUPT', { path, file, check, reason: `${file} failed the ${check} check: ${reason}` }, cause);
  }
  return createError('ZERDA_CORRUPT_SNAPSHOT', { path, file, check, reason }, cause);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/**
 * Checks a parsed manifest: the format name, a readable version (the message says which version
 * is needed otherwise), and a well-formed file list. Throws the format's error naming `file`.
 */
export function checkManifest(value: unknown, format: SnapshotFormat, fail: (check: SnapshotCheck, reason: string) => ZerdaError, container: boolean): SnapshotManifest {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw fail('json', 'expected a JSON object');
  const manifest = value as SnapshotManifest;
  if (manifest.format !== format.format) throw fail('format', `expected format "${format.format}", found ${JSON.stringify(manifest.format)}`);
  const readable = format.readableVersions ?? [format.formatVersion];
  if (!readable.includes(manifest.formatVersion)) {
    const by = typeof manifest.zerdaVersion === 'string' ? ` by zerda ${manifest.zerdaVersion}` : '';
    const newest = Math.max(...readable);
    const needed =
      typeof manifest.formatVersion === 'number' && manifest.formatVersion > newest
        ? `a newer zerda that reads format version ${manifest.formatVersion} is needed`
        : `save it again with a zerda that still reads version ${JSON.stringify(manifest.formatVersion)}, then open it here`;
    throw fail('version', `it was written in format version ${JSON.stringify(manifest.formatVersion)}${by}; ${format.producer} reads version ${readable.join(', ')}: ${needed}`);
  }
  if (!Array.isArray(manifest.files)) throw fail('consistency', 'its file list is missing');
  const names = new Set<string>();
  for (const entry of manifest.files) {
    if (entry === null || typeof entry !== 'object' || snapshotNameProblem(entry.name) !== undefined || !isCount(entry.bytes) || typeof entry.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(entry.sha256)) {
      throw fail('consistency', `its file list holds a malformed entry ${JSON.stringify(entry)?.slice(0, 120)}`);
    }
    if (container !== isCount(entry.offset)) throw fail('consistency', `entry ${entry.name} ${container ? 'has no' : 'has an unexpected'} offset`);
    if (names.has(entry.name)) throw fail('consistency', `it lists ${entry.name} twice`);
    names.add(entry.name);
  }
  return manifest;
}

/** How a reader reaches the bytes of one entry. */
export interface EntrySource {
  /**
   * An open handle and the entry's offset in it; `release` closes what this call opened.
   * `identity` names the stored bytes when the source can tell (a directory snapshot: device and
   * inode, shared by the hard links of content stored once), so that bytes verified once are not
   * hashed again when another entry names the same file.
   */
  open(entry: SnapshotFileEntry): Promise<{ handle: FileHandle; offset: number; release: () => Promise<void>; identity?: string }>;
  /** Full SHA-256 of one entry, read independently (for verifying files no component read). */
  hash(entry: SnapshotFileEntry): Promise<{ bytes: number; sha256: string }>;
  /** The `identity` {@link EntrySource.open} would report, without opening the entry for reading (undefined when unknown). */
  identity?(entry: SnapshotFileEntry): Promise<string | undefined>;
  /** The entry's size as stored. */
  size(entry: SnapshotFileEntry): Promise<number>;
  /** A path on disk for the entries under `name/` (directory snapshots only). */
  directoryPath?(name: string): string;
}

/** Entries from this size on are hashed on the worker thread (smaller ones cost less than the round trip). */
const BACKGROUND_HASH_BYTES = 1 << 20;

class EntryReader implements SnapshotFileReader {
  private position = 0;
  /**
   * How the bytes are hashed: on the worker thread from the start (large entries), or as they are
   * read. Both absent when checksums are not verified (`verify: false`) or were verified before.
   */
  private readonly background: Promise<{ bytes: number; sha256: string }> | undefined;
  private readonly digest: Hash | undefined;
  private closed = false;

  constructor(
    private readonly entry: SnapshotFileEntry,
    private readonly handle: FileHandle,
    private readonly base: number,
    private readonly release: () => Promise<void>,
    private readonly fail: (check: SnapshotCheck, reason: string) => ZerdaError,
    private readonly onVerified: () => void,
    private readonly verify: boolean,
    /** The stored bytes were verified already under another name (the same file, see `EntrySource.open`). */
    verifiedBefore = false,
  ) {
    const hashed = verify && !verifiedBefore;
    this.background = hashed && entry.bytes >= BACKGROUND_HASH_BYTES ? hashInBackground(handle.fd, base, entry.bytes) : undefined;
    this.background?.catch(() => undefined); // awaited by close(); a reader abandoned after an error leaves no unhandled rejection
    this.digest = hashed && !this.background ? createHash('sha256') : undefined;
  }

  get size(): number {
    return this.entry.bytes;
  }

  get remaining(): number {
    return this.entry.bytes - this.position;
  }

  async read(length: number): Promise<Uint8Array> {
    if (this.closed) throw new Error('read() after close()');
    if (!Number.isInteger(length) || length < 0) throw new RangeError(`read length must be a non-negative integer, got ${length}`);
    if (length > this.remaining) throw this.fail('size', `a read of ${length} bytes at offset ${this.position} goes past the ${this.entry.bytes} bytes recorded`);
    const out = new Uint8Array(length);
    const got = await readAt(this.handle, out, this.base + this.position);
    if (got < length) throw this.fail('size', `it ends after ${this.position + got} bytes, the manifest recorded ${this.entry.bytes} (truncated)`);
    this.digest?.update(out);
    this.position += length;
    return out;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      const unread = this.remaining;
      if (this.background) {
        // A hashing thread that failed (a runtime whose worker threads cannot run this) leaves the hashing to this thread.
        const { bytes, sha256 } = (await this.background.catch(() => undefined)) ?? (await hashRange(this.handle, this.base, this.entry.bytes));
        if (bytes < this.entry.bytes) throw this.fail('size', `it ends after ${bytes} bytes, the manifest recorded ${this.entry.bytes} (truncated)`);
        if (sha256 !== this.entry.sha256) throw this.fail('sha256', 'its SHA-256 does not match the manifest (the file was changed or damaged)');
      } else if (unread > 0) {
        const block = new Uint8Array(Math.min(unread, 8 << 20));
        while (this.position < this.entry.bytes) {
          const wanted = Math.min(block.byteLength, this.entry.bytes - this.position);
          const got = await readAt(this.handle, block.subarray(0, wanted), this.base + this.position);
          if (got < wanted) throw this.fail('size', `it ends after ${this.position + got} bytes, the manifest recorded ${this.entry.bytes} (truncated)`);
          this.digest?.update(block.subarray(0, wanted));
          this.position += wanted;
        }
      }
      if (this.digest && this.digest.digest('hex') !== this.entry.sha256) throw this.fail('sha256', 'its SHA-256 does not match the manifest (the file was changed or damaged)');
      this.onVerified();
      if (unread > 0) throw this.fail('consistency', `${unread} bytes at its end were not expected by its reader`);
    } finally {
      await this.release();
    }
  }
}

/** What the readers of one open share (every scope of a {@link ManifestReader}). */
interface SharedState {
  entries: Map<string, SnapshotFileEntry>;
  verified: Set<string>;
  verifiedFiles: Map<string, string>;
  /** Values read from files, by kind and the files' recorded content (see {@link ManifestReader.sharedByContent}). */
  values: Map<string, Promise<unknown>>;
}

/**
 * A {@link SnapshotReader} over the entries of a manifest. It hands out bytes only through
 * verified reads, remembers which entries were verified, and can check all the others
 * ({@link ManifestReader.verifyRemaining}) — so that a corrupt file is reported as such even when a
 * component stumbled on the damage first.
 */
export class ManifestReader implements ContentSharingReader {
  private readonly entries: Map<string, SnapshotFileEntry>;
  private readonly verified: Set<string>;
  /** Stored files (by `EntrySource` identity) whose bytes were verified, with the checksum they matched. */
  private readonly verifiedFiles: Map<string, string>;
  private readonly values: Map<string, Promise<unknown>>;

  constructor(
    private readonly files: readonly SnapshotFileEntry[],
    private readonly source: EntrySource,
    private readonly fail: (file: string, check: SnapshotCheck, reason: string, cause?: unknown) => ZerdaError,
    private readonly prefix = '',
    shared?: SharedState,
    /** `false` checks sizes only, not checksums (faster opens of very large snapshots). */
    private readonly verify = true,
  ) {
    this.entries = shared?.entries ?? new Map(files.map((entry) => [entry.name, entry]));
    this.verified = shared?.verified ?? new Set();
    this.verifiedFiles = shared?.verifiedFiles ?? new Map();
    this.values = shared?.values ?? new Map();
  }

  /**
   * What `read` returns for the files `names`, read once per open for each content of those files
   * as the manifest records it (size and SHA-256), with `kind` saying how they are read: a hybrid
   * snapshot's keyword index and vector store hold the same chunk texts, decoded once. Files of a
   * later call with the same content are not read; like every file no component read, they are
   * verified before the open returns (stored once through hard links, they were verified already).
   */
  sharedByContent<T>(kind: string, names: readonly string[], read: () => Promise<T>): Promise<T> {
    const contents: string[] = [kind];
    for (const name of names) {
      const entry = this.entries.get(scopedSnapshotName(this.prefix, name));
      if (!entry) return read(); // its own read reports the missing file
      contents.push(`${entry.sha256}:${entry.bytes}`);
    }
    const key = contents.join('\n');
    let value = this.values.get(key);
    if (value === undefined) {
      value = read();
      this.values.set(key, value);
    }
    return value as Promise<T>;
  }

  has(name: string): boolean {
    return this.entries.has(scopedSnapshotName(this.prefix, name));
  }

  async openFile(name: string): Promise<SnapshotFileReader> {
    const full = scopedSnapshotName(this.prefix, name);
    const entry = this.entries.get(full);
    if (!entry) throw this.fail(full, 'exists', 'the manifest lists no such file');
    const { handle, offset, release, identity } = await this.source.open(entry);
    const file = identity === undefined ? undefined : `${identity}:${entry.bytes}`;
    const verifiedBefore = file !== undefined && this.verifiedFiles.get(file) === entry.sha256;
    const onVerified = () => {
      this.verified.add(full);
      if (file !== undefined && this.verify) this.verifiedFiles.set(file, entry.sha256);
    };
    return new EntryReader(entry, handle, offset, release, (check, reason) => this.fail(full, check, reason), onVerified, this.verify, verifiedBefore);
  }

  async readFile(name: string): Promise<Uint8Array> {
    const file = await this.openFile(name);
    try {
      const bytes = await file.read(file.size);
      await file.close();
      return bytes;
    } catch (error) {
      await file.close().catch(() => undefined);
      throw error;
    }
  }

  async directory(name: string): Promise<string> {
    const full = scopedSnapshotName(this.prefix, name);
    if (!this.source.directoryPath) throw this.fail(full, 'exists', 'this snapshot is a single file and holds no directories');
    const inside = this.files.filter((entry) => entry.name.startsWith(`${full}/`));
    for (const entry of inside) await this.verifyEntry(entry);
    return this.source.directoryPath(full);
  }

  scope(prefix: string): ContentSharingReader {
    const shared: SharedState = { entries: this.entries, verified: this.verified, verifiedFiles: this.verifiedFiles, values: this.values };
    return new ManifestReader(this.files, this.source, this.fail, scopedSnapshotName(this.prefix, prefix), shared, this.verify);
  }

  corrupt(name: string, check: SnapshotCheck, reason: string, cause?: unknown): ZerdaError {
    return this.fail(scopedSnapshotName(this.prefix, name), check, reason, cause);
  }

  /** Verifies every entry no read has verified yet; throws the first failure. */
  async verifyRemaining(): Promise<void> {
    for (const entry of this.files) if (!this.verified.has(entry.name)) await this.verifyEntry(entry);
  }

  /** The first integrity failure among the entries not verified yet, or undefined (errors other than integrity ones are ignored here). */
  async integrityFailure(): Promise<ZerdaError | undefined> {
    try {
      await this.verifyRemaining();
      return undefined;
    } catch (error) {
      const code = (error as ZerdaError).code;
      return code === 'ZERDA_CORRUPT_SNAPSHOT' || code === 'ZERDA_STORE_CORRUPT' ? (error as ZerdaError) : undefined;
    }
  }

  private async verifyEntry(entry: SnapshotFileEntry): Promise<void> {
    if (this.verified.has(entry.name)) return;
    let actual: { bytes: number; sha256: string };
    let stored: string | undefined;
    try {
      // The same stored file verified under another name against the same checksum (content stored once) is not hashed again.
      const identity = this.verify ? await this.source.identity?.(entry) : undefined;
      stored = identity === undefined ? undefined : `${identity}:${entry.bytes}`;
      const verifiedBefore = stored !== undefined && this.verifiedFiles.get(stored) === entry.sha256;
      actual = this.verify && !verifiedBefore ? await this.source.hash(entry) : { bytes: await this.source.size(entry), sha256: entry.sha256 };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw this.fail(entry.name, 'exists', 'the file named by the manifest is missing', error);
      throw error;
    }
    if (actual.bytes !== entry.bytes) throw this.fail(entry.name, 'size', `it has ${actual.bytes} bytes, the manifest recorded ${entry.bytes} (truncated or overwritten)`);
    if (actual.sha256 !== entry.sha256) throw this.fail(entry.name, 'sha256', 'its SHA-256 does not match the manifest (the file was changed or damaged)');
    this.verified.add(entry.name);
    if (stored !== undefined) this.verifiedFiles.set(stored, entry.sha256);
  }
}

/** An {@link EntrySource} for a directory snapshot: one file per entry under `root`. */
export function directorySource(root: string, fail: (file: string, check: SnapshotCheck, reason: string, cause?: unknown) => ZerdaError): EntrySource {
  return {
    async open(entry) {
      const path = `${root}/${entry.name}`;
      let handle: FileHandle;
      try {
        handle = await open(path, 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw fail(entry.name, 'exists', 'the file named by the manifest is missing', error);
        throw error;
      }
      const { size, dev, ino } = await handle.stat({ bigint: true });
      if (size !== BigInt(entry.bytes)) {
        await handle.close();
        throw fail(entry.name, 'size', `it has ${size} bytes, the manifest recorded ${entry.bytes} (truncated or overwritten)`);
      }
      // A file system without inode numbers reports 0: no identity, every entry hashed.
      return { handle, offset: 0, release: () => handle.close(), ...(ino !== 0n ? { identity: `${dev}:${ino}` } : {}) };
    },
    async identity(entry) {
      const { dev, ino } = await stat(`${root}/${entry.name}`, { bigint: true });
      return ino !== 0n ? `${dev}:${ino}` : undefined;
    },
    hash: (entry) => hashFile(`${root}/${entry.name}`),
    size: async (entry) => (await stat(`${root}/${entry.name}`)).size,
    directoryPath: (name) => `${root}/${name}`,
  };
}
