/**
 * Extractive reduction of tool outputs for the prompt planner: a text (a log, a page, search
 * results) keeps its head, its tail and the segments most relevant to the question, in their
 * order, with the gaps marked; a JSON value keeps its structure (every kept object and array stays
 * one, the result always parses) with long strings cut, long arrays and objects thinned to their
 * most relevant members and deep levels summarised. Every reduction is measured with the planner's
 * counter and never exceeds the length it was given. Text paths are linear in the output: a
 * megabyte output is segmented in one pass, ranked once per question (cached) and only the
 * segments that are kept are counted.
 */
import { BoundedCache, defaultAnalyzer, fnv1a, truncateAtWordBoundary } from '@zerda/text';
import { KeywordRetriever } from '@zerda/retriever';
import type { LengthCounter } from '@zerda/types';

/** A segment of a text: `text.slice(start, end)`. */
interface Segment {
  start: number;
  end: number;
}

/** A text's segments and the indices of those relevant to a question, most relevant first. */
interface Ranking {
  segments: Segment[];
  relevant: number[];
  /** BM25 score of the most relevant segment (0 when none matches). */
  topScore: number;
  /** The text of the most relevant segments, joined (what the planner indexes for the part's relevance). */
  digest: string;
}

/** Segments grow line by line up to about this many characters (a paragraph break ends one). */
const SEGMENT_TARGET = 600;
/** A line longer than this is cut at whitespace into pieces of about {@link LINE_PIECE} characters. */
const SEGMENT_MAX = 2000;
const LINE_PIECE = 1000;
/** At most this many relevant segments are ranked per text and question. */
const RANKED_SEGMENTS = 64;
/** Texts are counted in slices of this many characters when only a bound is needed (short enough for the token counters to remember them: the same outputs are measured on every step). */
const COUNT_SLICE = 16_384;
/** Consecutive picks that do not fit before the selection stops. */
const MISSES_BEFORE_STOP = 8;

/**
 * Cuts `text` into segments in one pass: consecutive lines up to about {@link SEGMENT_TARGET}
 * characters, a blank line ending a segment, a very long line cut at whitespace (or, without
 * whitespace, every {@link LINE_PIECE} characters, never inside a surrogate pair).
 */
export function segmentText(text: string): Segment[] {
  const segments: Segment[] = [];
  let start = 0;
  let position = 0;
  const length = text.length;
  const close = (end: number) => {
    if (end > start) segments.push({ start, end });
    start = end;
  };
  while (position < length) {
    let lineEnd = text.indexOf('\n', position);
    lineEnd = lineEnd < 0 ? length : lineEnd + 1;
    if (lineEnd - position > SEGMENT_MAX) {
      close(position);
      let pieceStart = position;
      while (lineEnd - pieceStart > SEGMENT_MAX) {
        let cut = pieceStart + LINE_PIECE;
        const limit = Math.min(lineEnd, pieceStart + SEGMENT_MAX);
        while (cut < limit && !/\s/u.test(text[cut]!)) cut++;
        if (cut >= limit) cut = pieceStart + LINE_PIECE;
        const code = text.charCodeAt(cut);
        if (code >= 0xdc00 && code <= 0xdfff) cut++;
        segments.push({ start: pieceStart, end: cut });
        pieceStart = cut;
      }
      start = pieceStart;
      position = lineEnd;
      close(lineEnd);
      continue;
    }
    const blank = text.slice(position, lineEnd).trim().length === 0;
    position = lineEnd;
    if (blank || position - start >= SEGMENT_TARGET) close(position);
  }
  close(length);
  return segments;
}

const rankings = new BoundedCache<string, Ranking>(1024, { maxWeight: 50_000_000, weigh: (_key, ranking) => 16 * ranking.segments.length + ranking.digest.length + 64 });

function textKey(text: string, question: string): string {
  return `${text.length}:${fnv1a(text)}:${question}`;
}

