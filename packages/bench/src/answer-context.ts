import { answerInContext, normalizeForAnswerMatch } from '@zerda/retriever';
import { splitSentences } from '@zerda/text';
import type { LengthCounter } from '@zerda/types';
import type { BenchDataset } from './datasets.js';
import { packNaively } from './context-metrics.js';
import { documentContent } from './systems/search-system.js';

/**
 * answer-in-context@B: the share of questions whose context, built within budget B, holds a gold
 * answer string (`answerInContext` of @zerda/retriever: NFKC, case folding, whitespace collapsed,
 * Arabic diacritics/tatweel removed and alef forms unified, on both sides). Reported per split:
 * parameters are chosen on `train`, results are read on the held-out split (`dev`, `test`).
 */

/** Character budgets of the answer-in-context rows. */
export const ANSWER_CHAR_BUDGETS: readonly number[] = [300, 500, 1000, 2000, 4000, 8000];
/** cl100k token budgets of the answer-in-context rows. */
export const ANSWER_TOKEN_BUDGETS: readonly number[] = [100, 250, 500, 1000, 2000, 4000];

/** The engine's default candidate count (`analysis.chunks`), what naive packing packs. */
export const ANSWER_BASE_DEPTH = 10;
/** Candidates the engine is given at the two largest budgets of each unit, where ten passages no longer fill the budget. */
export const ANSWER_WIDE_DEPTH = 20;

/**
 * How many ranked candidates the engine draws on at a budget (`run(…, { maxChunks })`): its default
 * ten, and {@link ANSWER_WIDE_DEPTH} at the two largest budgets of each unit (4,000 and 8,000
 * characters, 2,000 and 4,000 cl100k tokens) — ARCD's and TyDi's top ten fill ~6,000 characters, so
 * there a budget has room for more than ten passages. Naive packing stays the top ten (the floor).
 */
export function answerDepth(unit: 'chars' | 'tokens', budget: number): number {
  const budgets = unit === 'chars' ? ANSWER_CHAR_BUDGETS : ANSWER_TOKEN_BUDGETS;
  return budget >= budgets[budgets.length - 2]! ? ANSWER_WIDE_DEPTH : ANSWER_BASE_DEPTH;
}

/**
 * The ceiling at one budget: the share of questions whose gold answer appears in the top `depth`
 * documents — the candidates the engine draws on there ({@link answerDepth}) — in a form that fits
 * the budget on its own (the answer string measured with `counter`). No context built from those
 * candidates within the budget can hold the answer more often.
 */
export function oracleRateAt(dataset: BenchDataset, run: Readonly<Record<string, readonly string[]>>, queries: BenchDataset['queries'], budget: number, counter: LengthCounter, depth: number): number {
  const documents = new Map(dataset.documents.map((document) => [document.id, document]));
  let hits = 0;
  for (const query of queries) {
    const answers = (dataset.answers?.get(query.id) ?? []).filter((answer) => counter(answer) <= budget);
    if (answers.length === 0) continue;
    const found = (run[query.id] ?? []).slice(0, depth).some((id) => {
      const document = documents.get(id);
      return document !== undefined && answerInContext(documentContent(document), answers);
    });
    if (found) hits += 1;
  }
  return hits / Math.max(1, queries.length);
}

/** The split group a query is reported in: `train` (where parameters are chosen) or `held-out` (dev/test). */
export type SplitGroup = 'train' | 'held-out';

/** The split group of a query; datasets without splits report every query as held out. */
export function splitGroupOf(dataset: BenchDataset, queryId: string): SplitGroup {
  return dataset.splits?.get(queryId) === 'train' ? 'train' : 'held-out';
}

/** The name of a dataset's held-out split (`dev`, `test` …), for reports. */
export function heldOutName(dataset: BenchDataset): string {
  const names = new Set([...(dataset.splits?.values() ?? [])].filter((split) => split !== 'train'));
  return names.size === 0 ? 'all' : [...names].sort().join('+');
}

/**
 * Question styles the answer-in-context rows are also read on, from what the held-out splits hold:
 * no parameter is chosen on them, so they show how the defaults do on kinds of question the data
 * was not dominated by. `non-factoid`: why / how (not how many, how long …) / the reason, purpose or
 * importance of — in English and Arabic; `long-answer`: even the shortest gold answer is a clause
 * (at least {@link LONG_ANSWER_WORDS} words), where elision inside the answer loses it.
 */
export type QuestionStyle = 'non-factoid' | 'long-answer';
/** The shortest gold answer of a `long-answer` question has at least this many words. */
export const LONG_ANSWER_WORDS = 8;
const NON_FACTOID = [
  /\b(why|explain|describe)\b/iu,
  /\bhow\b(?!\s+(many|much|long|old|far|big|tall|often|large|high|deep|wide|fast|heavy|small|early|late|soon))/iu,
  /\bwhat\s+(is|are|was|were)\s+the\s+(reason|reasons|purpose|cause|causes|importance|significance|role|effect|effects)\b/iu,
  // Arabic, after normalizeForAnswerMatch (alef forms unified, diacritics and tatweel removed)
  /(^|[^\p{L}])(لماذا|لم|كيف|اشرح|وضح)(?![\p{L}])/u,
  /(^|[^\p{L}])ما\s+(هو\s+|هي\s+)?(سبب|اسباب|اهمية|الهدف|هدف|الغرض|دور|اثر|فايدة|فائدة)(?![\p{L}])/u,
];

