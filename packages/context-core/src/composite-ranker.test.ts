import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ScoredChunk } from '@zerda/types';
import { defaultAnalyzer } from '@zerda/text';
import { CompositeRanker } from './composite-ranker.js';
import { QueryAnalyzer } from './query-analyzer.js';
import { scored } from './__fixtures__/chunks.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2025, 0, 1);
const ids = (list: ScoredChunk[]) => list.map((item) => item.chunk.id);
const analyzer = new QueryAnalyzer();

describe('CompositeRanker: factors', () => {
  it('records every factor and sets score to the composite', () => {
    const ranker = new CompositeRanker();
    const analysis = analyzer.analyze('vector index recall');
    const [top] = ranker.rank(
      [
        scored('a', 'The vector index trades recall for speed.', 2, { docId: 'd', source: 'docs', timestamp: NOW - 365 * DAY, position: { index: 1 } }),
        scored('b', 'Unrelated text about cooking.', 1, { docId: 'e' }),
      ],
      { analysis, sourceQuality: { docs: 0.9 }, now: NOW },
    );
    expect(top?.chunk.id).toBe('a');
    const scores = top?.scores ?? {};
    expect(scores.retrieval).toBe(1);
    expect(scores.keywordBoost).toBe(1);
    expect(scores.sourceQuality).toBe(0.9);
    expect(scores.recency).toBeCloseTo(0.5, 10);
    expect(scores.position).toBe(0.5);
    expect(scores.composite).toBeCloseTo(0.6 * 1 + 0.2 * 1 + 0.1 * 0.9 + 0.05 * 0.5 + 0.05 * 0.5, 10);
    expect(top?.score).toBe(scores.composite);
  });

  it('normalises retrieval scores min-max within the set; a lone candidate gets 1', () => {
    const ranker = new CompositeRanker();
    const ranked = ranker.rank([scored('a', 'x', 10), scored('b', 'y', 20), scored('c', 'z', 15)], { now: NOW });
    expect(Object.fromEntries(ranked.map((item) => [item.chunk.id, item.scores.retrieval]))).toEqual({ a: 0, b: 1, c: 0.5 });
    expect(ranker.rank([scored('solo', 'x', -3)], { now: NOW })[0]?.scores.retrieval).toBe(1);
  });

  it('matches Arabic keywords through normalisation (harakat, alef variants, articles)', () => {
    const ranker = new CompositeRanker({ weights: { retrieval: 0, keywordBoost: 1, sourceQuality: 0, recency: 0, position: 0 } });
    const analysis = analyzer.analyze('ما هي فوائد التعلم الآلي؟');
    const ranked = ranker.rank(
      [
        scored('other', 'الطقس اليوم مشمس وجميل في المدينة.', 1),
        scored('match', 'من فَوائِدِ التَّعَلُّمِ الآلِيِّ تحسينُ الأداء.', 1),
      ],
      { analysis, now: NOW },
    );
    expect(ids(ranked)).toEqual(['match', 'other']);
    expect(ranked[0]?.scores.keywordBoost).toBe(1);
    expect(ranked[1]?.scores.keywordBoost).toBe(0);
  });

  it('uses the source-quality map (number or { score }), then an earlier sourceQuality score, then 0.5', () => {
    const ranker = new CompositeRanker();
    const earlier = { ...scored('earlier', 'x', 1, { source: 'blog' }), scores: { sourceQuality: 0.2 } };
    const ranked = ranker.rank([scored('wiki', 'x', 1, { source: 'wiki' }), scored('forum', 'x', 1, { source: 'forum' }), earlier, scored('unknown', 'x', 1, { source: 'new' })], {
      sourceQuality: { wiki: 0.8, forum: { score: 0.3, label: 'user posts' } },
      now: NOW,
    });
    const quality = Object.fromEntries(ranked.map((item) => [item.chunk.id, item.scores.sourceQuality]));
    expect(quality).toEqual({ wiki: 0.8, forum: 0.3, earlier: 0.2, unknown: 0.5 });
  });

  it('decays recency with the configured half-life; no timestamp is neutral, the future is fresh', () => {
    const ranker = new CompositeRanker({ recencyHalfLifeDays: 30 });
    const ranked = ranker.rank(
      [scored('old', 'x', 1, { timestamp: NOW - 60 * DAY }), scored('none', 'x', 1), scored('future', 'x', 1, { timestamp: NOW + DAY })],
      { now: NOW },
    );
    const recency = Object.fromEntries(ranked.map((item) => [item.chunk.id, item.scores.recency]));
    expect(recency.old).toBeCloseTo(0.25, 10);
    expect(recency.none).toBe(0.5);
    expect(recency.future).toBe(1);
  });

  it('uses an injected clock when no `now` is given', () => {
    const ranker = new CompositeRanker({ recencyHalfLifeDays: 1 }, { clock: () => NOW });
    expect(ranker.rank([scored('a', 'x', 1, { timestamp: NOW - DAY })])[0]?.scores.recency).toBeCloseTo(0.5, 10);
  });

  it('does not modify its input', () => {
    const input = [scored('a', 'x', 3), scored('b', 'y', 1)];
    const snapshot = structuredClone(input);
    new CompositeRanker().rank(input, { now: NOW });
    expect(input).toEqual(snapshot);
  });
});

