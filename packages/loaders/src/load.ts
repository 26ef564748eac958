import { createHash } from 'node:crypto';
import { opendir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { z } from 'zod';
import { ZerdaError, invalidArgument, metadataSchema, parseOrThrow, type Metadata } from '@zerda/types';
import { isKnownEncoding } from './decode.js';
import { messageOf, unreadable, unsupported } from './errors.js';
import { SUPPORTED_EXTENSIONS, extensionOf, formatOfPath, formatOfType, sniffFormat } from './formats.js';
import { sharedParser, type IsolatedParser } from './isolated-parser.js';
import { resolveLimits } from './limits.js';
import { parseDocument, type ParseSettings } from './parse.js';
import type { RecordResult } from './parsers/records.js';
import type { BufferInput, DocumentFormat, FailedLoad, LoadInput, LoadOptions, LoadProgress, LoadReport, LoadedDocument } from './types.js';

const DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024;
const ALWAYS_EXCLUDED = ['**/node_modules/**'];

const globs = z.union([z.string().min(1), z.array(z.string().min(1))]);
const fieldName = z.string().min(1);

const optionsSchema = z.strictObject({
  include: globs.optional(),
  exclude: globs.optional(),
  hidden: z.boolean().optional(),
  root: z.string().min(1).optional(),
  fields: z
    .strictObject({
      text: z.union([fieldName, z.array(fieldName).min(1)]).optional(),
      title: fieldName.optional(),
      id: fieldName.optional(),
      metadata: z.union([z.array(fieldName), z.literal('rest'), z.literal('none')]).optional(),
    })
    .optional(),
  encoding: z.string().refine(isKnownEncoding, { message: 'an encoding TextDecoder knows (utf-8, windows-1256, utf-16le …)' }).optional(),
  maxFileBytes: z.number().int().positive().optional(),
  limits: z
    .strictObject({
      timeMs: z.number().int().positive().optional(),
      memoryMb: z.number().int().min(16).optional(),
      maxInflatedBytes: z.number().int().positive().optional(),
      maxZipEntries: z.number().int().positive().optional(),
      maxPdfStreamBytes: z.number().int().positive().optional(),
      maxHtmlDepth: z.number().int().positive().optional(),
      maxHtmlElements: z.number().int().positive().optional(),
    })
    .optional(),
  isolation: z.enum(['worker', 'none']).optional(),
  metadata: metadataSchema.optional(),
  skip: z.function().optional(),
  onProgress: z.function().optional(),
  signal: z.custom<AbortSignal>((value) => typeof AbortSignal !== 'undefined' && value instanceof AbortSignal, { message: 'an AbortSignal' }).optional(),
});

interface FileTask {
  kind: 'file';
  path: string;
  source: string;
  size: number;
}

interface BufferTask {
  kind: 'buffer';
  input: BufferInput;
  index: number;
  size: number;
}

type Task = FileTask | BufferTask;

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function checkInputs(inputs: unknown): LoadInput[] {
  const list = Array.isArray(inputs) ? inputs : [inputs];
  if (list.length === 0) throw invalidArgument('inputs', 'a path, a { data, type, source } buffer, or a non-empty array of them', inputs);
  list.forEach((input, index) => {
    const field = Array.isArray(inputs) ? `inputs[${index}]` : 'inputs';
    if (typeof input === 'string') {
      if (input.length === 0) throw invalidArgument(field, 'a non-empty path', input);
      return;
    }
    if (input === null || typeof input !== 'object') throw invalidArgument(field, 'a path or a { data, type, source } buffer', input);
    const buffer = input as Record<string, unknown>;
    for (const key of Object.keys(buffer)) if (!['data', 'type', 'source'].includes(key)) throw invalidArgument(`${field}.${key}`, 'one of data, type, source (unknown keys are rejected)', buffer[key]);
    if (!(typeof buffer.data === 'string' || buffer.data instanceof Uint8Array || buffer.data instanceof ArrayBuffer)) throw invalidArgument(`${field}.data`, 'a Uint8Array, an ArrayBuffer or a string', buffer.data);
    if (typeof buffer.type !== 'string' || buffer.type.trim() === '') throw invalidArgument(`${field}.type`, 'a format name, file extension or MIME type', buffer.type);
    if (buffer.source !== undefined && (typeof buffer.source !== 'string' || buffer.source === '')) throw invalidArgument(`${field}.source`, 'a non-empty string', buffer.source);
  });
  return list as LoadInput[];
}

function bytesOf(data: BufferInput['data']): Uint8Array {
  if (typeof data === 'string') return new TextEncoder().encode(data);
  return data instanceof Uint8Array ? data : new Uint8Array(data);
}

/**
 * A stream of loaded documents (`for await (const document of stream)`), with the report filled in
 * as it goes. Files are scanned first (paths and sizes only, for progress totals), then read and
 * parsed one at a time, so memory holds one file's bytes and its documents, never the whole folder.
 */
export class DocumentStream implements AsyncIterable<LoadedDocument> {
  /** Filled while the stream is consumed; complete when the iteration ends. */
  readonly report: LoadReport = { files: 0, documents: 0, failed: [], skipped: [] };
  private readonly inputs: LoadInput[];
  private readonly options: LoadOptions;
  private readonly settings: ParseSettings;
  private parser: IsolatedParser | undefined;
  private started = false;

  constructor(inputs: LoadInput[], options: LoadOptions) {
    this.inputs = inputs;
    this.options = options;
    this.settings = { limits: resolveLimits(options.limits), ...(options.fields ? { fields: options.fields } : {}), ...(options.encoding ? { encoding: options.encoding } : {}) };
  }

  async *[Symbol.asyncIterator](): AsyncIterator<LoadedDocument> {
    if (this.started) throw new ZerdaError('ZERDA_UNSUPPORTED', { operation: 'iterating a DocumentStream twice', component: '@zerda/loaders', reason: 'call streamDocuments again' });
    this.started = true;
    const options = this.options;
    const root = resolve(options.root ?? process.cwd());
    const tasks: Task[] = [];
    for (const [index, input] of this.inputs.entries()) {
      options.signal?.throwIfAborted();
      if (typeof input === 'string') await this.scan(input, root, tasks);
      else tasks.push({ kind: 'buffer', input, index, size: bytesOf(input.data).byteLength });
    }
    const progress: LoadProgress = { phase: 'scan', filesDone: 0, filesTotal: tasks.length, bytesDone: 0, bytesTotal: tasks.reduce((sum, task) => sum + task.size, 0), documents: 0, failed: 0, skipped: 0 };
    const emit = (): void => {
      progress.documents = this.report.documents;
      progress.failed = this.report.failed.length;
      progress.skipped = this.report.skipped.length;
      options.onProgress?.({ ...progress });
    };
    emit();
    progress.phase = 'load';
    const seen = new Set<string>();
    if (options.isolation !== 'none') this.parser = sharedParser(this.settings.limits.memoryMb);
    yield* this.loadAll(tasks, progress, emit, seen);
  }

  private async *loadAll(tasks: Task[], progress: LoadProgress, emit: () => void, seen: Set<string>): AsyncGenerator<LoadedDocument> {
    const options = this.options;
    for (const task of tasks) {
      options.signal?.throwIfAborted();
      this.report.files++;
      const documents = await this.loadTask(task);
      for (const document of documents) {
        // The same file named twice (a path and its folder) loads once.
        if (seen.has(document.docId)) continue;
        seen.add(document.docId);
        this.report.documents++;
        yield document;
      }
      progress.filesDone++;
      progress.bytesDone += task.size;
      progress.source = task.kind === 'file' ? task.source : (task.input.source ?? `buffer ${task.index}`);
      emit();
    }
  }

  private sourceOf(path: string, root: string): string {
    const relativePath = relative(root, path);
    return toPosix(relativePath === '' || relativePath.startsWith('..') || isAbsolute(relativePath) ? path : relativePath);
  }

  private fail(source: string, error: unknown, format = 'unknown'): void {
    const zerdaError = ZerdaError.isInstance(error) ? error : unreadable(source, format, 'io', messageOf(error), error);
    this.report.failed.push({ source, error: zerdaError } satisfies FailedLoad);
  }

  private async scan(input: string, root: string, tasks: Task[]): Promise<void> {
    const path = resolve(input);
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      this.fail(this.sourceOf(path, root), unreadable(this.sourceOf(path, root), formatOfPath(path) ?? 'unknown', 'io', (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : messageOf(error), error));
      return;
    }
    if (info.isFile()) {
      tasks.push({ kind: 'file', path, source: this.sourceOf(path, root), size: info.size });
      return;
    }
    if (!info.isDirectory()) {
      this.fail(this.sourceOf(path, root), unreadable(this.sourceOf(path, root), 'unknown', 'io', 'it is neither a file nor a directory'));
      return;
    }
    const options = this.options;
    const matchOptions = { dot: options.hidden ?? false };
    const include = options.include === undefined ? undefined : picomatch(options.include, matchOptions);
    const exclude = picomatch([...ALWAYS_EXCLUDED, ...(options.exclude === undefined ? [] : Array.isArray(options.exclude) ? options.exclude : [options.exclude])], { dot: true });

    const walk = async (directory: string): Promise<void> => {
      let handle;
      try {
        handle = await opendir(directory);
      } catch (error) {
        this.fail(this.sourceOf(directory, root), unreadable(this.sourceOf(directory, root), 'directory', 'io', messageOf(error), error));
        return;
      }
      const entries: Array<{ name: string; directory: boolean; file: boolean }> = [];
      for await (const entry of handle) entries.push({ name: entry.name, directory: entry.isDirectory(), file: entry.isFile() });
      // Sorted, so that documents come in the same order on every run and every platform.
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        if (!options.hidden && entry.name.startsWith('.')) continue;
        const full = join(directory, entry.name);
        const inside = toPosix(relative(path, full));
        if (entry.directory) {
          if (!exclude(`${inside}/`) && !exclude(`${inside}/x`)) await walk(full);
          continue;
        }
        // Symbolic links, sockets … are not followed: a loop or a device can never stall the walk.
        if (!entry.file) continue;
        if (exclude(inside) || (include && !include(inside))) continue;
        let size = 0;
        try {
          size = (await stat(full)).size;
        } catch (error) {
          this.fail(this.sourceOf(full, root), error);
          continue;
        }
        tasks.push({ kind: 'file', path: full, source: this.sourceOf(full, root), size });
      }
    };
    await walk(path);
  }

  private async loadTask(task: Task): Promise<LoadedDocument[]> {
    const options = this.options;
    const source = task.kind === 'file' ? task.source : (task.input.source ?? '');
    const shown = source || (task.kind === 'buffer' ? `buffer ${task.index}` : '');
    const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    let format: DocumentFormat | undefined = task.kind === 'file' ? formatOfPath(task.path) : formatOfType(task.input.type);
    const label = task.kind === 'file' ? extensionOf(task.path) || 'no extension' : task.input.type;
    if (task.size > maxBytes) {
      this.fail(shown, unreadable(shown, format ?? label, 'too_large', `it has ${task.size} bytes, more than maxFileBytes (${maxBytes})`));
      return [];
    }
    let bytes: Uint8Array;
    try {
      bytes = task.kind === 'file' ? await readFile(task.path) : bytesOf(task.input.data);
    } catch (error) {
      this.fail(source, unreadable(source, format ?? label, 'io', messageOf(error), error));
      return [];
    }
    const contentHash = sha256(bytes);
    const name = source || `buffer-${contentHash.slice(0, 16)}`;
    if (!format && task.kind === 'file' && extensionOf(task.path) === '') format = sniffFormat(bytes);
    if (!format) {
      this.fail(name, unsupported(name, task.kind === 'file' ? (extensionOf(task.path) ? `.${extensionOf(task.path)}` : undefined) : task.input.type, SUPPORTED_EXTENSIONS));
      return [];
    }
    if (bytes.byteLength === 0) {
      this.fail(name, unreadable(name, format, 'empty', 'it is empty (0 bytes)'));
      return [];
    }
    const docId = name;
    if (options.skip) {
      let skip: boolean;
      try {
        skip = Boolean(await options.skip({ source: name, docId, format, contentHash, size: bytes.byteLength }));
      } catch (error) {
        throw new ZerdaError('ZERDA_INVALID_ARGUMENT', { field: 'options.skip', expected: 'a function that does not throw', received: messageOf(error) }, { cause: error });
      }
      if (skip) {
        this.report.skipped.push({ source: name, docId, contentHash });
        return [];
      }
    }
    let parsed: RecordResult;
    try {
      parsed = this.parser ? await this.parser.parse(format, bytes, name, this.settings) : await parseDocument(format, bytes, name, this.settings);
    } catch (error) {
      this.fail(name, error, format);
      return [];
    }
    for (const failure of parsed.failures) this.report.failed.push({ source: `${name}#${failure.record}`, error: failure.error });
    const documents: LoadedDocument[] = [];
    const isRecordFormat = format === 'csv' || format === 'tsv' || format === 'json' || format === 'jsonl';
    for (const document of parsed.documents) {
      if (document.text.trim() === '') {
        this.fail(name, unreadable(name, format, 'empty', 'it holds no text'));
        continue;
      }
      const metadata: Metadata = { ...(options.metadata ?? {}), ...document.metadata, format };
      documents.push({
        text: document.text,
        docId: isRecordFormat ? `${docId}#${document.recordId}` : docId,
        source: name,
        ...(document.title ? { title: document.title } : {}),
        metadata,
        contentHash,
      });
    }
    return documents;
  }
}

