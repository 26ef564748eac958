import * as z from 'zod';
import type { ConversationHistoryJSON } from '@zerda/context-core';
import {
  createError,
  invalidArgument,
  parseOrThrow,
  readSnapshotJson,
  writeSnapshotJson,
  ZerdaError,
  type ContextEngineConfig,
  type ContextEngineConfigInput,
  type Retriever,
  type SnapshotReader,
  type SnapshotWriter,
  type SourceQualityMap,
  type VectorStoreIdentity,
} from '@zerda/types';
import type { ContextEngineOptions, OpenOptions } from './options.js';

/**
 * Engine snapshots (`engine.save(dir)` / `ContextEngine.open(dir)`): the engine's own record
 * (`engine.json`) and how it is checked. The files of the retrievers and stores are theirs
 * (`retriever/…`); the directory protocol — generations, `CURRENT`, fsync, checksums, lock — is
 * `@zerda/persistence`'s, loaded only when a snapshot is saved or opened (Node only).
 */
export const ENGINE_SNAPSHOT_FORMAT = 'zerda-engine-snapshot';
export const ENGINE_SNAPSHOT_VERSION = 1;

/** Options of `engine.save(directory, options)`. */
export interface SaveOptions {
  /**
   * Include the engine's conversation history (default false: a snapshot is the corpus and its
   * settings; conversations belong to their users).
   */
  history?: boolean;
}

/** What `engine.save` wrote. */
export interface SavedSnapshot {
  /** The snapshot directory. */
  directory: string;
  /** The generation directory inside it that `CURRENT` now names. */
  generation: string;
  /** Bytes on disk of every file of the generation. */
  bytes: number;
  /** Files written (the manifest included). */
  files: number;
  /** Chunks in the snapshot and the engine's corpus generation. */
  chunks: number;
  corpusGeneration: number;
}

/** The strategies whose code a snapshot cannot hold: recorded by name, and required again on open. */
export const STRATEGY_OPTIONS = ['queryAnalyzer', 'chunkFilter', 'ranker', 'composer', 'guard', 'budgetAllocator', 'lengthCounter'] as const;
type StrategyOption = (typeof STRATEGY_OPTIONS)[number];

/** How the engine built its retriever in `index()` (so that `open` builds the same one). */
export interface BuiltRetrieverRecord {
  keywordSearch: 'memory' | 'store';
  vector: null | {
    source: 'embedder' | 'vectorDb' | 'adapter';
    addToVectorDb: boolean;
    /** The store's identity (null for the default in-memory store) and whether its data is in the snapshot. */
    store: VectorStoreIdentity | null;
    inSnapshot: boolean;
    /** The embedder's model id (its dimension is checked by the vector retriever's own record). */
    embedder: string | null;
  };
}

/** Everything `engine.json` records. */
export interface EngineRecord {
  format: 'zerda.engine';
  version: 1;
  config: ContextEngineConfig;
  sourceQualityMap: SourceQualityMap;
  corpusGeneration: number;
  corpusSize: number;
  /** A template name, or the name of the custom template function. */
  template: { name: string } | { custom: string };
  /** Strategies that were custom when the snapshot was saved, with their class or function names. */
  customStrategies: Partial<Record<StrategyOption, string>>;
  retriever: { kind: 'none' } | ({ kind: 'built' } & BuiltRetrieverRecord) | { kind: 'injected'; name: string; inSnapshot: boolean };
  history: ConversationHistoryJSON | null;
}

export const saveOptionsSchema = z.strictObject({ history: z.boolean().optional() }).optional();

export const openOptionsSchema = z
  .strictObject({
    config: z.record(z.string(), z.unknown()).optional(),
    queryAnalyzer: z.unknown().optional(),
    retriever: z.unknown().optional(),
    chunkFilter: z.unknown().optional(),
    ranker: z.unknown().optional(),
    composer: z.unknown().optional(),
    guard: z.unknown().optional(),
    budgetAllocator: z.unknown().optional(),
    lengthCounter: z.unknown().optional(),
    logger: z.unknown().optional(),
    embedder: z.unknown().optional(),
    template: z.unknown().optional(),
    vectorDb: z.unknown().optional(),
    vectorStoreAdapter: z.unknown().optional(),
    verify: z.boolean().optional(),
  })
  .optional();

/** The name a strategy is recorded by: its class name, or a function's name. */
function nameOf(value: unknown): string {
  if (typeof value === 'function') return value.name || 'anonymous function';
  const constructorName = (value as { constructor?: { name?: string } } | null)?.constructor?.name;
  return constructorName && constructorName !== 'Object' ? constructorName : 'object';
}

/** The custom strategies among constructor options, by name. */
export function customStrategyNames(options: ContextEngineOptions): Partial<Record<StrategyOption, string>> {
  const names: Partial<Record<StrategyOption, string>> = {};
  for (const key of STRATEGY_OPTIONS) if (options[key] !== undefined) names[key] = nameOf(options[key]);
  return names;
}