describe('CompositeRanker: ordering, caps and diversity', () => {
  it('breaks ties on the original score, then on the chunk id', () => {
    const ranker = new CompositeRanker({ weights: { retrieval: 0, keywordBoost: 0, sourceQuality: 0, recency: 0, position: 0 } });
    const ranked = ranker.rank([scored('c', 'x', 1), scored('a', 'x', 1), scored('b', 'x', 2)], { now: NOW });
    expect(ids(ranked)).toEqual(['b', 'a', 'c']);
  });

  it('truncates to maxChunks and reports what was left out', () => {
    const ranker = new CompositeRanker();
    const outcome = ranker.rankDetailed([scored('a', 'x', 1), scored('b', 'x', 3), scored('c', 'x', 2)], { maxChunks: 2, now: NOW });
    expect(ids(outcome.ranked)).toEqual(['b', 'c']);
    expect(outcome.dropped).toEqual([expect.objectContaining({ chunkId: 'a', reason: 'max_chunks' })]);
  });

  it('caps chunks per document', () => {
    const ranker = new CompositeRanker({ maxPerDocument: 1 });
    const outcome = ranker.rankDetailed(
      [scored('d1#0', 'x', 5, { docId: 'd1' }), scored('d1#1', 'x', 4, { docId: 'd1', position: { index: 1 } }), scored('d2#0', 'x', 1, { docId: 'd2' })],
      { now: NOW },
    );
    expect(ids(outcome.ranked)).toEqual(['d1#0', 'd2#0']);
    expect(outcome.dropped).toEqual([expect.objectContaining({ chunkId: 'd1#1', reason: 'per_document_cap' })]);
  });

  it('MMR promotes a different chunk over a near copy of the best one (terms)', () => {
    const text = 'BM25 ranks documents by term frequency and inverse document frequency';
    const chunks = [
      scored('best', text, 1.0),
      scored('copy', `${text} too`, 0.95),
      scored('novel', 'Vector search compares embeddings with cosine similarity', 0.6),
    ];
    const plain = new CompositeRanker().rank(chunks, { now: NOW });
    expect(ids(plain)).toEqual(['best', 'copy', 'novel']);
    const diverse = new CompositeRanker({ diversityLambda: 0.5 }).rank(chunks, { now: NOW });
    expect(ids(diverse)).toEqual(['best', 'novel', 'copy']);
    expect(typeof diverse[1]?.scores.mmr).toBe('number');
  });

  it('MMR uses embeddings when both chunks have one (Arabic text, no shared terms)', () => {
    const chunks = [
      scored('best', 'البحث الدلالي', 1.0, { embedding: [1, 0, 0] }),
      scored('same-meaning', 'الاسترجاع بالمعنى', 0.9, { embedding: [0.99, 0.1, 0] }),
      scored('other', 'الطبخ المنزلي', 0.5, { embedding: [0, 0, 1] }),
    ];
    expect(ids(new CompositeRanker({ diversityLambda: 0.3 }).rank(chunks, { now: NOW }))).toEqual(['best', 'other', 'same-meaning']);
  });

  it('MMR with lambda 1 is the plain relevance order', () => {
    const chunks = [scored('a', 'one two', 0.2), scored('b', 'one two', 0.9), scored('c', 'three', 0.5)];
    expect(ids(new CompositeRanker({ diversityLambda: 1 }).rank(chunks, { now: NOW }))).toEqual(ids(new CompositeRanker().rank(chunks, { now: NOW })));
  });
});

