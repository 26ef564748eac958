import { describe, expect, it } from 'vitest';
import { ZerdaError } from '@zerda/types';
import { ConversationHistory } from './conversation-history.js';
import { QueryAnalyzer } from './query-analyzer.js';

const analyzer = new QueryAnalyzer();

function historyWith(...queries: string[]): ConversationHistory {
  const history = new ConversationHistory({}, { now: () => 1_700_000_000_000 });
  for (const query of queries) history.addTurn({ query, context: `Context about ${query}`, analysis: analyzer.analyze(query) });
  return history;
}

describe('ConversationHistory: turns', () => {
  it('records the literal query, a context summary, the analysis and a timestamp', () => {
    const history = historyWith('What is HNSW?');
    const [turn] = history.turns;
    expect(turn).toMatchObject({ query: 'What is HNSW?', contextSummary: 'Context about What is HNSW?', timestamp: 1_700_000_000_000 });
    expect(turn?.analysis?.intent).toBe('definition');
  });

  it('summarises long contexts at a word boundary', () => {
    const history = new ConversationHistory({}, { summaryLength: 20 });
    const turn = history.addTurn({ query: 'q', context: 'التعلم الآلي هو فرع من الذكاء الاصطناعي' });
    expect(turn.contextSummary.length).toBeLessThanOrEqual(20);
    expect(turn.contextSummary.endsWith('…')).toBe(true);
    expect('التعلم الآلي هو فرع من الذكاء الاصطناعي'.startsWith(turn.contextSummary.slice(0, -1))).toBe(true);
  });

  it('keeps at most maxTurns, forgetting the oldest', () => {
    const history = new ConversationHistory({ maxTurns: 2 });
    for (const query of ['one', 'two', 'three']) history.addTurn({ query });
    expect(history.turns.map((turn) => turn.query)).toEqual(['two', 'three']);
    expect(history.size).toBe(2);
  });

  it('hands out copies', () => {
    const history = historyWith('What is HNSW?');
    history.turns[0]!.query = 'changed';
    expect(history.turns[0]?.query).toBe('What is HNSW?');
  });
});

describe('ConversationHistory: enrichment', () => {
  it('adds the previous turns’ content words to a follow-up with a pronoun (English)', () => {
    const history = historyWith('What is the HNSW index?');
    expect(history.getEnrichedQuery('How much memory does it use?')).toBe('How much memory does it use? (HNSW index)');
  });

  it('adds context to Arabic follow-ups (pronouns, وماذا عن, short queries)', () => {
    const history = historyWith('ما هو التعلم الآلي؟');
    expect(history.getEnrichedQuery('ما هي تطبيقات هذا المجال؟')).toBe('ما هي تطبيقات هذا المجال؟ (التعلم الآلي)');
    expect(history.getEnrichedQuery('وماذا عن التعلم العميق؟')).toBe('وماذا عن التعلم العميق؟ (الآلي)');
    expect(history.getEnrichedQuery('وفوائده؟')).toBe('وفوائده؟ (التعلم الآلي)');
  });

  it('leaves a self-contained question alone', () => {
    const history = historyWith('What is the HNSW index?');
    expect(history.getEnrichedQuery('Which embedding models support Arabic text retrieval?')).toBe('Which embedding models support Arabic text retrieval?');
    expect(historyWith('ما هو التعلم الآلي؟').getEnrichedQuery('ما هي عاصمة المغرب الحالية؟')).toBe('ما هي عاصمة المغرب الحالية؟');
  });

  it('uses the last n turns, most recent first, without duplicates, capped at maxKeywords', () => {
    const history = new ConversationHistory({}, { maxKeywords: 3 });
    history.addTurn({ query: 'Tell me about pgvector indexes' });
    history.addTurn({ query: 'And HNSW parameters for pgvector' });
    expect(history.getEnrichedQuery('and for them?', 1)).toBe('and for them? (HNSW parameters pgvector)');
    expect(history.getEnrichedQuery('and for them?', 2)).toBe('and for them? (HNSW parameters pgvector)');
    const wide = new ConversationHistory();
    wide.addTurn({ query: 'Tell me about pgvector indexes' });
    wide.addTurn({ query: 'And HNSW parameters for pgvector' });
    expect(wide.getEnrichedQuery('and for them?', 2)).toBe('and for them? (HNSW parameters pgvector Tell indexes)');
    expect(wide.getEnrichedQuery('and for them?', 0)).toBe('and for them?');
  });

  it('returns the query unchanged with no history', () => {
    expect(new ConversationHistory().getEnrichedQuery('and it?')).toBe('and it?');
  });

  it('the enriched query keeps the literal query analysable (defect 4)', () => {
    const history = historyWith('What is the HNSW index?');
    const literal = 'How much memory does it use?';
    const analysis = analyzer.analyze(history.getEnrichedQuery(literal), { literalQuery: literal });
    expect(analysis.query).toBe(literal);
    expect(analysis.effectiveQuery).toContain('(HNSW index)');
  });
});

