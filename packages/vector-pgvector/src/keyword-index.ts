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

/** What {@link bm25TopSql} needs besides a {@link Bm25Query}: the per-term statistics table and the number of results. */
export interface Bm25TopQuery extends Omit<Bm25Query, 'requireAll'> {
  termStatistics: string;
  /** Placeholder of k (an integer ≥ 1). */
  k: string;
  /**
   * `'pruned'`: the MaxScore plan; `'full'`: every posting of the query terms scored by
   * {@link bm25ScoresSql} (cheaper when they are few: see {@link FULL_SCORING_POSTINGS} and
   * {@link termPostingsSql}). Either way the best k are ordered canonically (step 6 below).
   */
  plan: 'full' | 'pruned';
}

/** Postings (times k) the threshold's seed reads at most beyond its first term (the terms of the largest bounds first). */
const SEED_POSTINGS_PER_RESULT = 100;
/** How many seed chunks (times k) are scored in full to set the threshold. */
const SEED_CHUNKS_PER_RESULT = 5;
/**
 * Queries whose terms have at most this many postings in all are scored in full (`plan: 'full'` of
 * {@link bm25TopSql}): below it the pruning stages cost more than they save (measured on the
 * synthetic SciFact corpus: at 10k chunks, about 6,500 postings a query, the full scoring is about
 * twice as fast; at 100k, about 70,000, the pruning plan about 3 times).
 */
export const FULL_SCORING_POSTINGS = 20_000;
/** Relative slack on every pruning comparison, far above the rounding of a sum of a few float8 terms. */
const PRUNING_SLACK = 1e-9;

/**
 * The best k `(chunk_id, score)` of a query — exactly the first k rows of {@link bm25ScoresSql} in
 * the order score descending, chunk id ("C") ascending, with the same scores (up to float rounding:
 * every returned score is summed in one canonical order, term by term, so chunks with the same
 * contributions tie exactly and the id decides) — without scoring every posting of every query
 * term (MaxScore, in one statement, so from one snapshot):
 * 1. each query term's weight (idf from its document frequency in the per-term statistics) and the
 *    upper bound of its contribution to any chunk: the largest frequency and the smallest length
 *    among its postings (a BM25 contribution grows with the one and shrinks with the other);
 * 2. a threshold θ that the k-th best score reaches: the k-th best full score among the seed — the
 *    {@link SEED_CHUNKS_PER_RESULT} · k chunks best by the terms of the largest bounds (whose
 *    postings, {@link SEED_POSTINGS_PER_RESULT} · k at most beyond the first term, are read) —
 *    each scored in full by primary-key probes;
 * 3. the terms in ascending order of bound whose bounds sum below θ are non-essential: a chunk
 *    holding none of the other (essential) terms scores below θ and is never among the best k. So
 *    only the essential terms' postings are read, giving each chunk holding one its partial score;
 * 4. the chunks of the best partial scores (as many as the seed) gain their non-essential
 *    contributions by primary-key probes, and θ rises to the k-th best of their full scores;
 * 5. the non-essential terms are then added layer by layer, largest bound first (a recursive CTE):
 *    a chunk whose score so far plus the bounds of the terms still to add stays below θ is
 *    dropped, the others gain the layer's term by a primary-key probe;
 * 6. the chunks whose full score is within rounding of the k-th best are re-scored in the
 *    canonical order, and the best k of those are returned.
 * Every comparison keeps {@link PRUNING_SLACK} in favour of keeping a chunk. With fewer than k
 * chunks in the seed, θ is 0 and every term is essential: the full scoring, once. With
 * `plan: 'full'`, steps 2–5 are left out: {@link bm25ScoresSql} scores every posting, and step 6
 * orders its best.
 */
