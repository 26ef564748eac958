import { invalidArgument } from '@zerda/types';

/** The kinds of Markdown block the structure-aware chunker distinguishes. */
export type BlockKind = 'frontmatter' | 'heading' | 'paragraph' | 'list' | 'table' | 'code' | 'quote' | 'rule';

/** A block with its exact character span (`text.slice(start, end)`, without its final line break). */
export interface MarkdownBlock {
  kind: BlockKind;
  start: number;
  end: number;
  /** Headings: level 1-6 and the title without markers. */
  level?: number;
  title?: string;
  /** Lists: where each top-level item starts. Tables: where each row starts. Code: each line. */
  itemStarts?: number[];
  /** Fenced code: the info string's first word (`ts`, `python`), when given. */
  language?: string;
}

interface Line {
  start: number;
  end: number;
  text: string;
}

const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/u;
const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/u;
const LIST_ITEM = /^( {0,3})([-+*]|\d{1,9}[.)])(?:[ \t]+|$)/u;
const QUOTE = /^ {0,3}>/u;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/u;
const TABLE_DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/u;
const BLANK = /^[ \t]*$/u;
const INDENTED = /^(?: {2,}|\t)/u;

const isSpaceOrTab = (character: string | undefined): boolean => character === ' ' || character === '\t';

/**
 * An ATX heading line (`## Title ##`): up to three spaces, 1–6 `#`, then whitespace and the title,
 * with an optional closing run of `#` after whitespace; `level` and the raw title (before trimming),
 * or undefined. Equivalent to `/^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/` but scanned
 * by hand: that regex retried its lazy title at every position of a long line of spaces (quadratic).
 */
export function parseAtxHeading(line: string): { level: number; title: string } | undefined {
  let index = 0;
  while (index < 3 && line[index] === ' ') index++;
  let level = 0;
  while (line[index + level] === '#') level++;
  if (level < 1 || level > 6) return undefined;
  const rest = line.slice(index + level);
  if (rest.length > 0 && !isSpaceOrTab(rest[0])) return undefined;
  // The title group needs leading whitespace; the closing run needs whitespace before it.
  let end = rest.length;
  while (end > 0 && isSpaceOrTab(rest[end - 1])) end--;
  let titleStart = 0;
  while (titleStart < end && isSpaceOrTab(rest[titleStart])) titleStart++;
  let hashes = end;
  while (hashes > 0 && rest[hashes - 1] === '#') hashes--;
  let whitespace = hashes;
  while (whitespace > 0 && isSpaceOrTab(rest[whitespace - 1])) whitespace--;
  // A closing run counts when whitespace precedes it and the title (lazily) ends before that whitespace.
  const titleEnd = hashes < end && whitespace < hashes && whitespace >= titleStart ? whitespace : end;
  return { level, title: rest.slice(titleStart, titleEnd) };
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  const regex = /\r\n|\n|\r/gu;
  let start = 0;
  let match: RegExpExecArray | null;
  while ((match = regex.exec(text)) !== null) {
    lines.push({ start, end: match.index, text: text.slice(start, match.index) });
    start = match.index + match[0].length;
  }
  lines.push({ start, end: text.length, text: text.slice(start) });
  return lines;
}

function startsOtherBlock(line: string): boolean {
  return parseAtxHeading(line) !== undefined || FENCE_OPEN.test(line) || QUOTE.test(line) || THEMATIC_BREAK.test(line) || LIST_ITEM.test(line);
}

function isTableStart(lines: Line[], index: number): boolean {
  const header = lines[index];
  const delimiter = lines[index + 1];
  return header !== undefined && delimiter !== undefined && header.text.includes('|') && delimiter.text.includes('-') && TABLE_DELIMITER.test(delimiter.text);
}

/**
 * Parses the block structure of a Markdown document (CommonMark's block rules, simplified):
 * YAML front matter, ATX and setext headings, fenced code (an unclosed fence runs to the end),
 * tables (header + delimiter row), lists (items with indented or lazy continuation lines and blank
 * lines between items), block quotes, thematic breaks and paragraphs. Blocks never overlap and
 * every non-blank line belongs to exactly one block.
 */
