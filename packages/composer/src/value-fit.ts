import { charCounter, truncateAtWordBoundary, type Sentence } from '@zerda/text';
import type { DroppedChunk } from '@zerda/types';
import type { Composition } from './composition.js';
import { wholeChunk, type Candidate, type FittedChunk, type KeptSpan } from './passages.js';
import { ELLIPSIS, emptyText, isBlank, leftOut, type FitOutcome } from './rank-order-fit.js';
import { ValueHeap } from './value-heap.js';

/**
 * The value-based fit (a greedy knapsack of sentence values per counter unit, the rest of the budget
 * filled with a prefix) and what a fit holds by the sentence model (`fitMeasures`).
 */

/** Per-candidate sentence values the value-based fit works with. */
export interface CandidateValues {
  sentences: readonly Sentence[];
  /** Per sentence: the estimated probability that it holds the answer (the sentence model), > 0. */
  values: readonly number[];
  /** Per sentence: whether it may be chosen (compression `always` keeps only query-relevant ones). */
  eligible?: readonly boolean[];
}

/** How many picks that no longer fit are weighed as the prefix that fills the budget. */
const CUT_CANDIDATES = 8;

/**
 * The value a prefix of sentences `from`–`to` of `state` would hold in `room` estimated units: the
 * sentences that fit whole, and the one cut in proportion to what of it fits.
 */
function prefixEstimate(state: ValueState, from: number, to: number, room: number): number {
  let value = 0;
  let left = room;
  for (let index = from; index <= to && left > 0; index++) {
    const cost = state.cost[index]! + (index > from ? state.join[index]! : 0);
    const share = cost <= left ? 1 : left / Math.max(cost, 1e-9);
    value += state.values.values[index]! * share;
    left -= cost;
  }
  return value;
}

/** Chunks with more sentences than this are not spread over (see `ValueState.decay`): a pick re-prices the whole chunk. */
const SPREAD_MAX_SENTENCES = 64;

/** A prefix cut to fill the budget keeps at least this many characters (a chunk's only text: `minChunkLength`). */
const MIN_PREFIX_CHARACTERS = 20;

interface ValueState {
  candidate: Candidate;
  values: CandidateValues;
  chosen: boolean[];
  count: number;
  /** Highest chosen sentence index, -1 when none. */
  last: number;
  /** Estimated counter units of each sentence. */
  cost: number[];
  /** Estimated units of the text between sentence i − 1 and i (0 for the first). */
  join: number[];
  /** Estimated units of the chunk's frame in the template (header, separator). */
  overhead: number;
  /** Prefix sums over sentences: code points at each sentence's start and end, cost, join, value. */
  codePointsAtStart: number[];
  codePointsAtEnd: number[];
  costSum: number[];
  joinSum: number[];
  valueSum: number[];
  /** Global id of this chunk's first sentence. */
  firstItem: number;
  /** Characters this chunk's first pick must span (`minChunkLength`, or more for evidence queries: see `CompositionSetup.evidence`). */
  minimum: number;
  /**
   * What each further sentence of this chunk is worth relative to the first, per sentence already
   * kept (evidence queries spread over more documents; 1: no decay).
   */
  decay: number;
}

interface Price {
  /** Sentences a pick brings in (the window of a chunk's first pick, else one). */
  from: number;
  to: number;
  cost: number;
  value: number;
}

/**
 * Per sentence list (a chunk analysis's, kept between calls by the composer's analysis cache): the
 * code points of the chunk text before each sentence's start and end. Query-independent.
 */
const SENTENCE_CODE_POINTS = new WeakMap<readonly Sentence[], readonly number[]>();

/** Code points of `text` before the start and the end of each of `sentences` (start of sentence i at 2i, end at 2i + 1). */
function sentenceCodePoints(text: string, sentences: readonly Sentence[]): readonly number[] {
  let codePoints = SENTENCE_CODE_POINTS.get(sentences);
  if (codePoints === undefined) {
    const offsets: number[] = [];
    for (const sentence of sentences) offsets.push(sentence.start, sentence.end);
    codePoints = codePointsBefore(text, offsets);
    SENTENCE_CODE_POINTS.set(sentences, codePoints);
  }
  return codePoints;
}

