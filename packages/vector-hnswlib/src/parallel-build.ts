import { closeSync, existsSync, openSync, unlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { VectorMetric } from '@zerda/types';

/** What the native helper needs to build or extend one graph (see native/parallel-build.cc). */
export interface ParallelBuildRequest {
  /** hnswlib-node's space name: the store's metric (`cosine` normalises, as hnswlib-node does). */
  space: VectorMetric;
  dimensions: number;
  M: number;
  efConstruction: number;
  randomSeed: number;
  /** Capacity of the resulting graph (at least the current count plus the new nodes). */
  maxElements: number;
  /** A graph written by hnswlib-node's `writeIndex` to extend; omitted: start from an empty graph. */
  input?: string;
  /** Where the result is written (hnswlib's `saveIndex`), for hnswlib-node's `readIndex`. */
  output: string;
  /** The vectors, rows back to back (`labels.length * dimensions` values). */
  vectors: Float32Array;
  /** The graph label of each row: an existing label updates that node, a new one inserts. */
  labels: Uint32Array;
  /** 1 where the row may take the slot of a deleted node (hnswlib's `replace_deleted`). */
  replaceDeleted?: Uint8Array;
  /** Threads calling `addPoint` (the calling pool thread is one of them). */
  threads: number;
}

/** The compiled addon's interface. */
export interface ParallelBuildAddon {
  /** Builds off the JavaScript thread; resolves when the graph is saved to `output`. */
  build(request: ParallelBuildRequest): Promise<{ count: number; maxElements: number; threads: number }>;
  /** A new file without a name (Linux `O_TMPFILE`) in `directory`; throws where unsupported. */
  openUnnamedFile(directory: string): number;
}

/** Relative to this module: src/ under vitest, dist/ when built; node-gyp writes build/Release/. */
const ADDON_PATH = '../build/Release/zerda_hnsw_parallel.node';
let cachedAddon: ParallelBuildAddon | null | undefined;

/**
 * Loads a compiled addon, or returns `undefined` when it is missing or does not load (another
 * platform, another Node ABI, no compiler at install time): the store then inserts on one thread.
 */
export function loadAddon(specifier: string): ParallelBuildAddon | undefined {
  try {
    const addon = createRequire(import.meta.url)(specifier) as Partial<ParallelBuildAddon>;
    return typeof addon.build === 'function' && typeof addon.openUnnamedFile === 'function' ? (addon as ParallelBuildAddon) : undefined;
  } catch {
    return undefined;
  }
}

/** The package's addon (`build/Release/zerda_hnsw_parallel.node`), loaded once; `undefined` when not built. */
export function parallelBuildAddon(): ParallelBuildAddon | undefined {
  if (cachedAddon === undefined) cachedAddon = loadAddon(ADDON_PATH) ?? null;
  return cachedAddon ?? undefined;
}

/**
 * Whether this installation can build HNSW graphs on several threads (the native helper compiled
 * on install or by the package's `build`). Without it, every insert runs on one thread as before.
 */
export function isParallelBuildAvailable(): boolean {
  return parallelBuildAddon() !== undefined;
}

/**
 * Runs `use` with `count` temporary file paths that hnswlib (hnswlib-node's and the addon's) can open
 * by name, and removes them afterwards — also, where the system allows, when the process is killed:
 *
 * - Linux: an unnamed file (`O_TMPFILE`) in `os.tmpdir()`, opened through `/proc/self/fd/N`. It never
 *   has a name, so nothing is left behind whatever ends the process; closing the descriptor frees it.
 * - Linux where the file system refuses `O_TMPFILE`: a file created exclusively (mode 0600) under a
 *   random name in `os.tmpdir()` and unlinked at once, then used through `/proc/self/fd/N` as well.
 * - Elsewhere: named files in a private `mkdtemp` directory removed in `finally` (a SIGKILL during
 *   the build leaves that directory behind).
 */
export async function withTemporaryFiles<T>(addon: ParallelBuildAddon, count: number, use: (paths: string[]) => Promise<T>): Promise<T> {
  const descriptors: number[] = [];
  let directory: string | undefined;
  const procFd = process.platform === 'linux' && existsSync('/proc/self/fd');
  try {
    const paths: string[] = [];
    for (let i = 0; i < count; i++) {
      if (procFd) {
        let descriptor: number;
        try {
          descriptor = addon.openUnnamedFile(tmpdir());
        } catch {
          const path = join(tmpdir(), `zerda-hnsw-build-${process.pid}-${randomBytes(8).toString('hex')}.tmp`);
          descriptor = openSync(path, 'wx+', 0o600);
          try {
            unlinkSync(path);
          } catch (error) {
            closeSync(descriptor);
            throw error;
          }
        }
        descriptors.push(descriptor);
        paths.push(`/proc/self/fd/${descriptor}`);
      } else {
        directory ??= await mkdtemp(join(tmpdir(), 'zerda-hnsw-build-'));
        paths.push(join(directory, `graph-${i}.hnsw`));
      }
    }
    return await use(paths);
  } finally {
    for (const descriptor of descriptors) closeSync(descriptor);
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  }
}