/**
 * Streams documents from paths (files, or directories searched recursively with `include` /
 * `exclude` globs) and `{ data, type, source }` buffers: see {@link DocumentStream}. Options are
 * validated here; everything about a file (unreadable, encrypted, empty, unsupported) is reported
 * in `stream.report.failed` and never stops the stream.
 */
export function streamDocuments(inputs: LoadInput | LoadInput[], options: LoadOptions = {}): DocumentStream {
  const list = checkInputs(inputs);
  parseOrThrow(optionsSchema, options, 'options');
  return new DocumentStream(list, options);
}

/**
 * Loads every document of `inputs` (paths, directories, buffers) into memory and returns them with
 * the report: `{ documents, report }`. Each document is `{ text, docId, source, title?, metadata,
 * contentHash }`, ready for `engine.indexDocuments` or a chunker. A bad file becomes a
 * `report.failed` entry with a `ZerdaError` (`code`, `details.file`, `details.reason`); everything
 * else loads. Use {@link streamDocuments} for large folders.
 */
export async function loadDocuments(inputs: LoadInput | LoadInput[], options: LoadOptions = {}): Promise<{ documents: LoadedDocument[]; report: LoadReport }> {
  const stream = streamDocuments(inputs, options);
  const documents: LoadedDocument[] = [];
  for await (const document of stream) documents.push(document);
  return { documents, report: stream.report };
}