export function parseMarkdownBlocks(text: string): MarkdownBlock[] {
  if (typeof text !== 'string') throw invalidArgument('text', 'a string', text);
  const lines = splitLines(text);
  const blocks: MarkdownBlock[] = [];
  let index = 0;

  // Front matter: a first line of exactly '---' up to the next '---' or '...'.
  if (lines[0]?.text === '---') {
    const close = lines.findIndex((line, position) => position > 0 && (line.text === '---' || line.text === '...'));
    if (close > 0) {
      blocks.push({ kind: 'frontmatter', start: 0, end: (lines[close] as Line).end });
      index = close + 1;
    }
  }

  while (index < lines.length) {
    const line = lines[index] as Line;
    if (BLANK.test(line.text)) {
      index++;
      continue;
    }

    const fence = FENCE_OPEN.exec(line.text);
    if (fence && !(fence[2]?.startsWith('`') && fence[3]?.includes('`'))) {
      const marker = fence[2] as string;
      const closing = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$`, 'u');
      let close = index + 1;
      while (close < lines.length && !closing.test((lines[close] as Line).text)) close++;
      const last = Math.min(close, lines.length - 1);
      const language = fence[3]?.trim().split(/\s+/u)[0];
      blocks.push({
        kind: 'code',
        start: line.start,
        end: (lines[last] as Line).end,
        itemStarts: lines.slice(index, last + 1).map((codeLine) => codeLine.start),
        ...(language ? { language } : {}),
      });
      index = last + 1;
      continue;
    }

    const heading = parseAtxHeading(line.text);
    if (heading) {
      blocks.push({ kind: 'heading', start: line.start, end: line.end, level: heading.level, title: heading.title.trim() });
      index++;
      continue;
    }

    if (THEMATIC_BREAK.test(line.text)) {
      blocks.push({ kind: 'rule', start: line.start, end: line.end });
      index++;
      continue;
    }

    if (isTableStart(lines, index)) {
      let last = index + 1;
      while (last + 1 < lines.length && !BLANK.test((lines[last + 1] as Line).text) && (lines[last + 1] as Line).text.includes('|')) last++;
      const rows = lines.slice(index, last + 1);
      blocks.push({ kind: 'table', start: line.start, end: (lines[last] as Line).end, itemStarts: rows.map((row) => row.start) });
      index = last + 1;
      continue;
    }

    if (QUOTE.test(line.text)) {
      let last = index;
      while (last + 1 < lines.length) {
        const next = (lines[last + 1] as Line).text;
        if (BLANK.test(next) || (!QUOTE.test(next) && startsOtherBlock(next))) break;
        last++;
      }
      blocks.push({ kind: 'quote', start: line.start, end: (lines[last] as Line).end });
      index = last + 1;
      continue;
    }

    const item = LIST_ITEM.exec(line.text);
    if (item) {
      const indent = (item[1] as string).length;
      const itemStarts = [line.start];
      let last = index;
      let cursor = index + 1;
      while (cursor < lines.length) {
        const next = (lines[cursor] as Line).text;
        if (BLANK.test(next)) {
          // A blank line continues the list only if an item or indented content follows.
          let after = cursor + 1;
          while (after < lines.length && BLANK.test((lines[after] as Line).text)) after++;
          const following = lines[after]?.text;
          if (following === undefined) break;
          const followingItem = LIST_ITEM.exec(following);
          if ((followingItem && (followingItem[1] as string).length <= indent + 1) || INDENTED.test(following)) {
            cursor = after;
            continue;
          }
          break;
        }
        const nextItem = LIST_ITEM.exec(next);
        if (nextItem && (nextItem[1] as string).length <= indent + 1) {
          itemStarts.push((lines[cursor] as Line).start);
        } else if (!nextItem && !INDENTED.test(next) && startsOtherBlock(next)) {
          break;
        } else if (!nextItem && !INDENTED.test(next) && isTableStart(lines, cursor)) {
          break;
        }
        last = cursor;
        cursor++;
      }
      blocks.push({ kind: 'list', start: line.start, end: (lines[last] as Line).end, itemStarts });
      index = last + 1;
      continue;
    }

    // Paragraph: until a blank line or another block; a setext underline turns it into a heading.
    let last = index;
    let setext: number | undefined;
    while (last + 1 < lines.length) {
      const next = (lines[last + 1] as Line).text;
      if (BLANK.test(next)) break;
      const underline = SETEXT_UNDERLINE.exec(next);
      if (underline) {
        setext = (underline[1] as string).startsWith('=') ? 1 : 2;
        last++;
        break;
      }
      if (startsOtherBlock(next) || isTableStart(lines, last + 1)) break;
      last++;
    }
    if (setext !== undefined) {
      const titleLines = lines.slice(index, last).map((titleLine) => titleLine.text.trim());
      blocks.push({ kind: 'heading', start: line.start, end: (lines[last] as Line).end, level: setext, title: titleLines.join(' ') });
    } else {
      blocks.push({ kind: 'paragraph', start: line.start, end: (lines[last] as Line).end });
    }
    index = last + 1;
  }
  return blocks;
}
