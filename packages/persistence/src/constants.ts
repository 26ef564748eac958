// File names and magic numbers, free of Node built-ins: shared by the Node implementation and the
// `default` export (unavailable.ts) that browsers and workers resolve to.

/** The lock file a save holds in a snapshot directory. */
export const LOCK_FILE = 'LOCK';
/** The file naming a snapshot directory's live generation. */
export const POINTER_FILE = 'CURRENT';
/** Every generation's list of files with their sizes and SHA-256. */
export const MANIFEST_FILE = 'manifest.json';
/** The first bytes of a single-file snapshot. */
export const FILE_MAGIC = 'ZERDASNP';