/** The styles of one question ({@link QuestionStyle}); most questions have none. */
export function questionStyles(text: string, answers: readonly string[]): QuestionStyle[] {
  const styles: QuestionStyle[] = [];
  const question = normalizeForAnswerMatch(text);
  if (NON_FACTOID.some((pattern) => pattern.test(question))) styles.push('non-factoid');
  const words = answers.map((answer) => answer.split(/\s+/u).filter(Boolean).length);
  if (words.length > 0 && Math.min(...words) >= LONG_ANSWER_WORDS) styles.push('long-answer');
  return styles;
}

/** The questions of each style among `queries` (styles no question has are absent), in their order. */
export function styleSlices(dataset: BenchDataset, queries: BenchDataset['queries']): Map<QuestionStyle, BenchDataset['queries']> {
  const slices = new Map<QuestionStyle, BenchDataset['queries']>();
  for (const query of queries) {
    for (const style of questionStyles(query.text, dataset.answers?.get(query.id) ?? [])) {
      if (!slices.has(style)) slices.set(style, []);
      slices.get(style)!.push(query);
    }
  }
  return slices;
}

/** Queries of a dataset that have answers, by split group. */
export function answeredQueries(dataset: BenchDataset): Record<SplitGroup, BenchDataset['queries']> {
  const groups: Record<SplitGroup, BenchDataset['queries']> = { train: [], 'held-out': [] };
  for (const query of dataset.queries) {
    const answers = dataset.answers?.get(query.id);
    if (answers && answers.length > 0) groups[splitGroupOf(dataset, query.id)].push(query);
  }
  return groups;
}

/** Counts how many contexts hold an answer. */
export class AnswerTally {
  #hits = 0;
  #count = 0;

  /** Records one question's context. */
  add(context: string, answers: readonly string[]): boolean {
    const hit = answerInContext(context, answers);
    this.#count += 1;
    if (hit) this.#hits += 1;
    return hit;
  }

  /** Share of contexts that held an answer (0 when none was added). */
  get rate(): number {
    return this.#count === 0 ? 0 : this.#hits / this.#count;
  }

  get count(): number {
    return this.#count;
  }
}

/** The ceiling: share of questions whose answer appears anywhere in the top `depth` documents (and in the first alone). */
export function oracleRates(dataset: BenchDataset, run: Readonly<Record<string, readonly string[]>>, queries: BenchDataset['queries'], depth = 10): { topDepth: number; top1: number } {
  const documents = new Map(dataset.documents.map((document) => [document.id, document]));
  let any = 0;
  let first = 0;
  for (const query of queries) {
    const answers = dataset.answers?.get(query.id) ?? [];
    const texts = (run[query.id] ?? []).slice(0, depth).map((id) => {
      const document = documents.get(id);
      return document ? normalizeForAnswerMatch(documentContent(document)) : '';
    });
    if (texts.some((text) => answerInContext(text, answers, { normalizedContext: true }))) any += 1;
    if (texts[0] !== undefined && answerInContext(texts[0], answers, { normalizedContext: true })) first += 1;
  }
  const count = Math.max(1, queries.length);
  return { topDepth: any / count, top1: first / count };
}

/** answer-in-context of naive packing (top 10 documents joined by blank lines, cut at the budget) of a run. */
export function naiveAnswerRate(dataset: BenchDataset, run: Readonly<Record<string, readonly string[]>>, queries: BenchDataset['queries'], budget: number, counter: LengthCounter): number {
  const documents = new Map(dataset.documents.map((document) => [document.id, document]));
  const tally = new AnswerTally();
  for (const query of queries) {
    const contents = (run[query.id] ?? []).slice(0, 10).flatMap((id) => {
      const document = documents.get(id);
      return document ? [documentContent(document)] : [];
    });
    tally.add(packNaively(contents, budget, counter), dataset.answers?.get(query.id) ?? []);
  }
  return tally.rate;
}

/**
 * The lead a composition policy with lead share s keeps verbatim (see `CompositionPolicy.share` of
 * @zerda/composer), recomputed from the candidates: whole sentences in rank order — the first
 * passage's from its opening, then the next passage's — while they fit in `units`, a passage entering
 * with at least `minimum` characters (the composer's `minChunkLength`, default 50) and paying `frame`
 * units (its separator). Sentences here are whole sentences; the composer splits a long sentence into
 * clauses and so keeps at least this much (exactly, for a character counter).
 */
export function guaranteedLead(texts: readonly string[], units: number, counter: LengthCounter, frame: number, minimum = 50): string {
  const kept: string[] = [];
  let spent = 0;
  for (const text of texts) {
    const sentences = splitSentences(text);
    if (sentences.length === 0) continue;
    let end = 0;
    let pending = frame;
    for (const [index, sentence] of sentences.entries()) {
      pending += counter(sentence.text) + (index === 0 ? 0 : counter(text.slice(sentences[index - 1]!.end, sentence.start)));
      // The opening window is one pick: it is kept whole or not at all.
      if (end === 0 && [...text.slice(sentences[0]!.start, sentence.end)].length < minimum && index < sentences.length - 1) continue;
      if (spent + pending > units) {
        if (end > 0) kept.push(text.slice(0, end));
        return kept.join('\n');
      }
      spent += pending;
      pending = 0;
      end = sentence.end;
    }
    kept.push(text.slice(0, end));
  }
  return kept.join('\n');
}
