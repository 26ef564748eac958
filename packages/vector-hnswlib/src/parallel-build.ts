import { closeSync, existsSync, openSync, unlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import hnswlib from 'hnswlib-node';
import type { VectorMetric } from '@zerda/types';

type HnswIndex = InstanceType<typeof hnswlib.HierarchicalNSW>;

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

/** What {@link buildInParallel} needs: the current graph and its settings, the batch, and the label bookkeeping. */
export interface ParallelBatch {
  current: HnswIndex | undefined;
  space: VectorMetric;
  dimensions: number;
  M: number;
  efConstruction: number;
  randomSeed: number;
  /** Capacity of a graph that does not exist yet. */
  initialCapacity: number;
  threads: number;
  ids: string[];
  vectors: Float32Array[];
  /** The label of an id already in the graph. */
  labelOf: (id: string) => number | undefined;
  nextLabel: number;
  /** Marked-deleted slots a new node may take. */
  deletedSlots: number;
}

/** One process warning when a parallel build fails (the batch is then inserted on one thread). */
let warnedParallelFailure = false;

/**
 * Builds the graph of `current` plus a batch on `threads` threads, off the JavaScript thread: the
 * current graph is written to an unnamed temporary file, the native helper inserts the batch into
 * a copy and writes it out, and hnswlib-node reads it back, while searches still use the current
 * graph. Labels, slot reuse and capacity are those one-by-one inserts would give. Resolves
 * `undefined` (and warns once per process) when the helper is not compiled or the build fails:
 * the caller then inserts one by one. Nothing of the caller's state changes here.
 */
export async function buildInParallel(batch: ParallelBatch): Promise<{ index: HnswIndex; labels: Uint32Array; nextLabel: number; deletedSlots: number } | undefined> {
  const addon = parallelBuildAddon();
  if (!addon) return undefined;
  const { current, dimensions, ids } = batch;
  const labels = new Uint32Array(ids.length);
  const replaceDeleted = new Uint8Array(ids.length);
  let nextLabel = batch.nextLabel;
  let reusable = batch.deletedSlots;
  let inserts = 0;
  ids.forEach((id, i) => {
    const existing = batch.labelOf(id);
    if (existing !== undefined) {
      labels[i] = existing;
      return;
    }
    inserts++;
    labels[i] = nextLabel++;
    if (reusable > 0) {
      replaceDeleted[i] = 1;
      reusable--;
    }
  });
  const currentCount = current?.getCurrentCount() ?? 0;
  const currentCapacity = current?.getMaxElements() ?? batch.initialCapacity;
  const expectedCount = currentCount + Math.max(0, inserts - batch.deletedSlots);
  const capacity = expectedCount > currentCapacity ? Math.max(expectedCount, currentCapacity * 2) : currentCapacity;
  const packed = new Float32Array(ids.length * dimensions);
  batch.vectors.forEach((vector, i) => packed.set(vector, i * dimensions));
  try {
    const built = await withTemporaryFiles(addon, 2, async ([input, output]) => {
      const extend = current !== undefined && currentCount > 0;
      if (extend) await current.writeIndex(input!);
      const { space, M, efConstruction, randomSeed, threads } = batch;
      await addon.build({ space, dimensions, M, efConstruction, randomSeed, maxElements: capacity, ...(extend ? { input: input! } : {}), output: output!, vectors: packed, labels, replaceDeleted, threads });
      const index = new hnswlib.HierarchicalNSW(space, dimensions);
      await index.readIndex(output!, true);
      return index;
    });
    if (built.getCurrentCount() !== expectedCount || built.getMaxElements() !== capacity) {
      const message = `the built graph holds ${built.getCurrentCount()} of ${built.getMaxElements()} slots, expected ${expectedCount} of ${capacity}`;
      // Free the refused graph now, not whenever V8 collects its small wrapper.
      built.initIndex(1, batch.M, batch.efConstruction, batch.randomSeed, true);
      throw new Error(message);
    }
    return { index: built, labels, nextLabel, deletedSlots: reusable };
  } catch (error) {
    if (!warnedParallelFailure) {
      warnedParallelFailure = true;
      process.emitWarning(`parallel HNSW build failed, inserting on one thread instead: ${error instanceof Error ? error.message : String(error)}`, { code: 'ZERDA_HNSW_PARALLEL_BUILD' });
    }
    return undefined;
  }
}
