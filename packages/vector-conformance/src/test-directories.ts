import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invalidArgument, type VectorStore } from '@zerda/types';
import { afterAll } from 'vitest';

/** A temporary directory and the function that removes it with everything below it. */
export interface TemporaryDirectory {
  path: string;
  remove(): Promise<void>;
}

/** Creates a fresh directory under the system's temporary directory, its name starting with `prefix`. */
export async function temporaryDirectory(prefix: string): Promise<TemporaryDirectory> {
  checkPrefix(prefix, 'prefix');
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** A name prefix: a non-empty string without path separators (it names files and tables). */
export function checkPrefix(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || /[\\/\0]/.test(value)) throw invalidArgument(field, 'a non-empty string without / \\ or NUL', value);
  return value;
}

/** Throws a ZerdaError naming `field` unless `value` is a function. */
export function checkFunction(value: unknown, field: string): void {
  if (typeof value !== 'function') throw invalidArgument(field, 'a function', value);
}

/**
 * Whether a suite is skipped and the title it runs under, from its `skip` option (`true`, or a
 * string saying why, appended to the title).
 */
export function skipAndTitle(name: string, skip: boolean | string | undefined): { skipped: boolean; title: string } {
  if (skip !== undefined && typeof skip !== 'boolean' && typeof skip !== 'string') throw invalidArgument('options.skip', 'a boolean or a string saying why', skip);
  const reason = typeof skip === 'string' && skip.length > 0 ? skip : undefined;
  return { skipped: skip === true || reason !== undefined, title: reason ? `${name} (skipped: ${reason})` : name };
}

let counter = 0;

/**
 * A name (a table, a collection) that no other call in this process returns: `<prefix>_<pid>_<n>`,
 * so that the tests of one file share a database without seeing each other's data.
 */
export function uniqueName(prefix: string): string {
  checkPrefix(prefix, 'prefix');
  counter += 1;
  return `${prefix}_${process.pid}_${counter}`;
}

/** Options of {@link reopenThroughFiles}. */
export interface ReopenThroughFilesOptions<S extends VectorStore> {
  /** Prefix of the temporary directories' names, e.g. `zerda-faiss-conformance-`. */
  prefix: string;
  /** The file the store is saved into inside its directory; omitted: the store saves into the directory itself. */
  file?: string;
  /** Saves `store` at `path`. */
  save(store: S, path: string): Promise<void>;
  /** Opens what `save` wrote at `path`. */
  load(path: string): Promise<S>;
}

/**
 * A `reopen` for {@link testVectorStore} of a store that persists to files: every call saves the
 * store into a new temporary directory and loads it back, as a restarted process would. Call it at
 * the top level of a test file: the directories are removed after the file's tests (`afterAll`).
 */
export function reopenThroughFiles<S extends VectorStore>(options: ReopenThroughFilesOptions<S>): (store: VectorStore) => Promise<VectorStore> {
  if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an options object', options);
  checkPrefix(options.prefix, 'options.prefix');
  if (options.file !== undefined) checkPrefix(options.file, 'options.file');
  checkFunction(options.save, 'options.save');
  checkFunction(options.load, 'options.load');
  const directories: TemporaryDirectory[] = [];
  afterAll(async () => {
    await Promise.all(directories.splice(0).map((directory) => directory.remove()));
  });
  return async (store) => {
    const directory = await temporaryDirectory(options.prefix);
    directories.push(directory);
    const path = options.file === undefined ? directory.path : join(directory.path, options.file);
    await options.save(store as S, path);
    return options.load(path);
  };
}
