import * as z from 'zod';
import { createError, describeValue, parseOrThrow, type LengthCounter } from '@zerda/types';
import { charCounter, wordCounter } from '@zerda/text';

/** Facts about a unit that could not be split to fit the size limit (a 5,000-character word, a long code line …). */
export interface OversizeUnit {
  docId: string;
  /** Index of the chunk that holds the unit whole. */
  index: number;
  /** Character span of the unit in the document. */
  start: number;
  end: number;
  /** Its length in the configured unit, and the limit it exceeds. */
  length: number;
  size: number;
  unit: string;
}

/** What a chunking run produced beyond the chunks themselves. */
export interface ChunkReport {
  docId: string;
  chunkCount: number;
  /** Units kept whole although longer than `size`; each is also flagged `metadata.oversize = true`. */
  oversize: OversizeUnit[];
}

const counterSchema = z.custom<LengthCounter>((value) => typeof value === 'function', { message: 'a LengthCounter function (text) => number' });

/**
 * Chunk sizing shared by every chunker. `size` and `overlap` are measured with `counter` (default:
 * Unicode characters; `unit: 'words'` counts words; any `LengthCounter`, e.g. a tokenizer, works).
 */
export const chunkConfigSchema = z.strictObject({
  /** Maximum chunk length (in the counter's unit). Default 1000. */
  size: z.number().int().positive().default(1000),
  /** Length repeated from the end of one chunk at the start of the next, cut back to a word boundary. Default 0. */
  overlap: z.number().int().nonnegative().default(0),
  /** Chunks shorter than this are merged into a neighbour when the result still fits `size`. Default 0. */
  minChunkSize: z.number().int().nonnegative().default(0),
  /** Built-in units: `chars` (code points, the default) or `words`. With a `counter` it is only the unit's name. */
  unit: z.string().min(1).optional(),
  /** Any length counter; overrides `unit`. */
  counter: counterSchema.optional(),
  /** Called once for every oversize unit (also reported in `chunkWithReport` and `lastReport`). */
  onOversize: z.custom<(unit: OversizeUnit) => void>((value) => typeof value === 'function', { message: 'a function' }).optional(),
});

export type ChunkConfigInput = z.input<typeof chunkConfigSchema>;

/** A validated chunk configuration with its defaults applied and its counter resolved. */
export interface ChunkConfig {
  readonly size: number;
  readonly overlap: number;
  readonly minChunkSize: number;
  /** Name of the unit sizes are measured in (`chars`, `words`, or the counter's `unit`). */
  readonly unit: string;
  readonly counter: LengthCounter;
  readonly onOversize?: (unit: OversizeUnit) => void;
}

/**
 * Validates a chunk configuration and applies defaults. Throws a `ZerdaError`
 * (`ZERDA_INVALID_CONFIG`) naming the field: an unknown key, a non-integer size, an overlap that is
 * not smaller than the size, a minimum above the size. A resolved {@link ChunkConfig} is accepted
 * too (it validates to itself), so one configuration can be shared by several chunkers.
 */
export function resolveChunkConfig(input: ChunkConfigInput | ChunkConfig = {}, field = 'config'): ChunkConfig {
  const parsed = parseOrThrow(chunkConfigSchema, input, field, 'ZERDA_INVALID_CONFIG');
  if (parsed.overlap >= parsed.size) {
    throw createError('ZERDA_INVALID_CONFIG', {
      field: `${field}.overlap`,
      expected: `smaller than size (${parsed.size})`,
      received: describeValue(parsed.overlap),
    });
  }
  if (parsed.minChunkSize > parsed.size) {
    throw createError('ZERDA_INVALID_CONFIG', {
      field: `${field}.minChunkSize`,
      expected: `at most size (${parsed.size})`,
      received: describeValue(parsed.minChunkSize),
    });
  }
  if (!parsed.counter && parsed.unit !== undefined && parsed.unit !== 'chars' && parsed.unit !== 'words') {
    throw createError('ZERDA_INVALID_CONFIG', {
      field: `${field}.unit`,
      expected: '"chars" or "words" (for tokens or any other unit pass a counter)',
      received: describeValue(parsed.unit),
    });
  }
  const counter = parsed.counter ?? (parsed.unit === 'words' ? wordCounter : charCounter);
  const unit = parsed.unit ?? counter.unit ?? 'custom';
  return Object.freeze({
    size: parsed.size,
    overlap: parsed.overlap,
    minChunkSize: parsed.minChunkSize,
    unit,
    counter,
    ...(parsed.onOversize ? { onOversize: parsed.onOversize } : {}),
  });
}

/**
 * Builds a reusable, validated chunk configuration: `new StructureAwareChunker(createChunkConfig({ size: 800 }))`
 * is the same as passing the plain options.
 */
export function createChunkConfig(input: ChunkConfigInput = {}): ChunkConfig {
  return resolveChunkConfig(input);
}
