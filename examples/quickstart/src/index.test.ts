import { describe, expect, it } from 'vitest';
import { queries, runQuickstart } from './index.js';

describe('quickstart example', () => {
  it('runs every query offline and answers each in its language, within the budget', async () => {
    const lines: string[] = [];
    const results = await runQuickstart((line) => lines.push(line));
    expect(results).toHaveLength(queries.length);
    for (const result of results) {
      expect(result.context.length).toBeGreaterThan(0);
      expect([...result.context].length).toBeLessThanOrEqual(result.budget.limit);
      expect(result.guardPassed).toBe(true);
    }
    expect(results[0]!.chunks[0]!.chunk.docId).toBe('rag-intro-en');
    expect(results[1]!.chunks[0]!.chunk.docId).toBe('rag-intro-ar');
    expect(results[2]!.chunks[0]!.chunk.docId).toBe('arabic-nlp-ar');
    for (const chunk of results[4]!.chunks) expect(chunk.chunk.metadata.lang).toBe('ar');
    expect(results[1]!.context).toContain('المصادر');
    expect(lines.join('\n')).toContain('stages: retrieved');
  });
});