/**
 * The segments of `text` and the ones BM25 finds relevant to `question` (the same keyword index and
 * analyzer as retrieval), remembered per text and question: the later steps of a tool loop see the
 * same outputs again.
 */
export async function rankSegments(text: string, question: string): Promise<Ranking> {
  const key = textKey(text, question);
  const known = rankings.get(key);
  if (known) return known;
  const segments = segmentText(text);
  let relevant: number[] = [];
  let topScore = 0;
  if (question.trim().length > 0 && segments.length > 0 && defaultAnalyzer.analyze(question).length > 0) {
    const index = new KeywordRetriever({ name: 'prompt-planner' });
    await index.index(segments.map((segment, position) => ({ id: String(position), docId: 'output', source: 'tool-output', metadata: {}, position: { index: position }, text: text.slice(segment.start, segment.end) })));
    const hits = await index.retrieve(question, { topK: RANKED_SEGMENTS });
    relevant = hits.filter((hit) => hit.score > 0).map((hit) => Number(hit.chunk.id));
    topScore = hits[0]?.score ?? 0;
  }
  const digest = relevant
    .slice(0, 3)
    .map((index) => text.slice(segments[index]!.start, segments[index]!.end))
    .join('\n');
  const ranking = { segments, relevant, topScore, digest };
  rankings.set(key, ranking);
  return ranking;
}

/**
 * Whether `counter(text) <= limit`, without counting more than about `limit` worth of a long text:
 * slices are counted until their sum passes the limit; only a text whose slices fit is counted whole.
 * Returns the exact count when it fits, else undefined.
 */
export function countWithin(text: string, limit: number, counter: LengthCounter): number | undefined {
  if (text.length > COUNT_SLICE) {
    let sum = 0;
    for (let from = 0; from < text.length; from += COUNT_SLICE) {
      sum += counter(text.slice(from, from + COUNT_SLICE));
      if (sum > limit * 1.1 + 16) return undefined;
    }
  }
  const exact = counter(text);
  return exact <= limit ? exact : undefined;
}

function omission(characters: number): string {
  return `[… ${characters} characters omitted …]`;
}

/**
 * The extract of `text` that fits in `limit` units of `counter`: the segment most relevant to the
 * question, the tail and head segments, the other relevant segments, then more of the head and tail, rendered in their
 * order with each gap marked `[… N characters omitted …]`. `text` itself when it fits; a lone marker
 * (or `''`) when nothing else does.
 */
