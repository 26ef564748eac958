import { invalidArgument, type QueryAnalysis } from '@zerda/types';

/**
 * The header that introduces one query's section in a multi-query context. Punctuated the same way
 * in every language (the spec produced "Query: 1:" for Arabic queries only): `--- Query 2: text ---`,
 * or `--- السؤال 2: text ---` when the query is Arabic.
 */
export function queryHeader(index: number, query: string, analysis: Pick<QueryAnalysis, 'language'>): string {
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) throw invalidArgument('index', 'a non-negative integer', index);
  if (typeof query !== 'string') throw invalidArgument('query', 'a string', query);
  if (analysis === null || typeof analysis !== 'object') throw invalidArgument('analysis', 'an object with a language', analysis);
  const label = analysis.language === 'ar' ? 'السؤال' : 'Query';
  const oneLine = query.replace(/\s+/g, ' ').trim();
  return `--- ${label} ${index + 1}: ${oneLine} ---`;
}
