import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { STATIC_GLOVE_MODEL_ID } from './model-presets.js';
import { invalidArgument } from '@zerda/types';

/** Environment variable that overrides where zerda looks for (and downloads) models. */
export const MODELS_DIRECTORY_VARIABLE = 'ZERDA_MODELS_DIR';

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The folder zerda uses for models when none is configured: `$ZERDA_MODELS_DIR` when set, else the
 * nearest `.cache/models` folder in the current directory or one of its parents (so every package
 * of a repository finds the models built at its root), else `<cwd>/.cache/models`.
 */
export function defaultModelsDirectory(from: string = process.cwd()): string {
  const fromEnvironment = process.env[MODELS_DIRECTORY_VARIABLE];
  if (fromEnvironment) return resolve(fromEnvironment);
  let current = resolve(from);
  for (;;) {
    const candidate = join(current, '.cache', 'models');
    if (isDirectory(candidate)) return candidate;
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return join(resolve(from), '.cache', 'models');
}

/** Where zerda's static GloVe model lives and how to load it. */
export interface StaticGloveModelLocation {
  modelId: string;
  /** Pass as `localModelPath` to `TransformersEmbedder`. */
  localModelPath: string;
  /** The model's own folder (`<localModelPath>/zerda/glove-sg-100d`). */
  directory: string;
  /** True when the model has been built there. */
  available: boolean;
}

/**
 * Locates zerda's offline English static model (built by `pnpm --filter @zerda/embeddings
 * build:glove-model`) under `modelsDirectory` (default {@link defaultModelsDirectory}). Benchmarks and
 * examples use it as `new TransformersEmbedder({ modelId, localModelPath })`.
 */
export function staticGloveModelPath(modelsDirectory: string = defaultModelsDirectory()): StaticGloveModelLocation {
  const localModelPath = resolve(modelsDirectory);
  const directory = join(localModelPath, ...STATIC_GLOVE_MODEL_ID.split('/'));
  return {
    modelId: STATIC_GLOVE_MODEL_ID,
    localModelPath,
    directory,
    available: existsSync(join(directory, 'tokenizer.json')) && existsSync(join(directory, 'onnx', 'model_quantized.onnx')),
  };
}

/** The files transformers.js reads to build a feature-extraction pipeline. */
export function requiredModelFiles(options: { quantized: boolean; modelFileName: string }): string[] {
  return [
    'config.json',
    'tokenizer.json',
    'tokenizer_config.json',
    `onnx/${options.modelFileName}${options.quantized ? '_quantized' : ''}.onnx`,
  ];
}

/** Result of looking for a model's files in the folders transformers.js reads them from. */
export interface ModelFileSearch {
  /** Folders searched, in the order transformers.js tries them (cache first, then local models). */
  searched: string[];
  /** Required files found in none of them (paths relative to the model folder). */
  missing: string[];
}

/**
 * Checks, without loading anything, whether every required file of `modelId` exists in the cache
 * folder (`<cacheDir>/<modelId>[/<revision>]`) or the local model folder (`<localModelPath>/<modelId>`);
 * transformers.js looks each file up in that order.
 */
export function findModelFiles(options: {
  modelId: string;
  localModelPath: string;
  cacheDir: string;
  allowLocalModels: boolean;
  revision: string;
  files: string[];
}): ModelFileSearch {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('options', 'an options object', options);
  const known = ['modelId', 'localModelPath', 'cacheDir', 'allowLocalModels', 'revision', 'files'];
  for (const key of Object.keys(options)) if (!known.includes(key)) throw invalidArgument(`options.${key}`, `a known option (one of ${known.join(', ')})`, (options as Record<string, unknown>)[key]);
  for (const key of ['modelId', 'localModelPath', 'cacheDir', 'revision'] as const) {
    if (typeof options[key] !== 'string') throw invalidArgument(`options.${key}`, 'a string', options[key]);
  }
  if (typeof options.allowLocalModels !== 'boolean') throw invalidArgument('options.allowLocalModels', 'a boolean', options.allowLocalModels);
  if (!Array.isArray(options.files) || options.files.some((file) => typeof file !== 'string')) throw invalidArgument('options.files', 'an array of file names (strings)', options.files);
  const segments = options.modelId.split('/');
  const folders: string[] = [];
  const cacheFolder =
    options.revision === 'main' ? join(options.cacheDir, ...segments) : join(options.cacheDir, ...segments, options.revision);
  folders.push(cacheFolder);
  if (options.allowLocalModels) folders.push(join(options.localModelPath, ...segments));
  const searched = [...new Set(folders.map((folder) => resolve(folder)))];
  const missing = options.files.filter((file) => !searched.some((folder) => existsSync(join(folder, file))));
  return { searched, missing };
}
