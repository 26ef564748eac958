import { ArabicTextChunker, RecursiveChunker, StructureAwareChunker } from '@zerda/chunks';
import { detectLanguage } from '@zerda/text';
import type { Chunker, DocumentChunk, Metadata } from '@zerda/types';
import { pagesOfRange, type LoadedDocument } from '@zerda/loaders';
import type { IndexSettings } from './workspace.js';

const MARKDOWN_FORMATS = new Set(['markdown', 'html', 'docx']);

/** The chunkers of one index run, created once. */
export class DocumentChunker {
  private readonly chunkers: Record<'recursive' | 'structure' | 'arabic', Chunker>;
  private readonly choice: IndexSettings['chunker'];

  constructor(settings: Pick<IndexSettings, 'chunker' | 'size' | 'overlap'>) {
    const config = { size: settings.size, overlap: settings.overlap };
    this.chunkers = { recursive: new RecursiveChunker(config), structure: new StructureAwareChunker(config), arabic: new ArabicTextChunker(config) };
    this.choice = settings.chunker;
  }

  /**
   * `auto`: Markdown structure for Markdown, HTML and DOCX (their text is Markdown), the
   * Arabic-aware chunker for other mostly-Arabic documents, the recursive one for the rest.
   */
  chunkerFor(document: LoadedDocument): Chunker {
    if (this.choice !== 'auto') return this.chunkers[this.choice];
    if (MARKDOWN_FORMATS.has(String(document.metadata.format))) return this.chunkers.structure;
    return detectLanguage(document.text.slice(0, 5000)) === 'ar' ? this.chunkers.arabic : this.chunkers.recursive;
  }

  /**
   * Chunks one document. Chunks carry the document's title and metadata; a PDF's page table is
   * replaced on each chunk by the pages it covers (`metadata.pages: [2, 3]`), for citations.
   */
  async chunk(document: LoadedDocument): Promise<DocumentChunk[]> {
    const { pages, ...metadata } = document.metadata;
    const chunks = await this.chunkerFor(document).chunk(document.text, {
      docId: document.docId,
      source: document.source,
      metadata: metadata as Metadata,
      ...(document.title ? { title: document.title } : {}),
    });
    if (pages === undefined) return chunks;
    return chunks.map((chunk) => {
      const start = chunk.position?.start;
      const end = chunk.position?.end;
      if (start === undefined || end === undefined) return chunk;
      return { ...chunk, metadata: { ...chunk.metadata, pages: pagesOfRange(pages, start, end) } };
    });
  }
}
