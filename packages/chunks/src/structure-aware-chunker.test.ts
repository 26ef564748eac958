import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { charCounter } from '@zerda/text';
import type { DocumentChunk } from '@zerda/types';
import { StructureAwareChunker } from './structure-aware-chunker.js';
import { parseAtxHeading, parseMarkdownBlocks } from './markdown-blocks.js';
import { expectChunkInvariants, isSingleWord } from './__fixtures__/invariants.js';

const GUIDE = `# Zerda guide

Zerda composes context for language models.

## Install

Run the installer. It needs Node 20.

- pnpm add @zerda/context
- pnpm add @zerda/embeddings
  (optional, for vectors)
- pnpm add @zerda/vector-hnswlib

### Check

| command | result |
|---|---|
| node -v | v20 |
| pnpm -v | 12 |

## الاستخدام

\`\`\`ts
import { ContextEngine } from '@zerda/context';
# this is a comment in code, not a heading
const engine = new ContextEngine();
\`\`\`

Setext title
------------

Plain paragraph under the setext heading.
`;

function paths(chunks: DocumentChunk[]): unknown[] {
  return chunks.map((chunk) => chunk.metadata.headingPath);
}

describe('parseMarkdownBlocks', () => {
  it('finds headings, paragraphs, lists, tables and code with exact spans', () => {
    const blocks = parseMarkdownBlocks(GUIDE);
    expect(blocks.map((block) => block.kind)).toEqual(['heading', 'paragraph', 'heading', 'paragraph', 'list', 'heading', 'table', 'heading', 'code', 'heading', 'paragraph']);
    const list = blocks[4]!;
    expect(GUIDE.slice(list.start, list.end)).toBe('- pnpm add @zerda/context\n- pnpm add @zerda/embeddings\n  (optional, for vectors)\n- pnpm add @zerda/vector-hnswlib');
    expect(list.itemStarts).toHaveLength(3);
    expect(blocks[8]).toMatchObject({ kind: 'code', language: 'ts' });
    expect(blocks[9]).toMatchObject({ kind: 'heading', level: 2, title: 'Setext title' });
    expect(blocks[7]).toMatchObject({ level: 2, title: 'الاستخدام' });
  });

  it('runs an unclosed fence to the end and reads front matter', () => {
    const text = '---\ntitle: x\n---\nIntro.\n\n```\ncode line\n# still code';
    expect(parseMarkdownBlocks(text).map((block) => [block.kind, text.slice(block.start, block.end)])).toEqual([
      ['frontmatter', '---\ntitle: x\n---'],
      ['paragraph', 'Intro.'],
      ['code', '```\ncode line\n# still code'],
    ]);
  });
});

