import { mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { SnapshotContent } from '@zerda/types';
import { claimTemporary, fsyncDirectory, ioError, releaseTemporary, removeStaleTemporaries, writeContent } from './files.js';

/** What {@link writeFileAtomic} wrote. */
export interface WrittenFile {
  path: string;
  bytes: number;
  sha256: string;
}

/**
 * Writes `path` so that a crash at any moment leaves either the previous file or the new one:
 * the content goes to a temporary sibling (see `claimTemporary`), which is flushed, renamed over
 * `path`, and the directory flushed. Missing parent directories are created. Temporaries left by
 * earlier writers of `path` that were killed are removed afterwards, so crashes leave nothing
 * behind for longer than the next write. `write` may add to the file through the open handle
 * (for formats that seek); otherwise `content` is streamed in.
 */
export async function writeFileAtomic(
  path: string,
  content: SnapshotContent | ((handle: FileHandle) => Promise<void>),
  operation = 'save',
): Promise<WrittenFile> {
  const directory = dirname(path);
  let temporary: string | undefined;
  let handle: FileHandle | undefined;
  let written: WrittenFile;
  try {
    await mkdir(directory, { recursive: true });
    temporary = claimTemporary(path);
    handle = await open(temporary, 'wx');
    if (typeof content === 'function') {
      await content(handle);
      written = { path, bytes: (await handle.stat()).size, sha256: '' };
    } else {
      written = { path, ...(await writeContent(handle, content)) };
    }
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temporary, path);
    releaseTemporary(temporary);
    temporary = undefined;
    await fsyncDirectory(directory);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    if (temporary !== undefined) {
      await unlink(temporary).catch(() => undefined);
      releaseTemporary(temporary);
    }
    throw ioError(operation, path, error);
  }
  await removeStaleTemporaries(directory, basename(path)).catch(() => undefined);
  return written;
}
