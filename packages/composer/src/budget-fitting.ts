import { charCounter, splitSentences, truncateAtWordBoundary, type Sentence } from '@zerda/text';
import type { DroppedChunk, LengthCounter } from '@zerda/types';
import type { Composition } from './composition.js';
import { keptCharacters, wholeChunk, type Candidate, type FittedChunk, type KeptSpan } from './passages.js';

/** The ellipsis a chunk cut inside a sentence ends with. */
export const ELLIPSIS = '…';

/** The chunks a fitting strategy chose, and why the others were left out. */
export interface FitOutcome {
  fitted: FittedChunk[];
  skipped: DroppedChunk[];
}

/** Per-candidate relevance the query-focused strategy works with. */
export interface CandidateRelevance {
  sentences: readonly Sentence[];
  /** Query coverage of each sentence, [0, 1]. */
  sentenceRelevance: readonly number[];
  /** How much the chunk as a whole is worth (rank, optionally embedding similarity), > 0. */
  weight: number;
}

/** A cut a chunk ends up with when it is too long for what is left of the budget. */
function prefixChunk(candidate: Candidate, end: number, ellipsis: string): FittedChunk {
  return { candidate, spans: [{ start: 0, end }], ellipsis, fit: 'truncated' };
}

function isBlank(text: string): boolean {
  return text.trim() === '';
}

function tooShort(candidate: Candidate, kept: number, minChunkLength: number): DroppedChunk {
  return {
    chunkId: candidate.chunk.id,
    reason: 'too_short',
    detail: `after truncation only ${kept} characters would remain, below minChunkLength ${minChunkLength}`,
  };
}

function leftOut(candidate: Candidate): DroppedChunk {
  return { chunkId: candidate.chunk.id, reason: 'budget', detail: 'no room left in the budget' };
}

function emptyText(candidate: Candidate): DroppedChunk {
  return { chunkId: candidate.chunk.id, reason: 'empty', detail: 'the chunk text is empty or whitespace' };
}

/**
 * Cuts `candidate` so that `selected` plus the cut fits the budget: at the last sentence boundary
 * that fits, or — when that keeps less than half of what a word-boundary cut keeps — at the last
 * word boundary, with an ellipsis (the shared `truncateAtWordBoundary`, measuring the whole rendered
 * context). Returns undefined when the cut would keep fewer than `minChunkLength` characters.
 */
