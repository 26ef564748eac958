import { splitSentences, truncateAtWordBoundary, type Sentence } from '@zerda/text';
import type { DroppedChunk } from '@zerda/types';
import type { Composition } from './composition.js';
import { keptCharacters, wholeChunk, type Candidate, type FittedChunk } from './passages.js';

/**
 * Lead packing — the rank-order fit (whole chunks by rank, the first that does not fit cut at a
 * sentence or word boundary) — and what every fit shares: the outcome, the reasons a chunk is left
 * out, and the final budget guard.
 */

/** The ellipsis a chunk cut inside a sentence ends with. */
export const ELLIPSIS = '…';

/** The chunks a fitting strategy chose, and why the others were left out. */
export interface FitOutcome {
  fitted: FittedChunk[];
  skipped: DroppedChunk[];
}

/** A cut a chunk ends up with when it is too long for what is left of the budget. */
function prefixChunk(candidate: Candidate, end: number, ellipsis: string): FittedChunk {
  return { candidate, spans: [{ start: 0, end, ...(ellipsis ? { ellipsis } : {}) }], fit: 'truncated' };
}

export function isBlank(text: string): boolean {
  return text.trim() === '';
}

function tooShort(candidate: Candidate, kept: number, minChunkLength: number): DroppedChunk {
  return {
    chunkId: candidate.chunk.id,
    reason: 'too_short',
    detail: `after truncation only ${kept} characters would remain, below minChunkLength ${minChunkLength}`,
  };
}

export function leftOut(candidate: Candidate): DroppedChunk {
  return { chunkId: candidate.chunk.id, reason: 'budget', detail: 'no room left in the budget' };
}

export function emptyText(candidate: Candidate): DroppedChunk {
  return { chunkId: candidate.chunk.id, reason: 'empty', detail: 'the chunk text is empty or whitespace' };
}

/**
 * Where lead packing cuts the chunk that does not fit whole: `sentence` — at the last sentence
 * boundary, unless that keeps less than half of what a word-boundary cut keeps (readable, the
 * `compression: 'off'` fit); `word` — at the last word boundary, as naive packing does (the floor a
 * question's context is held to under `auto`: it keeps everything naive packing of the same ranking
 * keeps).
 */
export type RankCut = 'sentence' | 'word';

/**
 * Cuts `candidate` so that `selected` plus the cut fits the budget: at the last sentence boundary
 * that fits, or — when that keeps less than half of what a word-boundary cut keeps, or with `cut`
 * `word` — at the last word boundary, with an ellipsis (the shared `truncateAtWordBoundary`,
 * measuring the whole rendered context). Returns undefined when the cut would keep fewer than
 * `minChunkLength` characters.
 */
export function cutToFit(composition: Composition, selected: readonly FittedChunk[], candidate: Candidate, sentences?: readonly Sentence[], cut: RankCut = 'sentence'): { fitted?: FittedChunk; kept: number } {
  const text = candidate.chunk.text;
  const withCut = (cut: FittedChunk) => [...selected, cut];
  const contextCounter = composition.contextCounter((kept) => {
    const cut = fromTruncation(candidate, kept);
    return cut ? withCut(cut) : undefined;
  });
  const truncated = truncateAtWordBoundary(text, composition.setup.budget, contextCounter, { ellipsis: ELLIPSIS });
  let byWord = truncated === '' ? undefined : fromTruncation(candidate, truncated);
  if (byWord && !composition.fits(withCut(byWord))) byWord = undefined;
  // Largest number of leading sentences that fits (binary search; verified, since a user counter may
  // not be monotone) — not needed when the word cut is wanted and fits.
  let bySentence: FittedChunk | undefined;
  if (cut === 'sentence' || !byWord) {
    const list = sentences ?? splitSentences(text);
    let low = 1;
    let high = list.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const atSentence = prefixChunk(candidate, list[middle - 1]!.end, '');
      if (composition.fits(withCut(atSentence))) {
        bySentence = atSentence;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
  }
  const sentenceKept = bySentence ? keptCharacters(bySentence) : 0;
  const wordKept = byWord ? keptCharacters(byWord) : 0;
  const choice = cut === 'word' ? (byWord ?? bySentence) : bySentence && sentenceKept * 2 >= wordKept ? bySentence : byWord;
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
 * ({@link cutToFit}, at `cut`) and ends the context. A cut too short to be worth it is skipped and the next
 * chunk is tried the same way.
 */
export function fitInRankOrder(composition: Composition, cut: RankCut = 'sentence'): FitOutcome {
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
    const { fitted: last, kept } = cutToFit(composition, fitted, candidate, undefined, cut);
    if (last) {
      fitted.push(last);
      full = true;
    } else {
      skipped.push(kept > 0 ? tooShort(candidate, kept, composition.setup.minChunkLength) : leftOut(candidate));
    }
  }
  return { fitted, skipped };
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
