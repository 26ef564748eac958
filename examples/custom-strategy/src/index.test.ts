import { describe, expect, it } from 'vitest';
import { ZerdaError, tokenCounter } from '@zerda/context';
import { DenyListGuard, deniedTerms, queries, runCustomStrategyExample, tokenBudget } from './index.js';

describe('custom-strategy example', () => {
  // Two engines and the first cl100k rank-table parse (about 2 s of it): beyond 5 s on a loaded 2-core machine.
  it('changes only the guard: same analysis, chunks and context; the deny list fails the guard', { timeout: 60_000 }, async () => {
    const lines: string[] = [];
    const comparisons = await runCustomStrategyExample((line) => lines.push(line));
    expect(comparisons.map((comparison) => comparison.query)).toEqual([...queries]);
    const counter = tokenCounter('cl100k_base');

    for (const { baseline, custom } of comparisons) {
      // Every stage before the guard is untouched by the replacement.
      expect(custom.analysis).toEqual(baseline.analysis);
      expect(custom.counts).toEqual(baseline.counts);
      expect(custom.chunks.map((chunk) => [chunk.chunk.id, chunk.scores.composite])).toEqual(baseline.chunks.map((chunk) => [chunk.chunk.id, chunk.scores.composite]));
      expect(custom.context).toBe(baseline.context);
      expect(baseline.guardPassed).toBe(true);

      // The shared custom template and token budget.
      expect(custom.template).toBe('custom:jsonLines');
      expect(custom.budget.unit).toBe('tokens');
      expect(counter(custom.context)).toBe(custom.budget.used);
      expect(custom.budget.used).toBeLessThanOrEqual(tokenBudget);
      const passages = custom.context.split('\n').map((line) => JSON.parse(line) as { n: number; source: string; text: string });
      expect(passages.map((passage) => passage.n)).toEqual(custom.chunks.map((_, i) => i + 1));
      expect(passages.map((passage) => passage.source)).toEqual(custom.chunks.map((chunk) => chunk.chunk.source));
    }

    const [english, arabic, unrelated] = comparisons;
    for (const { custom } of [english!, arabic!]) {
      expect(custom.guardPassed).toBe(false);
      const findings = custom.warnings.filter((warning) => warning.code === 'forbidden_term');
      expect(findings.map((finding) => finding.severity)).toEqual(['error', 'error']);
      expect(findings[0]!.chunkIds).toEqual(['roadmap-internal#0']);
      expect(findings[1]!.chunkIds).toEqual(['roadmap-internal-ar#0']);
    }
    expect(unrelated!.custom.guardPassed).toBe(true);
    expect(unrelated!.custom.warnings).toEqual(unrelated!.baseline.warnings);
    expect(lines.join('\n')).toContain('would refuse to send this context');
  });

  it('matches denied terms as whole words through case, diacritics and tatweel', async () => {
    const guard = new DenyListGuard(deniedTerms);
    const check = (context: string) => guard.check({ context, chunks: [] });
    expect((await check('Status of PROJECT  falcon: on track.')).passed).toBe(false);
    expect((await check('ملاحظات عن مشروعُ الصَّقـــر الداخلي.')).passed).toBe(false);
    expect((await check('The project falconry club meets on Fridays.')).passed).toBe(true);
    expect((await check('مشروع جديد عن الصقور.')).passed).toBe(true);
    expect(() => new DenyListGuard(['  '])).toThrow(ZerdaError);
    expect(() => new DenyListGuard(['ok', 3 as unknown as string])).toThrow(/terms/);
  });
});
