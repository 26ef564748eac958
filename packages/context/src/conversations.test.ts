// Issue 15, defect 8: conversations are first-class; nothing of one reaches another.
import { describe, expect, it } from 'vitest';
import { expectZerdaError } from '@zerda/vector-conformance';
import { ContextEngine } from './engine.js';
import { ConversationRegistry } from './conversations.js';
import { resolveConfig } from '@zerda/types';

/** Two letters per index (aa, ab, …), so that every topic word is one token and none contains another. */
const code = (i: number, letters: string) => `${letters[Math.floor(i / letters.length)]}${letters[i % letters.length]}`;
const LATIN = 'abcdefghijklmnopqrstuvwxyz';
const ARABIC = 'بتثجحخدذرزسشصضطظعغفقكلمن';

/** One topic per conversation, each with words no other topic has. */
const TOPICS = Array.from({ length: 40 }, (_, i) => ({
  conversation: `user-${i}`,
  words: [`zeta${code(i, LATIN)}alpha`, `omega${code(i, LATIN)}beta`],
  arabic: `موضوع${code(i, ARABIC)}`,
}));

function corpusOf(topics: typeof TOPICS) {
  return topics.map((topic) => ({
    docId: `doc-${topic.conversation}`,
    text: `${topic.words[0]} and ${topic.words[1]} are explained here in detail, with ${topic.arabic} as the Arabic name of this topic and enough words to be a real passage.`,
  }));
}

describe('defect 8: many users, one engine', () => {
  it('interleaved conversations never see each other in effective queries, results, cache entries or logs', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = { info: (fields: unknown) => lines.push(fields as Record<string, unknown>), debug: (fields: unknown) => lines.push(fields as Record<string, unknown>) };
    const engine = new ContextEngine({ logger });
    await engine.index(corpusOf(TOPICS));
    const foreign = (index: number) => TOPICS.filter((_, other) => other !== index).flatMap((topic) => [...topic.words, topic.arabic]);

    // Round 1: every user asks about their own topic, all at once. Round 2: the same literal
    // follow-up from everyone, interleaved. Round 3: everyone asks the same self-contained question.
    const first = await Promise.all(TOPICS.map((topic) => engine.run(`what is ${topic.words[0]} ${topic.words[1]}?`, { conversation: topic.conversation })));
    const followUps = await Promise.all(TOPICS.map((topic) => engine.conversation(topic.conversation).run('and what about it?')));
    const shared = await Promise.all(TOPICS.map((topic) => engine.run('what are the explained topics?', { conversation: topic.conversation })));

    // Every leak found, as readable strings: the assertion at the end expects none.
    const leaks: string[] = [];
    const leaked = (where: string, text: string, words: readonly string[]) => {
      for (const word of words) if (text.includes(word)) leaks.push(`${where} contains ${word}`);
    };
    TOPICS.forEach((topic, index) => {
      const others = foreign(index);
      for (const [round, result] of [['first', first[index]!], ['follow-up', followUps[index]!], ['shared', shared[index]!]] as const) {
        leaked(`${topic.conversation} ${round} effectiveQuery`, result.effectiveQuery, others);
        leaked(`${topic.conversation} ${round} analysis`, JSON.stringify(result.analysis), others);
        // The same question in another conversation is never a cache hit on someone else's entry.
        if (result.fromCache) leaks.push(`${topic.conversation} ${round} was served from the cache`);
      }
      leaked(`${topic.conversation} follow-up context`, followUps[index]!.context, others);
      // The follow-up is enriched with the user's own words and retrieves the user's own document only.
      expect(followUps[index]!.effectiveQuery).toContain(topic.words[0]);
      expect(followUps[index]!.chunks.map((used) => used.chunk.docId)).toEqual([`doc-${topic.conversation}`]);
      const history = engine.conversation(topic.conversation).getHistory()!;
      expect(history.turns.map((turn) => turn.query)).toEqual([`what is ${topic.words[0]} ${topic.words[1]}?`, 'and what about it?', 'what are the explained topics?']);
      // (The third, general question legitimately retrieves every topic's document from the shared corpus.)
      for (const turn of history.turns.slice(0, 2)) leaked(`${topic.conversation} history`, JSON.stringify(turn), others);
    });
    expect(leaks).toEqual([]);
    // The same conversation asking again does hit its own entry.
    expect((await engine.run('what are the explained topics?', { conversation: TOPICS[0]!.conversation })).fromCache).toBe(true);
    // The engine-level history (single-user use) saw none of it.
    expect(engine.getHistory()?.size).toBe(0);
    // Logs carry counts and the conversation id, never a query or a topic word.
    const everyWord = [...TOPICS.flatMap((topic) => [...topic.words, topic.arabic]), 'what about it'];
    for (const line of lines) leaked('a log line', JSON.stringify(line), everyWord);
    expect(leaks).toEqual([]);
    const runLines = lines.filter((line) => line.event === 'run');
    expect(runLines).toHaveLength(TOPICS.length * 3 + 1);
    expect(new Set(runLines.map((line) => line.conversation))).toEqual(new Set(TOPICS.map((topic) => topic.conversation)));
  }, 60_000);

  it('the engine-level setConversation/getHistory keep working for single-user use', async () => {
    const engine = new ContextEngine();
    await engine.index(corpusOf(TOPICS.slice(0, 3)));
    await engine.run(`tell me about ${TOPICS[1]!.words[0]}`);
    const followUp = await engine.run('and what about it?');
    expect(followUp.effectiveQuery).toContain(TOPICS[1]!.words[0]);
    const saved = JSON.parse(JSON.stringify(engine.getHistory()));
    const restored = new ContextEngine();
    await restored.index(corpusOf(TOPICS.slice(0, 3)));
    restored.setConversation(saved);
    expect((await restored.run('and its details?')).effectiveQuery).toContain(TOPICS[1]!.words[0]);
    // A conversation run does not touch the engine-level history.
    await restored.run(`tell me about ${TOPICS[2]!.words[0]}`, { conversation: 'other' });
    expect(restored.getHistory()?.turns.every((turn) => !turn.query.includes(TOPICS[2]!.words[0]!))).toBe(true);
  });

  it('toJSON / fromJSON per conversation survive a restart and stay separate', async () => {
    const engine = new ContextEngine();
    await engine.index(corpusOf(TOPICS.slice(0, 2)));
    await engine.conversation('a').run(`what is ${TOPICS[0]!.words[0]}?`);
    await engine.conversation('b').run(`what is ${TOPICS[1]!.words[0]}?`);
    const savedA = JSON.stringify(engine.conversation('a'));
    const savedB = engine.conversation('b').toJSON();
    expect(JSON.parse(savedA).turns).toHaveLength(1);

    const restarted = new ContextEngine();
    await restarted.index(corpusOf(TOPICS.slice(0, 2)));
    restarted.conversation('a').fromJSON(savedA);
    restarted.conversation('b').fromJSON(savedB);
    expect((await restarted.conversation('a').run('and what about it?')).effectiveQuery).toContain(TOPICS[0]!.words[0]);
    const b = await restarted.conversation('b').run('and what about it?');
    expect(b.effectiveQuery).toContain(TOPICS[1]!.words[0]);
    expect(b.effectiveQuery).not.toContain(TOPICS[0]!.words[0]);
    expect(restarted.conversation('never').toJSON()).toEqual({ version: 1, turns: [] });
    await expectZerdaError(async () => restarted.conversation('a').fromJSON('{"version":2}'), ['ZERDA_INVALID_ARGUMENT']);
    expect(restarted.conversation('a').end()).toBe(true);
    expect(restarted.conversation('a').getHistory()?.size).toBe(0);
  });

  it('validates conversation ids and refuses a conversation option on a handle', async () => {
    const engine = new ContextEngine();
    for (const bad of ['', 5, null, 'x'.repeat(257)]) {
      await expectZerdaError(() => engine.run('q', { conversation: bad as never }), ['ZERDA_INVALID_ARGUMENT']);
      await expectZerdaError(async () => engine.conversation(bad as never), ['ZERDA_INVALID_ARGUMENT']);
    }
    await expectZerdaError(() => engine.conversation('a').run('q', { conversation: 'b' } as never), ['ZERDA_INVALID_ARGUMENT']);
  });
});

