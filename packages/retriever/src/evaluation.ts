import { normalizeText } from '@zerda/text';
import { invalidArgument } from '@zerda/types';

/**
 * Retrieval-quality metrics in the trec_eval / BEIR convention: graded relevance judgements per
 * query (`relevance > 0` is relevant), linear gains in nDCG, and averages over every judged query
 * (a judged query with no results scores 0). Pure functions, no I/O.
 */

/** Judgements of one query: document id → relevance grade (> 0 is relevant). */
export type Judgements = ReadonlyMap<string, number>;
/** Judgements per query id. */
export type Qrels = ReadonlyMap<string, Judgements>;
/** A system's ranked document ids per query id, best first. */
export type Run = ReadonlyMap<string, readonly string[]>;

function relevantCount(judgements: Judgements): number {
  let count = 0;
  for (const grade of judgements.values()) if (grade > 0) count++;
  return count;
}

function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw invalidArgument('k', 'a positive integer', k);
}

/**
 * nDCG@k with linear gains: Σ grade / log2(rank + 1) over the first k results, divided by the same
 * sum for the ideal ordering of all judged documents. 0 when the query has no relevant document.
 * Repeated ids count once (the first occurrence).
 */
export function ndcgAtK(ranked: readonly string[], judgements: Judgements, k: number): number {
  checkK(k);
  const seen = new Set<string>();
  let dcg = 0;
  let rank = 0;
  for (const id of ranked) {
    if (rank >= k) break;
    if (seen.has(id)) continue;
    seen.add(id);
    rank++;
    const grade = judgements.get(id) ?? 0;
    if (grade > 0) dcg += grade / Math.log2(rank + 1);
  }
  const ideal = [...judgements.values()].filter((grade) => grade > 0).sort((a, b) => b - a);
  let idcg = 0;
  for (let index = 0; index < Math.min(k, ideal.length); index++) idcg += ideal[index]! / Math.log2(index + 2);
  return idcg === 0 ? 0 : dcg / idcg;
}

/** Recall@k: share of the relevant documents found in the first k results (0 when none is relevant). */
export function recallAtK(ranked: readonly string[], judgements: Judgements, k: number): number {
  checkK(k);
  const relevant = relevantCount(judgements);
  if (relevant === 0) return 0;
  const found = new Set<string>();
  for (const id of ranked.slice(0, k)) if ((judgements.get(id) ?? 0) > 0) found.add(id);
  return found.size / relevant;
}

/** Reciprocal rank of the first relevant result within the first k (0 when there is none). */
export function reciprocalRankAtK(ranked: readonly string[], judgements: Judgements, k: number): number {
  checkK(k);
  const limit = Math.min(k, ranked.length);
  for (let index = 0; index < limit; index++) if ((judgements.get(ranked[index]!) ?? 0) > 0) return 1 / (index + 1);
  return 0;
}

/** Mean metrics of a run. */
export interface EvaluationSummary {
  /** Judged queries averaged over (those with at least one relevant document). */
  queries: number;
  ndcgAt10: number;
  recallAt10: number;
  recallAt100: number;
  mrrAt10: number;
}

/**
 * Averages nDCG@10, Recall@10, Recall@100 and MRR@10 over every query of `qrels` that has a
 * relevant document; a query missing from the run counts as an empty ranking.
 */
export function evaluateRun(run: Run, qrels: Qrels): EvaluationSummary {
  let queries = 0;
  const totals = { ndcgAt10: 0, recallAt10: 0, recallAt100: 0, mrrAt10: 0 };
  for (const [queryId, judgements] of qrels) {
    if (relevantCount(judgements) === 0) continue;
    queries++;
    const ranked = run.get(queryId) ?? [];
    totals.ndcgAt10 += ndcgAtK(ranked, judgements, 10);
    totals.recallAt10 += recallAtK(ranked, judgements, 10);
    totals.recallAt100 += recallAtK(ranked, judgements, 100);
    totals.mrrAt10 += reciprocalRankAtK(ranked, judgements, 10);
  }
  const mean = (total: number): number => (queries === 0 ? 0 : total / queries);
  return {
    queries,
    ndcgAt10: mean(totals.ndcgAt10),
    recallAt10: mean(totals.recallAt10),
    recallAt100: mean(totals.recallAt100),
    mrrAt10: mean(totals.mrrAt10),
  };
}

