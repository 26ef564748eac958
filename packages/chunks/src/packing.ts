import { tokenize } from '@zerda/text';
import { isWhitespace, type Measure, type Unit } from './segmentation.js';

/** A chunk before it becomes a DocumentChunk: a trimmed range of the document. */
export interface Span {
  start: number;
  end: number;
  /** Holds a unit longer than the size limit (kept whole). */
  oversize: boolean;
}

export interface PackOptions {
  size: number;
  overlap: number;
  minChunkSize: number;
  measure: Measure;
  /**
   * A chunk may end at a stronger boundary than the last one that fits, as long as it keeps at
   * least this share of the characters it could hold (so structure wins over filling to the brim,
   * within reason).
   */
  minFill?: number;
}

const DEFAULT_MIN_FILL = 0.5;

/**
 * Positions where an overlap may start inside `[start, end)`: the starts of whitespace-delimited
 * runs after `start` (so a run like "(see" is repeated whole), or, when the span has no whitespace,
 * the starts of its words.
 */
function overlapCandidates(text: string, start: number, end: number): number[] {
  const candidates: number[] = [];
  for (let index = start + 1; index < end; index++) {
    if (!isWhitespace(text, index) && isWhitespace(text, index - 1)) candidates.push(index);
  }
  if (candidates.length > 0) return candidates;
  return tokenize(text.slice(start, end))
    .map((token) => start + token.start)
    .filter((position) => position > start);
}

/** Index of the first candidate for which `ok` holds (ok is monotone: false…false true…true), or -1. */
function firstPassing(candidates: number[], ok: (position: number) => boolean): number {
  let low = -1;
  let high = candidates.length;
  while (high - low > 1) {
    const middle = (low + high) >>> 1;
    if (ok(candidates[middle] as number)) high = middle;
    else low = middle;
  }
  return high < candidates.length ? high : -1;
}

/**
 * Packs consecutive units into chunks of at most `size`: each chunk takes as many whole units as
 * fit (found by galloping + binary search, so counting stays near-linear), then ends at the
 * strongest boundary among those that keep it at least `minFill` full. With `overlap`, the next
 * chunk starts up to `overlap` back inside the previous one, at the start of a word. A unit that
 * alone exceeds `size` becomes a chunk of its own, flagged oversize. A unit whose `breakAfter` is
 * `+Infinity` always ends its chunk (the overlap may still reach back across it). Finally chunks shorter than
 * `minChunkSize` are merged into a neighbour when the result still fits.
 *
 * Guarantees: every unit lies inside a chunk; starts and ends strictly increase; only oversize
 * chunks exceed `size`.
 */
export function packUnits(text: string, units: readonly Unit[], options: PackOptions): Span[] {
  const { size, overlap, measure } = options;
  const minFill = options.minFill ?? DEFAULT_MIN_FILL;
  const spans: Span[] = [];
  if (units.length === 0) return spans;
  const fits = (start: number, end: number): boolean => measure(start, end) <= size;

  // A unit whose breakAfter is +Infinity ends its chunk whatever the sizes (a hard break).
  const hardBreak = new Array<number>(units.length);
  for (let k = units.length - 1; k >= 0; k--) {
    hardBreak[k] = (units[k] as Unit).breakAfter === Number.POSITIVE_INFINITY || k === units.length - 1 ? k : (hardBreak[k + 1] as number);
  }

  let index = 0;
  let chunkStart = (units[0] as Unit).start;
  let candidates: number[] = [];
  while (index < units.length) {
    const first = units[index] as Unit;
    if (!fits(chunkStart, first.end) && chunkStart < first.start) {
      // The overlap leaves no room for the next unit: start later, at the latest at the unit itself.
      const earliest = firstPassing(candidates, (position) => position > chunkStart && fits(position, first.end));
      chunkStart = earliest >= 0 ? (candidates[earliest] as number) : first.start;
      if (!fits(chunkStart, first.end)) chunkStart = first.start;
    }
    if (!fits(chunkStart, first.end)) {
      spans.push({ start: first.start, end: first.end, oversize: true });
      index += 1;
    } else {
      // Gallop forward while the chunk still fits, then binary-search the last unit that fits.
      const limit = (hardBreak[index] as number) + 1;
      let good = index;
      let step = 1;
      let probe = index + 1;
      while (probe < limit && fits(chunkStart, (units[probe] as Unit).end)) {
        good = probe;
        step *= 2;
        probe = good + step;
      }
      let low = good;
      let high = Math.min(probe, limit);
      while (high - low > 1) {
        const middle = (low + high) >>> 1;
        if (fits(chunkStart, (units[middle] as Unit).end)) low = middle;
        else high = middle;
      }
      let last = low;
      if (last < limit - 1) {
        const reach = (units[last] as Unit).end - chunkStart;
        let best = last;
        for (let k = last - 1; k >= index; k--) {
          if ((units[k] as Unit).end - chunkStart < minFill * reach) break;
          if ((units[k] as Unit).breakAfter > (units[best] as Unit).breakAfter) best = k;
        }
        last = best;
      }
      spans.push({ start: chunkStart, end: (units[last] as Unit).end, oversize: false });
      index = last + 1;
    }
    if (index >= units.length) break;
    const previous = spans[spans.length - 1] as Span;
    const next = units[index] as Unit;
    chunkStart = next.start;
    candidates = [];
    if (overlap > 0) {
      candidates = overlapCandidates(text, previous.start, previous.end);
      const earliest = firstPassing(candidates, (position) => measure(position, previous.end) <= overlap);
      if (earliest >= 0) chunkStart = candidates[earliest] as number;
    }
  }
  return mergeSmall(spans, options);
}

function mergeSmall(spans: Span[], options: PackOptions): Span[] {
  const { minChunkSize, size, measure } = options;
  if (minChunkSize <= 0 || spans.length < 2) return spans;
  const out: Span[] = [];
  for (const span of spans) {
    const previous = out[out.length - 1];
    if (previous && !previous.oversize && !span.oversize) {
      const previousSmall = measure(previous.start, previous.end) < minChunkSize;
      const currentSmall = measure(span.start, span.end) < minChunkSize;
      if ((previousSmall || currentSmall) && measure(previous.start, span.end) <= size) {
        out[out.length - 1] = { start: previous.start, end: span.end, oversize: false };
        continue;
      }
    }
    out.push(span);
  }
  return out;
}
