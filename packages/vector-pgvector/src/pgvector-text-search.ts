import type { Analyzer } from '@zerda/text';
import type { MetadataFilter, VectorSearchHit } from '@zerda/types';
import { POSTGRES_STORABLE } from '@zerda/vector-kit';
import { FULL_SCORING_POSTINGS, bm25ScoresSql, bm25TopSql, queryTerms, termPostingsSql, type Bm25Parameters } from './keyword-index.js';
import { compileFilter } from './pgvector-filter.js';
import { chunkColumns, toChunk, type ChunkRow, type PgTable } from './pgvector-records.js';
import type { KeywordTables } from './pgvector-schema.js';

/** Words of an `any` text query beyond this are ignored (each becomes two bind parameters per configuration). */
const MAX_QUERY_WORDS = 64;

/** The distinct words of a `ts_rank_cd` query (text PostgreSQL cannot hold becomes a space), at most {@link MAX_QUERY_WORDS}. */
export function textQueryWords(query: string): { query: string; words: string[] } {
  const unstorable = POSTGRES_STORABLE.pattern;
  if (unstorable.test(query)) query = query.replace(new RegExp(unstorable.source, 'gu'), ' ');
  return { query, words: [...new Set(query.split(/\s+/u).filter((word) => word.length > 0))].slice(0, MAX_QUERY_WORDS) };
}

/**
 * `ts_rank_cd` search: each row was analysed with its own configuration, the query is analysed
 * with each configuration and matched against the rows of that configuration (GIN-indexed);
 * scores are cover-density ranks (title words weigh more), best first, ties by id.
 */
export async function tsRankSearch(
  target: PgTable,
  configurations: readonly string[],
  { query, words }: { query: string; words: string[] },
  k: number,
  filter: MetadataFilter | undefined,
  match: 'any' | 'all' | 'websearch',
): Promise<VectorSearchHit[]> {
  const parameters: unknown[] = [];
  const bind = (value: unknown): string => `$${parameters.push(value)}`;
  const queryParameter = match === 'any' ? '' : bind(query);
  const wordParameters = match === 'any' ? words.map((word) => bind(word)) : [];
  const branches = configurations.map((name) => {
    const configuration = `${bind(name)}::regconfig`;
    const tsquery =
      match === 'any'
        ? `(${wordParameters.map((word) => `plainto_tsquery(${configuration}, ${word})`).join(' || ')})`
        : `${match === 'all' ? 'plainto_tsquery' : 'websearch_to_tsquery'}(${configuration}, ${queryParameter})`;
    return { configuration, tsquery };
  });
  const matches = branches.map(({ configuration, tsquery }) => `(language = ${configuration} AND tsv @@ ${tsquery})`).join(' OR ');
  const rankQuery = `CASE language ${branches.map(({ configuration, tsquery }) => `WHEN ${configuration} THEN ${tsquery}`).join(' ')} END`;
  const where = compileFilter(filter, parameters, { metadata: 'metadata', docId: 'doc_id', source: 'source' });
  const text = `SELECT ${chunkColumns(target.includeEmbeddings)}, ts_rank_cd(tsv, ${rankQuery}) AS rank
      FROM ${target.table} WHERE (${matches}) AND ${where} ORDER BY rank DESC, id LIMIT ${bind(k)}`;
  const { rows } = await target.client.query<ChunkRow & { rank: number | string }>(text, parameters);
  return rows.map((row) => ({ chunk: toChunk(row), score: Math.max(0, Number(row.rank)) }));
}

/**
 * BM25 search over the keyword index: the query is analysed by `@zerda/text` exactly as the rows
 * were, and chunks holding any query term (`requireAll`: every term) are scored by
 * {@link bm25ScoresSql} from the postings and statistics of one snapshot — the scores
 * `KeywordRetriever` gives the same chunks (ties: the smaller id first); unfiltered `any` queries
 * take the best k by {@link bm25TopSql}, which skips postings that cannot reach them.
 */
export async function bm25Search(
  target: PgTable & { keywordTables: KeywordTables; analyzer: Analyzer },
  query: string,
  k: number,
  filter: MetadataFilter | undefined,
  requireAll: boolean,
  bm25: Bm25Parameters,
): Promise<VectorSearchHit[]> {
  const { terms, weights } = queryTerms(target.analyzer, query);
  if (terms.length === 0) return [];
  const parameters: unknown[] = [];
  const bind = (value: unknown): string => `$${parameters.push(value)}`;
  const { postings, statistics, termStatistics } = target.keywordTables;
  const common = { postings, statistics, terms: bind(terms), weights: bind(weights), k1: bind(bm25.k1), b: bind(bm25.b), titleWeight: bind(bm25.titleWeight) };
  const columns = chunkColumns(target.includeEmbeddings, 't');
  // Unfiltered, any term: the best k (by the pruning plan when the query terms have many postings), then joined to their rows. Every
  // term required: the best k of all scored chunks. Filtered: every scored chunk is checked first
  // (a bound cannot know the filter).
  let text: string;
  if (!filter && !requireAll) {
    // Which plan pays: a one-row read of the per-term statistics (the plan's own statement reads them again, consistently).
    const { rows } = await target.client.query<{ postings: number | string }>(termPostingsSql(termStatistics), [terms]);
    const plan = Number(rows[0]?.postings ?? 0) <= FULL_SCORING_POSTINGS ? 'full' : 'pruned';
    const best = bm25TopSql({ ...common, termStatistics, k: bind(k), plan });
    text = `SELECT ${columns}, s.score FROM (${best}) s JOIN ${target.table} t ON t.id = s.chunk_id ORDER BY s.score DESC, t.id COLLATE "C"`;
  } else {
    const scores = bm25ScoresSql({ ...common, ...(requireAll ? { requireAll: bind(terms.length) } : {}) });
    const where = compileFilter(filter, parameters, { metadata: 't.metadata', docId: 't.doc_id', source: 't.source' });
    text = filter
      ? `SELECT ${columns}, s.score FROM (${scores}) s JOIN ${target.table} t ON t.id = s.chunk_id
          WHERE ${where} ORDER BY s.score DESC, t.id COLLATE "C" LIMIT ${bind(k)}`
      : `SELECT ${columns}, s.score FROM (SELECT chunk_id, score FROM (${scores}) x ORDER BY score DESC, chunk_id COLLATE "C" LIMIT ${bind(k)}) s
          JOIN ${target.table} t ON t.id = s.chunk_id ORDER BY s.score DESC, t.id COLLATE "C"`;
  }
  const { rows } = await target.client.query<ChunkRow & { score: number | string }>(text, parameters);
  return rows.map((row) => ({ chunk: toChunk(row), score: Math.max(0, Number(row.score)) }));
}