export async function reduceText(text: string, limit: number, counter: LengthCounter, question: string): Promise<string> {
  if (countWithin(text, limit, counter) !== undefined) return text;
  const ranking = await rankSegments(text, question);
  let { segments, relevant } = ranking;
  const top = relevant[0];
  if (top !== undefined && counter(text.slice(segments[top]!.start, segments[top]!.end)) > limit / 2) {
    // The most relevant segment is too long for this limit: its lines take its place, those that
    // hold question terms ranked first (most terms first), so that a small limit keeps the line that matters.
    ({ segments, relevant } = splitIntoLines(text, segments, relevant, top, question));
  }
  const count = segments.length;
  // The most relevant segment first, then the tail and the head (a log's last lines, where it ends or fails, and its start), then the other relevant ones.
  const picks: number[] = [];
  if (relevant.length > 0) picks.push(relevant[0]!);
  if (count > 1) picks.push(count - 1);
  if (count > 0) picks.push(0);
  picks.push(...relevant.slice(1));
  const chosen = new Set<number>();
  const order: number[] = [];
  let estimate = 0;
  let misses = 0;
  const marker = counter(omission(text.length)) + 1;
  const tryPick = (index: number) => {
    if (chosen.has(index)) return;
    const segment = segments[index]!;
    const cost = counter(text.slice(segment.start, segment.end)) + marker;
    if (estimate + cost <= limit) {
      chosen.add(index);
      order.push(index);
      estimate += cost;
      misses = 0;
    } else {
      misses++;
    }
  };
  for (const index of picks) {
    if (misses >= MISSES_BEFORE_STOP) break;
    tryPick(index);
  }
  // More of the head and the tail, alternately, while they fit.
  misses = 0;
  for (let head = 1, tail = count - 2; head <= tail && misses < MISSES_BEFORE_STOP && estimate < limit; head++, tail--) {
    tryPick(head);
    if (tail !== head) tryPick(tail);
  }
  const render = (): string => {
    const kept = [...chosen].sort((a, b) => a - b);
    const pieces: string[] = [];
    let last = 0;
    for (const index of kept) {
      const segment = segments[index]!;
      if (segment.start > last) pieces.push(omission(segment.start - last), '\n');
      pieces.push(text.slice(segment.start, segment.end));
      last = segment.end;
    }
    if (last < text.length) {
      if (pieces.length > 0 && !pieces[pieces.length - 1]!.endsWith('\n')) pieces.push('\n');
      pieces.push(omission(text.length - last));
    }
    return pieces.join('');
  };
  let rendered = render();
  // The estimate adds segment counts; the rendered text is counted exactly, and picks are undone
  // (latest first) until it fits.
  while (chosen.size > 0 && counter(rendered) > limit) {
    chosen.delete(order.pop()!);
    rendered = render();
  }
  if (chosen.size > 0) return rendered;
  // Not one segment fits whole: the most relevant (or first) one cut at a word boundary.
  const best = segments[relevant[0] ?? 0];
  const lone = omission(text.length);
  if (best) {
    const prefix = best.start > 0 ? `${omission(best.start)}\n` : '';
    const room = limit - counter(prefix) - marker;
    if (room > 0) {
      const cut = truncateAtWordBoundary(text.slice(best.start, Math.min(best.end, best.start + SEGMENT_MAX)), room, counter);
      if (cut.length > 0) {
        const candidate = `${prefix}${cut}\n${omission(text.length - best.end)}`;
        if (counter(candidate) <= limit) return candidate;
      }
    }
  }
  return counter(lone) <= limit ? lone : '';
}

