import type { ChunkOptions, Chunker, DocumentChunk } from '@zerda/types';
import { resolveChunkConfig, type ChunkConfig, type ChunkConfigInput, type ChunkReport } from './chunk-config.js';
import { buildChunks, createMeasure, parseChunkInput, type AnnotatedSpan, type ChunkResult, type ResolvedChunkOptions } from './chunk-builder.js';
import type { Measure } from './segmentation.js';

/**
 * Shared behaviour of the synchronous chunkers: input validation, the legacy `chunk(text, docId)`
 * form, DocumentChunk construction with exact offsets, oversize reporting. A subclass only says
 * how a text becomes spans.
 */
export abstract class BaseChunker implements Chunker {
  readonly config: ChunkConfig;
  /**
   * The report of the most recent `chunk()` call on this instance (oversize units). Prefer
   * `chunkWithReport()` or the `onOversize` callback when one chunker serves concurrent callers.
   */
  lastReport: ChunkReport | undefined;

  protected constructor(config: ChunkConfigInput | ChunkConfig | undefined, field: string) {
    this.config = resolveChunkConfig(config ?? {}, field);
  }

  /**
   * Splits `text` into chunks whose `position.start/end` slice `text` to exactly `chunk.text`.
   * `options` is `{ docId, source, metadata, title }` or, in the legacy form, the docId string;
   * without a docId, a stable hash of the text is used.
   */
  chunk(text: string, options?: ChunkOptions | string): DocumentChunk[] {
    return this.chunkWithReport(text, options).chunks;
  }

  /** Like {@link chunk}, also returning the report of units kept whole although oversize. */
  chunkWithReport(text: string, options?: ChunkOptions | string): ChunkResult {
    const input = parseChunkInput(text, options);
    const measure = createMeasure(this.config, input.text);
    const spans = this.spans(input.text, measure, input.options);
    const result = buildChunks(input.text, spans, input.options, this.config, measure);
    this.lastReport = result.report;
    return result;
  }

  protected abstract spans(text: string, measure: Measure, options: ResolvedChunkOptions): AnnotatedSpan[];
}
