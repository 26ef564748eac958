import { Analyzer, DEFAULT_ANALYZER_OPTIONS, defaultAnalyzer, type AnalyzerOptions, type ResolvedAnalyzerOptions } from '@zerda/text';
import { invalidArgument, resolveConfigSection } from '@zerda/types';

/** Okapi BM25 parameters of the keyword index (the engine's `retrieval.bm25` settings). */
export interface Bm25Options {
  /** Term-frequency saturation. Default 1.2. */
  k1?: number;
  /** Length normalisation, 0–1. Default 0.75. */
  b?: number;
  /** A title occurrence counts as this many text occurrences (in frequency and length). Default 1. */
  titleWeight?: number;
}

/** {@link Bm25Options} with every value present. */
export type Bm25Parameters = Required<Bm25Options>;

/** The engine's defaults (`retrieval.bm25` of the config), so the store ranks like `KeywordRetriever` out of the box. */
export const DEFAULT_BM25: Readonly<Bm25Parameters> = Object.freeze({ ...resolveConfigSection('retrieval', {}).bm25 });

/**
 * Analysed terms longer than this many UTF-16 code units are cut to it (in documents and queries
 * alike, so such a token still matches itself): a B-tree key must fit in a third of a page.
 */
export const MAX_TERM_LENGTH = 256;

function checkNonNegative(value: unknown, field: string, maximum = Number.POSITIVE_INFINITY): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > maximum) {
    throw invalidArgument(field, maximum === Number.POSITIVE_INFINITY ? 'a finite number >= 0' : `a number from 0 to ${maximum}`, value);
  }
  return value;
}

/** Validates BM25 options (unknown keys rejected) and fills in the defaults. */
export function checkBm25(value: unknown, field: string, defaults: Bm25Parameters = DEFAULT_BM25): Bm25Parameters {
  if (value === undefined) return { ...defaults };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidArgument(field, 'an object { k1, b, titleWeight }', value);
  for (const key of Object.keys(value)) {
    if (key !== 'k1' && key !== 'b' && key !== 'titleWeight') throw invalidArgument(`${field}.${key}`, 'a known option (k1, b or titleWeight)', `unknown key "${key}"`);
  }
  const input = value as Bm25Options;
  return {
    k1: input.k1 === undefined ? defaults.k1 : checkNonNegative(input.k1, `${field}.k1`),
    b: input.b === undefined ? defaults.b : checkNonNegative(input.b, `${field}.b`, 1),
    titleWeight: input.titleWeight === undefined ? defaults.titleWeight : checkNonNegative(input.titleWeight, `${field}.titleWeight`),
  };
}

/** The analyzer for resolved options: the shared default instance (its per-word cache stays warm) when they are the defaults. */
export function analyzerFor(options: AnalyzerOptions | ResolvedAnalyzerOptions | undefined): Analyzer {
  const analyzer = options === undefined ? defaultAnalyzer : new Analyzer(options);
  return JSON.stringify(analyzer.options) === JSON.stringify(DEFAULT_ANALYZER_OPTIONS) ? defaultAnalyzer : analyzer;
}

/** A term as the index stores it: cut to {@link MAX_TERM_LENGTH} code units, never inside a surrogate pair. */
export function indexTerm(term: string): string {
  if (term.length <= MAX_TERM_LENGTH) return term;
  const cut = term.charCodeAt(MAX_TERM_LENGTH - 1) >= 0xd800 && term.charCodeAt(MAX_TERM_LENGTH - 1) <= 0xdbff ? MAX_TERM_LENGTH - 1 : MAX_TERM_LENGTH;
  return term.slice(0, cut);
}

/** How often each term occurs in `terms`, in first-occurrence order. */
function countTerms(terms: readonly string[]): Map<string, number> {
  const into = new Map<string, number>();
  for (const raw of terms) {
    const term = indexTerm(raw);
    into.set(term, (into.get(term) ?? 0) + 1);
  }
  return into;
}

/** One chunk's analysis: its lengths in terms and one posting per distinct term. */
export interface AnalysedChunk {
  textLength: number;
  titleLength: number;
  terms: string[];
  textFrequencies: number[];
  titleFrequencies: number[];
}

/**
 * Analyses a chunk the way `KeywordRetriever` does: text and title separately with the same
 * analyzer (`@zerda/text`: Unicode tokens, Arabic diacritics/tatweel/alef forms normalised and
 * light-stemmed, English Porter2, stopwords dropped), lengths counted in terms.
 */
export function analyseChunk(analyzer: Analyzer, text: string, title: string | undefined): AnalysedChunk {
  const textTerms = analyzer.analyze(text);
  const titleTerms = title ? analyzer.analyze(title) : [];
  const textCounts = countTerms(textTerms);
  const titleCounts = countTerms(titleTerms);
  const terms = [...new Set([...textCounts.keys(), ...titleCounts.keys()])];
  return {
    textLength: textTerms.length,
    titleLength: titleTerms.length,
    terms,
    textFrequencies: terms.map((term) => textCounts.get(term) ?? 0),
    titleFrequencies: terms.map((term) => titleCounts.get(term) ?? 0),
  };
}

