import { invalidArgument } from '@zerda/types';
import { lightStemArabic } from './arabic-stemmer.js';
import { snowballStem } from './arabic-snowball-stemmer.js';
import { BoundedCache } from './bounded-cache.js';
import { countCodePoints } from './counters.js';
import { porter2Stem } from './english-stemmer.js';
import { optionalBoolean, optionalEnum, optionalObject, rejectUnknownKeys, requireString } from './input-validation.js';
import type { ArabicNormalizeOptions } from './normalization.js';
import { normalizeTextResolved } from './normalization.js';
import { ENGLISH_STOPWORDS, arabicStopwordsFor } from './stopwords.js';
import type { Token, TokenScript } from './tokenizer.js';
import { forEachToken, tokenizeUnchecked } from './tokenizer.js';

/** Arabic stemmers: `'light'` ({@link stemArabic}), `'snowball'` ({@link snowballStemArabic}) or none. */
export type ArabicStemmerName = 'light' | 'snowball' | 'none';
/** English stemmers: `'porter2'` ({@link stemEnglish}) or none. */
export type EnglishStemmerName = 'porter2' | 'none';

/** How an {@link Analyzer} turns text into terms. Every field is optional; see {@link DEFAULT_ANALYZER_OPTIONS}. */
export interface AnalyzerOptions {
  /** Stem terms (per script, with the stemmers chosen below). Default true. */
  stem?: boolean;
  /** Drop stopwords of the token's script. Default true. */
  stopwords?: boolean;
  /** Arabic normalisation foldings and the Arabic stemmer. Default: no optional folding, `'light'` stemmer. */
  arabic?: ArabicNormalizeOptions & { stemmer?: ArabicStemmerName };
  /** The English (Latin-script) stemmer. Default `'porter2'`. */
  english?: { stemmer?: EnglishStemmerName };
  /** Terms shorter than this many code points (after normalisation, before stemming) are dropped. Default 1. */
  minTokenLength?: number;
}

/** Fully resolved analyzer options: plain JSON, so an index can record how it was analysed. */
export interface ResolvedAnalyzerOptions {
  stem: boolean;
  stopwords: boolean;
  arabic: { tehMarbuta: boolean; hamzaSeats: boolean; stemmer: ArabicStemmerName };
  english: { stemmer: EnglishStemmerName };
  minTokenLength: number;
}

/** The defaults every omitted option takes. */
export const DEFAULT_ANALYZER_OPTIONS: Readonly<ResolvedAnalyzerOptions> = Object.freeze({
  stem: true,
  stopwords: true,
  arabic: Object.freeze({ tehMarbuta: false, hamzaSeats: false, stemmer: 'light' as const }),
  english: Object.freeze({ stemmer: 'porter2' as const }),
  minTokenLength: 1,
});

/** A term with the source token it came from (positions refer to the analysed text). */
export interface AnalyzedToken {
  term: string;
  token: Token;
}

const ARABIC_STEMMERS: readonly ArabicStemmerName[] = ['light', 'snowball', 'none'];
const ENGLISH_STEMMERS: readonly EnglishStemmerName[] = ['porter2', 'none'];
const WORD_ONLY = /^[\p{L}\p{M}\p{N}]+$/u;

/** Validates and fills in analyzer options; throws a ZerdaError naming the offending option. */
export function resolveAnalyzerOptions(options?: AnalyzerOptions): ResolvedAnalyzerOptions {
  const record = optionalObject(options, 'options') ?? {};
  rejectUnknownKeys(record, ['stem', 'stopwords', 'arabic', 'english', 'minTokenLength'], 'options');
  const arabic = optionalObject(record.arabic, 'options.arabic') ?? {};
  rejectUnknownKeys(arabic, ['tehMarbuta', 'hamzaSeats', 'stemmer'], 'options.arabic');
  const english = optionalObject(record.english, 'options.english') ?? {};
  rejectUnknownKeys(english, ['stemmer'], 'options.english');
  const minTokenLength = record.minTokenLength ?? DEFAULT_ANALYZER_OPTIONS.minTokenLength;
  if (typeof minTokenLength !== 'number' || !Number.isInteger(minTokenLength) || minTokenLength < 1) {
    throw invalidArgument('options.minTokenLength', 'an integer >= 1', minTokenLength);
  }
  const defaults = DEFAULT_ANALYZER_OPTIONS;
  return {
    stem: optionalBoolean(record.stem, 'options.stem') ?? defaults.stem,
    stopwords: optionalBoolean(record.stopwords, 'options.stopwords') ?? defaults.stopwords,
    arabic: {
      tehMarbuta: optionalBoolean(arabic.tehMarbuta, 'options.arabic.tehMarbuta') ?? defaults.arabic.tehMarbuta,
      hamzaSeats: optionalBoolean(arabic.hamzaSeats, 'options.arabic.hamzaSeats') ?? defaults.arabic.hamzaSeats,
      stemmer: optionalEnum(arabic.stemmer, ARABIC_STEMMERS, 'options.arabic.stemmer') ?? defaults.arabic.stemmer,
    },
    english: { stemmer: optionalEnum(english.stemmer, ENGLISH_STEMMERS, 'options.english.stemmer') ?? defaults.english.stemmer },
    minTokenLength,
  };
}

