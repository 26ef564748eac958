import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import hnswlib from 'hnswlib-node';
import { ZerdaError, createError, isVectorMetric, type VectorMetric } from '@zerda/types';
import { MemoryVectorStore } from '@zerda/vector-memory';
import type { HnswSnapshotSettings } from './hnswlib-snapshot.js';

type HnswIndex = InstanceType<typeof hnswlib.HierarchicalNSW>;

/**
 * Directory layout of a saved HNSW store:
 *   manifest.json            — the commit point: settings, counts and the three files below
 *   index-<generation>.hnsw  — hnswlib's graph (absent while the store has no dimension yet)
 *   chunks-<generation>.zvm  — chunks and exact vectors (the MemoryVectorStore file format)
 *   labels-<generation>.json — chunk id ↔ graph label
 * This is format 1, written by versions before 0.2 and still read here; saves now write format 2
 * (a snapshot directory, see hnswlib-snapshot.ts).
 */
export const MANIFEST_FILE = 'manifest.json';
export const DIRECTORY_FORMAT = 'zerda-vector-hnswlib';
export const LEGACY_FORMAT_VERSION = 1;
const GENERATION_FILE = /^(index|chunks|labels)-([a-z0-9-]+)\.(hnsw|zvm|json)$/;

export interface FileEntry {
  name: string;
  bytes: number;
  sha256: string;
}

/** Everything a format-1 `manifest.json` records: the settings of format 2's `hnsw.json`, plus the file list. */
export interface HnswManifest extends HnswSnapshotSettings {
  format: typeof DIRECTORY_FORMAT;
  formatVersion: typeof LEGACY_FORMAT_VERSION;
  /** hnswlib space name the graph was built with (equals `metric`). */
  space: VectorMetric;
  files: { index: FileEntry | null; chunks: FileEntry; labels: FileEntry };
  savedAt: string;
}

export interface LabelTable {
  ids: string[];
  labels: number[];
}


async function fileEntry(directory: string, name: string): Promise<FileEntry> {
  const path = join(directory, name);
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const piece of createReadStream(path)) {
    hash.update(piece as Buffer);
    bytes += (piece as Buffer).length;
  }
  return { name, bytes, sha256: hash.digest('hex') };
}


function ioError(operation: string, path: string, error: unknown): ZerdaError {
  if (ZerdaError.isInstance(error)) return error;
  return createError('ZERDA_STORE_IO', { operation, path, reason: error instanceof Error ? error.message : String(error) }, error);
}

/** True when `directory` holds a manifest (a saved store, possibly corrupt). */
export async function hasManifest(directory: string): Promise<boolean> {
  try {
    return (await stat(join(directory, MANIFEST_FILE))).isFile();
  } catch {
    return false;
  }
}

/**
 * Removes the files of a format-1 save (manifest.json, its generations, its temporaries and the
 * temporaries of its chunk files) once a format-2 save committed in the same directory.
 */
export async function removeLegacyFiles(directory: string): Promise<void> {
  for (const name of await readdir(directory).catch(() => [] as string[])) {
    const legacy =
      name === MANIFEST_FILE ||
      GENERATION_FILE.test(name) ||
      (name.startsWith(`.${MANIFEST_FILE}.`) && name.endsWith('.tmp')) ||
      (/^\.chunks-[a-z0-9-]+\.zvm\./.test(name) && name.endsWith('.tmp'));
    if (legacy) await unlink(join(directory, name)).catch(() => undefined);
  }
}

function isCount(value: unknown, minimum = 0): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= minimum;
}

function checkEntry(value: unknown): value is FileEntry {
  const entry = value as FileEntry | null;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    typeof entry.name === 'string' &&
    GENERATION_FILE.test(entry.name) &&
    isCount(entry.bytes) &&
    typeof entry.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(entry.sha256)
  );
}