describe('StructureAwareChunker', () => {
  it('records the heading path of every chunk and binds headings to their content', () => {
    const chunks = new StructureAwareChunker({ size: 200 }).chunk(GUIDE, { docId: 'guide', source: 'guide.md' });
    expectChunkInvariants(GUIDE, chunks, { size: 200, counter: charCounter });
    expect(paths(chunks)).toEqual([
      ['Zerda guide'],
      ['Zerda guide', 'Install'],
      ['Zerda guide', 'Install', 'Check'],
      ['Zerda guide', 'الاستخدام'],
      ['Zerda guide', 'Setext title'],
    ]);
    expect(chunks.map((chunk) => chunk.metadata.heading)).toEqual(['Zerda guide', 'Install', 'Check', 'الاستخدام', 'Setext title']);
    // Each section starts with its heading; the code block with its '#' line stays one block.
    expect(chunks[1]!.text.startsWith('## Install\n\nRun the installer.')).toBe(true);
    expect(chunks[3]!.text).toContain('# this is a comment in code, not a heading');
    expect(chunks[3]!.metadata).toMatchObject({ blockTypes: ['heading', 'code'], codeLanguages: ['ts'] });
    expect(chunks[2]!.metadata.blockTypes).toEqual(['heading', 'table']);
  });

  it('keeps lists and tables whole where they fit, and splits them at items and rows otherwise', () => {
    const list = Array.from({ length: 12 }, (_, index) => `- item number ${index} with some words`).join('\n');
    const table = ['| a | b |', '|---|---|', ...Array.from({ length: 12 }, (_, index) => `| row ${index} | value ${index} |`)].join('\n');
    const text = `# Lists\n\n${list}\n\n# Tables\n\n${table}\n`;
    const whole = new StructureAwareChunker({ size: 1000 }).chunk(text);
    expect(whole.map((chunk) => chunk.text)).toEqual([`# Lists\n\n${list}`, `# Tables\n\n${table}`]);

    const split = new StructureAwareChunker({ size: 120 }).chunk(text);
    expectChunkInvariants(text, split, { size: 120, counter: charCounter });
    for (const chunk of split) {
      const firstLine = chunk.text.split('\n')[0]!;
      expect(/^(# |- item|\| )/.test(firstLine), firstLine).toBe(true);
      expect(chunk.text.endsWith('words') || chunk.text.endsWith('|')).toBe(true);
    }
  });

  it('never splits fenced code inside a line, and reports a code line longer than the limit', () => {
    const longLine = `const data = [${Array.from({ length: 40 }, (_, index) => index).join(', ')}];`;
    const code = ['```js', 'function add(a, b) {', '  return a + b;', '}', '', longLine, 'console.log(add(1, 2));', '```'].join('\n');
    const text = `## Code\n\n${code}\n`;
    const chunker = new StructureAwareChunker({ size: 60 });
    const { chunks, report } = chunker.chunkWithReport(text);
    expectChunkInvariants(text, chunks, { size: 60, counter: charCounter, oversize: (chunk) => !chunk.text.includes('\n') });
    const lineStarts = new Set([0, ...[...text.matchAll(/\n/g)].map((match) => match.index + 1)]);
    for (const chunk of chunks) {
      expect(lineStarts.has(chunk.position.start!)).toBe(true);
      expect(text[chunk.position.end!] === '\n' || chunk.position.end === text.length).toBe(true);
    }
    expect(report.oversize).toHaveLength(1);
    expect(chunks.find((chunk) => chunk.metadata.oversize === true)?.text).toBe(longLine);
  });

  it('splits an oversize paragraph at sentences and keeps chunks inside their section', () => {
    const long = Array.from({ length: 10 }, (_, index) => `Sentence ${index} explains a detail.`).join(' ');
    const text = `# A\n\n${long}\n\n# B\n\nShort.`;
    const chunks = new StructureAwareChunker({ size: 90, overlap: 20 }).chunk(text);
    expectChunkInvariants(text, chunks, { size: 90, overlap: 20, counter: charCounter });
    const sectionB = text.indexOf('# B');
    for (const chunk of chunks) {
      const inA = chunk.position.end! <= sectionB;
      expect(inA || chunk.position.start! >= sectionB).toBe(true);
      expect(chunk.metadata.headingPath).toEqual(inA ? ['A'] : ['B']);
    }
    expect(chunks[chunks.length - 1]!.text).toBe('# B\n\nShort.');
  });

  it('gives front matter and text before the first heading an empty heading path', () => {
    const text = '---\ntitle: Notes\n---\n\nIntro before headings.\n\n# First\n\nBody.';
    const chunks = new StructureAwareChunker({ size: 25 }).chunk(text);
    expectChunkInvariants(text, chunks, { size: 25, counter: charCounter, oversize: isSingleWord });
    expect(chunks[0]).toMatchObject({ text: '---\ntitle: Notes\n---', metadata: { headingPath: [], blockTypes: ['frontmatter'] } });
    expect(chunks[0]!.metadata.heading).toBeUndefined();
    expect(chunks[chunks.length - 1]!.metadata.headingPath).toEqual(['First']);
  });

  it('chunks Arabic Markdown with Arabic headings and punctuation', () => {
    const text = '# دليل المكتبة\n\nهذه مكتبة لبناء السياق. هل تدعم العربية؟ نعم، تدعمها بالكامل.\n\n## التثبيت\n\n- ثبّت الحزمة الأولى\n- ثبّت الحزمة الثانية';
    const chunks = new StructureAwareChunker({ size: 60 }).chunk(text);
    expectChunkInvariants(text, chunks, { size: 60, counter: charCounter });
    expect(paths(chunks)).toContainEqual(['دليل المكتبة', 'التثبيت']);
    expect(chunks[chunks.length - 1]!.text).toBe('## التثبيت\n\n- ثبّت الحزمة الأولى\n- ثبّت الحزمة الثانية');
  });

  it('user metadata is kept beside the structural keys', () => {
    const [chunk] = new StructureAwareChunker().chunk('# T\n\nBody.', { metadata: { lang: 'en', headingPath: 'overridden' } });
    expect(chunk!.metadata).toEqual({ lang: 'en', headingPath: ['T'], heading: 'T', blockTypes: ['heading', 'paragraph'] });
  });
});

describe('StructureAwareChunker on pathological structure (issue 15, defect 6)', () => {
  it('joins a long run of headings without bodies into the section of the content that follows', () => {
    const headings = Array.from({ length: 3000 }, (_, i) => `${'#'.repeat((i % 6) + 1)} h${i}`).join('\n');
    const text = `${headings}\n\nThe only paragraph.\n`;
    const chunks = new StructureAwareChunker({ size: 400 }).chunk(text, { docId: 'd' });
    expectChunkInvariants(text, chunks, { size: 400, counter: charCounter });
    const last = chunks.at(-1)!;
    expect(last.text).toContain('The only paragraph.');
    // The path is that of the last heading before the content: levels 1..6 of the last cycle.
    expect(last.metadata.headingPath).toEqual(['h2994', 'h2995', 'h2996', 'h2997', 'h2998', 'h2999']);
    expect(last.metadata.blockTypes).toEqual(expect.arrayContaining(['paragraph']));
  });

  it('annotates every chunk of a section of 5,000 blank-line paragraphs with the kinds of exactly its own blocks', () => {
    const paragraphs = Array.from({ length: 5000 }, (_, i) => (i % 500 === 499 ? '```\ncode\n```' : `p${i}`));
    const text = paragraphs.join('\n\n');
    const chunks = new StructureAwareChunker({ size: 300 }).chunk(text, { docId: 'd' });
    expectChunkInvariants(text, chunks, { size: 300, counter: charCounter });
    for (const chunk of chunks) {
      const expected = [...(/(^|\n)p\d/.test(chunk.text) ? ['paragraph'] : []), ...(chunk.text.includes('```') ? ['code'] : [])];
      expect([...(chunk.metadata.blockTypes as string[])].sort()).toEqual(expected.sort());
    }
  });

  it('chunks a setext underline run (lines of ===) into headings whose sections hold the text', () => {
    const text = 'title\n===\n'.repeat(5000);
    const chunks = new StructureAwareChunker({ size: 200 }).chunk(text, { docId: 'd' });
    expectChunkInvariants(text, chunks, { size: 200, counter: charCounter });
    expect(chunks.length).toBeGreaterThan(0);
  });
});

describe('parseAtxHeading: the ATX heading rule without a backtracking regex (issue 15, defect 6)', () => {
  const reference = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/u;
  it('agrees with the CommonMark-style regex on any short line', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('#', ' ', '\t', 'a', 'ب', '\u00a0', '\\'), { maxLength: 14 }), (parts) => {
        const line = parts.join('');
        const match = reference.exec(line);
        const parsed = parseAtxHeading(line);
        expect(parsed === undefined).toBe(match === null);
        if (match && parsed) expect([parsed.level, parsed.title]).toEqual([match[1]!.length, match[2] ?? '']);
      }),
      { numRuns: 3000 },
    );
  });

  it('reads a 200,000-character heading line of spaces at once', () => {
    const line = `# a${' '.repeat(200_000)}b`;
    expect(parseAtxHeading(line)).toEqual({ level: 1, title: line.slice(2) });
    expect(parseMarkdownBlocks(`${line}\n\ntext`).map((block) => block.kind)).toEqual(['heading', 'paragraph']);
  });
});
