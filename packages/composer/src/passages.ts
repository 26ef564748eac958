import { charCounter } from '@zerda/text';
import type { ComposerConfig, DocumentChunk, ScoredChunk } from '@zerda/types';
import type { ComposerPassage } from './templates.js';

/** A ranked chunk the composer may use. */
export interface Candidate {
  scored: ScoredChunk;
  chunk: DocumentChunk;
  /** 1-based rank (position in the ranked input). */
  rank: number;
}

/** A range of a chunk's text that stays in the context (UTF-16 offsets, end exclusive). */
export interface KeptSpan {
  start: number;
  end: number;
  /** Appended after this span when it ends inside a sentence (`…`); absent otherwise. */
  ellipsis?: string;
}

/** How much of a candidate the context keeps. */
export interface FittedChunk {
  candidate: Candidate;
  /** Kept ranges, sorted and disjoint. */
  spans: KeptSpan[];
  fit: 'whole' | 'compressed' | 'truncated';
}

export type Ordering = ComposerConfig['ordering'];

/** Whole chunk, kept verbatim. */
export function wholeChunk(candidate: Candidate): FittedChunk {
  return { candidate, spans: [{ start: 0, end: candidate.chunk.text.length }], fit: 'whole' };
}

const WHITESPACE_ONLY = /^\s*$/u;

/** Overlap shorter than this is not trusted when it is only detected textually (no positions). */
const MIN_TEXTUAL_OVERLAP = 8;
/** A positional gap up to this many characters between adjacent chunks is taken to be whitespace. */
const MAX_WHITESPACE_GAP = 2;

/** Length of the longest suffix of `left` that is also a prefix of `right` (prefix function, linear time). */
function longestSuffixPrefix(left: string, right: string): number {
  const limit = Math.min(left.length, right.length);
  if (limit === 0) return 0;
  const pattern = right.slice(0, limit);
  const text = left.slice(left.length - limit);
  const failure = new Int32Array(pattern.length);
  for (let i = 1, k = 0; i < pattern.length; i++) {
    while (k > 0 && pattern[i] !== pattern[k]) k = failure[k - 1] ?? 0;
    if (pattern[i] === pattern[k]) k += 1;
    failure[i] = k;
  }
  let matched = 0;
  for (let i = 0; i < text.length; i++) {
    while (matched > 0 && (matched === pattern.length || text[i] !== pattern[matched])) matched = failure[matched - 1] ?? 0;
    if (text[i] === pattern[matched]) matched += 1;
  }
  return matched;
}

function hasReliableSpan(chunk: DocumentChunk): chunk is DocumentChunk & { position: { start: number; end: number } } {
  const { start, end } = chunk.position ?? {};
  return typeof start === 'number' && typeof end === 'number' && end - start === chunk.text.length;
}

interface JoinPlan {
  /** Characters of `next` already present at the end of `previous`. */
  overlap: number;
  /** Text placed between the two when they do not overlap. */
  glue: string;
  /** True when text between them is missing (kept spans on either side must not be fused). */
  hole: boolean;
}

/**
 * How two chunks that follow each other in a document join: by their recorded character spans when
 * both have them, otherwise by the longest textual overlap (chunkers repeat a window of text).
 */
function planJoin(previous: DocumentChunk, next: DocumentChunk): JoinPlan {
  const separated = (): JoinPlan => {
    const needsSpace = !/\s$/u.test(previous.text) && !/^\s/u.test(next.text) && previous.text !== '' && next.text !== '';
    return { overlap: 0, glue: needsSpace ? ' ' : '', hole: false };
  };
  if (hasReliableSpan(previous) && hasReliableSpan(next)) {
    const gap = next.position.start - previous.position.end;
    if (gap === 0) return { overlap: 0, glue: '', hole: false };
    if (gap > 0) return gap <= MAX_WHITESPACE_GAP ? separated() : { overlap: 0, glue: ' ', hole: true };
    const overlap = -gap;
    if (overlap <= next.text.length && previous.text.endsWith(next.text.slice(0, overlap))) return { overlap, glue: '', hole: false };
  }
  const overlap = longestSuffixPrefix(previous.text, next.text);
  if (overlap >= MIN_TEXTUAL_OVERLAP || (overlap > 0 && overlap === next.text.length)) return { overlap, glue: '', hole: false };
  return separated();
}

interface PlacedSpan {
  start: number;
  end: number;
  ellipsis: string;
}

/**
 * Renders fitted chunks that are adjacent in one document as a single text: overlapping text is
 * written once, kept ranges that touch (or are separated only by whitespace) are fused, and every
 * place where text was left out gets `gapMarker`. With one chunk this is simply its kept text.
 */
