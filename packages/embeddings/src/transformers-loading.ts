// What every transformers.js model of this package shares: where its files are looked up, the
// offline-first checks, the one global `env` of transformers.js, and the error a missing model gives.
import { ZerdaError, createError } from '@zerda/types';
import { STATIC_GLOVE_MODEL_ID } from './model-presets.js';
import { findModelFiles, requiredModelFiles, type ModelFileSearch } from './model-location.js';

export type TransformersModule = typeof import('@xenova/transformers');

/** Where a model's files come from (resolved options). */
export interface ModelSourceSettings {
  modelId: string;
  localModelPath: string;
  cacheDir: string;
  allowRemoteModels: boolean;
  allowLocalModels: boolean;
  quantized: boolean;
  modelFileName: string;
  revision: string;
}

/**
 * transformers.js keeps its settings (`env`) in one global object. Loads from every model of this
 * package are queued here so that each runs with its own settings from start to finish and then puts
 * the previous values back; inference afterwards no longer reads `env`.
 */
let loadQueue: Promise<unknown> = Promise.resolve();
export function serializeLoad<T>(task: () => Promise<T>): Promise<T> {
  const run = loadQueue.then(task, task);
  loadQueue = run.catch(() => undefined);
  return run;
}

/** The first line of an error's message (transformers.js errors can carry long dumps). */
export function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

/** Imports transformers.js (on first load only, so that importing this package stays cheap). */
export async function importTransformers(): Promise<TransformersModule> {
  try {
    return await import('@xenova/transformers');
  } catch (error) {
    throw createError('ZERDA_BACKEND_ERROR', { component: '@xenova/transformers', operation: 'import', reason: messageOf(error) }, error);
  }
}

/** Applies the model's settings to transformers.js' global `env` for `task`, then restores them. */
export async function withEnvironment<T>(transformers: TransformersModule, settings: ModelSourceSettings, task: () => Promise<T>): Promise<T> {
  const env = transformers.env;
  const previous = {
    localModelPath: env.localModelPath,
    allowRemoteModels: env.allowRemoteModels,
    allowLocalModels: env.allowLocalModels,
    cacheDir: env.cacheDir,
  };
  // transformers.js joins paths with '/', so the folder needs its trailing separator kept consistent.
  env.localModelPath = settings.localModelPath.endsWith('/') ? settings.localModelPath : `${settings.localModelPath}/`;
  env.allowRemoteModels = settings.allowRemoteModels;
  env.allowLocalModels = settings.allowLocalModels;
  env.cacheDir = settings.cacheDir;
  try {
    return await task();
  } finally {
    Object.assign(env, previous);
  }
}

/** The model's required files, looked up where transformers.js would read them. */
export function searchModelFiles(settings: ModelSourceSettings): ModelFileSearch {
  const { modelId, localModelPath, cacheDir, allowLocalModels, revision } = settings;
  return findModelFiles({ modelId, localModelPath, cacheDir, allowLocalModels, revision, files: requiredModelFiles(settings) });
}

/** `ZERDA_MODEL_NOT_FOUND` naming the model, the reason, the folders searched and how to provide it. */
export function modelNotFound(settings: ModelSourceSettings, reason: string, search: ModelFileSearch, cause?: unknown): ZerdaError {
  const { modelId, quantized, modelFileName } = settings;
  const files = requiredModelFiles({ quantized, modelFileName }).join(', ');
  const howTo =
    modelId === STATIC_GLOVE_MODEL_ID
      ? `build it with \`pnpm --filter @zerda/embeddings build:glove-model\` (or \`node packages/embeddings/scripts/build-static-glove.mjs --out <folder>\`) and pass that folder as localModelPath`
      : `either run once with network access and { allowRemoteModels: true, cacheDir } so that it downloads into cacheDir and later loads offline, or point localModelPath at a folder containing ${modelId}/ with ${files}`;
  const message = `model ${modelId} could not be loaded: ${reason}. Searched: ${search.searched.join(', ')}. To provide it, ${howTo}.`;
  return new ZerdaError('ZERDA_MODEL_NOT_FOUND', { model: modelId, reason, searched: search.searched, missing: search.missing, howTo }, { message, cause });
}

/**
 * Loads a model offline first: fails up front (before touching transformers.js) when remote models
 * are off and a required file is missing, then runs `load` with the model's settings applied and
 * turns any loading failure into {@link modelNotFound}.
 */
export async function loadModel<T>(settings: ModelSourceSettings, load: (transformers: TransformersModule) => Promise<T>): Promise<T> {
  if (!settings.allowRemoteModels) {
    // Check up front: transformers.js would fail with a bare "file was not found locally" deep in its loader.
    const search = searchModelFiles(settings);
    if (search.missing.length > 0) throw modelNotFound(settings, `offline (allowRemoteModels: false) and ${search.missing.join(', ')} not found`, search);
  }
  const transformers = await importTransformers();
  return withEnvironment(transformers, settings, async () => {
    try {
      return await load(transformers);
    } catch (error) {
      throw modelNotFound(settings, messageOf(error), searchModelFiles(settings), error);
    }
  });
}