/** The fingerprint of resolved options: every option, in a fixed order, so distinct options never share one. */
function analyzerFingerprint(options: ResolvedAnalyzerOptions): string {
  const flags = [options.stem && 'stem', options.stopwords && 'stopwords', options.arabic.tehMarbuta && 'tehMarbuta', options.arabic.hamzaSeats && 'hamzaSeats'].filter(Boolean);
  return `zerda-analyzer(${[...flags, `arabic=${options.arabic.stemmer}`, `english=${options.english.stemmer}`, `min=${options.minTokenLength}`].join(',')})`;
}

const NO_TERMS: readonly string[] = Object.freeze([]);
const TOKEN_SCRIPTS: readonly TokenScript[] = ['arabic', 'latin', 'digit', 'other'];

/**
 * What one distinct token text analyses to: no term (`null`: a stopword, too short, normalised
 * away), one term (a string: the usual case), or several (a compatibility character such as ﷺ or ½
 * expands to words).
 */
export type TermsOfToken = string | readonly string[] | null;

/**
 * Turns text into index/query terms: tokenize the original text (so positions refer to it), then
 * per token normalise ({@link normalizeText}), drop stopwords and short terms, and stem with the
 * stemmer of the token's script (Arabic tokens with the Arabic stemmer, Latin tokens with the
 * English one, digits and other scripts unstemmed). Results per distinct token are memoised in a
 * bounded cache, so analysing a corpus costs little more than tokenizing it.
 */
export class Analyzer {
  /** The resolved options (plain JSON: record them next to an index to know how it was analysed). */
  readonly options: Readonly<ResolvedAnalyzerOptions>;
  /**
   * Names exactly what this analyzer does (every option, e.g.
   * `zerda-analyzer(stem,stopwords,arabic=light,english=porter2,min=1)`): two analyzers with the same
   * fingerprint turn every text into the same terms, so a stage may reuse terms another stage found
   * with an analyzer of the same fingerprint (see `ScoredChunk.termMatches`).
   */
  readonly fingerprint: string;
  // Bounded in characters too: a token can be a megabyte of letters and marks (computed each time, not kept).
  private readonly cache = new BoundedCache<string, TermsOfToken>(100_000, { maxWeight: 4_000_000, maxEntryWeight: 256 });
  private readonly arabicStopwords: ReadonlySet<string>;

  constructor(options?: AnalyzerOptions) {
    const resolved = resolveAnalyzerOptions(options);
    this.options = Object.freeze({ ...resolved, arabic: Object.freeze(resolved.arabic), english: Object.freeze(resolved.english) });
    this.arabicStopwords = arabicStopwordsFor(resolved.arabic.tehMarbuta, resolved.arabic.hamzaSeats);
    this.fingerprint = analyzerFingerprint(resolved);
  }

  /** Index/query terms of `text`, in order, duplicates kept. */
  analyze(text: string): string[] {
    requireString(text, 'text');
    const terms: string[] = [];
    // The hot path of indexing: walk the tokens' offsets instead of materialising Token objects,
    // and look each token text up in the memo before doing any work on it.
    forEachToken(text, (start, end, script) => {
      const result = this.termsOf(text.slice(start, end), script);
      if (result === null) return;
      if (typeof result === 'string') terms.push(result);
      else for (const term of result) terms.push(term);
    });
    return terms;
  }

