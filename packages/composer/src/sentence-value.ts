import { BoundedCache, splitSentences, type Analyzer, type Sentence } from '@zerda/text';
import type { AnswerType, QueryAnalysis, SentenceReason } from '@zerda/types';
import { CueReader, type AnswerCues } from './answer-cues.js';
import { SENTENCE_MODEL } from './sentence-model.js';
import type { SentenceModel } from './sentence-model-type.js';

export type { SentenceModel } from './sentence-model-type.js';

/** The kinds of answer a sentence cue can match (every answer type but `other`). */
export const CUE_TYPES = ['time', 'quantity', 'person', 'place', 'reason', 'definition'] as const satisfies ReadonlyArray<Exclude<AnswerType, 'other'>>;

/** The sentence model's features, in the order of the vectors {@link sentenceFeatures} returns. */
const NAMED_FEATURES = [
  'bias', 'rank1', 'rank2', 'rank3', 'rank4to5', 'logRank', 'strengthRatio', 'gapTop', 'gapOther',
  'position0', 'position1', 'position2', 'position3', 'logPosition', 'piece', 'logPiece',
  'coverage', 'coveragePrevious', 'coverageNext', 'chunkCoverage', 'titleCoverage', 'logLength', 'typeOther',
  'leadTop', 'leadStrength', 'secondTop', 'coverageStrength', 'coverageLead', 'matchStrength', 'matchCoverage', 'titleLead',
  'bestHere', 'nearBest', 'afterBest', 'relativeCoverage',
] as const;
export const FEATURE_NAMES: readonly string[] = [...NAMED_FEATURES, ...CUE_TYPES.flatMap((type) => [`type_${type}`, `cue_${type}`, `match_${type}`])];
/** Index of each named feature. */
const F = Object.fromEntries(NAMED_FEATURES.map((name, index) => [name, index])) as Record<(typeof NAMED_FEATURES)[number], number>;
/** Index of `type_time`: per cue type, `type_`, `cue_` and `match_` follow in {@link CUE_TYPES} order. */
const TYPE_FEATURES = FEATURE_NAMES.indexOf('type_time');

/** The query terms of a sentence that holds none: shared, never changed. */
const NO_TERMS: Set<string> = new Set();

/** What a chunk's text holds, independent of the query: its sentences, their terms and answer cues. */
export interface ChunkAnalysis {
  /**
   * The units the composer chooses from: `splitSentences` of the text, a sentence longer than
   * {@link MAX_UNIT_LENGTH} characters cut into pieces at clause boundaries (offsets into the text).
   */
  sentences: readonly Sentence[];
  /** Per unit: the index of the sentence it belongs to, and its piece number within it (0 for a whole sentence). */
  sentenceIndex: readonly number[];
  pieceIndex: readonly number[];
  /**
   * Every analysed term of the text in order, duplicates kept; sentence `i`'s terms are
   * `terms.slice(termStarts[i], termStarts[i + 1])` (one flat list: building a set per sentence cost
   * more than the query-time check of the few query terms against it).
   */
  terms: readonly string[];
  /** Per unit, where its terms start in {@link terms}, and the end of the last: `sentences.length + 1` entries. */
  termStarts: readonly number[];
  /** Per sentence: the kinds of answer it can hold. */
  cues: readonly AnswerCues[];
}

/**
 * Splits a chunk text into sentences and reads each sentence's terms (with `analyzer`) and answer
 * cues, tokenising the text once. Linear in the text.
 */
export function analyzeChunk(text: string, analyzer: Analyzer): ChunkAnalysis {
  const sentenceIndex: number[] = [];
  const pieceIndex: number[] = [];
  const sentences: Sentence[] = [];
  splitSentences(text).forEach((sentence, index) => {
    piecesOf(text, sentence, MAX_UNIT_LENGTH).forEach((piece, number) => {
      sentences.push(piece);
      sentenceIndex.push(index);
      pieceIndex.push(number);
    });
  });
  const cues: AnswerCues[] = [];
  const terms: string[] = [];
  const termStarts: number[] = [];
  const reader = new CueReader();
  // One pass over the tokens: a token belongs to the unit it starts in (none if it starts between units).
  let unit = 0;
  let unitStart = sentences.length > 0 ? sentences[0]!.start : 0;
  let unitEnd = sentences.length > 0 ? sentences[0]!.end : 0;
  termStarts.push(0);
  analyzer.forEachTokenTerms(text, (word, start, _end, script, termsOfWord) => {
    while (unit < sentences.length && start >= unitEnd) {
      cues.push(reader.cues());
      reader.reset();
      termStarts.push(terms.length);
      unit += 1;
      if (unit < sentences.length) {
        unitStart = sentences[unit]!.start;
        unitEnd = sentences[unit]!.end;
      }
    }
    if (unit >= sentences.length || start < unitStart) return;
    reader.add(word, script);
    if (termsOfWord === null) return;
    if (typeof termsOfWord === 'string') terms.push(termsOfWord);
    else for (const term of termsOfWord) terms.push(term);
  });
  while (unit < sentences.length) {
    cues.push(reader.cues());
    reader.reset();
    termStarts.push(terms.length);
    unit += 1;
  }
  return { sentences, sentenceIndex, pieceIndex, terms, termStarts, cues };
}

