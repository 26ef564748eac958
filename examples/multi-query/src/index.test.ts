import { describe, expect, it } from 'vitest';
import { globalBudget, queries, runMultiQueryExample } from './index.js';

describe('multi-query example', () => {
  it('shares one budget by complexity or equally, with localized headers and a shared filter', async () => {
    const lines: string[] = [];
    const { weighted, equal, filtered, filteredContext } = await runMultiQueryExample((line) => lines.push(line));

    for (const run of [weighted, equal, filtered]) {
      expect(run.results).toHaveLength(queries.length);
      expect(run.allocations.reduce((sum, share) => sum + share, 0)).toBeLessThanOrEqual(globalBudget);
      expect([...run.context].length).toBeLessThanOrEqual(globalBudget);
      // One header per query, punctuated alike in both languages (no "Query: 1:").
      expect(run.context.startsWith('--- Query 1: What is retrieval-augmented generation? ---\n')).toBe(true);
      expect(run.context).toContain(`--- السؤال 2: ${queries[1]} ---`);
      expect(run.context).toContain('--- Query 3: How does hybrid retrieval');
      expect(run.context).not.toMatch(/Query: \d|السؤال: \d|::/);
      for (const result of run.results) expect(result.chunks.length).toBeGreaterThan(0);
    }

    // Complexity: simple < moderate < complex, so weighted shares rise in that order; equal shares do not.
    expect(weighted.results.map((result) => result.analysis.complexity)).toEqual(['simple', 'moderate', 'complex']);
    expect(weighted.allocations[0]!).toBeLessThan(weighted.allocations[1]!);
    expect(weighted.allocations[1]!).toBeLessThan(weighted.allocations[2]!);
    expect(new Set(equal.allocations).size).toBe(1);
    // The complex question gets more room, and uses it, when weighted.
    expect(weighted.results[2]!.budget.used).toBeGreaterThan(equal.results[2]!.budget.used);
    expect(weighted.results[0]!.budget.used).toBeLessThan(equal.results[0]!.budget.used);
    expect(weighted.results[2]!.chunks[0]!.chunk.docId).toBe('vectors-en');

    // The shared filter applies to every query: the 2023 BM25 page leaves the HNSW answer.
    expect(weighted.results[2]!.chunks.map((chunk) => chunk.chunk.docId)).toContain('bm25-en');
    for (const result of filtered.results) {
      for (const chunk of result.chunks) expect(Number(chunk.chunk.metadata.year)).toBeGreaterThanOrEqual(2024);
    }
    expect(filteredContext).toBe(filtered.context);
    expect(lines.join('\n')).toContain('Excluded by the filter: bm25-en (2023)');
  });
});
