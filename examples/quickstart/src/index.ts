import { ContextEngine, explainResult, type ContextResult, type MetadataFilter } from '@zerda/context';
import { documents } from './corpus.js';

export { documents } from './corpus.js';
export type { ExampleDocument } from './corpus.js';

/** The queries the quickstart runs: English, Arabic (with diacritics), mixed, and a filtered one. */
export const queries: Array<{ query: string; metadataFilters?: MetadataFilter }> = [
  { query: 'What is retrieval-augmented generation and why does it reduce hallucinations?' },
  { query: 'ما هو التوليد المعزَّز بالاسترجاع؟' },
  { query: 'كيف تُعالَج النصوص العربية قبل الفهرسة؟' },
  { query: 'How should the context budget be split, وكيف يتم ضغط المقاطع؟' },
  { query: 'vector databases and HNSW', metadataFilters: { lang: 'ar' } },
];

/**
 * Indexes the bilingual corpus on the embedded default (BM25 + metadata in memory, no server, no
 * model download) and runs the queries, printing each context and its diagnostics.
 */
export async function runQuickstart(print: (line: string) => void = console.log): Promise<ContextResult[]> {
  const engine = new ContextEngine({ config: { composer: { maxContextLength: 900, template: 'citations' } } });
  await engine.index(
    documents.map((document) => ({ docId: document.docId, source: document.source, title: document.title, text: document.text, metadata: document.metadata })),
    { sourceQualityMap: { 'handbook/rag.md': 0.9, 'handbook/rag-ar.md': 0.9 } },
  );
  const results: ContextResult[] = [];
  for (const { query, metadataFilters } of queries) {
    const result = await engine.run(query, { metadataFilters, useHistory: false });
    results.push(result);
    print(`\n${'═'.repeat(100)}\n${query}${metadataFilters ? `   filter: ${JSON.stringify(metadataFilters)}` : ''}\n${'─'.repeat(100)}`);
    print(result.context || '(empty context)');
    print(`${'─'.repeat(100)}\n${explainResult(result)}`);
  }
  const report = engine.getPerformanceReport();
  print(`\n${'═'.repeat(100)}\nperformance report: ${JSON.stringify(report)}`);
  return results;
}