export function renderGroup(group: readonly FittedChunk[], gapMarker: string): string {
  let documentText = '';
  const holes: number[] = [];
  const placed: PlacedSpan[] = [];
  let previous: DocumentChunk | undefined;
  for (const fitted of group) {
    const chunk = fitted.candidate.chunk;
    let offset: number;
    if (!previous) {
      offset = 0;
      documentText = chunk.text;
    } else {
      const plan = planJoin(previous, chunk);
      if (plan.overlap > 0) {
        offset = documentText.length - plan.overlap;
        documentText += chunk.text.slice(plan.overlap);
      } else {
        if (plan.hole) holes.push(documentText.length);
        documentText += plan.glue;
        offset = documentText.length;
        documentText += chunk.text;
      }
    }
    for (const span of fitted.spans) placed.push({ start: offset + span.start, end: offset + span.end, ellipsis: span.ellipsis ?? '' });
    previous = chunk;
  }
  placed.sort((a, b) => a.start - b.start || b.end - a.end);
  const runs: PlacedSpan[] = [];
  for (const span of placed) {
    const current = runs[runs.length - 1];
    const touches =
      current !== undefined &&
      (span.start <= current.end ||
        (WHITESPACE_ONLY.test(documentText.slice(current.end, span.start)) && !holes.some((hole) => hole >= current.end && hole <= span.start)));
    if (current && touches) {
      // Fused: a cut sentence that another chunk continues loses its ellipsis; the run's end decides.
      if (span.end > current.end) {
        current.end = span.end;
        current.ellipsis = span.ellipsis;
      }
    } else {
      runs.push({ ...span });
    }
  }
  return runs.map((run) => documentText.slice(run.start, run.end) + run.ellipsis).join(gapMarker);
}

/** Code points of the chunk's own text that the fitted chunk keeps (markers and ellipses excluded). */
export function keptCharacters(fitted: FittedChunk): number {
  let count = 0;
  for (const span of fitted.spans) count += charCounter(fitted.candidate.chunk.text.slice(span.start, span.end));
  return count;
}

function documentKey(chunk: DocumentChunk): string {
  return chunk.docId;
}

/**
 * Arranges fitted chunks into passages in the configured order:
 * - `rank`: best first;
 * - `edges`: best chunks at both ends, weakest in the middle ("lost in the middle": models read the
 *   start and end of a long context best) — ranks 1, 3, 5, … then …, 6, 4, 2;
 * - `document`: documents by their best rank, chunks in reading order (`position.index`), and
 *   chunks with consecutive indices merged into one passage.
 */
export function arrangePassages(fitted: readonly FittedChunk[], ordering: Ordering, gapMarker: string, textCache?: WeakMap<Candidate, Map<string, string>>): ComposerPassage[] {
  const byRank = [...fitted].sort((a, b) => a.candidate.rank - b.candidate.rank);
  let groups: FittedChunk[][];
  if (ordering === 'edges') {
    const front: FittedChunk[] = [];
    const back: FittedChunk[] = [];
    byRank.forEach((item, index) => (index % 2 === 0 ? front : back).push(item));
    groups = [...front, ...back.reverse()].map((item) => [item]);
  } else if (ordering === 'document') {
    const documents = new Map<string, FittedChunk[]>();
    for (const item of byRank) {
      const key = documentKey(item.candidate.chunk);
      const list = documents.get(key);
      if (list) list.push(item);
      else documents.set(key, [item]);
    }
    groups = [];
    for (const items of documents.values()) {
      items.sort((a, b) => a.candidate.chunk.position.index - b.candidate.chunk.position.index || a.candidate.rank - b.candidate.rank);
      let current: FittedChunk[] = [];
      for (const item of items) {
        const last = current[current.length - 1];
        if (last && item.candidate.chunk.position.index - last.candidate.chunk.position.index !== 1) {
          groups.push(current);
          current = [];
        }
        current.push(item);
      }
      if (current.length > 0) groups.push(current);
    }
  } else {
    groups = byRank.map((item) => [item]);
  }
  // Fitting renders the same chunk with the same spans many times; its text is computed once.
  const textOf = (group: FittedChunk[]): string => {
    if (!textCache || group.length !== 1) return renderGroup(group, gapMarker);
    const item = group[0]!;
    let texts = textCache.get(item.candidate);
    if (!texts) {
      texts = new Map();
      textCache.set(item.candidate, texts);
    }
    const key = item.spans.map((span) => `${span.start}-${span.end}${span.ellipsis ?? ''}`).join(',');
    let text = texts.get(key);
    if (text === undefined) {
      text = renderGroup(group, gapMarker);
      texts.set(key, text);
    }
    return text;
  };
  return groups.map((group, index) => ({
    chunk: group[0]!.candidate.chunk,
    chunks: group.map((item) => item.candidate.chunk),
    text: textOf(group),
    number: index + 1,
  }));
}