/**
 * Longest unit the composer chooses as a whole (characters). A longer sentence is cut into pieces,
 * so that a tight budget can keep the clause that answers and not only a sentence's opening. Chosen
 * on the train splits of ARCD and TyDi QA English (and each one's non-factoid and long-answer
 * questions as sets of their own; `tune-composer --choose --choose-styles`, the policy score of
 * BENCHMARKS.md, issue 33 fifth pass): 0 (whole sentences) 0.2414, 150 0.2535, **200 0.2849**,
 * 250 0.1699, 300 0.2631, 400 0.2537. (It was first chosen among 0, 200 and 300 on the held-out
 * splits; the train splits agree.)
 */
export const MAX_UNIT_LENGTH = 200;
/** A piece is never shorter than this (characters), so that cuts fall between clauses, not words. */
const MIN_PIECE_LENGTH = 40;
// After , ; : ، ؛ or a closing bracket, before whitespace; or before an opening bracket or a dash.
const CLAUSE_BOUNDARY = /[,;:\u060C\u061B)\]](?=\s)|\s(?=[([—–])/gu;
const WHITESPACE_RUN = /\s+/gu;

/** A sentence cut into pieces of at most `maxLength` characters at clause boundaries (else at spaces). Linear. */
function piecesOf(text: string, sentence: Sentence, maxLength: number): Sentence[] {
  if (maxLength <= 0 || sentence.end - sentence.start <= maxLength) return [sentence];
  const body = sentence.text;
  const clauses: number[] = [];
  for (const match of body.matchAll(CLAUSE_BOUNDARY)) clauses.push(match.index + (match[0].trim() === '' ? 0 : 1));
  const spaces: number[] = [];
  for (const match of body.matchAll(WHITESPACE_RUN)) spaces.push(match.index);
  const pieces: Sentence[] = [];
  let start = 0;
  let clause = 0;
  let space = 0;
  while (body.length - start > maxLength) {
    const limit = start + maxLength;
    let cut = -1;
    while (clause < clauses.length && clauses[clause]! <= limit) {
      if (clauses[clause]! >= start + MIN_PIECE_LENGTH) cut = clauses[clause]!;
      clause += 1;
    }
    if (cut < 0) {
      while (space < spaces.length && spaces[space]! <= limit) {
        if (spaces[space]! >= start + MIN_PIECE_LENGTH) cut = spaces[space]!;
        space += 1;
      }
    }
    if (cut < 0) break;
    pieces.push(trimmedPiece(text, sentence.start + start, sentence.start + cut));
    start = cut;
    while (start < body.length && /\s/u.test(body[start]!)) start += 1;
  }
  if (start < body.length) pieces.push(trimmedPiece(text, sentence.start + start, sentence.end));
  return pieces.filter((piece) => piece.end > piece.start);
}

function trimmedPiece(text: string, start: number, end: number): Sentence {
  while (start < end && /\s/u.test(text[start]!)) start += 1;
  while (end > start && /\s/u.test(text[end - 1]!)) end -= 1;
  return { text: text.slice(start, end), start, end };
}

/** Characters of chunk text whose analyses a composer keeps by default (about 3–4 bytes of analysis per character). */
export const DEFAULT_ANALYSIS_CACHE_CHARACTERS = 8_000_000;
/** The most analyses kept, whatever their size. */
const ANALYSIS_CACHE_ENTRIES = 65_536;

/**
 * Chunk analyses by chunk text, bounded: a corpus's best chunks come back query after query, and
 * their analysis does not depend on the query. One per composer (it depends on the analyzer).
 */
export class ChunkAnalysisCache {
  readonly #entries: BoundedCache<string, ChunkAnalysis> | undefined;

  /**
   * @param maxCharacters the most characters of chunk text whose analyses are kept (an integer ≥ 0, checked by the composer; 0: none). Bounded
   *   in characters, not only in entries: 1,000 analyses of megabyte chunks would hold gigabytes. A
   *   chunk over 200,000 characters (or half the bound) is analysed afresh each time (linear)
   *   instead of flushing the cache.
   */
  constructor(
    readonly analyzer: Analyzer,
    maxCharacters = DEFAULT_ANALYSIS_CACHE_CHARACTERS,
  ) {
    this.#entries =
      maxCharacters === 0 ? undefined : new BoundedCache(ANALYSIS_CACHE_ENTRIES, { maxWeight: maxCharacters, maxEntryWeight: Math.min(200_000, maxCharacters / 2) });
  }

  get(text: string): ChunkAnalysis {
    if (this.#entries === undefined) return analyzeChunk(text, this.analyzer);
    let analysis = this.#entries.get(text);
    if (!analysis) {
      analysis = analyzeChunk(text, this.analyzer);
      this.#entries.set(text, analysis);
    }
    return analysis;
  }

  /** Analyses kept, and the characters of chunk text they were made from (at most the bound). */
  get size(): number {
    return this.#entries?.size ?? 0;
  }

  get characters(): number {
    return this.#entries?.weight ?? 0;
  }
}

/** What the sentence model reads of one candidate chunk. */
export interface CandidateSignal {
  /** The chunk text's analysis (`analyzeChunk`). */
  analysis: ChunkAnalysis;
  /** 1-based rank in the composer's input. */
  rank: number;
  /** How strongly retrieval matched the chunk (≥ 0; BM25, fused or similarity score), for confidence. */
  strength: number;
  title?: string;
}

/** A sentence with the model's verdict. */
export interface ValuedSentence {
  /** Estimated probability that the sentence holds the answer, (0, 1). */
  value: number;
  /** Analysed query terms it contains. */
  terms: string[];
  reasons: SentenceReason[];
}


/**
 * Per candidate, per sentence, the features the sentence model weighs:
 * - the chunk: its rank (one-hot for 1, 2, 3, 4–5, and log₂(rank + 1)), its retrieval strength
 *   relative to the strongest candidate, and the gap between the two strongest (retrieval confidence:
 *   a clear winner concentrates the budget, a close race spreads it);
 * - the sentence's place: one-hot position 0–3 in its chunk and log₂(position + 2) (leads state the topic);
 * - query terms: the IDF-weighted share of the query's terms the sentence holds (IDF over all candidate
 *   sentences, so the topic word every passage repeats counts less than the one that singles out the
 *   answer), the same for its neighbours and for the chunk as a whole, and the share of query terms in the title;
 * - its length (log characters);
 * - the answer type the question asks for (`analysis.answerType`), the cues the sentence holds, and
 *   their match (a year for a `time` question, a number for a `quantity` one …).
 * Linear in the total text.
 */
export function sentenceFeatures(candidates: readonly CandidateSignal[], analysis: QueryAnalysis | undefined, queryTerms: readonly string[], analyzer: Analyzer): Array<Array<{ vector: Float64Array; terms: Set<string>; cues: AnswerCues }>> {
  const result: Array<Array<{ vector: Float64Array; terms: Set<string>; cues: AnswerCues }>> = candidates.map(() => []);
  visitSentenceFeatures(candidates, analysis, queryTerms, analyzer, (candidate, vector, terms, cues) => {
    result[candidate]!.push({ vector: Float64Array.from(vector), terms, cues });
  });
  return result;
}

/**
 * {@link sentenceFeatures} without a vector per sentence: `visit` gets every sentence in order with
 * one reused vector (valid only during the call), so valuing a huge chunk allocates no feature arrays.
 */
function visitSentenceFeatures(
  candidates: readonly CandidateSignal[],
  analysis: QueryAnalysis | undefined,
  queryTerms: readonly string[],
  analyzer: Analyzer,
  visit: (candidate: number, vector: Float64Array, terms: Set<string>, cues: AnswerCues) => void,
): void {
  const query = new Set(queryTerms);
  const answerType: AnswerType = analysis?.answerType ?? 'other';
  let strongest = 0;
  let second = 0;
  for (const candidate of candidates) {
    const strength = Math.max(0, candidate.strength);
    if (strength > strongest) {
      second = strongest;
      strongest = strength;
    } else if (strength > second) {
      second = strength;
    }
  }
  const gap = strongest > 0 ? (strongest - second) / strongest : 0;
  // Per sentence, the query terms it holds (one shared empty set for the many that hold none).
  const termsPerSentence = candidates.map(({ analysis: chunk }) =>
    chunk.sentences.map((_, position) => {
      let present: Set<string> = NO_TERMS;
      if (query.size > 0) {
        for (let index = chunk.termStarts[position]!; index < chunk.termStarts[position + 1]!; index++) {
          const term = chunk.terms[index]!;
          if (!query.has(term)) continue;
          if (present === NO_TERMS) present = new Set();
          present.add(term);
        }
      }
      return present;
    }),
  );
  // BM25's non-negative IDF over the candidate sentences; terms absent from every candidate are left
  // out of the normaliser, so a sentence covering all that can be covered scores 1.
  let sentenceCount = 0;
  const frequency = new Map<string, number>();
  for (const sentences of termsPerSentence) {
    for (const present of sentences) {
      sentenceCount += 1;
      for (const term of present) frequency.set(term, (frequency.get(term) ?? 0) + 1);
    }
  }
  const weight = new Map<string, number>();
  let total = 0;
  for (const [term, count] of frequency) {
    const idf = Math.log(1 + (sentenceCount - count + 0.5) / (count + 0.5));
    weight.set(term, idf);
    total += idf;
  }
  const coverage = (terms: Iterable<string>): number => {
    if (total <= 0) return 0;
    let covered = 0;
    for (const term of terms) covered += weight.get(term) ?? 0;
    return covered / total;
  };
  const x = new Float64Array(FEATURE_NAMES.length);
  // Where the query matches best, in each chunk and among all candidates: language- and style-independent
  // position features (the sentence that matches best, its neighbours, coverage relative to the best).
  const coversPerCandidate = termsPerSentence.map((sentences) => sentences.map(coverage));
  let bestCover = 0;
  for (const covers of coversPerCandidate) for (const cover of covers) if (cover > bestCover) bestCover = cover;
  candidates.forEach((candidate, index) => {
    const sentenceTerms = termsPerSentence[index]!;
    const covers = coversPerCandidate[index]!;
    let best = -1;
    covers.forEach((cover, position) => {
      if (cover > 0 && (best < 0 || cover > covers[best]!)) best = position;
    });
    const chunkTerms = new Set<string>();
    for (const present of sentenceTerms) for (const term of present) chunkTerms.add(term);
    const chunkCoverage = coverage(chunkTerms);
    let titleCoverage = 0;
    if (candidate.title && query.size > 0) {
      const inTitle = new Set(titleTerms(candidate.title, analyzer).filter((term) => query.has(term)));
      titleCoverage = inTitle.size / query.size;
    }
    const rank = candidate.rank;
    const ratio = strongest > 0 ? Math.max(0, candidate.strength) / strongest : 1;
    candidate.analysis.sentences.forEach((sentence, position) => {
      const cues = candidate.analysis.cues[position]!;
      const sentencePosition = candidate.analysis.sentenceIndex[position]!;
      const piece = candidate.analysis.pieceIndex[position]!;
      const cover = covers[position]!;
      const lead = sentencePosition === 0 ? 1 : 0;
      const top = rank === 1 ? 1 : 0;
      x.fill(0);
      x[F.bias] = 1;
      x[F.rank1] = top;
      x[F.rank2] = rank === 2 ? 1 : 0;
      x[F.rank3] = rank === 3 ? 1 : 0;
      x[F.rank4to5] = rank === 4 || rank === 5 ? 1 : 0;
      x[F.logRank] = Math.log2(rank + 1);
      x[F.strengthRatio] = ratio;
      x[F.gapTop] = top * gap;
      x[F.gapOther] = (1 - top) * gap;
      x[F.position0] = lead;
      x[F.position1] = sentencePosition === 1 ? 1 : 0;
      x[F.position2] = sentencePosition === 2 ? 1 : 0;
      x[F.position3] = sentencePosition === 3 ? 1 : 0;
      x[F.logPosition] = Math.log2(sentencePosition + 2);
      x[F.piece] = piece > 0 ? 1 : 0;
      x[F.logPiece] = Math.log2(piece + 1);
      x[F.coverage] = cover;
      x[F.coveragePrevious] = position > 0 ? covers[position - 1]! : 0;
      x[F.coverageNext] = position + 1 < covers.length ? covers[position + 1]! : 0;
      x[F.chunkCoverage] = chunkCoverage;
      x[F.titleCoverage] = titleCoverage;
      x[F.logLength] = Math.log(1 + sentence.text.length);
      x[F.typeOther] = answerType === 'other' ? 1 : 0;
      let matched = 0;
      CUE_TYPES.forEach((type, index) => {
        const asked = answerType === type ? 1 : 0;
        const held = cues[type] ? 1 : 0;
        x[TYPE_FEATURES + 3 * index] = asked;
        x[TYPE_FEATURES + 3 * index + 1] = held;
        x[TYPE_FEATURES + 3 * index + 2] = asked * held;
        matched = Math.max(matched, asked * held);
      });
      // Interactions: a lead means more in a confident top chunk; query terms mean more in a strong chunk.
      x[F.leadTop] = lead * top;
      x[F.leadStrength] = lead * ratio;
      x[F.secondTop] = (sentencePosition === 1 ? 1 : 0) * top;
      x[F.coverageStrength] = cover * ratio;
      x[F.coverageLead] = cover * lead;
      x[F.matchStrength] = matched * ratio;
      x[F.matchCoverage] = matched * cover;
      x[F.titleLead] = titleCoverage * lead;
      x[F.bestHere] = position === best ? 1 : 0;
      x[F.nearBest] = best < 0 ? 0 : 2 ** -Math.abs(position - best);
      x[F.afterBest] = best >= 0 && position === best + 1 ? 1 : 0;
      x[F.relativeCoverage] = bestCover > 0 ? cover / bestCover : 0;
      visit(index, x, sentenceTerms[position]!, cues);
    });
  });
}

/** Analysed title terms per analyzer: a chunk's title comes back with the chunk, query after query. */
const TITLE_TERMS = new WeakMap<Analyzer, BoundedCache<string, readonly string[]>>();

function titleTerms(title: string, analyzer: Analyzer): readonly string[] {
  let memo = TITLE_TERMS.get(analyzer);
  if (memo === undefined) {
    memo = new BoundedCache(16_384, { maxWeight: 2_000_000, maxEntryWeight: 4_096 });
    TITLE_TERMS.set(analyzer, memo);
  }
  let terms = memo.get(title);
  if (terms === undefined) {
    terms = analyzer.analyze(title);
    memo.set(title, terms);
  }
  return terms;
}

/** The sentence features by name (for tuning and diagnostics), from a vector of {@link sentenceFeatures}. */
export function featureRecord(vector: ArrayLike<number>): Record<string, number> {
  const record: Record<string, number> = {};
  FEATURE_NAMES.forEach((name, index) => (record[name] = vector[index] ?? 0));
  return record;
}

/** A model's weights in {@link FEATURE_NAMES} order (features it does not list weigh 0), computed once per model. */
const WEIGHT_VECTORS = new WeakMap<SentenceModel, Float64Array>();

function weightVector(model: SentenceModel): Float64Array {
  let weights = WEIGHT_VECTORS.get(model);
  if (!weights) {
    weights = Float64Array.from(FEATURE_NAMES, (name) => model.weights[name] ?? 0);
    WEIGHT_VECTORS.set(model, weights);
  }
  return weights;
}

/** The model's probability for one feature vector (as {@link sentenceFeatures} gives it): σ(Σ weight × feature). */
export function modelProbability(vector: ArrayLike<number>, model: SentenceModel = SENTENCE_MODEL): number {
  return probabilityOf(vector, weightVector(model));
}

function probabilityOf(vector: ArrayLike<number>, weights: Float64Array): number {
  let sum = 0;
  for (let index = 0; index < weights.length; index++) sum += weights[index]! * (vector[index] ?? 0);
  return 1 / (1 + Math.exp(-sum));
}

/** Values every sentence of every candidate with the sentence model, with the reasons a reader sees. */
export function valueSentences(candidates: readonly CandidateSignal[], analysis: QueryAnalysis | undefined, queryTerms: readonly string[], analyzer: Analyzer, model: SentenceModel = SENTENCE_MODEL): ValuedSentence[][] {
  const answerType = analysis?.answerType ?? 'other';
  const valued: ValuedSentence[][] = candidates.map(() => []);
  const weights = weightVector(model);
  visitSentenceFeatures(candidates, analysis, queryTerms, analyzer, (candidate, vector, terms, cues) => {
    const reasons: SentenceReason[] = [];
    if (vector[F.position0] === 1) reasons.push('lead');
    if (terms.size > 0) reasons.push('query-terms');
    else if (vector[F.coveragePrevious]! > 0 || vector[F.coverageNext]! > 0) reasons.push('neighbour');
    if (answerType !== 'other' && cues[answerType]) reasons.push('answer-type');
    if (vector[F.titleCoverage]! > 0) reasons.push('title');
    valued[candidate]!.push({ value: probabilityOf(vector, weights), terms: terms.size === 0 ? [] : [...terms], reasons });
  });
  return valued;
}