/** `segments` with segment `at` replaced by its lines, and the ranking adjusted: its lines holding question terms first. */
function splitIntoLines(text: string, segments: Segment[], relevant: number[], at: number, question: string): { segments: Segment[]; relevant: number[] } {
  const { start, end } = segments[at]!;
  const lines: Segment[] = [];
  for (let from = start; from < end; ) {
    const newline = text.indexOf('\n', from);
    const to = newline < 0 || newline >= end ? end : newline + 1;
    lines.push({ start: from, end: to });
    from = to;
  }
  if (lines.length < 2) return { segments, relevant };
  const terms = new Set(defaultAnalyzer.analyze(question));
  const scored = lines.map((line, index) => ({ index, score: overlap(terms, text.slice(line.start, line.end)) })).filter((entry) => entry.score > 0);
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  const shift = lines.length - 1;
  return {
    segments: [...segments.slice(0, at), ...lines, ...segments.slice(at + 1)],
    relevant: [...scored.map((entry) => at + entry.index), ...relevant.filter((index) => index !== at).map((index) => (index > at ? index + shift : index))],
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Shape {
  items: number;
  string: number;
  depth: number;
}

function isJsonText(text: string): boolean {
  const first = text.trimStart()[0];
  return first === '{' || first === '[';
}

/** The parsed value of a text that is a JSON object or array, else undefined. */
export function parseJsonText(text: string): Json | undefined {
  if (!isJsonText(text)) return undefined;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

/** How many analysed question terms occur in `text` (its first few thousand characters). */
function overlap(terms: ReadonlySet<string>, text: string): number {
  if (terms.size === 0) return 0;
  let found = 0;
  for (const term of new Set(defaultAnalyzer.analyze(text.slice(0, 4000)))) if (terms.has(term)) found++;
  return found;
}

function summary(value: Json): string {
  if (Array.isArray(value)) return `[array of ${value.length} items]`;
  if (value !== null && typeof value === 'object') return `[object with ${Object.keys(value).length} keys]`;
  return String(value);
}

/**
 * The `limit` members of a list most relevant to the question (ties: the first ones), in their
 * order. A list's relevance order is computed once per reduction (`orders`), since the bounds shrink
 * and the same lists are thinned again.
 */
function relevantMembers<T>(list: object, members: T[], limit: number, terms: ReadonlySet<string>, orders: WeakMap<object, number[]>, textOf: (member: T) => string): T[] {
  if (members.length <= limit) return members;
  let order = orders.get(list);
  if (!order) {
    const scores = members.map((member) => (terms.size > 0 ? overlap(terms, textOf(member)) : 0));
    order = members.map((_member, index) => index).sort((a, b) => scores[b]! - scores[a]! || a - b);
    orders.set(list, order);
  }
  const kept = new Set(order.slice(0, limit));
  return members.filter((_member, index) => kept.has(index));
}

function shrink(value: Json, shape: Shape, terms: ReadonlySet<string>, orders: WeakMap<object, number[]>, depth: number): Json {
  if (typeof value === 'string') {
    return value.length > shape.string ? truncateAtWordBoundary(value, shape.string) : value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= shape.depth) return summary(value);
  if (Array.isArray(value)) {
    const kept = relevantMembers(value, value, shape.items, terms, orders, (member) => (typeof member === 'string' ? member : JSON.stringify(member).slice(0, 4000)));
    const reduced = kept.map((member) => shrink(member, shape, terms, orders, depth + 1));
    if (kept.length < value.length) reduced.push(`… ${value.length - kept.length} more items omitted`);
    return reduced;
  }
  const entries = Object.entries(value);
  const kept = relevantMembers(value, entries, shape.items, terms, orders, ([key, member]) => `${key} ${typeof member === 'string' ? member : JSON.stringify(member).slice(0, 4000)}`);
  const reduced: { [key: string]: Json } = {};
  for (const [key, member] of kept) reduced[key] = shrink(member, shape, terms, orders, depth + 1);
  if (kept.length < entries.length) reduced['…'] = `${entries.length - kept.length} more keys omitted`;
  return reduced;
}

/**
 * A JSON value reduced until its JSON text fits in `limit` units: arrays and objects thinned to
 * their members most relevant to the question (with a member saying how many were left out), long
 * strings cut at a word boundary, levels below a depth summarised (`[array of 40 items]`), each
 * bound halved until it fits. The result is always a JSON value (its text parses); `undefined` when
 * not even a one-line summary fits.
 */
export function reduceJson(value: unknown, limit: number, counter: LengthCounter, question: string): { value: unknown; text: string } | undefined {
  const whole = JSON.stringify(value) ?? 'null';
  if (countWithin(whole, limit, counter) !== undefined) return { value, text: whole };
  const terms = new Set(defaultAnalyzer.analyze(question));
  const shape: Shape = { items: 64, string: 2000, depth: 8 };
  const orders = new WeakMap<object, number[]>();
  for (;;) {
    const reduced = shrink(value as Json, shape, terms, orders, 0);
    const text = JSON.stringify(reduced);
    if (countWithin(text, limit, counter) !== undefined) return { value: reduced, text };
    if (shape.items === 1 && shape.string === 16 && shape.depth === 0) break;
    shape.items = Math.max(1, Math.floor(shape.items / 2));
    shape.string = Math.max(16, Math.floor(shape.string / 2));
    if (shape.items === 1 && shape.string === 16) shape.depth = Math.max(0, shape.depth - 1);
  }
  const text = JSON.stringify(summary(value as Json));
  return counter(text) <= limit ? { value: JSON.parse(text) as unknown, text } : undefined;
}
