import type { ChunkConfig, ChunkConfigInput } from './chunk-config.js';
import { BaseChunker } from './base-chunker.js';
import type { AnnotatedSpan } from './chunk-builder.js';
import { packUnits } from './packing.js';
import { PROSE_LEVELS, segment, type Measure } from './segmentation.js';

/**
 * Splits text at the strongest boundary that makes the pieces fit: paragraphs (blank lines), then
 * lines, sentences (`splitSentences` of @zerda/text: . ! ? … ؟ ۔), clauses (, ; : ، ؛), words,
 * and finally the words inside a run without spaces. Pieces are packed into chunks of at most
 * `size`, each ending at the strongest boundary that keeps it at least half full; `overlap`
 * repeats the end of a chunk at the start of the next, from a word start. A single word longer
 * than `size` is kept whole in its own chunk and reported (`metadata.oversize`).
 */
export class RecursiveChunker extends BaseChunker {
  constructor(config?: ChunkConfigInput | ChunkConfig) {
    super(config, 'config');
  }

  protected spans(text: string, measure: Measure): AnnotatedSpan[] {
    const units = segment(text, 0, text.length, PROSE_LEVELS, measure, this.config.size, Number.POSITIVE_INFINITY);
    return packUnits(text, units, { ...this.config, measure });
  }
}
