import {
  createError,
  invalidArgument,
  validateEmbedding,
  ZerdaError,
  type EmbedFunction,
  type Embedder,
} from '@zerda/types';
import { optionsObject, rejectUnknownOptions, throwIfAborted } from './retrieve-options.js';

/** Progress of a batched embedding pass. */
export interface EmbeddingProgress {
  /** Texts embedded so far. */
  embedded: number;
  /** Texts to embed in this pass. */
  total: number;
  /** Batches completed so far. */
  batches: number;
}

/** Options of {@link embedTexts}. */
export interface EmbedTextsOptions {
  kind: 'query' | 'document';
  /** Texts per embedder call. Default 64. */
  batchSize?: number;
  onProgress?: (progress: EmbeddingProgress) => void;
  signal?: AbortSignal;
  /** Expected dimension; when undefined the first vector fixes it for the rest. */
  dimensions?: number;
  /** How returned vectors are named in errors (e.g. `chunks[3].embedding`), by input index. */
  fieldOf?: (index: number) => string;
}

/** True for an {@link Embedder} or a plain embedding function. */
export function isEmbedderLike(value: unknown): value is Embedder | EmbedFunction {
  return typeof value === 'function' || (typeof value === 'object' && value !== null && typeof (value as Embedder).embed === 'function');
}

/**
 * Accepts an `Embedder` or a plain `(texts) => embeddings` function and returns an `Embedder`
 * (the function is wrapped; `modelId` is `'function'`, its dimensions unknown until the first call).
 */
export function toEmbedder(value: unknown, field = 'options.embedder'): Embedder {
  if (typeof value === 'function') {
    const embed = value as EmbedFunction;
    return {
      specificationVersion: 'v1',
      modelId: embed.name ? `function:${embed.name}` : 'function',
      dimensions: undefined,
      embed: async (texts) => embed(texts),
    };
  }
  if (isEmbedderLike(value)) return value as Embedder;
  throw invalidArgument(field, 'an Embedder (an object with embed(texts)) or a function (texts) => embeddings', value);
}

/**
 * Embeds `texts` in batches and checks every vector before returning any: the embedder must return
 * one finite vector per text, all of one dimension (and of `dimensions` when given). Embedder
 * failures become `ZERDA_BACKEND_ERROR` (component `embedder`) unless they already are ZerdaErrors.
 */
export async function embedTexts(embedder: Embedder, texts: readonly string[], options: EmbedTextsOptions): Promise<Float32Array[]> {
  if (embedder === null || typeof embedder !== 'object' || typeof embedder.embed !== 'function') throw invalidArgument('embedder', 'an Embedder (see toEmbedder)', embedder);
  if (!Array.isArray(texts) || texts.some((text) => typeof text !== 'string')) throw invalidArgument('texts', 'an array of strings', texts);
  rejectUnknownOptions(optionsObject(options, 'options'), ['kind', 'batchSize', 'onProgress', 'signal', 'dimensions', 'fieldOf'], 'options');
  if (options.kind !== 'query' && options.kind !== 'document') throw invalidArgument('options.kind', 'one of "query", "document"', options.kind);
  if (options.batchSize !== undefined && (typeof options.batchSize !== 'number' || !Number.isInteger(options.batchSize) || options.batchSize < 1)) {
    throw invalidArgument('options.batchSize', 'a positive integer', options.batchSize);
  }
  const batchSize = options.batchSize ?? 64;
  const vectors: Float32Array[] = [];
  let dimensions = options.dimensions;
  let batches = 0;
  for (let start = 0; start < texts.length; start += batchSize) {
    throwIfAborted(options.signal);
    const batch = texts.slice(start, start + batchSize);
    let output: unknown;
    try {
      output = await embedder.embed(batch, options.signal ? { kind: options.kind, signal: options.signal } : { kind: options.kind });
    } catch (error) {
      if (ZerdaError.isInstance(error) || (error as Error | undefined)?.name === 'AbortError') throw error;
      throw createError('ZERDA_BACKEND_ERROR', { component: `embedder ${embedder.modelId}`, operation: 'embed', reason: error instanceof Error ? error.message : String(error) }, error);
    }
    if (!Array.isArray(output) || output.length !== batch.length) {
      throw createError('ZERDA_BACKEND_ERROR', {
        component: `embedder ${embedder.modelId}`,
        operation: 'embed',
        reason: `expected ${batch.length} embeddings, got ${Array.isArray(output) ? output.length : typeof output}`,
      });
    }
    for (let offset = 0; offset < batch.length; offset++) {
      const index = start + offset;
      const field = options.fieldOf ? options.fieldOf(index) : `embeddings[${index}]`;
      const vector = validateEmbedding(output[offset], field, dimensions);
      dimensions ??= vector.length;
      vectors.push(vector);
    }
    batches++;
    options.onProgress?.({ embedded: Math.min(start + batch.length, texts.length), total: texts.length, batches });
  }
  return vectors;
}
