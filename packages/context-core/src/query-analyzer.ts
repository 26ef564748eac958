import { charCounter, detectLanguage, normalizeText, scriptMix, words, type Analyzer } from '@zerda/text';
import {
  ZerdaError,
  invalidArgument,
  resolveConfigSection,
  type AnalyzerConfig,
  type AnswerType,
  type QueryAnalysis,
  type QueryAnalyzer as QueryAnalyzerStrategy,
  type QueryComplexity,
  type QueryIntent,
} from '@zerda/types';
import type { AnalyzerConfigInput } from './config-input.js';
import { ANSWER_TYPE_CUES, COMPARISON_CUES, CONJUNCTIONS, DEFINITION_CUES, FACTUAL_CUES, HOW_TO_CUES, LIST_CUES, countWords, findCue, isDegreeQuestion, queryWords, withoutCopula, type Cue } from './cues.js';
import { assertKnownKeys, assertOptionsObject, assertString, resolveTextAnalyzer } from './validate.js';

/** The observations complexity and intent were derived from, for diagnostics and tuning. */
export interface QuerySignals {
  /** Words (letters or digits, any script) in the literal query. */
  wordCount: number;
  /** Standalone conjunctions (and, or, but, then, و, أو, لكن, ثم, بل …) plus Arabic `وال…` words. */
  conjunctions: number;
  /** Clause separators: , ، ; ؛ */
  clauseSeparators: number;
  /** Question marks, Latin and Arabic (? ؟). */
  questions: number;
  /** A comparison cue was found (compare, versus, difference, قارن, الفرق, أفضل …). */
  comparison: boolean;
  /** The cue words that decided the intent, normalised (empty for `other`). */
  intentCue: string;
  /** Points from length (0–2) and from structure (0–2); complexity is their sum capped at 2. */
  lengthLevel: number;
  structurePoints: number;
}

export interface QueryAnalyzerOptions {
  /** The text analyzer that produces keywords. Use the same one as the keyword index so that keywords match indexed terms. Default: `defaultAnalyzer` of @zerda/text. */
  analyzer?: Analyzer;
}

const INTENT_ORDER: ReadonlyArray<readonly [QueryIntent, readonly Cue[]]> = [
  ['comparison', COMPARISON_CUES],
  ['how-to', HOW_TO_CUES],
  ['list', LIST_CUES],
  ['definition', DEFINITION_CUES],
  ['factual', FACTUAL_CUES],
];

const LEVELS: readonly QueryComplexity[] = ['simple', 'moderate', 'complex'];

/** The most characters NFKC turns one character into (U+FDFA ﷺ becomes 18). */
const MAX_NFKC_EXPANSION = 18;

/**
 * Throws a ZerdaError naming `field` when `query` is longer than `maxLength` code points (the
 * `analyzer.maxQueryLength` setting), before or after NFKC normalisation: every analysis reads the
 * normalised text, and a compatibility character can expand to 18 (ﷺ), so the limit must hold there
 * too or a query within it could cost 18 times what the limit promises. Shared by the analyzer and
 * the engine, which checks before any stage runs.
 */
export function checkQueryLength(query: string, field: string, maxLength: number): void {
  const received = queryLengthProblem(query, maxLength);
  if (received === undefined) return;
  throw new ZerdaError('ZERDA_INVALID_ARGUMENT', {
    field,
    expected: `at most ${maxLength} characters (config.analyzer.maxQueryLength), before and after NFKC normalisation`,
    received,
  });
}

/** What is wrong with `query`'s length for {@link checkQueryLength} (as its error's `received`), or undefined when it is within `maxLength`. */
export function queryLengthProblem(query: string, maxLength: number): string | undefined {
  assertString(query, 'query');
  if (typeof maxLength !== 'number' || !Number.isInteger(maxLength) || maxLength < 1) throw invalidArgument('maxLength', 'a positive integer (config.analyzer.maxQueryLength)', maxLength);
  // Most queries are far below the limit in UTF-16 units already; count code points only near it.
  if (query.length > maxLength) {
    const length = charCounter(query);
    if (length > maxLength) return `a string of ${length} characters`;
  }
  // Only a query that could expand past the limit is normalised here (one native pass).
  if (query.length * MAX_NFKC_EXPANSION <= maxLength) return undefined;
  const normalized = query.normalize('NFKC');
  if (normalized.length <= maxLength) return undefined;
  const length = charCounter(normalized);
  return length > maxLength ? `a string that normalises (NFKC) to ${length} characters` : undefined;
}

/**
 * Rule-based query analysis for English, Arabic and mixed queries: language and script mix,
 * keywords, complexity, intent, the kind of answer asked for (`answerType`), and the budget and chunk count that suit the complexity.
 *
 * What the user asked (the literal query) decides language, script mix, complexity and intent;
 * the effective query (possibly enriched with conversation history) gives the keywords, because
 * keywords drive retrieval and keyword boost. Cue words are matched on normalised text, so
 * `أين` / `اين` / `أَيْنَ` and `What` / `what` are the same cue.
 */
export class QueryAnalyzer implements QueryAnalyzerStrategy {
  /** The resolved `analyzer` configuration section. */
  readonly config: AnalyzerConfig;
  private readonly textAnalyzer: Analyzer;