describe('CompositeRanker: bad input', () => {
  it('names the field', () => {
    const ranker = new CompositeRanker();
    expect(() => ranker.rank([{ ...scored('a', 'x'), score: Number.NaN }])).toThrow(/chunks\[0\]\.score must be a finite number, got number NaN/);
    expect(() => ranker.rank([scored('a', 'x')], { maxChunks: 0 })).toThrow(/options.maxChunks/);
    expect(() => ranker.rank([scored('a', 'x')], { sourceQuality: { wiki: 2 } })).toThrow(/options.sourceQuality.wiki/);
    expect(() => ranker.rank([scored('a', 'x')], { now: Number.NaN })).toThrow(/options.now/);
    expect(() => ranker.rank([scored('a', 'x')], { top: 3 } as never)).toThrow(/options.top/);
    expect(() => new CompositeRanker({ weights: { retrieval: -1 } })).toThrow(/config.ranking.weights.retrieval/);
    expect(() => new CompositeRanker({ diversity: 0.5 } as never)).toThrow(/config.ranking.diversity/);
  });
});

describe('CompositeRanker: properties', () => {
  const candidate = fc.record({
    text: fc.array(fc.constantFrom('index', 'vector', 'بحث', 'نص', 'recall', 'الفهرس'), { maxLength: 8 }).map((list) => list.join(' ')),
    score: fc.double({ min: -100, max: 100, noNaN: true }),
    docId: fc.constantFrom('d1', 'd2', 'd3'),
    index: fc.nat(20),
    age: fc.option(fc.nat(3000)),
    embedding: fc.option(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 3, maxLength: 3 })),
  });
  type Candidate = typeof candidate extends fc.Arbitrary<infer T> ? T : never;
  const chunksOf = (items: Candidate[]) =>
    items.map((item, i) =>
      scored(`c${i}`, item.text, item.score, {
        docId: item.docId,
        position: { index: item.index },
        ...(item.age === null ? {} : { timestamp: NOW - item.age * DAY }),
        ...(item.embedding === null ? {} : { embedding: item.embedding }),
      }),
    );

  it('ranking is a permutation of its input when maxChunks >= n (plain and MMR)', () => {
    const rankers = [new CompositeRanker(), new CompositeRanker({ diversityLambda: 0.4 })];
    fc.assert(
      fc.property(fc.array(candidate, { maxLength: 25 }), fc.nat(5), (items, slack) => {
        const chunks = chunksOf(items);
        for (const ranker of rankers) {
          const ranked = ranker.rank(chunks, { maxChunks: chunks.length + slack + 1, now: NOW, analysis: analyzer.analyze('vector recall بحث') });
          expect(ids(ranked).sort()).toEqual(ids(chunks).sort());
        }
      }),
      { numRuns: 120 },
    );
  });

  it('plain ranking is sorted by composite and is independent of the input order', () => {
    const ranker = new CompositeRanker();
    fc.assert(
      fc.property(fc.array(candidate, { maxLength: 25 }), fc.nat(25), (items, rotation) => {
        const chunks = chunksOf(items);
        const cut = chunks.length === 0 ? 0 : rotation % chunks.length;
        const shuffled = [...chunks.slice(cut), ...chunks.slice(0, cut)].reverse();
        const ranked = ranker.rank(chunks, { now: NOW });
        expect(ids(ranker.rank(shuffled, { now: NOW }))).toEqual(ids(ranked));
        for (let i = 1; i < ranked.length; i++) expect((ranked[i - 1] as ScoredChunk).score).toBeGreaterThanOrEqual((ranked[i] as ScoredChunk).score);
      }),
      { numRuns: 100 },
    );
  });

  it('respects maxChunks and maxPerDocument', () => {
    const ranker = new CompositeRanker({ maxPerDocument: 2, diversityLambda: 0.7 });
    fc.assert(
      fc.property(fc.array(candidate, { maxLength: 25 }), fc.integer({ min: 1, max: 10 }), (items, maxChunks) => {
        const outcome = ranker.rankDetailed(chunksOf(items), { maxChunks, now: NOW });
        expect(outcome.ranked.length).toBeLessThanOrEqual(maxChunks);
        const perDoc = new Map<string, number>();
        for (const item of outcome.ranked) perDoc.set(item.chunk.docId, (perDoc.get(item.chunk.docId) ?? 0) + 1);
        for (const count of perDoc.values()) expect(count).toBeLessThanOrEqual(2);
        expect(outcome.ranked.length + outcome.dropped.length).toBe(items.length);
      }),
      { numRuns: 100 },
    );
  });
});