/** A query's distinct terms and how often each occurs in it (a repeated query term weighs more, as in `KeywordRetriever`). */
export function queryTerms(analyzer: Analyzer, query: string): { terms: string[]; weights: number[] } {
  const counts = countTerms(analyzer.analyze(query));
  return { terms: [...counts.keys()], weights: [...counts.values()] };
}

/** Postings of many chunks as the column arrays one `INSERT … SELECT FROM unnest(…)` takes. */
export class PostingColumns {
  terms: string[] = [];
  chunkIds: string[] = [];
  textFrequencies: number[] = [];
  titleFrequencies: number[] = [];
  textLengths: number[] = [];
  titleLengths: number[] = [];

  get length(): number {
    return this.terms.length;
  }

  push(chunkId: string, analysed: AnalysedChunk): void {
    for (let index = 0; index < analysed.terms.length; index++) {
      this.terms.push(analysed.terms[index]!);
      this.chunkIds.push(chunkId);
      this.textFrequencies.push(analysed.textFrequencies[index]!);
      this.titleFrequencies.push(analysed.titleFrequencies[index]!);
      this.textLengths.push(analysed.textLength);
      this.titleLengths.push(analysed.titleLength);
    }
  }

  /** The bind parameters of `postingsInsertStatement`, `size` postings at a time. */
  *slices(size: number): Generator<unknown[]> {
    for (let start = 0; start < this.length; start += size) {
      const end = start + size;
      yield [
        this.terms.slice(start, end),
        this.chunkIds.slice(start, end),
        this.textFrequencies.slice(start, end),
        this.titleFrequencies.slice(start, end),
        this.textLengths.slice(start, end),
        this.titleLengths.slice(start, end),
      ];
    }
  }
}

/** Inserts postings given as six parallel arrays (see {@link PostingColumns.slices}). */
export function postingsInsertStatement(postings: string): string {
  return `INSERT INTO ${postings} (term, chunk_id, text_frequency, title_frequency, text_length, title_length)
    SELECT * FROM unnest($1::text[], $2::text[], $3::int4[], $4::int4[], $5::int4[], $6::int4[])`;
}

/** What {@link bm25ScoresSql} needs: trusted (quoted) table names and placeholders already bound. */
export interface Bm25Query {
  postings: string;
  statistics: string;
  /** Placeholders of the distinct query terms (`text[]`) and their weights (`float8[]`). */
  terms: string;
  weights: string;
  k1: string;
  b: string;
  titleWeight: string;
  /** Placeholder of the number of distinct query terms, to keep only chunks holding all of them; omitted: any term. */
  requireAll?: string;
}

/**
 * A query yielding `(chunk_id, score)` for every chunk holding a query term, scored with Okapi
 * BM25 exactly as `KeywordRetriever` scores: idf = ln(1 + (N − df + 0.5) / (df + 0.5)) with N and
 * df over the analysed chunks, tf = text frequency + titleWeight · title frequency, length = text
 * length + titleWeight · title length, a term's contribution idf · q · (k1 + 1) · tf /
 * (tf + k1 · (1 − b) + k1 · b / avgdl · length). Statistics and postings are read in the same
 * statement, i.e. from one snapshot: the scores always describe one committed state.
 */
export function bm25ScoresSql(query: Bm25Query): string {
  const { postings, statistics, terms, weights, k1, b, titleWeight } = query;
  return `WITH collection AS (
      SELECT coalesce(sum(chunks), 0)::float8 AS chunks,
             (coalesce(sum(text_length), 0) + ${titleWeight}::float8 * coalesce(sum(title_length), 0))::float8 AS length
        FROM ${statistics}
    ), matched AS MATERIALIZED (
      SELECT p.term, p.chunk_id,
             p.text_frequency + ${titleWeight}::float8 * p.title_frequency AS frequency,
             p.text_length + ${titleWeight}::float8 * p.title_length AS length
        FROM ${postings} p
       WHERE p.term = ANY(${terms}::text[]) AND (p.text_frequency > 0 OR ${titleWeight}::float8 > 0)
    ), weights AS (
      SELECT q.term, ln(1 + (c.chunks - f.df + 0.5) / (f.df + 0.5)) * q.weight * (${k1}::float8 + 1) AS weight
        FROM unnest(${terms}::text[], ${weights}::float8[]) AS q(term, weight)
        JOIN (SELECT term, count(*)::float8 AS df FROM matched GROUP BY term) f ON f.term = q.term
        CROSS JOIN collection c
    ), norms AS (
      SELECT ${k1}::float8 * (1 - ${b}::float8) AS free, CASE WHEN c.length > 0 THEN ${k1}::float8 * ${b}::float8 / (c.length / c.chunks) ELSE 0 END AS scale
        FROM collection c
    )
    SELECT m.chunk_id, sum(w.weight * m.frequency / (m.frequency + (n.free + n.scale * m.length))) AS score
      FROM matched m JOIN weights w ON w.term = m.term CROSS JOIN norms n
     WHERE m.frequency > 0
     GROUP BY m.chunk_id${query.requireAll ? `\n    HAVING count(*) = ${query.requireAll}` : ''}`;
}
