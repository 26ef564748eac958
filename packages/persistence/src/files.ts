import { createHash, randomBytes, type Hash } from 'node:crypto';
import { open, readFile, readdir, unlink, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { ZerdaError, createError, snapshotPieces, type SnapshotContent } from '@zerda/types';

/** Bytes gathered before one write call: few system calls for many small pieces. */
const WRITE_BUFFER_BYTES = 1 << 20;
/** Largest single read (the platform limit for one read is about 2 GiB). */
const MAX_READ_BYTES = 1 << 30;

/** A `ZERDA_STORE_IO` error for a failed file operation (a ZerdaError passes through unchanged). */
export function ioError(operation: string, path: string, error: unknown): ZerdaError {
  if (ZerdaError.isInstance(error)) return error;
  return createError('ZERDA_STORE_IO', { operation, path, reason: error instanceof Error ? error.message : String(error) }, error);
}

/** The error code of a failed Node call (`ENOENT` …), if any. */
export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Writes all of `bytes` at the handle's position (a write call may write less than asked). */
export async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.byteLength) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.byteLength - written);
    written += bytesWritten;
  }
}

/**
 * Streams content into an open file, hashing it with SHA-256 on the way: small pieces are gathered
 * into 1 MiB writes, large ones written as they are. Returns the bytes written and their hash.
 */
export async function writeContent(handle: FileHandle, content: SnapshotContent, hash: Hash = createHash('sha256')): Promise<{ bytes: number; sha256: string }> {
  const buffer = new Uint8Array(WRITE_BUFFER_BYTES);
  let used = 0;
  let total = 0;
  for await (const piece of snapshotPieces(content)) {
    hash.update(piece);
    total += piece.byteLength;
    if (used + piece.byteLength <= buffer.byteLength) {
      buffer.set(piece, used);
      used += piece.byteLength;
      continue;
    }
    if (used > 0) await writeAll(handle, buffer.subarray(0, used));
    used = 0;
    if (piece.byteLength >= buffer.byteLength) await writeAll(handle, piece);
    else {
      buffer.set(piece, 0);
      used = piece.byteLength;
    }
  }
  if (used > 0) await writeAll(handle, buffer.subarray(0, used));
  return { bytes: total, sha256: hash.digest('hex') };
}

/** Reads exactly `length` bytes at `position` (fewer only when the file ends first). */
export async function readAt(handle: FileHandle, target: Uint8Array, position: number): Promise<number> {
  let done = 0;
  while (done < target.byteLength) {
    const { bytesRead } = await handle.read(target, done, Math.min(target.byteLength - done, MAX_READ_BYTES), position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

/** SHA-256 and byte count of `length` bytes of a file from `offset` (the rest of the file by default). */
export async function hashFile(path: string, offset = 0, length?: number): Promise<{ bytes: number; sha256: string }> {
  const handle = await open(path, 'r');
  try {
    return await hashRange(handle, offset, length ?? (await handle.stat()).size - offset);
  } finally {
    await handle.close();
  }
}

/** SHA-256 and byte count of `size` bytes of an open file from `offset` (fewer only when it ends first). */
export async function hashRange(handle: FileHandle, offset: number, size: number): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  const block = new Uint8Array(Math.min(Math.max(size, 1), 8 << 20));
  let done = 0;
  while (done < size) {
    const wanted = Math.min(block.byteLength, size - done);
    const read = await readAt(handle, block.subarray(0, wanted), offset + done);
    if (read === 0) break;
    hash.update(block.subarray(0, read));
    done += read;
  }
  return { bytes: done, sha256: hash.digest('hex') };
}

/** Flushes a file (or, where the platform allows, a directory) to stable storage. */
export async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Makes the entries of a directory (new files, renames) durable. Platforms that cannot open or
 * flush a directory (Windows) make renames durable by themselves, so errors there are ignored.
 */
export async function fsyncDirectory(path: string): Promise<void> {
  try {
    await fsyncPath(path);
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES' && code !== 'EBADF') throw error;
  }
}

// ---------------------------------------------------------------------------- temporaries

/** A short tag of this machine, part of every temporary name (a process id means something only on its own machine). */
export const HOST_TAG = hostTag();

// Deno without --allow-sys refuses hostname(): the tag then names no machine (still a valid tag).
function hostTag(): string {
  let name = '';
  try {
    name = hostname();
  } catch {
    // keep ''
  }
  return createHash('sha256').update(name).digest('hex').slice(0, 8);
}
const TEMPORARY = /^\.(.+)\.([0-9a-f]{8})-(\d+)-([0-9a-f]{12})\.tmp$/;
/** Temporaries this process is writing right now (never removed as stale). */
const liveTemporaries = new Set<string>();

/** Whether a process with this id exists on this machine. */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/**
 * A fresh temporary path beside `target`, named `.<name>.<host>-<pid>-<random>.tmp` so that a later
 * save can tell that its writer is gone, and registered as live until {@link releaseTemporary}.
 */
export function claimTemporary(target: string): string {
  const path = join(dirname(target), `.${basename(target)}.${HOST_TAG}-${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  liveTemporaries.add(path);
  return path;
}

/** Marks a temporary from {@link claimTemporary} as no longer being written. */
export function releaseTemporary(path: string): void {
  liveTemporaries.delete(path);
}

/** Whether a temporary path was left by a writer that no longer runs (this machine only; others' are left alone). */
export function isStaleTemporary(path: string): boolean {
  const match = TEMPORARY.exec(basename(path));
  if (!match || match[2] !== HOST_TAG) return false;
  const pid = Number(match[3]);
  if (pid === process.pid) return !liveTemporaries.has(path);
  return !processAlive(pid);
}

/**
 * Removes the temporaries of `target` (every `.<name>.*.tmp` of ours) whose writer is gone: a save
 * that was killed leaves its temporary file, and the next save of the same target removes it.
 * Temporaries of live writers, of other machines and files of other naming are never touched.
 * Returns the paths removed.
 */
export async function removeStaleTemporaries(directory: string, targetName?: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = TEMPORARY.exec(name);
    if (!match || (targetName !== undefined && match[1] !== targetName)) continue;
    const path = join(directory, name);
    if (!isStaleTemporary(path)) continue;
    try {
      await unlink(path);
      removed.push(path);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
  }
  return removed;
}

/**
 * The `version` of the package.json at `url` (a package passes `new URL('../package.json',
 * import.meta.url)` from its dist folder), or `"unknown"` when it cannot be read (a bundle).
 */
export async function packageVersion(url: URL): Promise<string> {
  try {
    const version = (JSON.parse(await readFile(url, 'utf8')) as { version?: unknown }).version;
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}