  /** Like {@link Analyzer.analyze}, with the source token (and its offsets in `text`) of every term. */
  analyzeTokens(text: string): AnalyzedToken[] {
    requireString(text, 'text');
    const analyzed: AnalyzedToken[] = [];
    forEachToken(text, (start, end, script) => {
      const word = text.slice(start, end);
      const result = this.termsOf(word, script);
      // Stopwords produce no Token object at all.
      if (result === null) return;
      const token: Token = { text: word, start, end, script };
      if (typeof result === 'string') analyzed.push({ term: result, token });
      else for (const term of result) analyzed.push({ term, token });
    });
    return analyzed;
  }

  /**
   * The terms one token analyses to, exactly as {@link Analyzer.analyze} would produce them for it
   * (memoised): none for a stopword or a too-short token, usually one, several for a compatibility
   * character that expands to words. For callers that tokenised a text once (`tokenize`) and need
   * both the tokens and their terms.
   */
  termsOfToken(token: Pick<Token, 'text' | 'script'>): readonly string[] {
    if (token === null || typeof token !== 'object') throw invalidArgument('token', 'a token { text, script } from tokenize()', token);
    requireString(token.text, 'token.text');
    if (!TOKEN_SCRIPTS.includes(token.script)) throw invalidArgument('token.script', `one of ${TOKEN_SCRIPTS.join(', ')}`, token.script);
    const result = this.termsOf(token.text, token.script);
    return result === null ? NO_TERMS : typeof result === 'string' ? [result] : result;
  }

  /**
   * Calls `visit(word, start, end, script, terms)` for every token of `text` in order — stopwords
   * and too-short tokens included, with `terms` null — where `terms` is exactly what
   * {@link Analyzer.termsOfToken} gives for the token, without allocating: null, one term as a
   * string, or a shared array of several (do not change it). For callers that read every token of
   * a text and its terms in one pass (the composer's chunk analysis). Linear in the text.
   */
  forEachTokenTerms(text: string, visit: (word: string, start: number, end: number, script: TokenScript, terms: TermsOfToken) => void): void {
    requireString(text, 'text');
    if (typeof visit !== 'function') throw invalidArgument('visit', 'a function (word, start, end, script, terms) => void', visit);
    forEachToken(text, (start, end, script) => {
      const word = text.slice(start, end);
      visit(word, start, end, script, this.termsOf(word, script));
    });
  }

  /** The memoised terms of one token. */
  private termsOf(word: string, script: TokenScript): TermsOfToken {
    let result = this.cache.get(word);
    if (result === undefined) {
      result = this.computeTerms(word, script);
      this.cache.set(word, result);
    }
    return result;
  }

  private computeTerms(text: string, script: TokenScript): TermsOfToken {
    const { tehMarbuta, hamzaSeats } = this.options.arabic;
    const normalized = normalizeTextResolved(text, tehMarbuta, hamzaSeats);
    if (WORD_ONLY.test(normalized)) return this.finishTerm(normalized, script);
    // Normalisation expanded or broke the token (a ligature became several words, a format
    // character vanished): analyse the pieces as tokens of their own.
    const terms: string[] = [];
    for (const piece of tokenizeUnchecked(normalized)) {
      const term = this.finishTerm(piece.text, piece.script);
      if (term !== null) terms.push(term);
    }
    if (terms.length === 0) return null;
    return terms.length === 1 ? (terms[0] as string) : terms;
  }

  private finishTerm(term: string, script: TokenScript): string | null {
    if (term.length === 0 || countCodePoints(term) < this.options.minTokenLength) return null;
    if (this.options.stopwords) {
      if (script === 'arabic' && this.arabicStopwords.has(term)) return null;
      if (script === 'latin' && ENGLISH_STOPWORDS.has(term)) return null;
    }
    if (!this.options.stem) return term;
    let stem = term;
    if (script === 'arabic') {
      if (this.options.arabic.stemmer === 'light') stem = lightStemArabic(term);
      else if (this.options.arabic.stemmer === 'snowball') stem = snowballStem(term);
    } else if (script === 'latin' && this.options.english.stemmer === 'porter2') {
      stem = porter2Stem(term);
    }
    return stem.length > 0 ? stem : term;
  }
}

/** An {@link Analyzer} with the default options (light Arabic stemmer, Porter2, stopwords on). */
export const defaultAnalyzer: Analyzer = new Analyzer();
