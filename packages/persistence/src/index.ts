/**
 * @zerda/persistence — crash-safe, checksummed files and snapshot directories for zerda on Node.
 * Node-only (file system, crypto); the core packages load it lazily, inside `save`/`open`.
 */
export { writeFileAtomic, type WrittenFile } from './atomic-file.js';
export { claimTemporary, releaseTemporary, removeStaleTemporaries, isStaleTemporary, fsyncDirectory, hashFile, packageVersion } from './files.js';
export { withDirectoryLock, LOCK_FILE } from './lock.js';
export { snapshotError, type SnapshotFileEntry, type SnapshotFormat, type SnapshotManifest } from './manifest.js';
export { writeSnapshotDirectory, readSnapshotDirectory, hasSnapshotDirectory, POINTER_FILE, MANIFEST_FILE, type WrittenSnapshot } from './snapshot-directory.js';
export { writeSnapshotFile, readSnapshotFile, isSnapshotFile, FILE_MAGIC } from './snapshot-file.js';