/** Reads and cross-checks a saved directory; every inconsistency is a `ZERDA_STORE_CORRUPT` naming the path. */
export async function readDirectory(
  directory: string,
  options: { verify: boolean; expectMetric: VectorMetric | undefined; expectDimensions: number | undefined },
): Promise<{ manifest: HnswManifest; exact: MemoryVectorStore; index: HnswIndex | undefined; labels: LabelTable }> {
  const manifestPath = join(directory, MANIFEST_FILE);
  const corrupt = (path: string, reason: string) => createError('ZERDA_STORE_CORRUPT', { path, reason });
  let text: string;
  try {
    text = await readFile(manifestPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw corrupt(directory, `there is no ${MANIFEST_FILE} (not a saved HNSW store)`);
    throw ioError('load', manifestPath, error);
  }
  let manifest: HnswManifest;
  try {
    manifest = JSON.parse(text) as HnswManifest;
  } catch {
    throw corrupt(manifestPath, 'it is not valid JSON');
  }
  if (manifest === null || typeof manifest !== 'object' || manifest.format !== DIRECTORY_FORMAT) throw corrupt(manifestPath, `it does not name the format "${DIRECTORY_FORMAT}"`);
  if (manifest.formatVersion !== LEGACY_FORMAT_VERSION) {
    throw corrupt(manifestPath, `format version ${JSON.stringify(manifest.formatVersion)} is not supported (expected ${LEGACY_FORMAT_VERSION})`);
  }
  if (!isVectorMetric(manifest.metric) || manifest.space !== manifest.metric) throw corrupt(manifestPath, `invalid metric/space ${JSON.stringify(manifest.metric)}/${JSON.stringify(manifest.space)}`);
  if (!(manifest.dimensions === null || isCount(manifest.dimensions, 1))) throw corrupt(manifestPath, `invalid dimensions ${JSON.stringify(manifest.dimensions)}`);
  for (const field of ['count', 'nextLabel', 'deletedSlots', 'randomSeed'] as const) {
    if (!isCount(manifest[field])) throw corrupt(manifestPath, `invalid ${field} ${JSON.stringify(manifest[field])}`);
  }
  for (const field of ['M', 'efConstruction', 'efSearch', 'maxElements'] as const) {
    if (!isCount(manifest[field], 1)) throw corrupt(manifestPath, `invalid ${field} ${JSON.stringify(manifest[field])}`);
  }
  const files = manifest.files;
  if (!files || !checkEntry(files.chunks) || !checkEntry(files.labels) || !(files.index === null || checkEntry(files.index))) {
    throw corrupt(manifestPath, 'its file list is missing or malformed');
  }
  if ((files.index === null) !== (manifest.dimensions === null)) throw corrupt(manifestPath, 'it lists a graph without dimensions, or dimensions without a graph');
  if (options.expectMetric !== undefined && options.expectMetric !== manifest.metric) {
    throw corrupt(directory, `it was saved with metric "${manifest.metric}", but metric "${options.expectMetric}" was requested`);
  }
  if (options.expectDimensions !== undefined && options.expectDimensions !== manifest.dimensions) {
    throw corrupt(directory, `it holds ${manifest.dimensions ?? 'no'}-dimensional vectors, but dimensions ${options.expectDimensions} were requested`);
  }

  for (const entry of [files.index, files.chunks, files.labels]) {
    if (!entry) continue;
    const path = join(directory, entry.name);
    let size: number;
    try {
      size = (await stat(path)).size;
    } catch {
      throw corrupt(path, 'the file named by the manifest is missing');
    }
    if (size !== entry.bytes) throw corrupt(path, `it has ${size} bytes, the manifest recorded ${entry.bytes} (truncated or overwritten)`);
    if (options.verify) {
      const actual = await fileEntry(directory, entry.name);
      if (actual.sha256 !== entry.sha256) throw corrupt(path, 'its SHA-256 checksum does not match the manifest (the file is corrupt)');
    }
  }

  const chunksPath = join(directory, files.chunks.name);
  const exact = await MemoryVectorStore.load(chunksPath);
  const count = await exact.count();
  if (exact.metric !== manifest.metric) throw corrupt(chunksPath, `it holds metric "${exact.metric}", the manifest says "${manifest.metric}"`);
  if (count !== manifest.count) throw corrupt(chunksPath, `it holds ${count} chunks, the manifest says ${manifest.count}`);
  if (count > 0 && exact.dimensions !== manifest.dimensions) throw corrupt(chunksPath, `it holds ${exact.dimensions}-dimensional vectors, the manifest says ${manifest.dimensions}`);

  const labelsPath = join(directory, files.labels.name);
  let labels: LabelTable;
  try {
    labels = JSON.parse(await readFile(labelsPath, 'utf8')) as LabelTable;
  } catch (error) {
    throw error instanceof SyntaxError ? corrupt(labelsPath, 'it is not valid JSON') : ioError('load', labelsPath, error);
  }
  if (!labels || !Array.isArray(labels.ids) || !Array.isArray(labels.labels) || labels.ids.length !== labels.labels.length) {
    throw corrupt(labelsPath, 'it must hold two arrays of equal length, ids and labels');
  }
  if (labels.ids.length !== count) throw corrupt(labelsPath, `it maps ${labels.ids.length} ids, the store holds ${count} chunks`);
  const known = new Set(exact.matchingIds());
  const seenLabels = new Set<number>();
  for (let i = 0; i < labels.ids.length; i++) {
    const id = labels.ids[i]!;
    const label = labels.labels[i]!;
    if (!known.has(id)) throw corrupt(labelsPath, `it maps id ${JSON.stringify(id)}, which is not in the chunk store`);
    if (!isCount(label) || label >= manifest.nextLabel || seenLabels.has(label)) throw corrupt(labelsPath, `label ${JSON.stringify(label)} of id ${JSON.stringify(id)} is invalid or repeated`);
    known.delete(id);
    seenLabels.add(label);
  }

  let index: HnswIndex | undefined;
  if (files.index) {
    const indexPath = join(directory, files.index.name);
    index = new hnswlib.HierarchicalNSW(manifest.metric, manifest.dimensions!);
    try {
      await index.readIndex(indexPath, true);
    } catch (error) {
      throw corrupt(indexPath, `hnswlib cannot read it (${error instanceof Error ? error.message : String(error)})`);
    }
    if (index.getNumDimensions() !== manifest.dimensions) throw corrupt(indexPath, `the graph has ${index.getNumDimensions()} dimensions, the manifest says ${manifest.dimensions}`);
    const graphLabels = index.getIdsList();
    if (graphLabels.length !== count + manifest.deletedSlots) {
      throw corrupt(indexPath, `the graph holds ${graphLabels.length} labels, expected ${count} live + ${manifest.deletedSlots} deleted`);
    }
    const inGraph = new Set(graphLabels);
    for (const label of seenLabels) if (!inGraph.has(label)) throw corrupt(indexPath, `label ${label} is missing from the graph`);
  }
  return { manifest, exact, index, labels };
}