  constructor(config?: AnalyzerConfigInput, options: QueryAnalyzerOptions = {}) {
    this.textAnalyzer = resolveTextAnalyzer(options, ['analyzer']);
    this.config = resolveConfigSection('analyzer', config);
  }

  /**
   * Analyses `effectiveQuery`; `options.literalQuery` (default: `effectiveQuery`) is what the caller
   * typed and is recorded as `analysis.query`. Synchronous and pure.
   */
  analyze(effectiveQuery: string, options: { literalQuery?: string } = {}): QueryAnalysis {
    return this.analyzeDetailed(effectiveQuery, options).analysis;
  }

  /** Like {@link analyze}, plus the signals the verdicts were derived from. */
  analyzeDetailed(effectiveQuery: string, options: { literalQuery?: string } = {}): { analysis: QueryAnalysis; signals: QuerySignals } {
    assertString(effectiveQuery, 'effectiveQuery');
    assertOptionsObject(options, 'options');
    assertKnownKeys(options as Record<string, unknown>, ['literalQuery'], 'options');
    const literal = options.literalQuery === undefined ? effectiveQuery : options.literalQuery;
    assertString(literal, 'options.literalQuery');
    checkQueryLength(effectiveQuery, 'effectiveQuery', this.config.maxQueryLength);
    if (literal !== effectiveQuery) checkQueryLength(literal, 'options.literalQuery', this.config.maxQueryLength);

    // Start-only cues (“who …”, “من …”) count at the start of any clause, past a request the question is wrapped in.
    const normalized = normalizeText(literal);
    const { tokens, questionStarts: starts } = queryWords(normalized);
    const signals = this.signals(literal, tokens);
    const complexity = LEVELS[Math.min(2, signals.lengthLevel + signals.structurePoints)] as QueryComplexity;
    const { intent, cue } = this.intentOf(tokens, starts);
    signals.intentCue = cue;

    const keywords = [...new Set(this.textAnalyzer.analyze(effectiveQuery))];
    // A query that is only punctuation or digits says nothing about language; the effective
    // query (which may carry history) is the better witness then.
    const languageSource = /[\p{L}]/u.test(literal) ? literal : effectiveQuery;

    const analysis: QueryAnalysis = {
      query: literal,
      effectiveQuery,
      language: detectLanguage(languageSource),
      scriptMix: scriptMix(languageSource),
      keywords,
      complexity,
      intent,
      answerType: this.answerTypeOf(normalized, tokens, starts, intent),
      suggestedBudget: this.config.budgets[complexity],
      suggestedChunks: this.config.chunks[complexity],
    };
    return { analysis, signals };
  }

  private signals(literal: string, tokens: readonly string[]): QuerySignals {
    const wordCount = words(literal).length;
    // Arabic attaches “and” to the next word; `وال…` (and-the-…) is an unambiguous clause joiner.
    const attachedAnd = tokens.filter((token, index) => index > 0 && token.length >= 5 && token.startsWith('وال')).length;
    // A leading “and …” / “و…” continues the conversation; it does not join two clauses.
    const leading = tokens.length > 0 && CONJUNCTIONS.has(tokens[0] as string) ? 1 : 0;
    const conjunctions = countWords(tokens, CONJUNCTIONS) - leading + attachedAnd;
    const clauseSeparators = (literal.match(/[,،;؛]/gu) ?? []).length;
    const questions = (literal.match(/[?؟]/gu) ?? []).length;
    const comparison = findCue(tokens, COMPARISON_CUES) !== undefined;

    const lengthLevel = wordCount >= this.config.complexWords ? 2 : wordCount >= this.config.moderateWords ? 1 : 0;
    let points = 0;
    if (conjunctions >= 1) points++;
    if (clauseSeparators >= 2) points++;
    if (questions >= 2) points++;
    if (comparison) points++;
    return { wordCount, conjunctions, clauseSeparators, questions, comparison, intentCue: '', lengthLevel, structurePoints: Math.min(2, points) };
  }

  /** The kind of answer asked for: the first matching question-word table, else a definition for the definition intent, else `other`. */
  private answerTypeOf(normalized: string, tokens: readonly string[], starts: readonly number[], intent: QueryIntent): AnswerType {
    // “ما هو عدد …”, “ماهي عاصمة …” ask what “ما عدد …”, “ما عاصمة …” ask: the answer-type cues read the query without the copula.
    const plain = withoutCopula(normalized);
    if (plain !== normalized) ({ tokens, questionStarts: starts } = queryWords(plain));
    for (const [type, list] of ANSWER_TYPE_CUES) if (findCue(tokens, list, starts)) return type;
    if (isDegreeQuestion(tokens, starts)) return 'quantity';
    return intent === 'definition' ? 'definition' : 'other';
  }

  private intentOf(tokens: readonly string[], starts: readonly number[]): { intent: QueryIntent; cue: string } {
    for (const [intent, list] of INTENT_ORDER) {
      const cue = findCue(tokens, list, starts);
      if (cue) return { intent, cue: cue.words.join(' ') };
    }
    return { intent: 'other', cue: '' };
  }
}
