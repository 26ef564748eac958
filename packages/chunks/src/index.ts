export {
  chunkConfigSchema,
  resolveChunkConfig,
  createChunkConfig,
  type ChunkConfig,
  type ChunkConfigInput,
  type ChunkReport,
  type OversizeUnit,
} from './chunk-config.js';
export { stableDocumentId, type ChunkResult } from './chunk-builder.js';
export { BaseChunker } from './base-chunker.js';
export { RecursiveChunker } from './recursive-chunker.js';
export { StructureAwareChunker } from './structure-aware-chunker.js';
export { ArabicTextChunker } from './arabic-text-chunker.js';
export { ContextAwareChunker, contextAwareChunkerOptionsSchema, type ContextAwareChunkerOptions } from './context-aware-chunker.js';
export { parseMarkdownBlocks, type MarkdownBlock, type BlockKind } from './markdown-blocks.js';
