import { LOCK_FILE } from './constants.js';
export { LOCK_FILE };
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, realpath, rename, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createError } from '@zerda/types';
import { HOST_TAG, claimTemporary, errorCode, ioError, processAlive, releaseTemporary, writeAll } from './files.js';


interface LockRecord {
  pid: number;
  host: string;
  nonce: string;
  since: string;
}

/** Saves waiting or running per directory in this process (the in-process half of the lock). */
const queues = new Map<string, Promise<void>>();
/** Lock nonces this process holds right now. */
const held = new Set<string>();

async function readLock(path: string): Promise<LockRecord | 'missing' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const record = JSON.parse(text) as LockRecord;
    if (typeof record.pid === 'number' && typeof record.host === 'string' && typeof record.nonce === 'string') return record;
  } catch {
    // fall through
  }
  return 'unreadable';
}

/** Whether the process that wrote `record` can no longer be saving (this machine only). */
function isStale(record: LockRecord): boolean {
  if (record.host !== HOST_TAG) return false;
  if (record.pid === process.pid) return !held.has(record.nonce);
  return !processAlive(record.pid);
}

/** Creates a new file holding `text`, flushed (fails with EEXIST when it exists). */
async function createFlushed(path: string, text: string): Promise<void> {
  const handle = await open(path, 'wx');
  try {
    await writeAll(handle, Buffer.from(text, 'utf8'));
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Creates `path` holding `text`, atomically and only if it does not exist (a hard link of a complete temporary). */
async function createExclusive(path: string, text: string): Promise<boolean> {
  const temporary = claimTemporary(path);
  try {
    await createFlushed(temporary, text);
    try {
      await link(temporary, path);
      return true;
    } catch (error) {
      const code = errorCode(error);
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
      // A file system without hard links: exclusive creation, written in place.
      try {
        await createFlushed(path, text);
        return true;
      } catch (fallbackError) {
        if (errorCode(fallbackError) === 'EEXIST') return false;
        throw fallbackError;
      }
    }
  } finally {
    await unlink(temporary).catch(() => undefined);
    releaseTemporary(temporary);
  }
}

/**
 * Takes over a lock whose holder is gone: moves it aside (only one contender can), and checks that
 * what was moved is the stale record — if another contender had replaced it meanwhile, it is put back.
 */
async function takeOver(path: string, stale: LockRecord): Promise<void> {
  const aside = claimTemporary(path);
  try {
    try {
      await rename(path, aside);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return;
      throw error;
    }
    const moved = await readLock(aside);
    if (moved !== 'missing' && moved !== 'unreadable' && moved.nonce !== stale.nonce) {
      await link(aside, path).catch(() => undefined);
    }
  } finally {
    await unlink(aside).catch(() => undefined);
    releaseTemporary(aside);
  }
}

async function acquireFileLock(directory: string, operation: string): Promise<() => Promise<void>> {
  const path = join(directory, LOCK_FILE);
  const record: LockRecord = { pid: process.pid, host: HOST_TAG, nonce: randomBytes(8).toString('hex'), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 8; attempt++) {
    if (await createExclusive(path, `${JSON.stringify(record)}\n`)) {
      held.add(record.nonce);
      return async () => {
        held.delete(record.nonce);
        const current = await readLock(path).catch(() => 'missing' as const);
        if (current !== 'missing' && current !== 'unreadable' && current.nonce === record.nonce) await unlink(path).catch(() => undefined);
      };
    }
    const holder = await readLock(path);
    if (holder === 'missing') continue;
    if (holder === 'unreadable') {
      throw createError('ZERDA_STORE_IO', { operation, path: directory, reason: `${path} exists but is not a zerda lock file; remove it if no save is running` });
    }
    if (!isStale(holder)) {
      const where = holder.host === HOST_TAG ? `process ${holder.pid} on this machine` : `process ${holder.pid} on another machine`;
      throw createError('ZERDA_STORE_IO', {
        operation,
        path: directory,
        reason: `${where} is saving into this directory (since ${holder.since}); wait for it to finish, or remove ${path} if that process is gone`,
      });
    }
    await takeOver(path, holder);
  }
  throw createError('ZERDA_STORE_IO', { operation, path: directory, reason: `could not take the lock ${path} (it keeps changing hands)` });
}

/**
 * Runs `operation` while holding the directory's lock, creating the directory if needed. In this
 * process, callers for the same directory wait their turn (in call order). Across processes a
 * `LOCK` file holds the writer's process id: a second process fails with `ZERDA_STORE_IO` saying
 * who holds it, and a lock whose process is gone (killed during a save) is taken over, so a crash
 * never blocks the next save. Resolves with the operation's result; the lock is released either way.
 */
export async function withDirectoryLock<T>(directory: string, operation: () => Promise<T>, name = 'save'): Promise<T> {
  try {
    await mkdir(directory, { recursive: true });
  } catch (error) {
    throw ioError(name, directory, error);
  }
  const key = await realpath(directory).catch(() => resolve(directory));
  const previous = queues.get(key) ?? Promise.resolve();
  let release!: () => void;
  const turn = new Promise<void>((done) => (release = done));
  const tail = previous.then(() => turn);
  queues.set(key, tail);
  await previous;
  try {
    let unlock: () => Promise<void>;
    try {
      unlock = await acquireFileLock(key, name);
    } catch (error) {
      throw ioError(name, directory, error);
    }
    try {
      return await operation();
    } finally {
      await unlock();
    }
  } finally {
    release();
    if (queues.get(key) === tail) queues.delete(key);
  }
}
