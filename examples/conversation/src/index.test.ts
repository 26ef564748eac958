import { describe, expect, it } from 'vitest';
import { arabicThread, firstSession, runConversationExample, secondSession } from './index.js';

describe('conversation example', () => {
  it('enriches follow-ups, records literal questions, and resumes a saved history in a new engine', async () => {
    const lines: string[] = [];
    const outcome = await runConversationExample((line) => lines.push(line));
    const [question, followUp, afterRestart, selfContained] = outcome.turns;

    // A self-contained question is retrieved as written.
    expect(question!.effectiveQuery).toBe(firstSession[0]);
    // The follow-up with a pronoun is enriched with the earlier question; the literal query is kept too.
    expect(followUp!.query).toBe(firstSession[1]);
    expect(followUp!.effectiveQuery).not.toBe(followUp!.query);
    expect(followUp!.effectiveQuery.startsWith(firstSession[1])).toBe(true);
    expect(followUp!.effectiveQuery).toMatch(/retrieval.*generation/);
    expect(followUp!.analysis.query).toBe(firstSession[1]);
    expect(followUp!.chunks[0]!.chunk.docId).toBe('rag-intro-en');

    // What was saved is what the new engine holds after setConversation: literal questions, in order.
    expect(outcome.saved.turns.map((turn) => turn.query)).toEqual([...firstSession]);
    expect(outcome.restored).toEqual(outcome.saved);

    // The new engine's first follow-up is understood only thanks to the restored turns.
    expect(afterRestart!.query).toBe(secondSession[0]);
    expect(afterRestart!.effectiveQuery).toContain('hallucinations');
    expect(afterRestart!.effectiveQuery).toContain('retrieval');
    expect(afterRestart!.chunks[0]!.chunk.docId).toBe('rag-intro-en');
    expect(outcome.literalFollowUp.effectiveQuery).toBe(secondSession[0]);
    expect(outcome.literalFollowUp.chunks.map((chunk) => chunk.chunk.docId)).not.toContain('rag-intro-en');

    // A new topic is not steered by the old one.
    expect(selfContained!.effectiveQuery).toBe(secondSession[1]);
    expect(selfContained!.chunks[0]!.chunk.docId).toBe('bm25-en');

    // The history holds the four literal questions (the comparison run was not recorded).
    expect(outcome.final.turns.map((turn) => turn.query)).toEqual([...firstSession, ...secondSession]);

    // Arabic follow-ups are enriched the same way, from a fresh history.
    expect(outcome.arabic[0]!.effectiveQuery).toBe(arabicThread[0]);
    expect(outcome.arabic[1]!.effectiveQuery).toContain('قواعد البيانات المتجهية');
    expect(outcome.arabic[1]!.chunks[0]!.chunk.docId).toBe('vector-db-ar');
    expect(lines.join('\n')).toContain('Saved 2 turns to');
  });
});