describe('CompositeRanker: term matches from the keyword retriever', () => {
  const ranker = new CompositeRanker();
  const fingerprint = defaultAnalyzer.fingerprint;
  const withMatches = (item: ScoredChunk, matches: unknown): ScoredChunk => ({ ...item, termMatches: matches as ScoredChunk['termMatches'] });

  it('takes the keyword boost from termMatches written with its own analyzer, without analysing the text', () => {
    const analysis = analyzer.analyze('river bank');
    // The matches claim "bank" although the text lacks it: only a ranker that trusts them says 1.
    const item = withMatches(scored('a', 'The river flows.'), { analyzer: fingerprint, checked: ['river', 'bank'], matched: ['river', 'bank'] });
    expect(ranker.rank([item], { analysis, now: NOW })[0]?.scores.keywordBoost).toBe(1);
  });

  it('ignores matches from another analyzer or malformed ones, and analyses keywords they did not look up', () => {
    const analysis = analyzer.analyze('river bank');
    const text = 'The river flows.';
    const boost = (matches: unknown) => ranker.rank([withMatches(scored('a', text), matches)], { analysis, now: NOW })[0]?.scores.keywordBoost;
    expect(boost({ analyzer: 'zerda-analyzer(other)', checked: ['river', 'bank'], matched: ['river', 'bank'] })).toBe(0.5);
    expect(boost({ analyzer: fingerprint, checked: 'river', matched: [] })).toBe(0.5);
    expect(boost({ analyzer: fingerprint, checked: ['river'], matched: ['river', 'bank'] })).toBe(0.5);
    expect(boost(null)).toBe(0.5);
    // "bank" was not looked up: the text decides it (absent), "river" comes from the matches (absent too).
    expect(boost({ analyzer: fingerprint, checked: ['river'], matched: [] })).toBe(0);
  });

  it('ranks exactly as without them when they are true (property, English and Arabic)', () => {
    const words = ['river', 'rivers', 'bank', 'money', 'water', 'the', 'نهر', 'الأنهار', 'مياه', 'البنك', 'في', 'جميلة'];
    fc.assert(
      fc.property(
        fc.array(fc.record({ text: fc.array(fc.constantFrom(...words), { maxLength: 8 }), title: fc.option(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }), { nil: undefined }), score: fc.double({ min: 0, max: 10, noNaN: true }) }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: 3 }),
        (inputs, queryWords, lookedUpDrop) => {
          const analysis = analyzer.analyze(queryWords.join(' '));
          const checked = analysis.keywords.slice(lookedUpDrop);
          const plain = inputs.map((input, index) => scored(`c${index}`, input.text.join(' '), input.score, input.title ? { title: input.title.join(' ') } : {}));
          const matched = plain.map((item) => {
            const terms = new Set([...defaultAnalyzer.analyze(item.chunk.title ?? ''), ...defaultAnalyzer.analyze(item.chunk.text)]);
            return withMatches(item, { analyzer: fingerprint, checked, matched: checked.filter((term) => terms.has(term)) });
          });
          const strip = (list: ScoredChunk[]) => list.map(({ termMatches: _termMatches, ...rest }) => rest);
          expect(strip(ranker.rank(matched, { analysis, now: NOW }))).toEqual(ranker.rank(plain, { analysis, now: NOW }));
        },
      ),
    );
  });
});
