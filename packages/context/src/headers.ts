import type { QueryAnalysis } from '@zerda/types';

/**
 * The header that introduces one query's section in a multi-query context. Punctuated the same way
 * in every language (the spec produced "Query: 1:" for Arabic queries only): `--- Query 2: text ---`,
 * or `--- السؤال 2: text ---` when the query is Arabic.
 */
export function queryHeader(index: number, query: string, analysis: Pick<QueryAnalysis, 'language'>): string {
  const label = analysis.language === 'ar' ? 'السؤال' : 'Query';
  const oneLine = query.replace(/\s+/g, ' ').trim();
  return `--- ${label} ${index + 1}: ${oneLine} ---`;
}
