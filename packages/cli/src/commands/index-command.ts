import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { ContextEngine, type DocumentChunk, type Embedder } from '@zerda/context';
import { streamDocuments, type FieldMapping } from '@zerda/loaders';
import { DocumentChunker } from '../chunking.js';
import { createEmbedder, createStore, engineOptions, openEngine, saveEngine } from '../engine-setup.js';
import { CliError, EXIT } from '../errors.js';
import type { CliIo } from '../io.js';
import { createProgress, type Progress } from '../progress.js';
import { newManifest, readManifest, sameSettings, snapshotPath, writeManifest, type FailedEntry, type IndexManifest, type IndexSettings } from '../workspace.js';

/** Options of `zerda index`. */
export interface IndexCommandOptions {
  paths: string[];
  out: string;
  settings: IndexSettings;
  include?: string[];
  exclude?: string[];
  fields?: FieldMapping;
  rebuild: boolean;
  strict: boolean;
  quiet: boolean;
  json: boolean;
}

/** What an index run did. */
export interface IndexSummary {
  mode: 'full' | 'incremental' | 'unchanged';
  files: number;
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: number;
  failed: Array<{ source: string; code: string; message: string }>;
  documents: number;
  chunks: number;
  out: string;
}

const EMBED_BATCH = 32;

async function embedChunks(chunks: DocumentChunk[], embedder: Embedder, progress: Progress): Promise<void> {
  const bar = progress.bar('embeddings', 'chunks', chunks.length);
  for (let start = 0; start < chunks.length; start += EMBED_BATCH) {
    const batch = chunks.slice(start, start + EMBED_BATCH);
    const vectors = await embedder.embed(
      batch.map((chunk) => (chunk.title ? `${chunk.title}\n${chunk.text}` : chunk.text)),
      { kind: 'document' },
    );
    batch.forEach((chunk, index) => {
      chunk.embedding = vectors[index]!;
    });
    bar.update(Math.min(start + EMBED_BATCH, chunks.length));
  }
  bar.stop();
}

/**
 * `zerda index`: loads the paths, chunks, embeds (with `--embedder`) and indexes, then saves the
 * engine snapshot and the manifest. With an existing index built with the same settings, only files
 * whose content hash changed are re-loaded: their old chunks are removed and the new ones added;
 * files that disappeared are removed; a file that fails to load keeps its previous version, and is
 * remembered with its content hash so that it is not read again until it changes (it stays listed
 * as failed).
 */
