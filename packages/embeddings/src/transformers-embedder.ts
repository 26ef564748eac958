import * as z from 'zod';
import { createError, parseOrThrow, type Embedder, type Embedding } from '@zerda/types';
import { MODEL_PRESETS } from './model-presets.js';
import { loadModel, messageOf, serializeLoad } from './transformers-loading.js';
import {
  resolveModelSource,
  transformersEmbedderOptionsSchema,
  type ModelLoadProgress,
  type ResolvedEmbedderSettings,
  type TransformersEmbedderOptions,
} from './transformers-embedder-options.js';

/** The slice of a transformers.js feature-extraction pipeline this package uses. */
interface FeatureExtractor {
  (texts: string[], options: { pooling: 'mean' | 'cls'; normalize: boolean }): Promise<{ data: ArrayLike<number>; dims: number[] }>;
  dispose(): Promise<unknown>;
}

const embedOptionsSchema = z
  .strictObject({
    kind: z.enum(['query', 'document']).optional(),
    signal: z.custom<AbortSignal>((value) => value instanceof AbortSignal, { message: 'an AbortSignal' }).optional(),
  })
  .optional();

const textsSchema = z.array(z.string());

function resolveSettings(options: TransformersEmbedderOptions): ResolvedEmbedderSettings {
  const parsed = parseOrThrow(transformersEmbedderOptionsSchema, options, 'options', 'ZERDA_INVALID_CONFIG');
  const preset = parsed.usePreset ? MODEL_PRESETS[parsed.modelId] : undefined;
  return {
    ...resolveModelSource(parsed),
    pooling: parsed.pooling ?? preset?.pooling ?? 'mean',
    normalize: parsed.normalize ?? preset?.normalize ?? true,
    batchSize: parsed.batchSize,
    queryPrefix: parsed.queryPrefix ?? preset?.queryPrefix ?? '',
    documentPrefix: parsed.documentPrefix ?? preset?.documentPrefix ?? '',
  };
}

/**
 * Embeds texts with a transformers.js (ONNX) feature-extraction model, offline first.
 *
 * Promises: the model loads lazily on the first `embed()` (or `load()`), exactly once even when
 * many calls arrive together; a failed load is not cached, so a later call retries. A model that
 * cannot be found fails with a `ZerdaError` (`ZERDA_MODEL_NOT_FOUND`) that names the model, the
 * folders searched and how to provide it. Output vectors are `Float32Array`s of `dimensions` values,
 * in input order, unit length when `normalize` (an all-zero vector, e.g. a text made only of
 * words a static model does not know, stays zero instead of becoming NaN). Texts longer than the
 * model's maximum length are truncated by its tokenizer.
 *
 * Limitation: transformers.js settings are global. Loads are serialized and each applies this
 * embedder's settings and restores the previous ones afterwards, but code that uses transformers.js
 * directly while an embedder loads may observe them.
 */
