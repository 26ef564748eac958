import { charCounter, isArabic, type Analyzer } from '@zerda/text';
import {
  invalidArgument,
  resolveConfigSection,
  type ContextGuard as ContextGuardStrategy,
  type GuardConfig,
  type GuardInput,
  type GuardResult,
  type GuardWarning,
  type UsedChunk,
} from '@zerda/types';
import type { GuardConfigInput } from './config-input.js';
import { findInjections } from './injection-patterns.js';
import { assertKnownKeys, assertNumber, assertString, resolveTextAnalyzer } from './validate.js';

/** The stable codes of the guard's findings. */
export type GuardCode = 'empty_context' | 'over_budget' | 'low_relevance' | 'language_mismatch' | 'truncated_mid_sentence' | 'prompt_injection';

/** What replaces a redacted injection span. */
export const REDACTION_MARK = '[redacted]';

/**
 * The plain-string form of a finding, as `ContextResult.guardWarnings` carries it: the message
 * followed by ⚠ for errors and warnings, ℹ for notices — e.g. `'context is empty ⚠'`.
 */
export function warningToString(warning: GuardWarning): string {
  return `${warning.message} ${warning.severity === 'info' ? 'ℹ' : '⚠'}`;
}

/**
 * True when `text` ends where a sentence can end: after . ! ? ؟ ۔ (optionally followed by closing
 * quotes or brackets). A trailing ellipsis is the mark truncation leaves, so it is looked through:
 * `'First sentence.…'` ends a sentence, `'First sent…'` does not.
 */
export function endsAtSentenceBoundary(text: string): boolean {
  assertString(text, 'text');
  let end = text.trimEnd();
  if (end.endsWith('…')) end = end.slice(0, -1).trimEnd();
  else if (end.endsWith('...')) end = end.slice(0, -3).trimEnd();
  // Closing quotes and brackets, scanned from the end (a `+$` regex would retry from every position of a long run).
  let last = end.length;
  while (last > 0 && CLOSING.has(end[last - 1]!)) last--;
  return last > 0 && SENTENCE_END.has(end[last - 1]!);
}

/** The text ends with … or ... (then optional whitespace): what truncation leaves. */
function endsWithEllipsis(text: string): boolean {
  const end = text.trimEnd();
  return end.endsWith('…') || end.endsWith('...');
}

const CLOSING = new Set(['"', "'", '”', '’', '»', ')', ']']);
const SENTENCE_END = new Set(['.', '!', '?', '؟', '۔', '。', '！', '？']);

export interface ContextGuardOptions {
  /** Analyzer used to find query keywords in chunk text (relevance floor); must match the one that produced `analysis.keywords`. */
  analyzer?: Analyzer;
}

const LATIN = /\p{Script=Latin}/u;

/**
 * Checks a composed context before it reaches a model and reports structured findings:
 * - `empty_context` (error): nothing but whitespace;
 * - `over_budget` (error): longer than `budget` in the counter's unit (measured after redaction);
 * - `low_relevance` (warning): the best chunk's relevance — the larger of its query-keyword coverage
 *   and its vector cosine similarity — is below `minRelevance` (skipped when neither is known);
 * - `language_mismatch` (warning): an Arabic query with no Arabic letter in the context, or an English
 *   query with no Latin letter;
 * - `truncated_mid_sentence` (info): a chunk was cut and its kept text does not end a sentence;
 * - `prompt_injection` (warning): instruction-like text aimed at the model (English and Arabic), which is
 *   replaced by `[redacted]` in the returned context when `injection` is `redact`.
 *
 * `passed` is false only when an error-severity finding exists. Synchronous.
 */
export class ContextGuard implements ContextGuardStrategy {
  /** The resolved `guard` configuration section. */
  readonly config: GuardConfig;
  private readonly textAnalyzer: Analyzer;

  constructor(config?: GuardConfigInput, options: ContextGuardOptions = {}) {
    this.textAnalyzer = resolveTextAnalyzer(options, ['analyzer']);
    this.config = resolveConfigSection('guard', config);
  }

  /** Checks one composed context (synchronously); see the class comment for the findings. */
  check(input: GuardInput): GuardResult {
    this.validate(input);
    const chunks = input.chunks ?? [];
    if (!this.config.enabled) return { passed: true, warnings: [], context: input.context };
    const warnings: GuardWarning[] = [];
    let context = input.context;

    if (context.trim().length === 0) {
      warnings.push({ code: 'empty_context', severity: 'error', message: 'context is empty' });
      return { passed: false, warnings, context };
    }

    if (this.config.injection !== 'off') {
      const spans = findInjections(context);
      if (spans.length > 0) {
        const chunkIds = chunks.filter((used) => findInjections(used.keptText ?? used.chunk.text).length > 0).map((used) => used.chunk.id);
        const phrases = describePhrases(spans);
        const redact = this.config.injection === 'redact';
        if (redact) context = redactSpans(context, spans);
        warnings.push({
          code: 'prompt_injection',
          severity: 'warning',
          message: `possible prompt injection in retrieved text (${phrases})${redact ? ', redacted' : ''}`,
          ...(chunkIds.length > 0 ? { chunkIds } : {}),
        });
      }
    }

    if (input.budget !== undefined) {
      const counter = input.counter ?? charCounter;
      const length = counter(context);
      if (length > input.budget) {
        warnings.push({ code: 'over_budget', severity: 'error', message: `context is over budget (${length} > ${input.budget} ${counter.unit ?? 'units'})` });
      }
    }

    const relevance = this.bestRelevance(chunks, input.analysis?.keywords ?? []);
    if (relevance !== undefined && relevance.value < this.config.minRelevance) {
      warnings.push({
        code: 'low_relevance',
        severity: 'warning',
        message: `best chunk relevance ${relevance.value.toFixed(2)} is below ${this.config.minRelevance}`,
        chunkIds: [relevance.chunkId],
      });
    }

    if (this.config.languageMismatch && input.analysis) {
      // Judge the language of the passages, not of the template around them: Arabic labels such as
      // "المصادر:" must not make an English-only context look Arabic.
      const passages = chunks.length > 0 ? chunks.map((used) => used.keptText ?? used.chunk.text).join('\n') : context;
      if (input.analysis.language === 'ar' && !isArabic(passages)) {
        warnings.push({ code: 'language_mismatch', severity: 'warning', message: 'Arabic query but the context has no Arabic text' });
      } else if (input.analysis.language === 'en' && !LATIN.test(passages)) {
        warnings.push({ code: 'language_mismatch', severity: 'warning', message: 'English query but the context has no English text' });
      }
    }

    const cut = chunks.filter((used) => used.fit !== undefined && used.fit !== 'whole' && !endsAtSentenceBoundary(used.keptText ?? ''));
    if (cut.length > 0) {
      warnings.push({ code: 'truncated_mid_sentence', severity: 'info', message: `context cut mid-sentence (${cut.length} chunk${cut.length === 1 ? '' : 's'})`, chunkIds: cut.map((used) => used.chunk.id) });
    } else if (chunks.length === 0 && endsWithEllipsis(context) && !endsAtSentenceBoundary(context)) {
      warnings.push({ code: 'truncated_mid_sentence', severity: 'info', message: 'context cut mid-sentence' });
    }

    return { passed: !warnings.some((warning) => warning.severity === 'error'), warnings, context };
  }