describe('ConversationHistory: serialisation', () => {
  it('round-trips through JSON', () => {
    const history = historyWith('What is the HNSW index?', 'ما هو التعلم الآلي؟');
    const restored = ConversationHistory.fromJSON(JSON.stringify(history));
    expect(restored.turns).toEqual(history.turns);
    expect(restored.getEnrichedQuery('وفوائده؟')).toBe(history.getEnrichedQuery('وفوائده؟'));
    expect(ConversationHistory.fromJSON(history.toJSON()).turns).toEqual(history.turns);
  });

  it('keeps only the last maxTurns of a longer saved history', () => {
    const history = historyWith('a1', 'b2', 'c3');
    expect(ConversationHistory.fromJSON(history.toJSON(), { maxTurns: 2 }).turns.map((turn) => turn.query)).toEqual(['b2', 'c3']);
  });

  it('rejects malformed JSON and wrong shapes with a ZerdaError naming the field', () => {
    expect(() => ConversationHistory.fromJSON('{not json')).toThrow(/history must be JSON produced by ConversationHistory.toJSON\(\), got malformed JSON/);
    expect(() => ConversationHistory.fromJSON('{"version":2,"turns":[]}')).toThrow(/history.version/);
    expect(() => ConversationHistory.fromJSON({ version: 1, turns: [{ query: 5, contextSummary: '', timestamp: 1 }] } as never)).toThrow(/history.turns\[0\]\.query must be a string, got number 5/);
    expect(() => ConversationHistory.fromJSON({ version: 1, turns: [{ query: 'q', contextSummary: '', timestamp: 1, analysis: { query: 'q' } }] } as never)).toThrow(/history.turns\[0\]\.analysis/);
    try {
      ConversationHistory.fromJSON('[]');
      expect.unreachable();
    } catch (error) {
      expect(ZerdaError.isInstance(error)).toBe(true);
    }
  });
});

describe('ConversationHistory: bad input', () => {
  it('names the field', () => {
    const history = new ConversationHistory();
    expect(() => history.addTurn({ query: 3 } as never)).toThrow(/turn.query must be a string, got number 3/);
    expect(() => history.addTurn({ query: 'q', answer: 'x' } as never)).toThrow(/turn.answer/);
    expect(() => history.addTurn({ query: 'q', analysis: { intent: 'x' } } as never)).toThrow(/turn.analysis/);
    expect(() => history.getEnrichedQuery('q', -1)).toThrow(/n must be an integer >= 0, got number -1/);
    expect(() => new ConversationHistory({ maxTurns: 0 })).toThrow(/config.multiTurn.maxTurns/);
    expect(() => new ConversationHistory({}, { maxKeywords: -1 })).toThrow(/options.maxKeywords/);
    expect(history.size).toBe(0);
  });
});
