import { ContextEngine, DEFAULT_COMPLEXITY_WEIGHTS, type ContextResult, type MetadataFilter } from '@zerda/context';
import { documents } from '@zerda/example-quickstart';

/** Three questions of rising complexity, in English and Arabic, answered together. */
export const queries: readonly string[] = [
  'What is retrieval-augmented generation?',
  'كيف تُوزَّع ميزانية السياق بين عدة أسئلة، وكيف يُضغط المقطع الذي لا يتسع كاملاً؟',
  'How does hybrid retrieval combine keyword search with BM25 and vector results, and when should an approximate HNSW index replace exact vector search as the collection grows?',
];

/** The budget all three sections share, in characters. */
export const globalBudget = 2400;

/** A filter every query of the run shares: only documents from 2024 on. */
export const sharedFilter: MetadataFilter = { year: { $gte: 2024 } };

export interface MultiQueryRun {
  /** The joined context: one `--- Query N: … ---` (or `--- السؤال N: … ---`) section per query. */
  context: string;
  /** Each query's share of the global budget, header included. */
  allocations: number[];
  results: ContextResult[];
}

export interface MultiQueryExampleResult {
  weighted: MultiQueryRun;
  equal: MultiQueryRun;
  filtered: MultiQueryRun;
  /** What `runMulti` (the string form) returned for the filtered run. */
  filteredContext: string;
}

const rule = (character = '─') => character.repeat(100);

function describeRun(run: MultiQueryRun, print: (line: string) => void): void {
  print('| # | lang | complexity | weight | share | run budget | used | chunks (fit, year) |');
  print('|---|------|------------|--------|-------|------------|------|--------------------|');
  run.results.forEach((result, i) => {
    const chunks = result.chunks.map((chunk) => `${chunk.chunk.docId} (${chunk.fit}, ${String(chunk.chunk.metadata.year)})`).join(', ');
    print(
      `| ${i + 1} | ${result.analysis.language} | ${result.analysis.complexity} | ${DEFAULT_COMPLEXITY_WEIGHTS[result.analysis.complexity]} | ${run.allocations[i]} | ${result.budget.limit} | ${result.budget.used} | ${chunks || '–'} |`,
    );
  });
  print(`total: ${[...run.context].length} of ${globalBudget} characters`);
}

/**
 * Answers three questions under one global budget with `runMultiDetailed`: first with the default
 * complexity-weighted allocation, then with equal shares, then with a metadata filter shared by
 * every query (through `runMulti`, the string form). Prints the allocations and the joined context.
 */
export async function runMultiQueryExample(print: (line: string) => void = console.log): Promise<MultiQueryExampleResult> {
  const engine = new ContextEngine();
  await engine.index(documents);

  print(`${rule('═')}\n1. Complexity-weighted allocation (the default)\n${rule()}`);
  const weighted = await engine.runMultiDetailed(queries, { globalBudget, useWeighted: true });
  describeRun(weighted, print);
  print(
    `\nEach query's share is proportional to its complexity weight (simple ${DEFAULT_COMPLEXITY_WEIGHTS.simple}, moderate ${DEFAULT_COMPLEXITY_WEIGHTS.moderate}, complex ${DEFAULT_COMPLEXITY_WEIGHTS.complex}), with a floor of config.budget.minPerQuery. ` +
      `The run budget is the share minus the section's header, so a long question leaves less room for its passages.`,
  );
  print(`\n${rule()}\n${weighted.context}\n${rule()}`);

  print(`\n${rule('═')}\n2. Equal allocation (useWeighted: false)\n${rule()}`);
  const equal = await engine.runMultiDetailed(queries, { globalBudget, useWeighted: false });
  describeRun(equal, print);
  print(
    '\nWith equal shares the one-line definition question fills its room with loosely related passages, ' +
      'while the two-part HNSW question has to compress its best passages harder.',
  );

  print(`\n${rule('═')}\n3. A metadata filter shared by every query: ${JSON.stringify(sharedFilter)}\n${rule()}`);
  const filtered = await engine.runMultiDetailed(queries, { globalBudget, metadataFilters: sharedFilter });
  const filteredContext = await engine.runMulti(queries, { globalBudget, metadataFilters: sharedFilter });
  describeRun(filtered, print);
  const excluded = [...new Set(weighted.results.flatMap((result) => result.chunks.map((chunk) => chunk.chunk)).filter((chunk) => Number(chunk.metadata.year) < 2024).map((chunk) => `${chunk.docId} (${String(chunk.metadata.year)})`))];
  print(`\nExcluded by the filter: ${excluded.join(', ') || 'nothing'}; the freed room went to passages from 2024 and later.`);
  print(`\n${rule()}\n${filteredContext}\n${rule()}`);

  return { weighted, equal, filtered, filteredContext };
}