  /** The most relevant chunk by absolute signals (keyword coverage, vector similarity); undefined when no signal exists. */
  private bestRelevance(chunks: readonly UsedChunk[], keywords: readonly string[]): { value: number; chunkId: string } | undefined {
    const unique = [...new Set(keywords)];
    let best: { value: number; chunkId: string } | undefined;
    for (const used of chunks) {
      const signals: number[] = [];
      if (typeof used.scores?.keywordBoost === 'number') signals.push(used.scores.keywordBoost);
      else if (unique.length > 0) {
        const terms = new Set(this.textAnalyzer.analyze(used.keptText ?? used.chunk.text));
        signals.push(unique.filter((keyword) => terms.has(keyword)).length / unique.length);
      }
      if (typeof used.scores?.vector === 'number') signals.push(Math.max(0, Math.min(1, used.scores.vector)));
      if (signals.length === 0) continue;
      const value = Math.max(...signals);
      if (!best || value > best.value) best = { value, chunkId: used.chunk.id };
    }
    return best;
  }

  private validate(input: GuardInput): void {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) throw invalidArgument('input', 'an object { context, chunks, analysis?, budget?, counter? }', input);
    assertKnownKeys(input as unknown as Record<string, unknown>, ['context', 'chunks', 'analysis', 'budget', 'counter'], 'input');
    assertString(input.context, 'input.context');
    if (input.chunks !== undefined) {
      if (!Array.isArray(input.chunks)) throw invalidArgument('input.chunks', 'an array of used chunks', input.chunks);
      input.chunks.forEach((used, i) => {
        if (used === null || typeof used !== 'object' || used.chunk === null || typeof used.chunk !== 'object' || typeof used.chunk.id !== 'string') {
          throw invalidArgument(`input.chunks[${i}]`, 'a used chunk with chunk.id', used);
        }
        if (used.keptText !== undefined) assertString(used.keptText, `input.chunks[${i}].keptText`);
      });
    }
    if (input.budget !== undefined) assertNumber(input.budget, 'input.budget', { min: 0 });
    if (input.counter !== undefined && typeof input.counter !== 'function') throw invalidArgument('input.counter', 'a function (text) => number', input.counter);
    if (input.analysis !== undefined) {
      if (input.analysis === null || typeof input.analysis !== 'object') throw invalidArgument('input.analysis', 'a QueryAnalysis', input.analysis);
      if (input.analysis.keywords !== undefined && !Array.isArray(input.analysis.keywords)) throw invalidArgument('input.analysis.keywords', 'an array of strings', input.analysis.keywords);
    }
  }
}

function truncateForMessage(text: string): string {
  // Only the start is shown: flatten a bounded prefix, whatever the length of the match.
  const flat = Array.from(text.slice(0, 240).replace(/\s+/gu, ' '));
  return flat.length > 60 || text.length > 240 ? `${flat.slice(0, 57).join('')}…` : flat.join('');
}

/** At most this many distinct phrases are quoted in the warning; the rest are counted. */
const MAX_QUOTED_PHRASES = 5;

function describePhrases(spans: ReadonlyArray<{ match: string }>): string {
  const distinct = new Set<string>();
  for (const span of spans) distinct.add(JSON.stringify(truncateForMessage(span.match)));
  const quoted = [...distinct].slice(0, MAX_QUOTED_PHRASES).join(', ');
  return distinct.size > MAX_QUOTED_PHRASES ? `${quoted} and ${distinct.size - MAX_QUOTED_PHRASES} more` : quoted;
}

/**
 * `text` with every span (sorted, non-overlapping, as findInjections returns them) replaced by
 * {@link REDACTION_MARK}, built in one pass: linear in the text and the number of spans.
 */
function redactSpans(text: string, spans: ReadonlyArray<{ start: number; end: number }>): string {
  const pieces: string[] = [];
  let from = 0;
  for (const span of spans) {
    pieces.push(text.slice(from, span.start), REDACTION_MARK);
    from = span.end;
  }
  pieces.push(text.slice(from));
  return pieces.join('');
}
