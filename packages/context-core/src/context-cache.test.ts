import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ContextResult } from '@zerda/types';
import { ContextCache, type CacheKeyInput } from './context-cache.js';
import { QueryAnalyzer } from './query-analyzer.js';

function clock(start = 1_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

function sampleResult(query: string): ContextResult {
  const analysis = new QueryAnalyzer().analyze(query);
  return {
    context: `context for ${query}`,
    query,
    effectiveQuery: query,
    analysis,
    chunks: [
      {
        chunk: { id: 'd#0', docId: 'd', text: 'text', source: 'd', metadata: { lang: 'ar' }, position: { index: 0 }, embedding: new Float32Array([0.1, 0.2]) },
        score: 0.9,
        scores: { composite: 0.9, keyword: 3.2 },
        keptText: 'text',
        keptRatio: 1,
        fit: 'whole',
        rank: 1,
      },
    ],
    dropped: [{ chunkId: 'd#1', reason: 'near_duplicate', duplicateOf: 'd#0' }],
    counts: { retrieved: 12, afterFilter: 8, afterRank: 5, afterRerank: 5, used: 1 },
    timings: { cache: 0, analyze: 1, retrieve: 5, filter: 1, rank: 1, rerank: 0, compose: 1, guard: 0, total: 9 },
    budget: { limit: 1000, used: 20, unit: 'chars', utilization: 0.02 },
    template: 'default',
    truncated: false,
    guardPassed: true,
    guardWarnings: [],
    warnings: [],
    fromCache: false,
  };
}

describe('ContextCache: storage', () => {
  it('returns the full original result on a hit (defect 3), as a copy the caller cannot use to change the entry', () => {
    const cache = new ContextCache<ContextResult>();
    const result = sampleResult('ما هو التعلم الآلي؟');
    cache.set('k', result);
    const hit = cache.get('k');
    expect(hit).toEqual(result);
    expect(hit?.counts).toEqual({ retrieved: 12, afterFilter: 8, afterRank: 5, afterRerank: 5, used: 1 });
    expect(hit?.chunks[0]?.chunk.embedding).toBeInstanceOf(Float32Array);
    hit!.counts.retrieved = 0;
    hit!.chunks.length = 0;
    result.context = 'changed after set';
    expect(cache.get('k')?.counts.retrieved).toBe(12);
    expect(cache.get('k')?.chunks).toHaveLength(1);
    expect(cache.get('k')?.context).toBe('context for ما هو التعلم الآلي؟');
  });

  it("freeze mode hands out one deep-frozen copy", () => {
    const cache = new ContextCache<ContextResult>({}, { copy: 'freeze' });
    const result = sampleResult('What is BM25?');
    cache.set('k', result);
    const hit = cache.get('k')!;
    expect(cache.get('k')).toBe(hit);
    expect(Object.isFrozen(hit.counts)).toBe(true);
    expect(() => {
      (hit.counts as { retrieved: number }).retrieved = 0;
    }).toThrow(TypeError);
    expect(Object.isFrozen(result)).toBe(false);
  });

  it('expires entries after their time to live (injected clock)', () => {
    const time = clock();
    const cache = new ContextCache<string>({ ttlMs: 100 }, { now: time.now });
    cache.set('a', 'A');
    cache.set('b', 'B', { ttlMs: 1000 });
    time.advance(99);
    expect(cache.get('a')).toBe('A');
    time.advance(1);
    expect(cache.has('a')).toBe(false);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe('B');
    expect(cache.stats).toMatchObject({ hits: 2, misses: 1, expirations: 1, size: 1 });
  });

  it('evicts the least recently used entry beyond maxEntries', () => {
    const cache = new ContextCache<number>({ maxEntries: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    expect(cache.has('a')).toBe(true);
    expect(cache.has('b')).toBe(false);
    expect(cache.has('c')).toBe(true);
    expect(cache.stats.evictions).toBe(1);
  });

  it('prefers dropping expired entries to evicting live ones', () => {
    const time = clock();
    const cache = new ContextCache<number>({ maxEntries: 2, ttlMs: 10 }, { now: time.now });
    cache.set('old', 1, { ttlMs: 5 });
    cache.set('live', 2);
    time.advance(6);
    cache.set('new', 3);
    expect(cache.has('live')).toBe(true);
    expect(cache.stats).toMatchObject({ evictions: 0, expirations: 1, size: 2 });
  });

  it('keeps stats: hits, misses, hit rate, size; clear and reset', () => {
    const cache = new ContextCache<number>();
    expect(cache.stats.hitRate).toBe(0);
    cache.set('a', 1);
    cache.get('a');
    cache.get('a');
    cache.get('zzz');
    expect(cache.stats).toEqual({ hits: 2, misses: 1, hitRate: 2 / 3, size: 1, evictions: 0, expirations: 0 });
    cache.clear();
    expect(cache.size).toBe(0);
    cache.resetStats();
    expect(cache.stats.hits).toBe(0);
  });

  it('does nothing when disabled', () => {
    const cache = new ContextCache<number>({ enabled: false });
    cache.set('a', 1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.stats).toMatchObject({ hits: 0, misses: 0, size: 0 });
  });

  it('rejects values that cannot be cloned, leaving the cache unchanged', () => {
    const cache = new ContextCache<unknown>();
    cache.set('a', 1);
    expect(() => cache.set('a', { f: () => 1 })).toThrow(/value must be structured-cloneable/);
    expect(cache.get('a')).toBe(1);
  });

  it('rejects bad input naming the field', () => {
    expect(() => new ContextCache({ ttlMs: -1 })).toThrow(/config.cache.ttlMs/);
    expect(() => new ContextCache({ size: 3 } as never)).toThrow(/config.cache.size/);
    expect(() => new ContextCache({}, { copy: 'deep' } as never)).toThrow(/options.copy/);
    const cache = new ContextCache();
    expect(() => cache.get(5 as never)).toThrow(/key must be a string/);
    expect(() => cache.set('a', 1, { ttlMs: 0 })).toThrow(/options.ttlMs/);
  });
});

describe('ContextCache.key', () => {
  it('covers query, filter, limits, budget, generation and extra (defect 9)', () => {
    const base: CacheKeyInput = { effectiveQuery: 'ما هو التعلم الآلي؟', filter: { tenant: 'a' }, maxChunks: 5, budget: 2000, generation: 3 };
    const key = ContextCache.key(base);
    expect(ContextCache.key({ ...base, filter: { tenant: 'b' } })).not.toBe(key);
    expect(ContextCache.key({ ...base, filter: undefined })).not.toBe(key);
    expect(ContextCache.key({ ...base, maxChunks: 6 })).not.toBe(key);
    expect(ContextCache.key({ ...base, budget: 2001 })).not.toBe(key);
    expect(ContextCache.key({ ...base, generation: 4 })).not.toBe(key);
    expect(ContextCache.key({ ...base, effectiveQuery: 'ما هو التعلم الآلي' })).not.toBe(key);
    expect(ContextCache.key({ ...base, extra: { template: 'xml' } })).not.toBe(key);
  });

  it('is canonical: key order inside filters and extra does not matter', () => {
    const a = ContextCache.key({ effectiveQuery: 'q', filter: { $and: [{ lang: 'ar' }, { year: { $gte: 2020, $lt: 2025 } }], tenant: 't' }, extra: { b: 1, a: [1, { y: 2, x: 1 }] } });
    const b = ContextCache.key({ effectiveQuery: 'q', filter: { tenant: 't', $and: [{ lang: 'ar' }, { year: { $lt: 2025, $gte: 2020 } }] }, extra: { a: [1, { x: 1, y: 2 }], b: 1 } });
    expect(a).toBe(b);
  });

  it('rejects invalid parts naming the field', () => {
    expect(() => ContextCache.key({ effectiveQuery: 3 } as never)).toThrow(/key.effectiveQuery must be a string/);
    expect(() => ContextCache.key({ effectiveQuery: 'q', filter: { a: { $regex: 'x' } } as never })).toThrow(/key.filter.a.\$regex/);
    expect(() => ContextCache.key({ effectiveQuery: 'q', budget: -1 })).toThrow(/key.budget/);
    expect(() => ContextCache.key({ effectiveQuery: 'q', generation: 1.5 })).toThrow(/key.generation/);
    expect(() => ContextCache.key({ effectiveQuery: 'q', extra: { n: Number.NaN } })).toThrow(/key.extra.n/);
    expect(() => ContextCache.key({ effectiveQuery: 'q', tenant: 'x' } as never)).toThrow(/key.tenant/);
  });
});

describe('ContextCache: key soundness (property)', () => {
  const scalar = fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -3, max: 3 }), fc.boolean(), fc.constant(null));
  const filter = fc.option(
    fc.dictionary(fc.constantFrom('lang', 'tenant', 'year', 'tag', 'source'), fc.oneof(scalar, fc.record({ $in: fc.array(scalar, { maxLength: 3 }) }), fc.record({ $gte: fc.integer(), $lt: fc.integer() }, { requiredKeys: ['$gte'] })), {
      maxKeys: 3,
    }),
    { nil: undefined },
  );
  const keyInput = fc.record(
    {
      effectiveQuery: fc.oneof(fc.constantFrom('What is BM25?', 'ما هو التعلم الآلي؟', 'what is bm25?', ''), fc.string({ maxLength: 6 })),
      filter,
      maxChunks: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
      budget: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      generation: fc.option(fc.nat(3), { nil: undefined }),
      extra: fc.option(fc.dictionary(fc.constantFrom('template', 'counter', 'useHistory'), scalar, { maxKeys: 2 }), { nil: undefined }),
    },
    { requiredKeys: ['effectiveQuery'] },
  );
  /** What each input means: the part a cache must distinguish. */
  const meaning = (input: CacheKeyInput) =>
    JSON.stringify(
      [input.effectiveQuery, input.filter ?? null, input.maxChunks ?? null, input.budget ?? null, input.generation ?? 0, input.extra ?? null],
      (_key, value) => (value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1))) : value),
    );

  it('never returns an entry stored under different key inputs', () => {
    fc.assert(
      fc.property(fc.array(keyInput, { minLength: 1, maxLength: 12 }), (inputs) => {
        const cache = new ContextCache<string>({ maxEntries: 1000 });
        for (const input of inputs) cache.set(ContextCache.key(input), meaning(input));
        for (const input of inputs) expect(cache.get(ContextCache.key(input))).toBe(meaning(input));
      }),
      { numRuns: 300 },
    );
  });

  it('two inputs share a key exactly when they mean the same', () => {
    fc.assert(
      fc.property(keyInput, keyInput, (a, b) => {
        expect(ContextCache.key(a) === ContextCache.key(b)).toBe(meaning(a) === meaning(b));
      }),
      { numRuns: 500 },
    );
  });
});