/** Code points of `text` before each UTF-16 offset in `offsets` (ascending), in one pass. */
function codePointsBefore(text: string, offsets: readonly number[]): number[] {
  const result: number[] = [];
  let count = 0;
  let position = 0;
  for (const offset of offsets) {
    while (position < offset) {
      const code = text.charCodeAt(position);
      position += code >= 0xd800 && code <= 0xdbff && position + 1 < text.length && (text.charCodeAt(position + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
      count += 1;
    }
    result.push(count);
  }
  return result;
}

function prefixSums(values: readonly number[]): number[] {
  const sums = [0];
  for (const value of values) sums.push(sums[sums.length - 1]! + value);
  return sums;
}

/** First index in [low, high] whose `value(index)` reaches `target` (values ascending), else high + 1. */
function firstReaching(low: number, high: number, target: number, value: (index: number) => number): number {
  let answer = high + 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (value(middle) >= target) {
      answer = middle;
      high = middle - 1;
    } else {
      low = middle + 1;
    }
  }
  return answer;
}

/**
 * The sentences a chunk's first pick of sentence `index` brings in: extended forward, then backward,
 * until they span `minChunkLength` characters (a chunk never enters as a stub), found by binary
 * search over prefix sums.
 */
function firstPickWindow(state: ValueState, index: number): { from: number; to: number } {
  const minChunkLength = state.minimum;
  const last = state.values.sentences.length - 1;
  const startAt = state.codePointsAtStart;
  const endAt = state.codePointsAtEnd;
  if (endAt[index]! - startAt[index]! >= minChunkLength) return { from: index, to: index };
  const to = Math.min(last, firstReaching(index, last, startAt[index]! + minChunkLength, (j) => endAt[j]!));
  if (endAt[to]! - startAt[index]! >= minChunkLength) return { from: index, to };
  // Extend backwards: the largest `from` whose span to `to` still reaches minChunkLength.
  let low = 0;
  let high = index - 1;
  let from = 0;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (endAt[to]! - startAt[middle]! >= minChunkLength) {
      from = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return { from, to };
}

/** What choosing sentence `index` of `state` costs and is worth now. */
function priceOf(state: ValueState, index: number, gapCost: number): Price {
  const values = state.values.values;
  if (state.count === 0) {
    const { from, to } = firstPickWindow(state, index);
    const cost = state.overhead + state.costSum[to + 1]! - state.costSum[from]! + state.joinSum[to + 1]! - state.joinSum[from + 1]!;
    return { from, to, cost, value: state.valueSum[to + 1]! - state.valueSum[from]! };
  }
  const before = state.chosen[index - 1] === true;
  const after = state.chosen[index + 1] === true;
  const glue = before && after ? state.join[index]! + state.join[index + 1]! - gapCost : before ? state.join[index]! : after ? state.join[index + 1]! : gapCost;
  return { from: index, to: index, cost: state.cost[index]! + glue, value: values[index]! * state.decay ** state.count };
}

function densityOf(price: Price): number {
  return price.value / Math.max(price.cost, 1e-9);
}

/** Options of {@link fitByValue}. */
export interface ValueFitOptions {
  /**
   * Counter units reserved for the lead: before anything is chosen by value, whole sentences are
   * kept in rank order — the first candidate's from its opening (a window of at least
   * `minChunkLength` characters, as every chunk's first pick), then the next candidate's — while
   * they fit in this many units. The context then holds everything lead packing of the same ranking
   * keeps within `leadUnits` (up to the sentence boundary), whatever the values say (default 0).
   */
  leadUnits?: number;
  /**
   * Where the lead ends: at the last whole sentence that fits in `leadUnits` (`sentences`, the default),
   * or at the last whole word (`words`): the rest of the lead's units are reserved for a word-boundary
   * prefix of the sentence the lead stopped at, which then takes whatever the value fit leaves of the
   * budget too (unless the value fit keeps that sentence whole). With `words` the context holds lead
   * packing of the same ranking within `leadUnits` up to a word boundary, not only up to a sentence
   * boundary — a lead whose first sentence is longer than `leadUnits` is not empty.
   */
  lead?: 'sentences' | 'words';
  /**
   * What the greedy takes first after the lead: the best value per unit (`density`, the default), or
   * the sentence (a first pick's window) worth most that fits (`value`) — the other half of the
   * classic greedy knapsack's guarantee, for a long answer sentence that short sentences of higher
   * value per unit would crowd out.
   */
  first?: 'density' | 'value';
}

/** A prefix of the text range `start`–`end` of a chunk (after everything it keeps), kept up to `kept`, cut with `ellipsis`. */
interface RangePrefix {
  start: number;
  kept: number;
  ellipsis: string;
}

/** The kept spans of a state as a fitted chunk (whole when every sentence is kept). */
function fittedOf(state: ValueState, prefix?: RangePrefix): FittedChunk | undefined {
  const sentences = state.values.sentences;
  if (state.count === 0 && !prefix) return undefined;
  if (!prefix && state.count === sentences.length) return wholeChunk(state.candidate);
  const spans: KeptSpan[] = [];
  sentences.forEach((sentence, index) => {
    if (state.chosen[index]) spans.push({ start: sentence.start, end: sentence.end });
  });
  if (prefix) {
    // The prefix is the last span unless the lead's cut sentence is followed by sentences chosen by value.
    const span: KeptSpan = { start: prefix.start, end: prefix.kept, ...(prefix.ellipsis ? { ellipsis: prefix.ellipsis } : {}) };
    const at = spans.findIndex((kept) => kept.start > prefix.start);
    if (at < 0) spans.push(span);
    else spans.splice(at, 0, span);
  }
  // Only leading text kept (from the chunk's start, perhaps cut): a truncation; otherwise a compression.
  const leading = spans[0]!.start === sentences[0]!.start && spans.every((span, index) => index === 0 || !/\S/u.test(state.candidate.chunk.text.slice(spans[index - 1]!.end, span.start)));
  return { candidate: state.candidate, spans, fit: leading && spans.length > 0 && (prefix !== undefined || state.count < sentences.length) ? 'truncated' : 'compressed' };
}

/**
 * Value-based fitting: every sentence of every candidate is worth the estimated probability that it
 * holds the answer (`values`), and the context should hold as much of that probability as the budget
 * allows — a knapsack, solved greedily by value per counter unit (a chunk's first pick pays for its
 * frame in the template and brings enough neighbouring sentences to reach `minChunkLength`; a
 * further pick pays for a gap marker unless it joins a kept neighbour). When the best remaining
 * sentence no longer fits, the rest of the budget goes to a word-boundary prefix of it (the
 * fractional item of a fractional knapsack: a prefix of length ℓ holds the answer with a chance that
 * grows with ℓ), so the budget is filled instead of left unused. Kept sentences stay in their
 * original order with the gap marker where sentences were left out. Choices are made on estimated
 * costs, then checked against the exact rendered length (picks are given back, most recent first,
 * until it fits), then the prefix is measured exactly. O(n log n) in the number of sentences.
 */
export function fitByValue(composition: Composition, valuesPerCandidate: readonly CandidateValues[], options?: ValueFitOptions & { first?: 'density' }): FitOutcome;
/** With `first: 'value'`: undefined when the fit would be the one by density (its first pick is the sentence worth most that fits). */
export function fitByValue(composition: Composition, valuesPerCandidate: readonly CandidateValues[], options: ValueFitOptions & { first: 'value' }): FitOutcome | undefined;
export function fitByValue(composition: Composition, valuesPerCandidate: readonly CandidateValues[], options: ValueFitOptions = {}): FitOutcome | undefined {
  const { candidates, minChunkLength, evidence, budget } = composition.setup;
  const gapCost = Math.max(0, composition.measure(composition.setup.gapMarker));
  const skipped: DroppedChunk[] = [];
  const states: ValueState[] = [];
  const owner: Array<{ state: ValueState; index: number }> = [];
  candidates.forEach((candidate, position) => {
    const values = valuesPerCandidate[position]!;
    const sentences = values.sentences;
    if (isBlank(candidate.chunk.text) || sentences.length === 0) {
      skipped.push(emptyText(candidate));
      return;
    }
    const text = candidate.chunk.text;
    const cost = sentences.map((sentence) => Math.max(0, composition.measurePiece(sentence.text)));
    const join = sentences.map((sentence, index) => (index === 0 ? 0 : Math.max(0, composition.measurePiece(text.slice(sentences[index - 1]!.end, sentence.start)))));
    const codePoints = sentenceCodePoints(text, sentences);
    const costSum = prefixSums(cost);
    const state: ValueState = {
      candidate,
      values,
      chosen: sentences.map(() => false),
      count: 0,
      last: -1,
      cost,
      join,
      overhead: passageOverhead(composition, candidate),
      codePointsAtStart: sentences.map((_, index) => codePoints[2 * index]!),
      codePointsAtEnd: sentences.map((_, index) => codePoints[2 * index + 1]!),
      costSum,
      joinSum: prefixSums(join),
      valueSum: prefixSums(values.values),
      firstItem: owner.length,
      // An evidence minimum in the budget's unit becomes characters at this chunk's own rate (tokens per character differ by script).
      minimum: evidence ? Math.max(minChunkLength, Math.ceil((evidence.minChunkUnits * codePoints[codePoints.length - 1]!) / Math.max(costSum[costSum.length - 1]!, 1))) : minChunkLength,
      // Re-pricing a whole chunk after each pick is what the decay costs, so only chunks of ordinary length get it.
      decay: evidence && sentences.length <= SPREAD_MAX_SENTENCES ? evidence.spread : 1,
    };
    states.push(state);
    sentences.forEach((_, index) => owner.push({ state, index }));
  });

  const heap = new ValueHeap();
  const eligible = (state: ValueState, index: number) => !state.chosen[index] && state.values.eligible?.[index] !== false;
  const price = (item: number) => {
    const { state, index } = owner[item]!;
    if (eligible(state, index)) heap.push(item, densityOf(priceOf(state, index, gapCost)));
    else heap.remove(item);
  };
  for (let item = 0; item < owner.length; item++) price(item);

  const picks: Array<{ state: ValueState; indices: number[]; previousLast: number }> = [];
  const apply = (state: ValueState, from: number, to: number) => {
    const indices: number[] = [];
    for (let index = from; index <= to; index++) {
      if (state.chosen[index]) continue;
      state.chosen[index] = true;
      indices.push(index);
    }
    const firstPick = state.count === 0;
    picks.push({ state, indices, previousLast: state.last });
    state.count += indices.length;
    state.last = Math.max(state.last, to);
    // Re-price what the pick changed: every sentence of a chunk that just paid for its frame (or whose
    // further sentences are worth less with each pick), else the neighbours.
    const touched = firstPick || state.decay < 1 ? state.values.sentences.map((_, index) => index) : [from - 1, to + 1];
    for (const index of touched) if (index >= 0 && index < state.values.sentences.length) price(state.firstItem + index);
    for (const index of indices) heap.remove(state.firstItem + index);
  };
  const undo = () => {
    const pick = picks.pop()!;
    for (const index of pick.indices) pick.state.chosen[index] = false;
    pick.state.count -= pick.indices.length;
    pick.state.last = pick.previousLast;
  };
  const prefixMinimum = (state: ValueState) => (state.count === 0 ? Math.max(state.minimum, MIN_PREFIX_CHARACTERS) : MIN_PREFIX_CHARACTERS);
  const canCut = (state: ValueState, index: number) => state.count === 0 || index > state.last;

  /** What the chosen sentences render as, with `prefix` (a cut range) in its chunk. */
  const build = (prefix?: RangePrefix & { state: ValueState }): FittedChunk[] => {
    const fitted: FittedChunk[] = [];
    for (const state of states) {
      const item = fittedOf(state, prefix && prefix.state === state ? prefix : undefined);
      if (item) fitted.push(item);
    }
    return fitted;
  };

  let remaining = budget;
  // 0. The lead: whole sentences in rank order, from the first candidate's opening on, while they fit
  // in `leadUnits` — what lead packing of the same ranking keeps at that budget, so the context always
  // holds it (see `ValueFitOptions.leadUnits`). With `lead: 'words'` the rest of the lead's units are
  // kept for a prefix of the sentence it stopped at (step 3 fills it).
  /** A range to fill with a word-boundary prefix; `minimum`: the fewest characters worth keeping (default `prefixMinimum`). */
  type Cut = { state: ValueState; index: number; from: number; to: number; minimum?: number };
  const leadUnits = Math.min(budget, Math.max(0, options.leadUnits ?? 0));
  let leadCut: Cut | undefined;
  if (leadUnits > 0) {
    let spent = 0;
    lead: for (const state of states) {
      for (let index = 0; index < state.values.sentences.length; index++) {
        if (!eligible(state, index)) break lead;
        // A passage enters with its opening window (at least `minChunkLength` characters, as every first pick), then sentence by sentence.
        const { to, cost } = state.count === 0 ? priceOf(state, index, gapCost) : { to: index, cost: state.cost[index]! + state.join[index]! };
        if (spent + cost > leadUnits) {
          const frame = state.count === 0 ? state.overhead : state.join[index]!;
          // A cut that continues the lead's text (the next piece or sentence of its passage) reads on
          // from it, so any whole word of it is worth keeping, as lead packing keeps it; a passage's
          // opening enters with a prefix of at least `prefixMinimum`.
          const minimum = state.count > 0 && index === state.last + 1 ? 1 : prefixMinimum(state);
          if (options.lead === 'words' && leadUnits - spent - frame >= minimum) {
            leadCut = { state, index, from: index, to, minimum };
            spent = leadUnits;
          }
          break lead;
        }
        apply(state, index, to);
        spent += cost;
        index = to;
      }
    }
    remaining -= spent;
  }
  // With `first: 'value'`, the sentence (a first pick's window) worth most that fits is taken before the
  // greedy — decided before anything is measured exactly, so that a fit the same as the greedy's costs no more.
  let first: { state: ValueState; price: Price } | undefined;
  if (options.first === 'value') {
    let best: { state: ValueState; index: number; price: Price } | undefined;
    for (const state of states) {
      for (let index = 0; index < state.values.sentences.length; index++) {
        if (!eligible(state, index)) continue;
        const price = priceOf(state, index, gapCost);
        if (price.cost <= remaining && (!best || price.value > best.price.value)) best = { state, index, price };
      }
    }
    // The greedy by density would take the same sentence first (or nothing fits): the same fit.
    const top = heap.pop();
    if (top) heap.push(top.item, top.priority);
    if (!best || !top || top.item === best.state.firstItem + best.index) return undefined;
    first = best;
  }
  // The lead's cut sentence (`lead: 'words'`): the prefix of it that lead packing of `leadUnits` keeps,
  // measured exactly with the lead alone. Estimated costs may spend some of its units on value picks;
  // the give-back below keeps this prefix whole, and step 3 only lengthens it.
  const leadReserve = leadCut ? longestPrefix(composition, build, leadCut.state, leadCut.state.values.sentences[leadCut.from]!.start, leadCut.state.values.sentences[leadCut.to]!.end, leadCut.minimum ?? prefixMinimum(leadCut.state), leadUnits) : undefined;
  if (first) {
    apply(first.state, first.price.from, first.price.to);
    remaining -= first.price.cost;
  }
  // 1. Greedy by value per unit on estimated costs; stop at the best sentence that no longer fits
  // when a prefix of it can take the rest of the budget.
  // What to fill the rest with: a range of sentences `from`–`to` (a chunk's first pick brings its window).
  // Once the best remaining pick no longer fits, the next few in value order are weighed too, by
  // what a prefix of each would hold in the room left (a window's value may sit in its later sentences).
  const cuts: Cut[] = [];
  for (let next = heap.pop(); next; next = heap.pop()) {
    const { state, index } = owner[next.item]!;
    const current = priceOf(state, index, gapCost);
    if (cuts.length === 0 && current.cost <= remaining) {
      apply(state, current.from, current.to);
      remaining -= current.cost;
      continue;
    }
    if (current.cost > remaining && canCut(state, current.from) && remaining >= prefixMinimum(state) + (state.count === 0 ? state.overhead : gapCost)) {
      cuts.push({ state, index, from: current.from, to: current.to });
      if (cuts.length >= CUT_CANDIDATES) break;
    }
  }
  let cut: Cut | undefined;
  let cutValue = 0;
  for (const candidate of cuts) {
    const value = prefixEstimate(candidate.state, candidate.from, candidate.to, remaining - (candidate.state.count === 0 ? candidate.state.overhead : gapCost));
    if (value > cutValue) {
      cut = candidate;
      cutValue = value;
    }
  }
  // 2. The exact measure decides: give back the latest picks until the rendered context fits.
  // The lead's cut range still to fill: from the first of its units the value fit has not kept (the
  // units before it, kept, hold the lead's text up to there) up to the next unit it keeps; undefined
  // when the value fit keeps the lead's reserved prefix already.
  const leadRange = (): { from: number; to: number; start: number } | undefined => {
    if (!leadCut || !leadReserve) return undefined;
    const { chosen, values } = leadCut.state;
    let from = leadCut.from;
    while (from <= leadCut.to && chosen[from]) from++;
    if (from > leadCut.to || values.sentences[from]!.start >= leadReserve.kept) return undefined;
    let to = from;
    while (to < leadCut.to && !chosen[to + 1]) to++;
    return { from, to, start: values.sentences[from]!.start };
  };
  // The reserved lead prefix counts in the give-back: value picks are given back before it is cut short.
  const reserved = (): (RangePrefix & { state: ValueState }) | undefined => {
    const range = leadRange();
    if (!range) return undefined;
    const end = leadCut!.state.values.sentences[range.to]!.end;
    return leadReserve!.kept <= end ? { ...leadReserve!, start: range.start, state: leadCut!.state } : { start: range.start, kept: end, ellipsis: '', state: leadCut!.state };
  };
  while (picks.length > 0 && !composition.fits(build(reserved()))) undo();
  let fitted = build();
  // 3. Fill the rest with a word-boundary prefix of the lead's cut range where the value fit has not
  // kept it (up to the next unit of its range the value fit kept: the prefix may sit before chosen
  // sentences of its chunk); else of the sentence the greedy stopped at (or, when a give-back moved
  // it out of reach, of the best sentence that can still be cut).
  const rest = leadRange();
  if (rest) {
    // Next to a kept unit of the lead's range the prefix reads on from it, or into it: any whole word is worth keeping.
    cut = { ...leadCut!, from: rest.from, to: rest.to, ...(rest.from > leadCut!.from || rest.to < leadCut!.to ? { minimum: 1 } : {}) };
  } else if (cut && (!canCut(cut.state, cut.from) || cut.state.chosen.slice(cut.from, cut.to + 1).some(Boolean))) cut = undefined;
  if (!cut) {
    let best = -1;
    for (const state of states) {
      state.values.sentences.forEach((_, index) => {
        if (!eligible(state, index) || !canCut(state, index)) return;
        const density = state.values.values[index]! / Math.max(state.cost[index]!, 1e-9);
        if (density > best) {
          best = density;
          const window = state.count === 0 ? firstPickWindow(state, index) : { from: index, to: index };
          cut = { state, index, ...window };
        }
      });
    }
  }
  if (cut) {
    const sentences = cut.state.values.sentences;
    // The longest word-boundary prefix the budget still holds with everything else chosen.
    const prefix = longestPrefix(composition, build, cut.state, sentences[cut.from]!.start, sentences[cut.to]!.end, cut.minimum ?? prefixMinimum(cut.state), budget);
    const filled = prefix ? build({ ...prefix, state: cut.state }) : undefined;
    if (filled && composition.fits(filled)) fitted = filled;
  }
  const used = new Set(fitted.map((item) => item.candidate));
  for (const state of states) if (!used.has(state.candidate)) skipped.push(leftOut(state.candidate));
  return { fitted, skipped };
}

/**
 * The longest word-boundary prefix of the text range `start`–`end` of `state`'s chunk (the sentence,
 * or a first pick's window of sentences) that `limit` units hold with everything `build` keeps —
 * measured on the whole rendered context, through the shared `truncateAtWordBoundary` — or undefined
 * when it would keep fewer than `minimum` characters.
 */
function longestPrefix(
  composition: Composition,
  build: (prefix?: RangePrefix & { state: ValueState }) => FittedChunk[],
  state: ValueState,
  start: number,
  end: number,
  minimum: number,
  limit: number,
): RangePrefix | undefined {
  const range = state.candidate.chunk.text.slice(start, end);
  const prefixOf = (kept: string): RangePrefix | undefined => {
    const cut = kept !== range && kept.endsWith(ELLIPSIS);
    const prefix = cut ? kept.slice(0, kept.length - ELLIPSIS.length) : kept;
    if (!range.startsWith(prefix) || prefix.length === 0) return undefined;
    return { start, kept: start + prefix.length, ellipsis: cut ? ELLIPSIS : '' };
  };
  const withPrefix = (kept: string): FittedChunk[] | undefined => {
    const prefix = prefixOf(kept);
    return prefix ? build({ ...prefix, state }) : undefined;
  };
  const contextCounter = composition.contextCounter(withPrefix);
  const found = prefixOf(truncateAtWordBoundary(range, limit, contextCounter, { ellipsis: ELLIPSIS }));
  if (!found) return undefined;
  const prefix = range.slice(0, found.kept - start);
  return charCounter(prefix) < minimum || isBlank(prefix) ? undefined : found;
}

/**
 * What a fit holds by the sentence model, two ways: `sum`, the expected number of kept sentences
 * holding the answer (each in proportion to how much of it is kept), and `presence`, the estimated
 * probability that at least one does, 1 − Π(1 − value × kept share) — the quantity answer-in-context
 * measures, which (unlike the sum) does not reward spreading the budget over many middling sentences.
 */
export function fitMeasures(fitted: readonly FittedChunk[], valuesOf: ReadonlyMap<Candidate, CandidateValues>): { sum: number; presence: number } {
  let total = 0;
  let absent = 1;
  for (const item of fitted) {
    const values = valuesOf.get(item.candidate);
    if (!values) continue;
    values.sentences.forEach((sentence, index) => {
      let kept = 0;
      for (const span of item.spans) kept += Math.max(0, Math.min(span.end, sentence.end) - Math.max(span.start, sentence.start));
      const length = sentence.end - sentence.start;
      if (kept > 0 && length > 0) {
        const held = Math.min(1, Math.max(0, values.values[index]!)) * Math.min(1, kept / length);
        total += values.values[index]! * Math.min(1, kept / length);
        absent *= 1 - held;
      }
    });
  }
  return { sum: total, presence: 1 - absent };
}

/**
 * Estimated cost of a chunk's frame in the template: header, separator, footer line. Measured once
 * per frame key of a built-in template within a composition (the default template's frame is the
 * same for every chunk); a custom template's frame is measured for every chunk.
 */
function passageOverhead(composition: Composition, candidate: Candidate): number {
  const key = composition.setup.template.frameKey?.(candidate.chunk);
  if (key === undefined) return measureOverhead(composition, candidate);
  let overhead = composition.frameOverheads.get(key);
  if (overhead === undefined) {
    overhead = measureOverhead(composition, candidate);
    composition.frameOverheads.set(key, overhead);
  }
  return overhead;
}

function measureOverhead(composition: Composition, candidate: Candidate): number {
  const placeholder = 'x';
  const probe = (count: number) =>
    composition.measurePiece(
      composition.render(
        Array.from({ length: count }, (_, index) => ({
          candidate: { ...candidate, rank: index + 1, chunk: { ...candidate.chunk, text: placeholder, id: `${candidate.chunk.id}\u0000${index}`, position: { index: index * 2 } } },
          spans: [{ start: 0, end: placeholder.length }],
          fit: 'whole' as const,
        })),
      ).context,
    );
  return Math.max(0, probe(2) - probe(1) - composition.measurePiece(placeholder));
}