export function cutToFit(composition: Composition, selected: readonly FittedChunk[], candidate: Candidate, sentences?: readonly Sentence[]): { fitted?: FittedChunk; kept: number } {
  const text = candidate.chunk.text;
  const withCut = (cut: FittedChunk) => [...selected, cut];
  const list = sentences ?? splitSentences(text);
  // Largest number of leading sentences that fits (binary search; verified, since a user counter may not be monotone).
  let bySentence: FittedChunk | undefined;
  let low = 1;
  let high = list.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const cut = prefixChunk(candidate, list[middle - 1]!.end, '');
    if (composition.fits(withCut(cut))) {
      bySentence = cut;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  const contextCounter: LengthCounter = (kept) => {
    const cut = fromTruncation(candidate, kept);
    return cut ? composition.measure(composition.render(withCut(cut)).context) : Number.POSITIVE_INFINITY;
  };
  const truncated = truncateAtWordBoundary(text, composition.setup.budget, contextCounter, { ellipsis: ELLIPSIS });
  let byWord = truncated === '' ? undefined : fromTruncation(candidate, truncated);
  if (byWord && !composition.fits(withCut(byWord))) byWord = undefined;
  const sentenceKept = bySentence ? keptCharacters(bySentence) : 0;
  const wordKept = byWord ? keptCharacters(byWord) : 0;
  const choice = bySentence && sentenceKept * 2 >= wordKept ? bySentence : byWord;
  const kept = choice === bySentence ? sentenceKept : wordKept;
  if (!choice || kept === 0 || kept < composition.setup.minChunkLength || isBlank(text.slice(0, choice.spans[0]!.end))) {
    return { kept };
  }
  return { fitted: choice, kept };
}

/** Maps a string returned by `truncateAtWordBoundary` back to a kept prefix of the chunk. */
function fromTruncation(candidate: Candidate, kept: string): FittedChunk | undefined {
  const text = candidate.chunk.text;
  if (kept === text) return wholeChunk(candidate);
  if (kept.endsWith(ELLIPSIS)) {
    const prefix = kept.slice(0, kept.length - ELLIPSIS.length);
    if (text.startsWith(prefix)) return prefixChunk(candidate, prefix.length, ELLIPSIS);
  }
  return text.startsWith(kept) ? prefixChunk(candidate, kept.length, '') : undefined;
}

/**
 * The classic fit: whole chunks by rank while they fit; the first chunk that does not fit is cut
 * ({@link cutToFit}) and ends the context. A cut too short to be worth it is skipped and the next
 * chunk is tried the same way.
 */
export function fitInRankOrder(composition: Composition): FitOutcome {
  const fitted: FittedChunk[] = [];
  const skipped: DroppedChunk[] = [];
  let full = false;
  for (const candidate of composition.setup.candidates) {
    if (isBlank(candidate.chunk.text)) {
      skipped.push(emptyText(candidate));
      continue;
    }
    if (full) {
      skipped.push(leftOut(candidate));
      continue;
    }
    const whole = wholeChunk(candidate);
    if (composition.fits([...fitted, whole])) {
      fitted.push(whole);
      continue;
    }
    const { fitted: cut, kept } = cutToFit(composition, fitted, candidate);
    if (cut) {
      fitted.push(cut);
      full = true;
    } else {
      skipped.push(kept > 0 ? tooShort(candidate, kept, composition.setup.minChunkLength) : leftOut(candidate));
    }
  }
  return { fitted, skipped };
}

/** Value of a further sentence from a chunk that already has `count` sentences in the context. */
const DIMINISHING_RETURN = 0.6;
/** Value every sentence has even without query terms, so that rank still decides between them. */
const BASE_VALUE = 0.02;
/** Extra value of a chunk's first sentence, which usually states its topic. */
const LEAD_VALUE = 0.08;

interface ChunkState {
  candidate: Candidate;
  relevance: CandidateRelevance;
  /** Sentence indices by decreasing value. */
  order: number[];
  pointer: number;
  chosen: boolean[];
  count: number;
  /** Estimated counter units of each sentence. */
  cost: number[];
  /** Estimated counter units of the chunk's header and separator. */
  overhead: number;
}

interface Pick {
  state: ChunkState;
  sentences: number[];
  cost: number;
}

function sentenceValue(relevance: CandidateRelevance, index: number): number {
  return relevance.weight * ((relevance.sentenceRelevance[index] ?? 0) + BASE_VALUE + (index === 0 ? LEAD_VALUE : 0));
}

/**
 * Query-focused fitting. Every sentence of every candidate is an item worth
 * `chunk weight × (query coverage + small base + lead bonus)`, and each further sentence taken from
 * the same chunk is worth 0.6 times the previous one; items are taken by value while they fit.
 * This spreads the budget over the top chunks (one long first chunk can no longer crowd out all the
 * others) while a chunk that answers the query still keeps several sentences. A chunk enters with at
 * least `minChunkLength` characters (its sentence is extended by its neighbours when shorter). Kept
 * sentences stay in their original order; the passage shows a gap marker where sentences were left
 * out. With `onlyRelevant` (compression `always`), sentences without any query term are not
 * candidates, except a chunk's opening when none of its sentences matches.
 */
export function fitQueryFocused(composition: Composition, relevances: readonly CandidateRelevance[], onlyRelevant: boolean): FitOutcome {
  const { candidates, minChunkLength } = composition.setup;
  const gapCost = Math.max(0, composition.measure(composition.setup.gapMarker));
  const skipped: DroppedChunk[] = [];
  const states: ChunkState[] = [];
  candidates.forEach((candidate, index) => {
    const relevance = relevances[index]!;
    if (isBlank(candidate.chunk.text) || relevance.sentences.length === 0) {
      skipped.push(emptyText(candidate));
      return;
    }
    let eligible = relevance.sentences.map((_, sentence) => sentence);
    if (onlyRelevant) {
      const matching = eligible.filter((sentence) => (relevance.sentenceRelevance[sentence] ?? 0) > 0);
      eligible = matching.length > 0 ? matching : [0];
    }
    eligible.sort((a, b) => sentenceValue(relevance, b) - sentenceValue(relevance, a) || a - b);
    states.push({
      candidate,
      relevance,
      order: eligible,
      pointer: 0,
      chosen: relevance.sentences.map(() => false),
      count: 0,
      cost: relevance.sentences.map((sentence) => Math.max(0, composition.measure(sentence.text))),
      overhead: passageOverhead(composition, candidate),
    });
  });

  /** The sentences a first pick of `index` brings in: extended by neighbours up to minChunkLength characters. */
  const bundle = (state: ChunkState, index: number): number[] => {
    const sentences = state.relevance.sentences;
    const taken = [index];
    const text = state.candidate.chunk.text;
    const span = () => charCounter(text.slice(sentences[Math.min(...taken)]!.start, sentences[Math.max(...taken)]!.end));
    let after = index + 1;
    let before = index - 1;
    while (span() < minChunkLength && (after < sentences.length || before >= 0)) {
      taken.push(after < sentences.length ? after++ : before--);
    }
    return taken.sort((a, b) => a - b);
  };
  const estimate = (state: ChunkState, sentences: readonly number[]): number => {
    let cost = state.count === 0 ? state.overhead : 0;
    for (const sentence of sentences) {
      cost += state.cost[sentence] ?? 0;
      const joined = state.chosen[sentence - 1] === true || state.chosen[sentence + 1] === true || sentences.includes(sentence - 1);
      if (!joined && state.count > 0) cost += gapCost;
    }
    return cost;
  };
  const picks: Pick[] = [];
  const apply = (pick: Pick) => {
    for (const sentence of pick.sentences) pick.state.chosen[sentence] = true;
    pick.state.count += pick.sentences.length;
    picks.push(pick);
  };
  const undo = () => {
    const pick = picks.pop();
    if (!pick) return;
    for (const sentence of pick.sentences) pick.state.chosen[sentence] = false;
    pick.state.count -= pick.sentences.length;
  };
  /** The best next pick whose estimated cost passes `affordable` (items that do not are dropped for good). */
  const nextPick = (affordable: (cost: number) => boolean, tried: Set<string>): Pick | undefined => {
    let best: { pick: Pick; value: number } | undefined;
    for (const state of states) {
      while (state.pointer < state.order.length) {
        const index = state.order[state.pointer]!;
        if (state.chosen[index]) {
          state.pointer += 1;
          continue;
        }
        const sentences = state.count === 0 ? bundle(state, index) : [index];
        const key = `${state.candidate.rank}:${sentences.join(',')}`;
        const cost = estimate(state, sentences);
        if (tried.has(key) || !affordable(cost)) {
          state.pointer += 1;
          continue;
        }
        const value = sentenceValue(state.relevance, index) * DIMINISHING_RETURN ** state.count;
        if (!best || value > best.value) best = { pick: { state, sentences, cost }, value };
        break;
      }
    }
    return best?.pick;
  };

  // 1. Estimated costs: fast, exact for additive counters such as characters and words.
  let remaining = composition.setup.budget;
  for (;;) {
    const pick = nextPick((cost) => cost <= remaining, new Set());
    if (!pick) break;
    apply(pick);
    remaining -= pick.cost;
  }
  // 2. Exact measurement: give back the least valuable picks until the rendered context fits …
  while (picks.length > 0 && !composition.fits(build(states))) undo();
  // 3. … then try a few more items against the exact measure (tokens are not additive). Items whose
  // estimate is far beyond what is left are not worth a render.
  for (const state of states) state.pointer = 0;
  const tried = new Set<string>();
  let left = composition.setup.budget - composition.measure(composition.render(build(states)).context);
  for (let attempt = 0; attempt < 2 * states.length + 8; attempt++) {
    const pick = nextPick((cost) => cost <= left * 1.5 + 2, tried);
    if (!pick) break;
    tried.add(`${pick.state.candidate.rank}:${pick.sentences.join(',')}`);
    apply(pick);
    const length = composition.measure(composition.render(build(states)).context);
    if (length <= composition.setup.budget) left = composition.setup.budget - length;
    else undo();
  }
  let fitted = build(states);
  // 4. A candidate whose sentences are all too long may still fill the rest with a word-boundary cut.
  const untouched = states.find((state) => state.count === 0);
  if (untouched) {
    const { fitted: cut } = cutToFit(composition, fitted, untouched.candidate, untouched.relevance.sentences);
    if (cut) fitted = [...fitted, cut];
  }
  const used = new Set(fitted.map((item) => item.candidate));
  for (const state of states) if (!used.has(state.candidate)) skipped.push(leftOut(state.candidate));
  return { fitted, skipped };
}

/**
 * What a fit is worth under the query-focused objective: per chunk, the value of each sentence
 * it keeps (in proportion to how much of the sentence is kept), the most valuable first, each
 * further one discounted by {@link DIMINISHING_RETURN}. Lets a different fit (rank order, a cut)
 * be compared with the greedy query-focused one.
 */
export function fitValue(fitted: readonly FittedChunk[], relevances: ReadonlyMap<Candidate, CandidateRelevance>): number {
  let total = 0;
  for (const item of fitted) {
    const relevance = relevances.get(item.candidate);
    if (!relevance) continue;
    const values: number[] = [];
    relevance.sentences.forEach((sentence, index) => {
      let kept = 0;
      for (const span of item.spans) kept += Math.max(0, Math.min(span.end, sentence.end) - Math.max(span.start, sentence.start));
      const length = sentence.end - sentence.start;
      if (kept > 0 && length > 0) values.push(sentenceValue(relevance, index) * Math.min(1, kept / length));
    });
    values.sort((a, b) => b - a);
    values.forEach((value, order) => {
      total += value * DIMINISHING_RETURN ** order;
    });
  }
  return total;
}

/** Turns the chosen sentences of each chunk into fitted chunks (whole when every sentence is kept). */
function build(states: readonly ChunkState[]): FittedChunk[] {
  const fitted: FittedChunk[] = [];
  for (const state of states) {
    if (state.count === 0) continue;
    if (state.chosen.every(Boolean)) {
      fitted.push(wholeChunk(state.candidate));
      continue;
    }
    const spans: KeptSpan[] = [];
    state.relevance.sentences.forEach((sentence, index) => {
      if (state.chosen[index]) spans.push({ start: sentence.start, end: sentence.end });
    });
    fitted.push({ candidate: state.candidate, spans, ellipsis: '', fit: 'compressed' });
  }
  return fitted;
}

/** Estimated cost of a chunk's frame in the template: header, separator, footer line. */
function passageOverhead(composition: Composition, candidate: Candidate): number {
  const placeholder = 'x';
  const probe = (count: number) =>
    composition.measure(
      composition.render(
        Array.from({ length: count }, (_, index) => ({
          candidate: { ...candidate, rank: index + 1, chunk: { ...candidate.chunk, text: placeholder, id: `${candidate.chunk.id}\u0000${index}`, position: { index: index * 2 } } },
          spans: [{ start: 0, end: placeholder.length }],
          ellipsis: '',
          fit: 'whole' as const,
        })),
      ).context,
    );
  return Math.max(0, probe(2) - probe(1) - composition.measure(placeholder));
}

/**
 * The last line of defence: whatever the counter, the returned chunks render within the budget.
 * Drops the weakest chunk (by rank) until the rendered context fits; an empty list renders ''.
 */
export function enforceBudget(composition: Composition, outcome: FitOutcome): FitOutcome {
  const fitted = [...outcome.fitted].sort((a, b) => a.candidate.rank - b.candidate.rank);
  const skipped = [...outcome.skipped];
  while (fitted.length > 0 && !composition.fits(fitted)) {
    const dropped = fitted.pop()!;
    skipped.push({ chunkId: dropped.candidate.chunk.id, reason: 'budget', detail: 'the rendered context exceeded the budget under the given counter' });
  }
  return { fitted, skipped };
}