export function bm25TopSql(query: Bm25TopQuery): string {
  const { postings, statistics, termStatistics, terms, weights, k1, b, titleWeight, k } = query;
  const frequency = `(p.text_frequency + ${titleWeight}::float8 * p.title_frequency)`;
  const contribution = `t.weight * ${frequency} / (${frequency} + (n.free + n.scale * (p.text_length + ${titleWeight}::float8 * p.title_length)))`;
  const slack = `(1 + ${PRUNING_SLACK})`;
  // Postings of the terms in `array` (a subquery), with their contributions; the array is an init plan, so an index scan uses it.
  const scoredPostings = (array: string) => `${postings} p JOIN query_terms t ON t.term = p.term CROSS JOIN norms n
       WHERE p.term = ANY(ARRAY(${array})) AND ${frequency} > 0`;
  // The summed contributions of the terms of \`terms\` (a CTE) to chunk \`chunk\`: one primary-key probe per term.
  const probe = (terms: string, chunk: string) => `SELECT sum(${contribution}) AS score FROM ${terms} t JOIN ${postings} p ON p.term = t.term AND p.chunk_id = ${chunk}
       CROSS JOIN norms n WHERE ${frequency} > 0`;
  return `WITH ${query.plan === 'pruned' ? 'RECURSIVE ' : ''}collection AS (
      SELECT coalesce(sum(chunks), 0)::float8 AS chunks,
             (coalesce(sum(text_length), 0) + ${titleWeight}::float8 * coalesce(sum(title_length), 0))::float8 AS length
        FROM ${statistics}
    ), norms AS (
      SELECT ${k1}::float8 * (1 - ${b}::float8) AS free, CASE WHEN c.length > 0 THEN ${k1}::float8 * ${b}::float8 / (c.length / c.chunks) ELSE 0 END AS scale
        FROM collection c
    ), term_statistics AS (
      SELECT term, (CASE WHEN ${titleWeight}::float8 > 0 THEN sum(chunks) ELSE sum(text_chunks) END)::float8 AS df,
             max(max_text_frequency) + ${titleWeight}::float8 * max(max_title_frequency) AS frequency,
             min(min_text_length) + ${titleWeight}::float8 * min(min_title_length) AS length
        FROM ${termStatistics} WHERE term = ANY(${terms}::text[]) GROUP BY term
    ), weighted AS (
      SELECT q.term, f.df, f.frequency, f.length, ln(1 + (c.chunks - f.df + 0.5) / (f.df + 0.5)) * q.weight * (${k1}::float8 + 1) AS weight
        FROM unnest(${terms}::text[], ${weights}::float8[]) AS q(term, weight)
        JOIN term_statistics f ON f.term = q.term
        CROSS JOIN collection c
       WHERE f.df > 0
    ), query_terms AS MATERIALIZED (
      SELECT w.term, w.df, w.weight, w.weight * w.frequency / (w.frequency + (n.free + n.scale * w.length)) AS bound
        FROM weighted w CROSS JOIN norms n
    ), ${query.plan === 'full' ? `scored AS MATERIALIZED (
      SELECT chunk_id, score FROM (${bm25ScoresSql(query)}) x` : `seed AS MATERIALIZED (
      SELECT p.chunk_id FROM ${scoredPostings(`SELECT term FROM (SELECT term, sum(df) OVER (ORDER BY bound DESC, term COLLATE "C" ROWS UNBOUNDED PRECEDING) - df AS before FROM query_terms) s WHERE before < ${SEED_POSTINGS_PER_RESULT} * ${k}`)}
       GROUP BY p.chunk_id ORDER BY sum(${contribution}) DESC, p.chunk_id COLLATE "C" LIMIT ${SEED_CHUNKS_PER_RESULT} * ${k}
    ), threshold AS MATERIALIZED (
      SELECT coalesce((SELECT x.score FROM seed s CROSS JOIN LATERAL (${probe('query_terms', 's.chunk_id')}) x ORDER BY x.score DESC OFFSET ${k} - 1 LIMIT 1), 0) AS theta
    ), split AS MATERIALIZED (
      SELECT t.term, sum(t.bound) OVER (ORDER BY t.bound, t.term COLLATE "C" ROWS UNBOUNDED PRECEDING) * ${slack} < h.theta AS skippable
        FROM query_terms t CROSS JOIN threshold h
    ), skipped AS MATERIALIZED (
      SELECT t.* FROM query_terms t JOIN split USING (term) WHERE split.skippable
    ), candidates AS MATERIALIZED (
      SELECT p.chunk_id, sum(${contribution}) AS partial FROM ${scoredPostings('SELECT term FROM split WHERE NOT skippable')}
       GROUP BY p.chunk_id
    ), leaders AS MATERIALIZED (
      SELECT c.chunk_id, c.partial + coalesce(x.score, 0) AS score
        FROM (SELECT * FROM candidates ORDER BY partial DESC, chunk_id COLLATE "C" LIMIT ${SEED_CHUNKS_PER_RESULT} * ${k}) c
        CROSS JOIN LATERAL (${probe('skipped', 'c.chunk_id')}) x
    ), bar AS MATERIALIZED (
      SELECT greatest(h.theta, coalesce((SELECT score FROM leaders ORDER BY score DESC OFFSET ${k} - 1 LIMIT 1), 0)) AS theta,
             (SELECT coalesce(sum(bound), 0) FROM skipped) AS rest
        FROM threshold h
    ), layers AS MATERIALIZED (
      SELECT term, weight, row_number() OVER (ORDER BY bound DESC, term COLLATE "C") AS layer,
             coalesce(sum(bound) OVER (ORDER BY bound DESC, term COLLATE "C" ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), 0) AS rest
        FROM skipped
    ), completed (layer, chunk_id, score) AS (
      SELECT 0::int8, c.chunk_id, c.partial FROM candidates c CROSS JOIN bar WHERE (c.partial + bar.rest) * ${slack} >= bar.theta
      UNION ALL
      SELECT t.layer, d.chunk_id, d.score + x.score
        FROM completed d JOIN layers t ON t.layer = d.layer + 1 CROSS JOIN bar
        CROSS JOIN LATERAL (SELECT coalesce(sum(${contribution}), 0) AS score FROM ${postings} p CROSS JOIN norms n
                             WHERE p.term = t.term AND p.chunk_id = d.chunk_id AND ${frequency} > 0) x
       WHERE (d.score + x.score + t.rest) * ${slack} >= bar.theta
    ), scored AS (
      SELECT chunk_id, score FROM completed WHERE layer = (SELECT count(*) FROM layers)`}
    ), best AS MATERIALIZED (
      SELECT chunk_id, score FROM scored ORDER BY score DESC, chunk_id COLLATE "C" LIMIT ${k}
    ), near AS (
      SELECT chunk_id FROM scored WHERE score >= (SELECT min(score) FROM best) * (1 - ${PRUNING_SLACK})
    )
    SELECT s.chunk_id, x.score FROM near s CROSS JOIN LATERAL (
      SELECT sum(${contribution} ORDER BY t.term COLLATE "C") AS score FROM query_terms t JOIN ${postings} p ON p.term = t.term AND p.chunk_id = s.chunk_id
       CROSS JOIN norms n WHERE ${frequency} > 0) x
     ORDER BY x.score DESC, s.chunk_id COLLATE "C" LIMIT ${k}`;
}

/** How many postings the terms `$1` (text[]) have in all, from the per-term statistics (one row, column `postings`). */
export function termPostingsSql(termStatistics: string): string {
  return `SELECT coalesce(sum(chunks), 0)::float8 AS postings FROM ${termStatistics} WHERE term = ANY($1::text[])`;
}
