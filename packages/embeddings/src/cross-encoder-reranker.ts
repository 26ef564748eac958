import * as z from 'zod';
import { createError, invalidArgument, parseOrThrow, type RerankOptions, type RerankedCandidate, type Reranker, type ScoredChunk } from '@zerda/types';
import { modelSourceOptionsShape, resolveModelSource, type ModelLoadProgress } from './transformers-embedder-options.js';
import { loadModel, messageOf, serializeLoad, type ModelSourceSettings } from './transformers-loading.js';

/**
 * Options of {@link CrossEncoderReranker}: the model source options of `TransformersEmbedder`
 * (offline first) plus the batch size.
 */
export const crossEncoderRerankerOptionsSchema = z.strictObject({
  ...modelSourceOptionsShape,
  /** Query–passage pairs per model call. Default 16. */
  batchSize: z.number().int().min(1).max(1024).default(16),
});

export type CrossEncoderRerankerOptions = z.input<typeof crossEncoderRerankerOptionsSchema>;

/** The resolved settings of a {@link CrossEncoderReranker}. */
export interface ResolvedCrossEncoderSettings extends ModelSourceSettings {
  batchSize: number;
}

interface Tensor {
  data: ArrayLike<number | bigint> & { [index: number]: number | bigint };
  dims: number[];
}

/** The slices of a transformers.js tokenizer and sequence-classification model this class uses. */
interface PairTokenizer {
  (texts: string[], options: { text_pair: string[]; padding: boolean; truncation: boolean }): Record<string, Tensor>;
  sep_token_id?: number;
}
interface SequenceClassifier {
  (inputs: Record<string, Tensor>): Promise<{ logits: Tensor }>;
  dispose(): Promise<unknown>;
}
interface LoadedCrossEncoder {
  tokenizer: PairTokenizer;
  model: SequenceClassifier;
}

const scoreOptionsSchema = z
  .strictObject({ signal: z.custom<AbortSignal>((value) => value instanceof AbortSignal, { message: 'an AbortSignal' }).optional() })
  .optional();

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/**
 * Reranks with a cross-encoder on transformers.js (ONNX), offline first like `TransformersEmbedder`:
 * each (query, passage) pair is read by the model together, which judges relevance far better than
 * comparing two separately computed vectors, at the cost of one model pass per candidate — hence a
 * reranker for the engine's few best candidates, not a retriever. Models: sequence-classification
 * cross-encoders such as `Xenova/ms-marco-MiniLM-L-6-v2` (English, MS MARCO).
 *
 * Promises: the model loads lazily on the first call (or `load()`), once even when many calls
 * arrive together; a missing model fails with `ZERDA_MODEL_NOT_FOUND` naming the folders searched
 * and how to provide it. Scores are probabilities in [0, 1] (the sigmoid of a single relevance logit,
 * or the softmax probability of the last label for two-label models), the same for a pair whatever
 * the batch it is scored in. Passages too long for the model are cut at its maximum length (the
 * query is kept whole, and the closing separator restored). Pairs are batched by length to limit padding.
 */
export class CrossEncoderReranker implements Reranker {
  readonly name: string;
  readonly modelId: string;
  readonly settings: Readonly<ResolvedCrossEncoderSettings>;
  readonly #onProgress: ((progress: ModelLoadProgress) => void) | undefined;
  #loading: Promise<LoadedCrossEncoder> | undefined;
  #loaded = false;

  constructor(options: CrossEncoderRerankerOptions) {
    const parsed = parseOrThrow(crossEncoderRerankerOptionsSchema, options, 'options', 'ZERDA_INVALID_CONFIG');
    this.settings = Object.freeze({ ...resolveModelSource(parsed), batchSize: parsed.batchSize });
    this.modelId = this.settings.modelId;
    this.name = `cross-encoder:${this.modelId}`;
    this.#onProgress = parsed.onProgress;
  }

  /** True once the model is loaded. */
  get loaded(): boolean {
    return this.#loaded;
  }

  /** Loads the model now (optional). Concurrent calls share one load; after a failure the next call tries again. */
  async load(): Promise<void> {
    await this.#model();
  }

  /**
   * The relevance of each passage to the query, in input order, each in [0, 1]. `signal` is checked
   * before each batch.
   */
  async score(query: string, passages: string[], options?: { signal?: AbortSignal }): Promise<number[]> {
    if (typeof query !== 'string') throw invalidArgument('query', 'a string', query);
    if (!Array.isArray(passages) || passages.some((passage) => typeof passage !== 'string')) throw invalidArgument('passages', 'an array of strings', passages);
    const signal = parseOrThrow(scoreOptionsSchema, options, 'options')?.signal;
    signal?.throwIfAborted();
    if (passages.length === 0) return [];
    const loaded = await this.#model();
    const order = passages.map((_, index) => index).sort((a, b) => (passages[a] as string).length - (passages[b] as string).length);
    const scores = new Array<number>(passages.length);
    for (let start = 0; start < order.length; start += this.settings.batchSize) {
      signal?.throwIfAborted();
      const batch = order.slice(start, start + this.settings.batchSize);
      const batchScores = await this.#scoreBatch(loaded, query, batch.map((index) => passages[index] as string));
      batch.forEach((index, position) => {
        scores[index] = batchScores[position] as number;
      });
    }
    return scores;
  }