/**
 * Parses a qrels TSV (`query-id<TAB>corpus-id<TAB>score`, optional header line) into {@link Qrels}.
 * Blank lines are skipped; a malformed line throws a ZerdaError naming its line number.
 */
export function parseQrels(tsv: string): Map<string, Map<string, number>> {
  if (typeof tsv !== 'string') throw invalidArgument('tsv', 'a string', tsv);
  const qrels = new Map<string, Map<string, number>>();
  const lines = tsv.split(/\r?\n/);
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const fields = line.split('\t');
    if (index === 0 && fields[0] === 'query-id') return;
    const grade = Number(fields[2]);
    if (fields.length < 3 || !fields[0] || !fields[1] || !Number.isFinite(grade)) {
      throw invalidArgument(`tsv line ${index + 1}`, 'query-id<TAB>corpus-id<TAB>score', line);
    }
    let judgements = qrels.get(fields[0]);
    if (!judgements) qrels.set(fields[0], (judgements = new Map()));
    judgements.set(fields[1], grade);
  });
  return qrels;
}

/**
 * The normalisation answer-in-context compares under, the same on both sides: Unicode NFKC,
 * invisible format characters removed, case folded, Arabic diacritics and tatweel removed, alef
 * forms (أ إ آ ٱ) unified, ى → ي, Arabic-Indic digits as ASCII (the shared `normalizeText` of
 * @zerda/text), and every whitespace run collapsed to one space, trimmed. Linear in the text.
 */
export function normalizeForAnswerMatch(text: string): string {
  if (typeof text !== 'string') throw invalidArgument('text', 'a string', text);
  return normalizeText(text).replace(/\s+/gu, ' ').trim();
}

/** Options of {@link answerInContext}. */
export interface AnswerInContextOptions {
  /**
   * The context is already normalised with {@link normalizeForAnswerMatch} (checking many answer
   * sets against one context, or one context many times, normalises it once). Default false.
   */
  normalizedContext?: boolean;
}

/**
 * answer-in-context: true when the context holds at least one of the gold answer strings, both
 * compared after {@link normalizeForAnswerMatch} (so diacritics, tatweel, alef variants, case,
 * NFKC forms and line breaks neither help nor hurt). Answers that normalise to the empty string are
 * ignored; with no usable answer the result is false. Linear in the context per answer (substring search).
 */
export function answerInContext(context: string, answers: readonly string[], options: AnswerInContextOptions = {}): boolean {
  if (typeof context !== 'string') throw invalidArgument('context', 'a string', context);
  if (!Array.isArray(answers)) throw invalidArgument('answers', 'an array of answer strings', answers);
  if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an options object', options);
  for (const key of Object.keys(options)) {
    if (key !== 'normalizedContext') throw invalidArgument(`options.${key}`, 'no such option (known: normalizedContext)', (options as Record<string, unknown>)[key]);
  }
  if (options.normalizedContext !== undefined && typeof options.normalizedContext !== 'boolean') {
    throw invalidArgument('options.normalizedContext', 'a boolean', options.normalizedContext);
  }
  const haystack = options.normalizedContext ? context : normalizeForAnswerMatch(context);
  return answers.some((answer, index) => {
    if (typeof answer !== 'string') throw invalidArgument(`answers[${index}]`, 'a string', answer);
    const needle = normalizeForAnswerMatch(answer);
    return needle !== '' && haystack.includes(needle);
  });
}
