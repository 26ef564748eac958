import type { Metadata } from '@zerda/types';
import type { ChunkConfig, ChunkConfigInput } from './chunk-config.js';
import { BaseChunker } from './base-chunker.js';
import type { AnnotatedSpan } from './chunk-builder.js';
import { parseMarkdownBlocks, type BlockKind, type MarkdownBlock } from './markdown-blocks.js';
import { packUnits } from './packing.js';
import {
  cutAt,
  segment,
  splitClauses,
  splitLines,
  splitSentenceRanges,
  splitTokens,
  splitWords,
  type Level,
  type Measure,
  type Splitter,
  type Unit,
} from './segmentation.js';

// Boundary strengths inside a section: between blocks beats between list items / table rows /
// code lines, which beats sentences … A heading binds to what follows it.
const BETWEEN_BLOCKS = 7;
const BETWEEN_ITEMS = 6;
const AFTER_HEADING = -1;

const SENTENCE_LEVELS: readonly Level[] = [
  // In Markdown a single line break inside a paragraph is a soft wrap: sentences come first.
  { name: 'sentence', strength: 4, split: splitSentenceRanges },
  { name: 'clause', strength: 3, split: splitClauses },
  { name: 'word', strength: 2, split: splitWords },
  { name: 'token', strength: 1, split: splitTokens },
];

function splitAtStarts(starts: readonly number[]): Splitter {
  return (text, start, end) => cutAt(text, start, end, starts);
}

/** How an oversize block is split, by kind. Code never goes below whole lines. */
function levelsFor(block: MarkdownBlock): readonly Level[] {
  switch (block.kind) {
    case 'list':
      return [{ name: 'item', strength: BETWEEN_ITEMS, split: splitAtStarts(block.itemStarts ?? []) }, { name: 'line', strength: 5, split: splitLines }, ...SENTENCE_LEVELS];
    case 'table':
      return [{ name: 'row', strength: BETWEEN_ITEMS, split: splitAtStarts(block.itemStarts ?? []) }, ...SENTENCE_LEVELS.slice(2)];
    case 'code':
      return [
        { name: 'blank-line', strength: BETWEEN_ITEMS, split: splitCodeParagraphs },
        { name: 'line', strength: 5, split: splitLines },
      ];
    case 'frontmatter':
      return [{ name: 'line', strength: 5, split: splitLines }];
    default:
      return SENTENCE_LEVELS;
  }
}

/** Code: blank lines separate groups of lines (functions, paragraphs of a config file). */
const splitCodeParagraphs: Splitter = (text, start, end) => {
  const scope = text.slice(start, end);
  const cuts: number[] = [];
  const regex = /\r?\n[^\S\r\n]*\r?\n/gu;
  let match: RegExpExecArray | null;
  while ((match = regex.exec(scope)) !== null) cuts.push(start + match.index + match[0].length);
  return cutAt(text, start, end, cuts);
};

interface Section {
  headingPath: string[];
  blocks: MarkdownBlock[];
  /** The section holds a block other than a heading. */
  hasContent: boolean;
}

/**
 * Groups blocks into sections: a section starts at each heading and holds the blocks up to the next
 * one. A section with no content of its own (a heading directly followed by another heading) is
 * joined to the next section, so no chunk is a lone heading. Linear in the number of blocks.
 */
function sectionsOf(blocks: readonly MarkdownBlock[]): Section[] {
  const sections: Section[] = [];
  const stack: Array<{ level: number; title: string }> = [];
  let current: Section = { headingPath: [], blocks: [], hasContent: false };
  // The heading path is built once per section (when it gets content or ends), not once per
  // heading: a run of headings without bodies would otherwise allocate a path for every one.
  let pathStale = false;
  const settlePath = (): void => {
    if (!pathStale) return;
    current.headingPath = stack.map((entry) => entry.title);
    pathStale = false;
  };
  for (const block of blocks) {
    if (block.kind === 'heading') {
      const level = block.level ?? 1;
      if (current.hasContent) {
        settlePath();
        sections.push(current);
        current = { headingPath: [], blocks: [], hasContent: false };
      }
      while (stack.length > 0 && (stack[stack.length - 1] as { level: number }).level >= level) stack.pop();
      stack.push({ level, title: block.title ?? '' });
      // Headings without content accumulate into the section of the next content.
      current.blocks.push(block);
      pathStale = true;
    } else {
      settlePath();
      current.blocks.push(block);
      current.hasContent = true;
    }
  }
  settlePath();
  if (current.blocks.length > 0) sections.push(current);
  return sections;
}

/** Index of the first block (sorted, non-overlapping) that ends after `offset`. */
function firstBlockEndingAfter(blocks: readonly MarkdownBlock[], offset: number): number {
  let low = 0;
  let high = blocks.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((blocks[middle] as MarkdownBlock).end <= offset) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Chunks Markdown along its structure. Each chunk lies within one section and records the section's
 * heading path (`metadata.headingPath`, e.g. `['Guide', 'Install']`, and `metadata.heading`, the
 * innermost title) and the kinds of block it holds (`metadata.blockTypes`). Blocks — paragraphs,
 * lists, tables, fenced code, quotes — are kept whole whenever they fit in `size`, and chunks end
 * between blocks where possible. An oversize block is split at its own boundaries: list items,
 * table rows, blank lines then lines of code (never inside a line: a code line longer than `size`
 * is kept whole and reported as oversize), sentences then words of a paragraph. A heading always
 * starts the chunk of the content that follows it. Plain text without Markdown structure is
 * chunked by paragraphs and sentences.
 */
export class StructureAwareChunker extends BaseChunker {
  constructor(config?: ChunkConfigInput | ChunkConfig) {
    super(config, 'config');
  }

  protected spans(text: string, measure: Measure): AnnotatedSpan[] {
    const blocks = parseMarkdownBlocks(text);
    const spans: AnnotatedSpan[] = [];
    for (const section of sectionsOf(blocks)) {
      const units: Unit[] = [];
      section.blocks.forEach((block) => {
        const after = block.kind === 'heading' ? AFTER_HEADING : BETWEEN_BLOCKS;
        segment(text, block.start, block.end, levelsFor(block), measure, this.config.size, after, units);
      });
      const sectionSpans = packUnits(text, units, { ...this.config, measure });
      for (const span of sectionSpans) {
        spans.push({ ...span, metadata: this.#metadata(section, span) });
      }
    }
    return spans;
  }

  #metadata(section: Section, span: { start: number; end: number }): Metadata {
    const kinds: BlockKind[] = [];
    const languages: string[] = [];
    // Only the blocks the span overlaps are visited (found by binary search), so annotating every
    // span of a section with many blocks stays linear overall.
    const { blocks } = section;
    for (let index = firstBlockEndingAfter(blocks, span.start); index < blocks.length; index++) {
      const block = blocks[index] as MarkdownBlock;
      if (block.start >= span.end) break;
      if (!kinds.includes(block.kind)) kinds.push(block.kind);
      if (block.language && !languages.includes(block.language)) languages.push(block.language);
    }
    const metadata: Metadata = { headingPath: [...section.headingPath], blockTypes: kinds };
    const heading = section.headingPath[section.headingPath.length - 1];
    if (heading !== undefined) metadata.heading = heading;
    if (languages.length > 0) metadata.codeLanguages = languages;
    return metadata;
  }
}