describe('ConversationRegistry: bounded live conversations (LRU + TTL)', () => {
  const config = (maxConversations: number, conversationTtlMs: number) => resolveConfig({ multiTurn: { maxConversations, conversationTtlMs } }).multiTurn;

  it('forgets the least recently used conversation beyond maxConversations', () => {
    const forgotten: string[] = [];
    const registry = new ConversationRegistry(config(3, 60_000), () => 0, ({ id }) => forgotten.push(id));
    for (const id of ['a', 'b', 'c']) registry.history(id).addTurn({ query: id });
    registry.history('a'); // a is used again: b is now the least recently used
    registry.history('d');
    expect(forgotten).toEqual(['b']);
    expect(registry.size).toBe(3);
    expect(registry.history('b').size).toBe(0); // starts afresh
    expect(registry.history('a').size).toBe(1);
  });

  it('forgets conversations idle for conversationTtlMs', () => {
    let clock = 0;
    const forgotten: Array<{ id: string; reason: string }> = [];
    const registry = new ConversationRegistry(config(100, 1000), () => clock, (entry) => forgotten.push(entry));
    registry.history('old').addTurn({ query: 'old' });
    clock = 600;
    registry.history('recent').addTurn({ query: 'recent' });
    clock = 1100;
    expect(registry.has('old')).toBe(false);
    expect(registry.has('recent')).toBe(true);
    expect(forgotten).toEqual([{ id: 'old', reason: 'expired' }]);
  });

  it('an engine with 10,000 users keeps at most maxConversations histories', async () => {
    const engine = new ContextEngine({ config: { multiTurn: { maxConversations: 50 }, cache: { enabled: false } } });
    await engine.index(corpusOf(TOPICS.slice(0, 2)));
    for (let i = 0; i < 10_000; i += 97) await engine.run(TOPICS[0]!.words[0]!, { conversation: `u${i}` });
    expect(engine.conversationCount).toBe(50);
  });
});
