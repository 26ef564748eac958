import { createError } from '@zerda/types';

// What `@zerda/persistence` resolves to outside Node-like runtimes (the `default` condition of its
// `exports`): the same names, so a bundle for a browser or a worker never reaches for `node:fs`,
// and every operation fails with ZERDA_UNSUPPORTED instead. Node.js, Bun and Deno get index.ts.
export { LOCK_FILE, POINTER_FILE, MANIFEST_FILE, FILE_MAGIC } from './constants.js';
export type { WrittenFile } from './atomic-file.js';
export type { SnapshotFileEntry, SnapshotFormat, SnapshotManifest } from './manifest.js';
export type { WrittenSnapshot } from './snapshot-directory.js';

function unavailable(operation: string): (...parameters: unknown[]) => never {
  return () => {
    throw createError('ZERDA_UNSUPPORTED', {
      operation,
      component: '@zerda/persistence in this runtime',
      reason: 'snapshots and store files need the file system (Node.js, Bun or Deno); in a browser or a worker, index in memory or keep the corpus in a server store',
    });
  };
}

export const writeFileAtomic = unavailable('writeFileAtomic');
export const claimTemporary = unavailable('claimTemporary');
export const releaseTemporary = unavailable('releaseTemporary');
export const removeStaleTemporaries = unavailable('removeStaleTemporaries');
export const isStaleTemporary = unavailable('isStaleTemporary');
export const fsyncDirectory = unavailable('fsyncDirectory');
export const hashFile = unavailable('hashFile');
export const packageVersion = unavailable('packageVersion');
export const withDirectoryLock = unavailable('withDirectoryLock');
export const snapshotError = unavailable('snapshotError');
export const writeSnapshotDirectory = unavailable('writeSnapshotDirectory (ContextEngine.save)');
export const readSnapshotDirectory = unavailable('readSnapshotDirectory (ContextEngine.open)');
export const hasSnapshotDirectory = unavailable('hasSnapshotDirectory');
export const writeSnapshotFile = unavailable('writeSnapshotFile (store.save)');
export const readSnapshotFile = unavailable('readSnapshotFile (Store.load)');
export const isSnapshotFile = unavailable('isSnapshotFile');
