import * as z from 'zod';
import { createError } from '@zerda/types';
import type { ModelSourceSettings } from './transformers-loading.js';
import { defaultModelsDirectory } from './model-location.js';

/** Progress events transformers.js reports while it reads or downloads model files. */
export interface ModelLoadProgress {
  status: string;
  name?: string;
  file?: string;
  progress?: number;
  loaded?: number;
  total?: number;
  [key: string]: unknown;
}

const nonEmpty = z.string().trim().min(1);

/**
 * The options every transformers.js model of this package takes: which model, where its files are,
 * whether it may be downloaded, which ONNX file, and load progress.
 */
export const modelSourceOptionsShape = {
  /** Hub id or local folder name under `localModelPath`, e.g. `Xenova/multilingual-e5-small`. */
  modelId: nonEmpty,
  /** Folder holding `<modelId>/…` model folders. Default: `defaultModelsDirectory()`. */
  localModelPath: nonEmpty.optional(),
  /** Allow downloads from the Hugging Face hub. Default false: offline first. */
  allowRemoteModels: z.boolean().default(false),
  /** Allow reading models from `localModelPath`. Default true. */
  allowLocalModels: z.boolean().default(true),
  /** Where downloaded files are cached (and looked up first). Default: the same folder as `localModelPath`. */
  cacheDir: nonEmpty.optional(),
  /** Load `onnx/<modelFileName>_quantized.onnx` (int8) instead of `onnx/<modelFileName>.onnx`. Default true. */
  quantized: z.boolean().default(true),
  /** ONNX file base name inside `onnx/`. Default `model`. */
  modelFileName: nonEmpty.default('model'),
  /** Hub revision (branch, tag or commit). Default `main`. */
  revision: nonEmpty.default('main'),
  /** Called with transformers.js load/download progress events. */
  onProgress: z
    .custom<(progress: ModelLoadProgress) => void>((value) => typeof value === 'function', { message: 'a function' })
    .optional(),
};

/**
 * Options of {@link TransformersEmbedder}. Settings left out come from the model's preset (see
 * `MODEL_PRESETS`) when the model is a known one, else from the defaults listed here.
 */
export const transformersEmbedderOptionsSchema = z.strictObject({
  ...modelSourceOptionsShape,
  /** How token vectors become one text vector. Default from the preset, else `mean`. */
  pooling: z.enum(['mean', 'cls']).optional(),
  /** Scale every vector to unit length (cosine = dot product). Default from the preset, else true. */
  normalize: z.boolean().optional(),
  /** Texts per model call. Default 32. */
  batchSize: z.number().int().min(1).max(4096).default(32),
  /** Prepended to texts embedded with `kind: 'query'` (e5: `query: `). Default from the preset, else none. */
  queryPrefix: z.string().optional(),
  /** Prepended to texts embedded with `kind: 'document'` (e5: `passage: `). Default from the preset, else none. */
  documentPrefix: z.string().optional(),
  /** Apply the known model's preset for settings left out. Default true. */
  usePreset: z.boolean().default(true),
});

export type TransformersEmbedderOptions = z.input<typeof transformersEmbedderOptionsSchema>;

/** The options after defaults and presets were applied (as the embedder reports them). */
export interface ResolvedEmbedderSettings extends ModelSourceSettings {
  pooling: 'mean' | 'cls';
  normalize: boolean;
  batchSize: number;
  queryPrefix: string;
  documentPrefix: string;
}

/**
 * The model-source part of parsed options with its defaults: `localModelPath` defaults to
 * `defaultModelsDirectory()` and `cacheDir` to it. Refuses a setting that could load nothing.
 */
export function resolveModelSource(parsed: {
  modelId: string;
  localModelPath?: string | undefined;
  cacheDir?: string | undefined;
  allowRemoteModels: boolean;
  allowLocalModels: boolean;
  quantized: boolean;
  modelFileName: string;
  revision: string;
}): ModelSourceSettings {
  if (!parsed.allowLocalModels && !parsed.allowRemoteModels) {
    throw createError('ZERDA_INVALID_CONFIG', {
      field: 'options.allowLocalModels',
      expected: 'true when allowRemoteModels is false (otherwise no model can be loaded from anywhere)',
      received: 'boolean false',
    });
  }
  const localModelPath = parsed.localModelPath ?? defaultModelsDirectory();
  return {
    modelId: parsed.modelId,
    localModelPath,
    // Downloads land where offline loads look, so "download once, then run offline" needs no extra step.
    cacheDir: parsed.cacheDir ?? localModelPath,
    allowRemoteModels: parsed.allowRemoteModels,
    allowLocalModels: parsed.allowLocalModels,
    quantized: parsed.quantized,
    modelFileName: parsed.modelFileName,
    revision: parsed.revision,
  };
}