export function templateRecord(template: ContextEngineOptions['template'] | string): EngineRecord['template'] {
  return typeof template === 'function' ? { custom: nameOf(template) } : { name: template ?? 'default' };
}

/** Writes `engine.json`. */
export async function writeEngineRecord(writer: SnapshotWriter, record: EngineRecord): Promise<void> {
  await writeSnapshotJson(writer, 'engine.json', record);
}

/** Reads and checks `engine.json` (its shape; the config is validated again when the engine is built). */
export async function readEngineRecord(reader: SnapshotReader): Promise<EngineRecord> {
  const record = (await readSnapshotJson(reader, 'engine.json')) as unknown as EngineRecord;
  const fail = (reason: string) => reader.corrupt('engine.json', 'consistency', reason);
  if (record.format !== 'zerda.engine') throw reader.corrupt('engine.json', 'format', `expected format "zerda.engine", got ${JSON.stringify(record.format)}`);
  if (record.version !== 1) throw reader.corrupt('engine.json', 'version', `engine record version ${JSON.stringify(record.version)} is not supported (this version reads 1)`);
  if (record.config === null || typeof record.config !== 'object') throw fail('config is missing');
  for (const field of ['corpusGeneration', 'corpusSize'] as const) {
    if (typeof record[field] !== 'number' || !Number.isInteger(record[field]) || record[field] < 0) throw fail(`invalid ${field} ${JSON.stringify(record[field])}`);
  }
  if (record.sourceQualityMap === null || typeof record.sourceQualityMap !== 'object') throw fail('sourceQualityMap is missing');
  if (record.customStrategies === null || typeof record.customStrategies !== 'object') throw fail('customStrategies is missing');
  const kind = (record.retriever as { kind?: unknown } | null)?.kind;
  if (kind !== 'none' && kind !== 'built' && kind !== 'injected') throw fail(`unknown retriever kind ${JSON.stringify(kind)}`);
  if (record.template === null || typeof record.template !== 'object') throw fail('template is missing');
  return record;
}

/**
 * The constructor options of the opened engine: the snapshot's configuration under the caller's
 * overrides, and the caller's strategies — every strategy that was custom when the snapshot was
 * saved must be passed again (a default one would answer differently).
 */
export function engineOptionsFor(record: EngineRecord, options: OpenOptions): ContextEngineOptions {
  for (const key of STRATEGY_OPTIONS) {
    const recorded = record.customStrategies[key];
    if (recorded !== undefined && options[key] === undefined) {
      throw invalidArgument(`options.${key}`, `the custom ${key} the snapshot was saved with (${recorded}), passed again: strategies are code, not data`, undefined);
    }
  }
  if ('custom' in record.template && typeof options.template !== 'function') {
    throw invalidArgument('options.template', `the custom template function the snapshot was saved with (${record.template.custom}), passed again`, options.template);
  }
  const { vectorDb: _vectorDb, vectorStoreAdapter: _adapter, verify: _verify, config, retriever, ...strategies } = options;
  const engineOptions: ContextEngineOptions = { ...(strategies as ContextEngineOptions), config: mergeConfig(record.config, config) };
  if (engineOptions.template === undefined && 'name' in record.template) engineOptions.template = record.template.name as ContextEngineOptions['template'];
  if (record.retriever.kind === 'injected') {
    const injected = retriever as { name?: unknown } | undefined;
    if (injected === undefined) throw invalidArgument('options.retriever', `the retriever the snapshot was saved with ("${record.retriever.name}"), passed again`, undefined);
    if (injected?.name !== record.retriever.name) throw invalidArgument('options.retriever', `a retriever named "${record.retriever.name}" (the one the snapshot was saved with)`, injected?.name);
    engineOptions.retriever = retriever as ContextEngineOptions['retriever'];
  } else if (retriever !== undefined) {
    throw invalidArgument('options.retriever', `absent: the snapshot's retriever was built by the engine (${record.retriever.kind === 'built' ? 'index()' : 'nothing was indexed'}) and is restored from it`, retriever);
  }
  return engineOptions;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `overrides` merged into `base`, section by section (arrays and scalars replace). */
export function mergeConfig(base: ContextEngineConfig, overrides: ContextEngineConfigInput | Record<string, unknown> | undefined): ContextEngineConfigInput {
  if (overrides === undefined) return base;
  const merge = (left: unknown, right: unknown): unknown => {
    if (!isPlainObject(left) || !isPlainObject(right)) return right;
    const out: Record<string, unknown> = { ...left };
    for (const [key, value] of Object.entries(right)) out[key] = merge(left[key], value);
    return out;
  };
  return merge(base, overrides) as ContextEngineConfigInput;
}

/** Checks the options of `open` (strict: an unknown key is a typo). */
export function parseOpenOptions(options: unknown): OpenOptions {
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) throw invalidArgument('options', 'an options object', options);
  return (parseOrThrow(openOptionsSchema, options ?? {}, 'options') ?? {}) as OpenOptions;
}

