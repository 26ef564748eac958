import { ContextEngine, toLengthCounter, type ContextEngineOptions, type Embedder, type LengthCounter, type TemplateName, type VectorStore } from '@zerda/context';
import { ZerdaError } from '@zerda/types';
import { CliError, EXIT } from './errors.js';
import { snapshotPath, type IndexManifest, type IndexSettings, type StoreSpec } from './workspace.js';

/** Loads an optional package, or fails with the command that installs it. */
async function optional<T>(name: string, purpose: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes(name)) {
      throw new CliError(`${purpose} needs ${name}, which is not installed (npm install ${name})`, EXIT.usage, { cause: error });
    }
    throw error;
  }
}

/** The embedder for a model id (transformers.js through @zerda/embeddings), offline unless the model is cached. */
export async function createEmbedder(settings: Pick<IndexSettings, 'embedder' | 'models'>): Promise<Embedder | undefined> {
  if (!settings.embedder) return undefined;
  const { TransformersEmbedder } = await optional<{ TransformersEmbedder: new (options: Record<string, unknown>) => Embedder }>('@zerda/embeddings', '--embedder');
  return new TransformersEmbedder({ modelId: settings.embedder, ...(settings.models ? { localModelPath: settings.models } : {}) });
}

/** The vector store for a spec (undefined for `memory`: the engine's default in-memory store). */
export async function createStore(spec: StoreSpec, dimensions?: number): Promise<VectorStore | undefined> {
  switch (spec.kind) {
    case 'memory':
      return undefined;
    case 'hnsw': {
      const { HnswVectorStore } = await optional<{ HnswVectorStore: new (options: Record<string, unknown>) => VectorStore }>('@zerda/vector-hnswlib', '--store hnsw');
      return new HnswVectorStore({ metric: 'cosine', ...(dimensions ? { dimensions } : {}) });
    }
    case 'lancedb': {
      const { LanceDbVectorStore } = await optional<{ LanceDbVectorStore: { open(options: Record<string, unknown>): Promise<VectorStore> } }>('@zerda/vector-lancedb', '--store lancedb');
      return LanceDbVectorStore.open({ uri: spec.uri });
    }
    case 'pgvector': {
      const { createNodePostgresStore } = await optional<{ createNodePostgresStore(options: Record<string, unknown>): Promise<VectorStore> }>('@zerda/vector-pgvector', '--store pgvector');
      return createNodePostgresStore({ connectionString: spec.url, collection: spec.collection, ...(dimensions ? { dimensions } : {}) });
    }
  }
}

/** The length counter of `--tokens` (code points without it). */
export function createCounter(tokens: string | undefined): LengthCounter | undefined {
  if (tokens === undefined) return undefined;
  const name = tokens === 'cl100k' ? 'cl100k_base' : tokens === 'o200k' ? 'o200k_base' : tokens;
  if (name !== 'cl100k_base' && name !== 'o200k_base') throw new CliError(`--tokens must be cl100k or o200k, got "${tokens}"`, EXIT.usage);
  return toLengthCounter(name);
}

/** Engine options shared by `index` (new engine) and the query commands (opened engine). */
export interface EngineChoice {
  template?: TemplateName;
  lengthCounter?: LengthCounter;
}

/** The code-side options of a run (template, length counter): passed to new and to opened engines alike. */
function strategyOptions(choice: EngineChoice): ContextEngineOptions {
  return {
    ...(choice.template ? { template: choice.template } : {}),
    ...(choice.lengthCounter ? { lengthCounter: choice.lengthCounter } : {}),
  };
}

/**
 * Constructor options of the engines the CLI builds: cache off (one query per process or per
 * request). The configuration is data and travels in the snapshot; `--budget` is a per-run
 * `overrideBudget`, which the composer's `maxContextLength` does not cap.
 */
export function engineOptions(choice: EngineChoice = {}): ContextEngineOptions {
  return { config: { cache: { enabled: false } }, ...strategyOptions(choice) };
}

// Snapshots (engine.save / ContextEngine.open) come from @zerda/context; an older @zerda/context
// without them gets a clear message instead of a TypeError.
interface Saveable {
  save(directory: string): Promise<unknown>;
}
interface Openable {
  open(directory: string, options?: Record<string, unknown>): Promise<ContextEngine>;
}

function snapshotsMissing(): CliError {
  return new CliError('this @zerda/context has no engine snapshots (engine.save / ContextEngine.open); update @zerda/context', EXIT.failure);
}

/** Saves the engine's snapshot into the index directory. */
export async function saveEngine(engine: ContextEngine, directory: string): Promise<void> {
  const saveable = engine as unknown as Partial<Saveable>;
  if (typeof saveable.save !== 'function') throw snapshotsMissing();
  await saveable.save(snapshotPath(directory));
}

/**
 * Opens the engine of an index directory with what its snapshot cannot hold: the embedder, the
 * vector store object (LanceDB, PostgreSQL, or an empty HNSW store the snapshot fills), the
 * template and the length counter of this run.
 */
export async function openEngine(directory: string, manifest: IndexManifest, choice: EngineChoice = {}): Promise<ContextEngine> {
  const openable = ContextEngine as unknown as Partial<Openable>;
  if (typeof openable.open !== 'function') throw snapshotsMissing();
  const embedder = await createEmbedder(manifest.settings);
  // LanceDB and PostgreSQL hold their data and are checked against the snapshot's record; an HNSW
  // store is handed over empty and filled from the snapshot.
  const external = manifest.settings.store.kind === 'memory' ? undefined : await createStore(manifest.settings.store);
  try {
    return await openable.open(snapshotPath(directory), { ...strategyOptions(choice), ...(embedder ? { embedder } : {}), ...(external ? { vectorDb: external } : {}) });
  } catch (error) {
    if (ZerdaError.isInstance(error) && ((String(error.code) === 'ZERDA_CORRUPT_SNAPSHOT' || error.code === 'ZERDA_STORE_CORRUPT'))) {
      throw new CliError(`the index in ${directory} cannot be opened: ${error.message} (run zerda index --rebuild)`, EXIT.noIndex, { cause: error });
    }
    throw error;
  }
}
