import { ChunkFilter, CompositeRanker, QueryAnalyzer } from '@zerda/context-core';
import { charCounter, truncateAtWordBoundary } from '@zerda/text';
import { ZerdaError, type QueryAnalysis, type ScoredChunk } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { buildFromTuples, buildMultiQueryFromTuples, tupleToScored, type TupleBuildEngine, type TupleBuildStages } from './index.js';

/** An engine made of the core strategies, joining ranked chunks as its "composer". */
function engine(overrides: Partial<TupleBuildStages> = {}): TupleBuildEngine & { composed: number[] } {
  const analyzer = new QueryAnalyzer();
  const composed: number[] = [];
  const stages: TupleBuildStages = {
    buildOptions: (options) => (options ?? {}) as object,
    multiQueryOptions: (options) => (options ?? {}) as object,
    checkedQuery: (query, field) => {
      if (typeof query !== 'string') throw new ZerdaError('ZERDA_INVALID_ARGUMENT', { field, expected: 'a string', received: typeof query });
      return query;
    },
    counter: charCounter,
    analyze: (query) => analyzer.analyze(query),
    chunkFilter: new ChunkFilter(),
    ranker: new CompositeRanker(),
    sourceQuality: {},
    maxContextLength: 4000,
    compose: async (ranked: ScoredChunk[], _analysis: QueryAnalysis, budget: number) => {
      composed.push(budget);
      return truncateAtWordBoundary(ranked.map((scored) => scored.chunk.text).join('\n'), budget, charCounter);
    },
    allocate: (analyses, budget) => analyses.map(() => Math.floor(budget / analyses.length)),
    header: (index, query) => `--- Query ${index + 1}: ${query} ---`,
    truncate: (text, budget) => truncateAtWordBoundary(text, budget, charCounter),
    ...overrides,
  };
  return { tupleBuildStages: () => stages, composed };
}

const tuples = [
  [{ docId: 'a', text: 'Retrieval augmented generation grounds answers in documents.' }, 0.9],
  [{ doc_id: 'b', text: 'Vector search finds the nearest neighbours of a query embedding.' }, 0.7],
];

describe('the legacy tuple build on an engine', () => {
  it('converts tuples (docId or doc_id) and names the bad one', () => {
    expect(tupleToScored(tuples[1], 1).chunk.docId).toBe('b');
    expect(() => tupleToScored([{ docId: 'a', text: 'x' }, Number.NaN], 3)).toThrow(/chunks\[3\]\[1\] must be a finite number/);
    expect(() => tupleToScored(['not a chunk', 1], 0)).toThrow(/chunks\[0\]\[0\]/);
  });

  it('filters, ranks and composes the tuples within maxLength', async () => {
    const host = engine();
    const context = await buildFromTuples(host, 'what is retrieval augmented generation?', tuples, { maxLength: 80 });
    expect(host.composed).toEqual([80]);
    expect(context.length).toBeLessThanOrEqual(80);
    expect(context).toContain('Retrieval augmented generation');
    await expect(buildFromTuples(host, 'q', 'tuples')).rejects.toThrow(/chunks must be an array of \[chunk, score\] tuples/);
    await expect(buildFromTuples(host, 42, tuples)).rejects.toThrow(ZerdaError);
  });

  it('gives each query its share less its header and holds the whole to globalBudget', async () => {
    const host = engine();
    const queries = ['retrieval augmented generation', 'vector search'];
    const context = await buildMultiQueryFromTuples(host, queries, [tuples, tuples], { globalBudget: 200 });
    const header1 = '--- Query 1: retrieval augmented generation ---';
    const header2 = '--- Query 2: vector search ---';
    expect(host.composed).toEqual([100 - (header1.length + 1), 100 - (header2.length + 1) - 2]);
    expect(context.startsWith(`${header1}\n`)).toBe(true);
    expect(context).toContain(`\n\n${header2}\n`);
    expect(context.length).toBeLessThanOrEqual(200);
    await expect(buildMultiQueryFromTuples(host, queries, [tuples])).rejects.toThrow(/allChunks must be an array with one tuple list per query \(2\)/);
    expect(await buildMultiQueryFromTuples(host, [], [])).toBe('');
  });
});