/** Checks the directory argument of `save`/`open`. */
export function parseDirectory(directory: unknown): string {
  if (typeof directory !== 'string' || directory.length === 0) throw invalidArgument('directory', 'a non-empty directory path', directory);
  return directory;
}

/** Where the retrievers name what must be passed again, the engine names its own option. */
const OPTION_OF_FIELD: Record<string, string> = { store: 'options.vectorDb', embedder: 'options.embedder', retrievers: 'options.retriever', analyzer: 'options.retriever' };

/** A retriever's mismatch error, re-addressed to the option of `open` that fixes it. */
export function asOpenError(error: unknown): unknown {
  if (!ZerdaError.isInstance(error) || error.code !== 'ZERDA_INVALID_ARGUMENT') return error;
  const field = error.details.field;
  if (typeof field !== 'string') return error;
  const renamed = OPTION_OF_FIELD[field] ?? (field.startsWith('retrieval.') ? `options.config.${field}` : undefined);
  if (!renamed) return error;
  return new ZerdaError('ZERDA_INVALID_ARGUMENT', { ...error.details, field: renamed }, { cause: error, message: error.message.replace(field, renamed) });
}

/** The vector source an engine built with `record` needs again, checked against the open options. */
export function checkVectorSource(record: BuiltRetrieverRecord, options: OpenOptions): void {
  const vector = record.vector;
  const storeName = vector?.store ? `${vector.store.name}${vector.store.location ? ` ${vector.store.location}` : ''}` : 'the store';
  if (record.keywordSearch === 'store' || vector?.source === 'vectorDb') {
    if (options.vectorDb === undefined) {
      throw invalidArgument('options.vectorDb', `the vector store the snapshot was saved with (${storeName}): ${vector?.inSnapshot ? 'an empty one of that kind, which the snapshot fills' : 'a database keeps its own data, so it is passed again and checked'}`, undefined);
    }
  } else if (options.vectorDb !== undefined) {
    throw invalidArgument('options.vectorDb', `absent: the snapshot's vectors ${vector ? 'are in the in-memory store it holds' : 'do not exist (it was indexed without vectors)'}`, options.vectorDb);
  }
  if (vector?.embedder && options.embedder === undefined) throw invalidArgument('options.embedder', `an embedder for ${vector.embedder} (the snapshot's vectors were made with it, and queries must be embedded the same way)`, undefined);
  if (vector?.source === 'adapter' && options.vectorStoreAdapter === undefined) throw invalidArgument('options.vectorStoreAdapter', 'the LangChain store the snapshot was saved with, passed again', undefined);
}

/** Thrown when a snapshot's history cannot be restored because conversation history is disabled. */
export function historyDisabled(): ZerdaError {
  return createError('ZERDA_INVALID_CONFIG', { field: 'config.multiTurn.enabled', expected: 'true to restore the conversation history the snapshot holds', received: 'false' });
}

/** `@zerda/persistence` (loaded on first use) and the header every engine snapshot carries. */
async function snapshotProtocol() {
  const persistence = await import('@zerda/persistence');
  const version = await persistence.packageVersion(new URL('../package.json', import.meta.url));
  return { persistence, header: { format: ENGINE_SNAPSHOT_FORMAT, formatVersion: ENGINE_SNAPSHOT_VERSION, producer: `@zerda/context ${version}`, zerdaVersion: version } };
}

/**
 * Writes a new generation of the snapshot in `target`: the engine's `record`, then the files of
 * `retriever` (when it writes snapshots) under `retriever/`. See `ContextEngine.save`.
 */
export async function writeEngineSnapshot(target: string, record: EngineRecord, retriever: Retriever | undefined): Promise<SavedSnapshot> {
  const { persistence, header } = await snapshotProtocol();
  const written = await persistence.writeSnapshotDirectory(target, header, async (writer) => {
    await writeEngineRecord(writer, record);
    if (retriever && typeof retriever.writeSnapshot === 'function') await retriever.writeSnapshot(writer.scope('retriever'));
    return { chunks: record.corpusSize, corpusGeneration: record.corpusGeneration, retriever: record.retriever.kind };
  });
  return { directory: target, generation: written.generation, bytes: written.bytes, files: written.manifest.files.length + 1, chunks: record.corpusSize, corpusGeneration: record.corpusGeneration };
}

/**
 * Opens the snapshot in `source` (every file verified unless `options.verify` is false) and hands
 * its record and a reader of its files to `restore`, which returns the engine. See `ContextEngine.open`.
 */
export async function readEngineSnapshot<E>(source: string, options: OpenOptions, restore: (record: EngineRecord, reader: SnapshotReader) => Promise<E>): Promise<E> {
  const { persistence, header } = await snapshotProtocol();
  return persistence.readSnapshotDirectory(source, header, async (reader) => restore(await readEngineRecord(reader), reader), { verify: options.verify ?? true });
}
