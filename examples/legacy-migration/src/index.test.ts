import { describe, expect, it } from 'vitest';
import { maxChunks, maxLength, migrationMap, runLegacyMigrationExample } from './index.js';

describe('legacy-migration example', () => {
  it('runs the legacy pipeline, the same strategies through ContextManager, and the modern engine', async () => {
    const lines: string[] = [];
    const outcome = await runLegacyMigrationExample((line) => lines.push(line));
    const docIds = (tuples: ReadonlyArray<readonly [{ docId: string }, number]>) => tuples.map(([chunk]) => chunk.docId);

    // Legacy: the hash catches the mirrored copy despite case and spacing, and keeps the first one listed.
    expect(docIds(outcome.tuples)).toContain('bm25-en');
    expect(outcome.legacy.deduplicated).toHaveLength(outcome.tuples.length - 1);
    expect(docIds(outcome.legacy.deduplicated)).toContain('bm25-mirror');
    expect(docIds(outcome.legacy.deduplicated)).not.toContain('bm25-en');
    // ScoreRanking: highest score first, at most maxChunks.
    expect(outcome.legacy.ranked).toHaveLength(maxChunks);
    const scores = outcome.legacy.ranked.map(([, score]) => score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect([...outcome.legacy.context].length).toBeLessThanOrEqual(maxLength);
    expect(outcome.legacy.context.length).toBeGreaterThan(0);

    // PrefixDeduplication's documented refusal, raised before any work.
    expect(outcome.prefixError?.message).toMatch(/prefixLength 100 exceeds chunk text length 19 \(chunks\[\d+\]\[0\]\.text\)/);

    // ContextManager: the legacy strategies take effect (identical to the hand-written pipeline) …
    expect(outcome.manager.context).toBe(outcome.legacy.context);
    // … and without them the manager composes differently.
    expect(outcome.managerWithoutLegacy).not.toBe(outcome.legacy.context);
    expect(outcome.manager.run.template).toBe('legacy-compression');
    expect(outcome.manager.run.chunks.length).toBeGreaterThan(0);

    // Modern: the best-scored copy survives, the mirror does not; citations; within the budget.
    expect(outcome.modern.context).toContain('BM25 ranks documents');
    expect(outcome.modern.context).not.toContain('BM25  RANKS');
    expect(outcome.modern.context).toContain('Sources:');
    expect([...outcome.modern.context].length).toBeLessThanOrEqual(maxLength);
    expect(outcome.modern.run.chunks[0]!.chunk.docId).toBe('bm25-en');
    expect(outcome.modern.run.chunks[0]!.scores.composite).toBeGreaterThan(0);
    expect(outcome.modern.run.guardPassed).toBe(true);

    // The migration map is printed, one row per legacy name.
    const printed = lines.join('\n');
    for (const row of migrationMap) expect(printed).toContain(`| ${row.legacy} | ${row.modern} |`);
  });
});