export async function indexCommand(options: IndexCommandOptions, io: CliIo): Promise<{ summary: IndexSummary; exitCode: number }> {
  const out = resolve(io.cwd, options.out);
  const previous = options.rebuild ? undefined : await readManifest(out);
  const incremental = previous !== undefined && sameSettings(previous.settings, options.settings) && existsSync(snapshotPath(out));
  const root = incremental ? previous.root : io.cwd;
  const inputs = options.paths.map((path) => resolve(io.cwd, path));
  for (const input of inputs) {
    if (!existsSync(input)) throw new CliError(`${relative(io.cwd, input) || input}: no such file or directory`, EXIT.usage);
  }
  const progress = createProgress(io, options.quiet || options.json);
  const summary: IndexSummary = { mode: incremental ? 'incremental' : 'full', files: 0, added: [], updated: [], removed: [], unchanged: 0, failed: [], documents: 0, chunks: 0, out };
  const manifest: IndexManifest = incremental ? { ...previous, inputs: inputs.map((input) => relative(root, input) || '.'), documents: { ...previous.documents } } : newManifest(root, inputs.map((input) => relative(root, input) || '.'), options.settings);

  const chunker = new DocumentChunker(options.settings);
  // The number of files is known after the scan (setTotal); the number of chunks only at the end.
  const files = progress.bar('files', 'files', 0);
  const chunkBar = progress.bar('chunks', 'chunks');
  // Content hashes of the files read, to remember the ones that fail; a file that failed before
  // with the same content is not parsed again (a document that hits a time limit costs it once).
  const hashes = new Map<string, string>();
  const stillFailing = new Map<string, FailedEntry>();
  const stream = streamDocuments(inputs, {
    root,
    ...(options.include?.length ? { include: options.include } : {}),
    // The index directory itself is never indexed, wherever it lies.
    exclude: [...(options.exclude ?? []), ...excludeOut(out, inputs)],
    ...(options.fields ? { fields: options.fields } : {}),
    skip: (file) => {
      hashes.set(file.source, file.contentHash);
      if (!incremental) return false;
      const failedBefore = previous.failed?.[file.source];
      if (failedBefore?.contentHash === file.contentHash) {
        stillFailing.set(file.source, failedBefore);
        return true;
      }
      return previous.documents[file.source]?.contentHash === file.contentHash;
    },
    onProgress: (event) => {
      files.setTotal(event.filesTotal);
      files.update(event.filesDone);
    },
  });
  const chunks: DocumentChunk[] = [];
  const loadedSources = new Map<string, { contentHash: string; format: string; docIds: string[]; chunks: number }>();
  for await (const document of stream) {
    const produced = await chunker.chunk(document);
    chunks.push(...produced);
    chunkBar.update(chunks.length);
    const entry = loadedSources.get(document.source) ?? { contentHash: document.contentHash, format: String(document.metadata.format), docIds: [], chunks: 0 };
    entry.docIds.push(document.docId);
    entry.chunks += produced.length;
    loadedSources.set(document.source, entry);
  }
  files.stop();
  chunkBar.setTotal(chunks.length);
  chunkBar.stop();
  const report = stream.report;
  summary.files = report.files;
  summary.unchanged = report.skipped.length - stillFailing.size;
  summary.failed = [
    ...report.failed.map((failure) => ({ source: failure.source, code: failure.error.code, message: failure.error.message })),
    ...[...stillFailing].map(([source, entry]) => ({ source, code: entry.code, message: `${entry.message} (unchanged since it failed; not read again)` })),
  ];
  // File-level failures with the content they failed on (record failures belong to a loaded file).
  const failedNow: Record<string, FailedEntry> = Object.fromEntries(stillFailing);
  for (const failure of report.failed) {
    const contentHash = hashes.get(failure.source);
    if (contentHash && !loadedSources.has(failure.source)) failedNow[failure.source] = { contentHash, code: failure.error.code, message: failure.error.message };
  }
  const failedChanged = JSON.stringify(failedNow) !== JSON.stringify(previous?.failed ?? {});
  manifest.failed = failedNow;

  // What the folder no longer holds: sources of the previous index that this scan did not see.
  const seen = new Set<string>([...loadedSources.keys(), ...report.skipped.map((skipped) => skipped.source)]);
  const failedFiles = new Set(report.failed.map((failure) => failure.source.replace(/#[^#/]*$/, '')));
  const removedSources = incremental ? Object.keys(previous.documents).filter((source) => !seen.has(source) && !failedFiles.has(source)) : [];
  for (const source of loadedSources.keys()) (incremental && previous.documents[source] ? summary.updated : summary.added).push(source);
  summary.removed = removedSources;

  if (incremental && loadedSources.size === 0 && removedSources.length === 0) {
    summary.mode = 'unchanged';
    progress.stop();
    if (failedChanged) await writeManifest(out, manifest);
    summary.documents = Object.values(manifest.documents).reduce((sum, entry) => sum + entry.docIds.length, 0);
    summary.chunks = Object.values(manifest.documents).reduce((sum, entry) => sum + entry.chunks, 0);
    return { summary, exitCode: options.strict && summary.failed.length > 0 ? EXIT.partial : EXIT.ok };
  }

  const embedder = await createEmbedder(options.settings);
  if (embedder && chunks.length > 0) await embedChunks(chunks, embedder, progress);

  let engine: ContextEngine;
  if (incremental) {
    engine = await openEngine(out, previous);
    const stale = [...summary.updated, ...removedSources].flatMap((source) => previous.documents[source]?.docIds ?? []);
    if (stale.length > 0) await engine.remove(stale);
    if (chunks.length > 0) await engine.add(chunks);
  } else {
    if (chunks.length === 0) {
      progress.stop();
      throw new CliError(`nothing to index: no document could be loaded from ${options.paths.join(', ')}${summary.failed.length ? ` (${summary.failed.length} failed: ${summary.failed[0]!.message})` : ''}`, EXIT.failure);
    }
    engine = new ContextEngine(engineOptions());
    const dimensions = chunks[0]?.embedding?.length;
    const vectorDb = embedder ? await createStore(options.settings.store, dimensions) : undefined;
    await engine.index(chunks, { ...(embedder ? { embedder } : {}), ...(vectorDb ? { vectorDb } : {}) });
  }
  const saving = progress.bar('snapshot', 'steps', 1);
  await saveEngine(engine, out);
  saving.update(1);
  saving.stop();
  progress.stop();

  for (const source of removedSources) delete manifest.documents[source];
  for (const [source, entry] of loadedSources) manifest.documents[source] = entry;
  await writeManifest(out, manifest);
  summary.documents = Object.values(manifest.documents).reduce((sum, entry) => sum + entry.docIds.length, 0);
  summary.chunks = Object.values(manifest.documents).reduce((sum, entry) => sum + entry.chunks, 0);
  return { summary, exitCode: options.strict && summary.failed.length > 0 ? EXIT.partial : EXIT.ok };
}

/** Globs that keep the index directory out of an input that contains it. */
function excludeOut(out: string, inputs: string[]): string[] {
  const globs: string[] = [];
  for (const input of inputs) {
    const inside = relative(input, out);
    if (inside && !inside.startsWith('..') && !isAbsolute(inside)) globs.push(`${inside.split('\\').join('/')}/**`);
  }
  return globs;
}

/** The summary as lines for the terminal. */
export function formatIndexSummary(summary: IndexSummary, cwd: string): string {
  const where = relative(cwd, summary.out) || '.';
  const lines: string[] = [];
  if (summary.mode === 'unchanged') {
    lines.push(`zerda: ${where} is up to date (${summary.documents} documents, ${summary.chunks} chunks; ${summary.unchanged} files unchanged)`);
  } else {
    const changes = summary.mode === 'full' ? `${summary.added.length} files` : `${summary.added.length} added, ${summary.updated.length} updated, ${summary.removed.length} removed, ${summary.unchanged} unchanged`;
    lines.push(`zerda: indexed ${changes} → ${summary.documents} documents, ${summary.chunks} chunks in ${where}`);
  }
  for (const failure of summary.failed) lines.push(`  ✗ ${failure.message} [${failure.code}]`);
  if (summary.failed.length > 0) lines.push(`  ${summary.failed.length} file(s) or record(s) could not be loaded; everything else was indexed`);
  return `${lines.join('\n')}\n`;
}
