import * as z from 'zod';
import {
  ZerdaError,
  cosineSimilarity,
  createError,
  describeValue,
  parseOrThrow,
  percentile,
  type ChunkOptions,
  type DocumentChunk,
  type EmbedFunction,
  type Embedder,
  type Embedding,
} from '@zerda/types';
import { chunkConfigSchema, resolveChunkConfig, type ChunkConfig, type ChunkConfigInput, type ChunkReport } from './chunk-config.js';
import { buildChunks, createMeasure, parseChunkInput, type ChunkResult } from './chunk-builder.js';
import { packUnits } from './packing.js';
import { segment, splitClauses, splitParagraphs, splitSentenceRanges, splitTokens, splitWords, type Level, type Unit } from './segmentation.js';

const embedderSchema = z.custom<Embedder | EmbedFunction>(
  (value) =>
    typeof value === 'function' ||
    (typeof value === 'object' && value !== null && typeof (value as { embed?: unknown }).embed === 'function'),
  { message: 'an Embedder (an object with embed(texts)) or an embed function (texts) => vectors' },
);

/** Options of {@link ContextAwareChunker}: the chunk sizing plus how semantic boundaries are found. */
export const contextAwareChunkerOptionsSchema = z.strictObject({
  ...chunkConfigSchema.shape,
  /** Embeds the sentences (an `Embedder`, e.g. `TransformersEmbedder`, or a plain embed function). */
  embedder: embedderSchema,
  /**
   * Boundaries whose neighbour similarity is below this percentile of all the document's neighbour
   * similarities become chunk breaks. Default 25 (about one boundary in four).
   */
  breakpointPercentile: z.number().min(0).max(100).default(25),
  /** Each sentence is embedded together with this many neighbours on each side, which smooths the signal. Default 1. */
  bufferSize: z.number().int().min(0).max(10).default(1),
});

export type ContextAwareChunkerOptions = z.input<typeof contextAwareChunkerOptionsSchema> | (ChunkConfig & {
  embedder: Embedder | EmbedFunction;
  breakpointPercentile?: number;
  bufferSize?: number;
});

// A sentence longer than the size limit is cut further before it is embedded.
const INSIDE_SENTENCE: readonly Level[] = [
  { name: 'clause', strength: 3, split: splitClauses },
  { name: 'word', strength: 2, split: splitWords },
  { name: 'token', strength: 1, split: splitTokens },
];

/**
 * Semantic chunking: splits the text into sentences (paragraph- and sentence-aware, Arabic
 * included; a sentence longer than `size` is cut at clauses or words first), embeds each sentence
 * with its `bufferSize` neighbours, and breaks wherever the cosine similarity between neighbouring
 * sentences falls below the `breakpointPercentile`-th percentile of the document's similarities.
 * Size bounds always hold: a topic longer than `size` is cut at its least similar boundary that
 * keeps the chunk at least half full, and chunks under `minChunkSize` merge into a neighbour when
 * they fit. Offsets, `overlap` and oversize reporting work as in the other chunkers. `chunk()` is
 * async because it embeds.
 */
export class ContextAwareChunker {
  readonly config: ChunkConfig;
  readonly breakpointPercentile: number;
  readonly bufferSize: number;
  /** The report of the most recent `chunk()` (prefer `chunkWithReport()` under concurrency). */
  lastReport: ChunkReport | undefined;
  readonly #embed: (texts: string[]) => Promise<Embedding[]>;

  constructor(options: ContextAwareChunkerOptions) {
    const { embedder, breakpointPercentile, bufferSize, ...sizing } = parseOrThrow(
      contextAwareChunkerOptionsSchema,
      options,
      'options',
      'ZERDA_INVALID_CONFIG',
    );
    this.config = resolveChunkConfig(sizing, 'options');
    this.breakpointPercentile = breakpointPercentile;
    this.bufferSize = bufferSize;
    this.#embed =
      typeof embedder === 'function'
        ? async (texts) => embedder(texts)
        : (texts) => embedder.embed(texts, { kind: 'document' });
  }

  /** Splits `text` at semantic boundaries; same options and guarantees as the other chunkers. */
  async chunk(text: string, options?: ChunkOptions | string): Promise<DocumentChunk[]> {
    return (await this.chunkWithReport(text, options)).chunks;
  }

  /** Like {@link chunk}, also returning the report of units kept whole although oversize. */
  async chunkWithReport(text: string, options?: ChunkOptions | string): Promise<ChunkResult> {
    const input = parseChunkInput(text, options);
    const source = input.text;
    const measure = createMeasure(this.config, source);
    const units: Unit[] = [];
    for (const [paragraphStart, paragraphEnd] of splitParagraphs(source, 0, source.length)) {
      for (const [sentenceStart, sentenceEnd] of splitSentenceRanges(source, paragraphStart, paragraphEnd)) {
        segment(source, sentenceStart, sentenceEnd, INSIDE_SENTENCE, measure, this.config.size, 0, units);
      }
    }
    if (units.length > 1) {
      const similarities = await this.#neighbourSimilarities(source, units);
      const threshold = percentile(similarities, this.breakpointPercentile);
      similarities.forEach((similarity, index) => {
        // A break below the threshold is hard; otherwise, if the size forces a cut, the least similar boundary is preferred.
        (units[index] as Unit).breakAfter = similarity < threshold ? Number.POSITIVE_INFINITY : -similarity;
      });
    }
    const spans = packUnits(source, units, { ...this.config, measure });
    const result = buildChunks(source, spans, input.options, this.config, measure);
    this.lastReport = result.report;
    return result;
  }

  async #neighbourSimilarities(text: string, units: readonly Unit[]): Promise<number[]> {
    const windows = units.map((_, index) => {
      const first = units[Math.max(0, index - this.bufferSize)] as Unit;
      const last = units[Math.min(units.length - 1, index + this.bufferSize)] as Unit;
      return text.slice(first.start, last.end);
    });
    let vectors: Embedding[];
    try {
      vectors = await this.#embed(windows);
    } catch (error) {
      if (ZerdaError.isInstance(error) || (error instanceof Error && error.name === 'AbortError')) throw error;
      throw createError('ZERDA_BACKEND_ERROR', { component: 'ContextAwareChunker embedder', operation: 'embed', reason: error instanceof Error ? error.message : String(error) }, error);
    }
    if (!Array.isArray(vectors) || vectors.length !== windows.length) {
      throw createError('ZERDA_BACKEND_ERROR', {
        component: 'ContextAwareChunker embedder',
        operation: 'embed',
        reason: `expected ${windows.length} embeddings, got ${Array.isArray(vectors) ? vectors.length : typeof vectors}`,
      });
    }
    const dimensions = vectors[0]?.length;
    vectors.forEach((vector: unknown, index) => {
      const values = Array.isArray(vector) || vector instanceof Float32Array || vector instanceof Float64Array ? (vector as ArrayLike<unknown>) : undefined;
      const valid =
        values !== undefined &&
        values.length === dimensions &&
        Array.prototype.every.call(values, (value: unknown) => typeof value === 'number' && Number.isFinite(value));
      if (!valid) {
        throw createError('ZERDA_INVALID_EMBEDDING', {
          field: `embeddings[${index}]`,
          expected: `an array of ${dimensions} finite numbers (like embeddings[0])`,
          received: values === undefined ? describeValue(vector) : `${values.length} values, or non-finite values`,
        });
      }
    });
    return vectors.slice(1).map((vector, index) => cosineSimilarity(vectors[index] as Embedding, vector));
  }
}