export class TransformersEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly modelId: string;
  /** The resolved settings (defaults and preset applied). */
  readonly settings: Readonly<ResolvedEmbedderSettings>;
  readonly #onProgress: ((progress: ModelLoadProgress) => void) | undefined;
  #dimensions: number | undefined;
  #loading: Promise<FeatureExtractor> | undefined;

  constructor(options: TransformersEmbedderOptions) {
    this.settings = Object.freeze(resolveSettings(options));
    this.modelId = this.settings.modelId;
    this.#onProgress = options.onProgress;
  }

  /** Output size; known once the model has loaded (undefined before). */
  get dimensions(): number | undefined {
    return this.#dimensions;
  }

  /** True once the model is loaded and ready. */
  get loaded(): boolean {
    return this.#dimensions !== undefined;
  }

  /**
   * Loads the model now (optional: `embed()` loads on demand). Concurrent calls share one load; after
   * a failure the next call tries again.
   */
  async load(): Promise<void> {
    await this.#extractor();
  }

  /**
   * Embeds `texts` in order. `kind` selects the prefix (`queryPrefix` for queries, `documentPrefix`
   * otherwise; default `document`). `signal` is checked before each batch.
   */
  async embed(texts: string[], options?: { kind?: 'query' | 'document'; signal?: AbortSignal }): Promise<Embedding[]> {
    const list = parseOrThrow(textsSchema, texts, 'texts');
    const parsedOptions = parseOrThrow(embedOptionsSchema, options, 'options');
    const signal = parsedOptions?.signal;
    signal?.throwIfAborted();
    if (list.length === 0) return [];
    const extractor = await this.#extractor();
    const prefix = parsedOptions?.kind === 'query' ? this.settings.queryPrefix : this.settings.documentPrefix;
    // Batching texts of similar length keeps padding (wasted compute) small.
    const order = list.map((_, index) => index).sort((a, b) => (list[a] as string).length - (list[b] as string).length);
    const vectors: Float32Array[] = new Array<Float32Array>(list.length);
    for (let start = 0; start < order.length; start += this.settings.batchSize) {
      signal?.throwIfAborted();
      const batch = order.slice(start, start + this.settings.batchSize);
      const batchVectors = await this.#run(
        extractor,
        batch.map((index) => prefix + (list[index] as string)),
      );
      batch.forEach((index, position) => {
        vectors[index] = batchVectors[position] as Float32Array;
      });
    }
    return vectors;
  }

  /** Releases the ONNX session. The next `embed()` loads the model again. */
  async dispose(): Promise<void> {
    const loading = this.#loading;
    this.#loading = undefined;
    this.#dimensions = undefined;
    if (!loading) return;
    const extractor = await loading.catch(() => undefined);
    await extractor?.dispose();
  }

  #extractor(): Promise<FeatureExtractor> {
    if (!this.#loading) {
      const loading = serializeLoad(() => this.#load());
      this.#loading = loading;
      loading.catch(() => {
        // Forget the failure so that a later call (after the files were provided) can succeed.
        if (this.#loading === loading) this.#loading = undefined;
      });
    }
    return this.#loading;
  }

  async #run(extractor: FeatureExtractor, texts: string[]): Promise<Float32Array[]> {
    let output: { data: ArrayLike<number>; dims: number[] };
    try {
      output = await extractor(texts, { pooling: this.settings.pooling, normalize: false });
    } catch (error) {
      throw createError(
        'ZERDA_BACKEND_ERROR',
        { component: `transformers.js model ${this.modelId}`, operation: 'embed', reason: messageOf(error) },
        error,
      );
    }
    const size = output.dims[output.dims.length - 1] ?? 0;
    const vectors: Float32Array[] = [];
    for (let row = 0; row < texts.length; row++) {
      const vector = Float32Array.from({ length: size }, (_, d) => output.data[row * size + d] as number);
      if (this.settings.normalize) normalizeInPlace(vector);
      vectors.push(vector);
    }
    return vectors;
  }

  async #load(): Promise<FeatureExtractor> {
    const settings = this.settings;
    const extractor = await loadModel(settings, async (transformers) =>
      (await transformers.pipeline('feature-extraction', settings.modelId, {
        quantized: settings.quantized,
        revision: settings.revision,
        cache_dir: settings.cacheDir,
        local_files_only: !settings.allowRemoteModels,
        model_file_name: settings.modelFileName,
        ...(this.#onProgress ? { progress_callback: this.#onProgress } : {}),
      })) as unknown as FeatureExtractor,
    );
    // Measure the real output size (some models project or pool differently from hidden_size).
    const probe = await this.#run(extractor, ['zerda']);
    this.#dimensions = probe[0]?.length;
    return extractor;
  }
}

function normalizeInPlace(vector: Float32Array): void {
  let sum = 0;
  for (const value of vector) sum += value * value;
  if (sum === 0 || !Number.isFinite(sum)) return;
  const scale = 1 / Math.sqrt(sum);
  for (let d = 0; d < vector.length; d++) vector[d] = (vector[d] as number) * scale;
}
