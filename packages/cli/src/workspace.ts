import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CliError, EXIT } from './errors.js';

/**
 * The index directory `zerda index` writes (`.zerda` by default): the engine snapshot
 * (`snapshot/`, written by `engine.save`) and the CLI's manifest (`zerda-index.json`): how the
 * index was built, and per source file its content hash and the document ids it produced, so that
 * a re-run re-indexes only what changed.
 */

export const MANIFEST_FILE = 'zerda-index.json';
export const SNAPSHOT_DIRECTORY = 'snapshot';
const FORMAT = 'zerda-cli-index';
const VERSION = 1;

/** Where vectors live. `memory` and `hnsw` are saved inside the snapshot; the others are external. */
export type StoreSpec = { kind: 'memory' } | { kind: 'hnsw' } | { kind: 'lancedb'; uri: string } | { kind: 'pgvector'; url: string; collection: string };

/** The settings an index was built with; a re-run with different ones rebuilds everything. */
export interface IndexSettings {
  chunker: 'auto' | 'recursive' | 'structure' | 'arabic';
  size: number;
  overlap: number;
  embedder?: string;
  models?: string;
  store: StoreSpec;
}

/** One source file in the index. */
export interface ManifestEntry {
  contentHash: string;
  format: string;
  docIds: string[];
  chunks: number;
}

/** The manifest of an index directory. */
export interface IndexManifest {
  format: typeof FORMAT;
  version: number;
  createdAt: string;
  updatedAt: string;
  /** Sources and docIds are paths relative to this directory (absolute). */
  root: string;
  inputs: string[];
  settings: IndexSettings;
  documents: Record<string, ManifestEntry>;
  /** Files that could not be loaded, by the content hash they failed with: not read again until they change. */
  failed?: Record<string, FailedEntry>;
}

/** A file that could not be loaded, remembered so that it is not parsed again while unchanged. */
export interface FailedEntry {
  contentHash: string;
  code: string;
  message: string;
}

export function manifestPath(directory: string): string {
  return join(directory, MANIFEST_FILE);
}

export function snapshotPath(directory: string): string {
  return join(directory, SNAPSHOT_DIRECTORY);
}

/** Reads the manifest, or undefined when the directory holds no index yet. */
export async function readManifest(directory: string): Promise<IndexManifest | undefined> {
  const path = manifestPath(directory);
  if (!existsSync(path)) return undefined;
  let manifest: IndexManifest;
  try {
    manifest = JSON.parse(await readFile(path, 'utf8')) as IndexManifest;
  } catch (error) {
    throw new CliError(`${path} is not a readable zerda index manifest (${(error as Error).message}); run zerda index --rebuild`, EXIT.noIndex, { cause: error });
  }
  if (manifest.format !== FORMAT || typeof manifest.documents !== 'object' || !manifest.settings) {
    throw new CliError(`${path} is not a zerda index manifest; run zerda index --rebuild`, EXIT.noIndex);
  }
  if (manifest.version > VERSION) {
    throw new CliError(`${path} was written by a newer @zerda/cli (manifest version ${manifest.version}, this one reads ${VERSION}); update @zerda/cli`, EXIT.noIndex);
  }
  return manifest;
}

/** Reads the manifest or fails with "no index" (exit code 3) and how to make one. */
export async function requireManifest(directory: string): Promise<IndexManifest> {
  const manifest = await readManifest(directory);
  if (!manifest || !existsSync(snapshotPath(directory))) {
    throw new CliError(`no zerda index in ${directory} (run: zerda index <paths…> --out ${directory})`, EXIT.noIndex);
  }
  return manifest;
}

/** A new manifest for `settings`. */
export function newManifest(root: string, inputs: string[], settings: IndexSettings): IndexManifest {
  const now = new Date().toISOString();
  return { format: FORMAT, version: VERSION, createdAt: now, updatedAt: now, root, inputs, settings, documents: {} };
}

/**
 * Writes a file atomically: a temporary sibling, flushed, then renamed over the target (and the
 * directory flushed), so a crash leaves the old file or the new one, never a torn one.
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  try {
    const directory = await open(dirname(path), 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  } catch {
    // Some platforms cannot open a directory for syncing; the rename is still atomic there.
  }
}

/** Writes the manifest (after the snapshot: a crash in between only makes the next run redo the same changes). */
export async function writeManifest(directory: string, manifest: IndexManifest): Promise<void> {
  manifest.updatedAt = new Date().toISOString();
  await writeFileAtomic(manifestPath(directory), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** True when two settings build the same index. */
export function sameSettings(a: IndexSettings, b: IndexSettings): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