  /** The engine's reranker contract: scores every candidate's text and keeps the best `topN`, ties in input order. */
  async rerank(query: string, candidates: ScoredChunk[], options: RerankOptions): Promise<RerankedCandidate[]> {
    if (!Array.isArray(candidates)) throw invalidArgument('candidates', 'an array of scored chunks', candidates);
    const texts = candidates.map((candidate, i) => {
      const text = candidate?.chunk?.text;
      if (typeof text !== 'string') throw invalidArgument(`candidates[${i}].chunk.text`, 'a string', text);
      return text;
    });
    const scores = await this.score(query, texts, options?.signal ? { signal: options.signal } : undefined);
    return scores
      .map((score, index) => ({ index, score }))
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, options.topN);
  }

  /** Releases the ONNX session; the next call loads the model again. */
  async dispose(): Promise<void> {
    const loading = this.#loading;
    this.#loading = undefined;
    this.#loaded = false;
    if (!loading) return;
    const loaded = await loading.catch(() => undefined);
    await loaded?.model.dispose();
  }

  #model(): Promise<LoadedCrossEncoder> {
    if (!this.#loading) {
      const loading = serializeLoad(() => this.#load());
      this.#loading = loading;
      loading.then(
        () => {
          if (this.#loading === loading) this.#loaded = true;
        },
        () => {
          // Forget the failure so that a later call (after the files were provided) can succeed.
          if (this.#loading === loading) this.#loading = undefined;
        },
      );
    }
    return this.#loading;
  }

  async #load(): Promise<LoadedCrossEncoder> {
    const settings = this.settings;
    return loadModel(settings, async (transformers) => {
      const shared = {
        revision: settings.revision,
        cache_dir: settings.cacheDir,
        local_files_only: !settings.allowRemoteModels,
        ...(this.#onProgress ? { progress_callback: this.#onProgress } : {}),
      };
      const tokenizer = (await transformers.AutoTokenizer.from_pretrained(settings.modelId, shared)) as unknown as PairTokenizer;
      const model = (await transformers.AutoModelForSequenceClassification.from_pretrained(settings.modelId, {
        ...shared,
        quantized: settings.quantized,
        model_file_name: settings.modelFileName,
      })) as unknown as SequenceClassifier;
      return { tokenizer, model };
    });
  }

  async #scoreBatch({ tokenizer, model }: LoadedCrossEncoder, query: string, passages: string[]): Promise<number[]> {
    let logits: Tensor;
    try {
      const inputs = tokenizer(passages.map(() => query), { text_pair: passages, padding: true, truncation: true });
      restoreClosingSeparator(inputs, tokenizer.sep_token_id);
      ({ logits } = await model(inputs));
    } catch (error) {
      throw createError('ZERDA_BACKEND_ERROR', { component: `transformers.js model ${this.modelId}`, operation: 'rerank', reason: messageOf(error) }, error);
    }
    const dims = Array.isArray(logits?.dims) ? logits.dims : undefined;
    const labels = dims?.[dims.length - 1] ?? 0;
    if (!dims || dims.length !== 2 || labels < 1 || labels > 2) {
      const shape = dims ? `logits of shape [${dims.join(', ')}]` : 'no logits output (is it a feature-extraction model?)';
      throw createError('ZERDA_UNSUPPORTED', { operation: 'reranking', component: `model ${this.modelId}`, reason: `it has ${shape}; a cross-encoder (sequence classification) gives logits of shape [pairs, 1] or [pairs, 2]` });
    }
    return passages.map((_, row) => {
      if (labels === 1) return sigmoid(Number(logits.data[row]));
      // Two labels (not relevant, relevant): the probability of the second.
      const [negative, positive] = [Number(logits.data[row * 2]), Number(logits.data[row * 2 + 1])];
      return sigmoid(positive - negative);
    });
  }
}

/**
 * transformers.js truncates a too-long pair by cutting its tail, closing separator included. A pair
 * always ends with the separator, so a row whose last real token is not one was cut: put it back
 * (the passage loses one more token), as the reference tokenizers do.
 */
function restoreClosingSeparator(inputs: Record<string, Tensor>, separator: number | undefined): void {
  const ids = inputs.input_ids;
  const mask = inputs.attention_mask;
  if (separator === undefined || !ids || !mask || ids.dims.length !== 2) return;
  const [rows, columns] = ids.dims as [number, number];
  const bigint = typeof ids.data[0] === 'bigint';
  for (let row = 0; row < rows; row++) {
    let last = -1;
    for (let column = columns - 1; column >= 0; column--) {
      if (Number(mask.data[row * columns + column]) !== 0) {
        last = row * columns + column;
        break;
      }
    }
    if (last >= 0 && Number(ids.data[last]) !== separator) ids.data[last] = bigint ? BigInt(separator) : separator;
  }
}
