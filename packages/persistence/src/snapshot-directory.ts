import { POINTER_FILE, MANIFEST_FILE } from './constants.js';
export { POINTER_FILE, MANIFEST_FILE };
import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import {
  createError,
  scopedSnapshotName,
  snapshotNameProblem,
  type SnapshotCheck,
  type SnapshotContent,
  type SnapshotReader,
  type SnapshotWriter,
} from '@zerda/types';
import { writeFileAtomic } from './atomic-file.js';
import { errorCode, fsyncDirectory, fsyncPath, hashFile, ioError, removeStaleTemporaries, writeContent } from './files.js';
import { LOCK_FILE, withDirectoryLock } from './lock.js';
import { ManifestReader, checkManifest, claimName, directorySource, snapshotError, type SnapshotFileEntry, type SnapshotFormat, type SnapshotManifest } from './manifest.js';

/**
 * A snapshot directory:
 *
 *     <directory>/
 *       CURRENT            the commit point: names the live generation and its manifest's SHA-256
 *       g-<time>-<random>/ one complete snapshot: manifest.json plus the files it lists
 *       LOCK               present while a save runs (holds the writer's process id)
 *
 * A save writes a new generation beside the live one, flushes every file and directory, then
 * replaces `CURRENT` atomically (temporary file, flush, rename, flush of the directory) and removes
 * the generation it superseded. A crash at any moment therefore leaves `CURRENT` naming a complete
 * generation — the old one or the new one — and whatever a killed save left behind (a partial
 * generation, a temporary, its lock) is removed by the next save.
 */
const POINTER_FORMAT = 'zerda-snapshot-pointer';
const GENERATION = /^g-[0-9a-z]{9,}-[0-9a-f]{8}$/;

interface Pointer {
  format: typeof POINTER_FORMAT;
  version: 1;
  generation: string;
  manifest: { bytes: number; sha256: string };
}

/** What a save wrote. */
export interface WrittenSnapshot {
  directory: string;
  generation: string;
  manifest: SnapshotManifest;
  /** Bytes on disk of all files, the manifest included (files of equal content are stored, and counted, once). */
  bytes: number;
}

interface WriterState {
  root: string;
  entries: SnapshotFileEntry[];
  /** The first file written with each content (SHA-256 and size), for de-duplication. */
  contents: Map<string, string>;
  names: Set<string>;
  directories: Set<string>;
  local: string[];
  busy: boolean;
}

function checkName(name: string): void {
  const problem = snapshotNameProblem(name);
  if (problem) throw createError('ZERDA_INVALID_ARGUMENT', { field: 'name', expected: problem, received: JSON.stringify(name) });
}

class DirectoryWriter implements SnapshotWriter {
  constructor(
    private readonly state: WriterState,
    private readonly prefix = '',
  ) {}

  async writeFile(name: string, content: SnapshotContent): Promise<void> {
    const full = scopedSnapshotName(this.prefix, name);
    claimName(this.state, full);
    this.state.busy = true;
    try {
      const path = join(this.state.root, ...full.split('/'));
      await this.ensureParent(full);
      const handle = await open(path, 'wx');
      let written: { bytes: number; sha256: string };
      try {
        written = await writeContent(handle, content);
        await handle.sync();
      } finally {
        await handle.close();
      }
      this.state.entries.push({ name: full, bytes: written.bytes, sha256: written.sha256 });
      await this.shareContent(path, `${written.sha256}:${written.bytes}`);
    } finally {
      this.state.busy = false;
    }
  }

  async directory(name: string): Promise<string> {
    const full = scopedSnapshotName(this.prefix, name);
    claimName(this.state, full, 'directory');
    await this.ensureParent(`${full}/x`);
    this.state.local.push(full);
    return join(this.state.root, ...full.split('/'));
  }

  scope(prefix: string): SnapshotWriter {
    checkName(scopedSnapshotName(this.prefix, prefix));
    return new DirectoryWriter(this.state, scopedSnapshotName(this.prefix, prefix));
  }

  /**
   * Files of one generation with the same content (the chunk texts a keyword index and a vector
   * store both hold, their vectors) are stored once: the later copy is replaced by a hard link to
   * the first (through a temporary name and a rename, so the name always holds the right bytes).
   * Where the file system has no hard links, the copy stays.
   */
  private async shareContent(path: string, key: string): Promise<void> {
    const first = this.state.contents.get(key);
    if (first === undefined) {
      this.state.contents.set(key, path);
      return;
    }
    if (key.endsWith(':0')) return;
    const temporary = `${path}.link`;
    try {
      await link(first, temporary);
      await rename(temporary, path);
    } catch {
      await unlink(temporary).catch(() => undefined);
    }
  }

  private async ensureParent(full: string): Promise<void> {
    const parts = full.split('/').slice(0, -1);
    for (let depth = 1; depth <= parts.length; depth++) {
      const relativePath = parts.slice(0, depth).join('/');
      if (this.state.directories.has(relativePath)) continue;
      await mkdir(join(this.state.root, ...parts.slice(0, depth)), { recursive: true });
      this.state.directories.add(relativePath);
    }
  }
}

/** Every file under `path`, as paths relative to `root` with `/` separators. */
async function walk(root: string, path: string, out: string[], directories: Set<string>): Promise<void> {
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    const name = relative(root, child).split(sep).join('/');
    if (entry.isDirectory()) {
      directories.add(name);
      await walk(root, child, out, directories);
    } else if (entry.isFile()) {
      out.push(name);
    } else {
      throw createError('ZERDA_STORE_IO', { operation: 'save', path: child, reason: 'only regular files and directories can be part of a snapshot' });
    }
  }
}

/** Checksums and flushes the files components wrote themselves through `SnapshotWriter.directory`. */
async function collectLocalFiles(state: WriterState): Promise<void> {
  for (const local of state.local) {
    const files: string[] = [];
    await walk(state.root, join(state.root, ...local.split('/')), files, state.directories);
    for (const name of files.sort()) {
      const problem = snapshotNameProblem(name);
      if (problem) throw createError('ZERDA_STORE_IO', { operation: 'save', path: join(state.root, name), reason: `the file name must be ${problem}` });
      const path = join(state.root, ...name.split('/'));
      await fsyncPath(path);
      const { bytes, sha256 } = await hashFile(path);
      state.entries.push({ name, bytes, sha256 });
    }
  }
}

function newGeneration(): string {
  return `g-${Date.now().toString(36).padStart(9, '0')}-${randomBytes(4).toString('hex')}`;
}

/** The generation `CURRENT` names, or undefined when there is none or it cannot be read (no checks). */
async function currentGeneration(directory: string): Promise<string | undefined> {
  try {
    const pointer = JSON.parse(await readFile(join(directory, POINTER_FILE), 'utf8')) as Partial<Pointer>;
    return typeof pointer.generation === 'string' && GENERATION.test(pointer.generation) ? pointer.generation : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes what no committed snapshot uses: every generation directory but `keep`, and stale
 * temporaries of `CURRENT` and `LOCK`. Runs only under the directory's lock, so no other save can
 * be writing a generation meanwhile.
 */
async function removeUnreferenced(directory: string, keep: string | undefined): Promise<void> {
  for (const name of await readdir(directory)) {
    if (GENERATION.test(name) && name !== keep) await rm(join(directory, name), { recursive: true, force: true });
  }
  await removeStaleTemporaries(directory, POINTER_FILE);
  await removeStaleTemporaries(directory, LOCK_FILE);
}

/**
 * Saves a snapshot into `directory` (created if missing): `write` writes the files through the
 * given writer; they, a manifest with every file's size and SHA-256, and the switch of `CURRENT`
 * follow the protocol described above. Saves to one directory are serialised (in this process
 * they wait; another process fails clearly, see `withDirectoryLock`). `write` may return a small
 * summary for the manifest's `info`. Failures are `ZERDA_STORE_IO` (or the ZerdaError `write` threw),
 * and leave the previous snapshot as it was.
 */
export async function writeSnapshotDirectory(
  directory: string,
  format: SnapshotFormat,
  write: (writer: SnapshotWriter) => Promise<Record<string, unknown> | void>,
): Promise<WrittenSnapshot> {
  return withDirectoryLock(directory, async () => {
    const previous = await currentGeneration(directory);
    try {
      await removeUnreferenced(directory, previous);
    } catch (error) {
      throw ioError('save', directory, error);
    }
    const generation = newGeneration();
    const root = join(directory, generation);
    const state: WriterState = { root, entries: [], contents: new Map(), names: new Set([MANIFEST_FILE]), directories: new Set(), local: [], busy: false };
    let manifest: SnapshotManifest;
    let bytes = 0;
    try {
      await mkdir(root);
      const info = await write(new DirectoryWriter(state));
      await collectLocalFiles(state);
      manifest = {
        format: format.format,
        formatVersion: format.formatVersion,
        zerdaVersion: format.zerdaVersion,
        createdAt: new Date().toISOString(),
        files: state.entries.slice().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
        ...(info ? { info } : {}),
      };
      const manifestText = `${JSON.stringify(manifest, null, 1)}\n`;
      const handle = await open(join(root, MANIFEST_FILE), 'wx');
      let manifestEntry: { bytes: number; sha256: string };
      try {
        manifestEntry = await writeContent(handle, manifestText);
        await handle.sync();
      } finally {
        await handle.close();
      }
      // Every directory of the generation, deepest first, then the generation and its parent.
      for (const name of [...state.directories].sort((a, b) => b.split('/').length - a.split('/').length)) await fsyncDirectory(join(root, ...name.split('/')));
      await fsyncDirectory(root);
      await fsyncDirectory(directory);
      const pointer: Pointer = { format: POINTER_FORMAT, version: 1, generation, manifest: manifestEntry };
      await writeFileAtomic(join(directory, POINTER_FILE), `${JSON.stringify(pointer)}\n`); // the commit point
      // Bytes on disk: content stored once counts once.
      const unique = new Map(manifest.files.map((entry) => [`${entry.sha256}:${entry.bytes}`, entry.bytes]));
      bytes = manifestEntry.bytes + [...unique.values()].reduce((total, size) => total + size, 0);
    } catch (error) {
      // Nothing refers to the new generation unless CURRENT was switched.
      if ((await currentGeneration(directory)) !== generation) await rm(root, { recursive: true, force: true }).catch(() => undefined);
      throw ioError('save', directory, error);
    }
    await removeUnreferenced(directory, generation).catch(() => undefined);
    return { directory, generation, manifest, bytes };
  });
}

/** Whether `directory` holds a snapshot (a `CURRENT` file; its content is not checked). */
export async function hasSnapshotDirectory(directory: string): Promise<boolean> {
  try {
    return (await stat(join(directory, POINTER_FILE))).isFile();
  } catch {
    return false;
  }
}

async function readPointer(directory: string, fail: (file: string, check: SnapshotCheck, reason: string, cause?: unknown) => Error): Promise<Pointer> {
  let text: string;
  try {
    text = await readFile(join(directory, POINTER_FILE), 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') throw fail(POINTER_FILE, 'exists', `there is no snapshot in this directory (no ${POINTER_FILE} file)`, error);
    throw ioError('open', join(directory, POINTER_FILE), error);
  }
  let pointer: Pointer;
  try {
    pointer = JSON.parse(text) as Pointer;
  } catch (error) {
    throw fail(POINTER_FILE, 'pointer', 'it is not valid JSON (damaged or edited)', error);
  }
  if (
    pointer === null ||
    typeof pointer !== 'object' ||
    pointer.format !== POINTER_FORMAT ||
    pointer.version !== 1 ||
    typeof pointer.generation !== 'string' ||
    !GENERATION.test(pointer.generation) ||
    typeof pointer.manifest?.bytes !== 'number' ||
    typeof pointer.manifest?.sha256 !== 'string'
  ) {
    throw fail(POINTER_FILE, 'pointer', 'it does not name a generation and its manifest checksum (damaged or edited)');
  }
  return pointer;
}

/**
 * Opens the snapshot in `directory`: reads `CURRENT`, checks the manifest against the checksum it
 * records, checks format and version, and calls `read` with a reader that verifies every byte it
 * hands out (size and SHA-256 per file). Files no component read are verified after `read`
 * returns. When `read` fails and a file turns out damaged, the damage is reported (a parse error
 * caused by a flipped byte reads as what it is). A save that replaces the generation while it is
 * being read makes the read start over on the new one. `verify: false` checks sizes but not
 * checksums (for very large snapshots on trusted storage). Every failed check throws the format's error
 * code (`ZERDA_CORRUPT_SNAPSHOT` by default) naming the file and the check.
 */
export async function readSnapshotDirectory<T>(
  directory: string,
  format: SnapshotFormat,
  read: (reader: SnapshotReader, manifest: SnapshotManifest) => Promise<T>,
  options: { verify?: boolean } = {},
): Promise<T> {
  const fail = (file: string, check: SnapshotCheck, reason: string, cause?: unknown) => snapshotError(format, directory, file, check, reason, cause);
  for (let attempt = 0; ; attempt++) {
    const pointer = await readPointer(directory, fail);
    const root = join(directory, pointer.generation);
    const superseded = async (): Promise<boolean> => attempt < 3 && (await currentGeneration(directory)) !== pointer.generation;
    let manifestBytes: Buffer;
    try {
      manifestBytes = await readFile(join(root, MANIFEST_FILE));
    } catch (error) {
      if (errorCode(error) === 'ENOENT') {
        if (await superseded()) continue;
        throw fail(`${pointer.generation}/${MANIFEST_FILE}`, 'exists', `${POINTER_FILE} names generation ${pointer.generation}, which has no manifest`, error);
      }
      throw ioError('open', join(root, MANIFEST_FILE), error);
    }
    if (manifestBytes.byteLength !== pointer.manifest.bytes || createHash('sha256').update(manifestBytes).digest('hex') !== pointer.manifest.sha256) {
      throw fail(MANIFEST_FILE, 'sha256', `it does not match the size and SHA-256 ${POINTER_FILE} recorded (it was changed or damaged)`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(manifestBytes.toString('utf8'));
    } catch (error) {
      throw fail(MANIFEST_FILE, 'json', 'it is not valid JSON', error);
    }
    const manifest = checkManifest(parsed, format, (check, reason) => fail(MANIFEST_FILE, check, reason), false);
    const reader = new ManifestReader(manifest.files, directorySource(root, fail), fail, '', undefined, options.verify ?? true);
    try {
      const result = await read(reader, manifest);
      await reader.verifyRemaining();
      return result;
    } catch (error) {
      if (await superseded()) continue;
      const damage = await reader.integrityFailure();
      throw damage ?? error;
    }
  }
}
