import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZerdaError, compareSearchHits, createError, type DocumentChunk, type VectorSearchHit } from '@zerda/types';
import { backendError } from './backend-error.js';
import { batches, batchesWithin } from './batches.js';
import { embedMissing, validateChunks } from './chunks.js';
import { checkStoreOptions, dimensionsOption, embedderOption, metricOption, overFetchOption } from './options.js';
import { fetchUntilMatches } from './over-fetch.js';
import { Preparation } from './preparation.js';
import { POSTGRES_STORABLE, checkStorableChunk, storableDistinct, utf8Storable } from './storable.js';
import { similarityFrom } from './similarity.js';

function chunk(id: string, metadata: Record<string, number> = {}): DocumentChunk {
  return { id, docId: `d-${id}`, text: id, source: 's', metadata, position: { index: 0 } };
}

function fieldOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    if (ZerdaError.isInstance(error)) return error.details.field;
    throw error;
  }
  return undefined;
}

describe('fetchUntilMatches', () => {
  it('returns exactly min(k, matching) hits, best first, whatever the limits', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ score: fc.double({ min: -1, max: 1, noNaN: true }), keep: fc.boolean() }), { maxLength: 60 }),
        fc.integer({ min: 0, max: 70 }),
        fc.integer({ min: 1, max: 80 }),
        async (rows, k, first) => {
          const all: VectorSearchHit[] = rows.map((row, i) => ({ chunk: { ...chunk(`c${String(i).padStart(2, '0')}`), metadata: { keep: row.keep } }, score: row.score }));
          const ranked = [...all].sort(compareSearchHits);
          const asked: number[] = [];
          const hits = await fetchUntilMatches({
            k,
            first,
            max: all.length,
            fetch: async (limit) => {
              asked.push(limit);
              return ranked.slice(0, limit);
            },
            matches: (hit) => hit.chunk.metadata.keep === true,
          });
          const expected = ranked.filter((hit) => hit.chunk.metadata.keep === true).slice(0, k);
          expect(hits.map((hit) => hit.chunk.id)).toEqual(expected.map((hit) => hit.chunk.id));
          // The limit only grows, and never beyond what the backend holds (at least 1).
          for (let i = 1; i < asked.length; i++) expect(asked[i]!).toBeGreaterThan(asked[i - 1]!);
          for (const limit of asked) expect(limit).toBeLessThanOrEqual(Math.max(1, all.length));
        },
      ),
    );
  });

  it('stops when the backend returns fewer candidates than asked', async () => {
    const calls: number[] = [];
    const hits = await fetchUntilMatches({ k: 5, first: 5, max: 1000, fetch: async (limit) => (calls.push(limit), []), matches: () => true });
    expect(hits).toEqual([]);
    expect(calls).toEqual([5]);
  });

  it('asks nothing for k = 0 and refuses a growth that would not grow', async () => {
    expect(await fetchUntilMatches({ k: 0, first: 4, max: 10, fetch: () => Promise.reject(new Error('no')), matches: () => true })).toEqual([]);
    await expect(fetchUntilMatches({ k: 1, first: 4, max: 10, fetch: async () => [], matches: () => true, growth: 1 })).rejects.toThrow(/growth/);
  });
});

describe('batches', () => {
  it('cover every item exactly once, in order, within the size', () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), fc.integer({ min: 1, max: 20 }), (items, size) => {
        const groups = batches(items, size);
        expect(groups.flat()).toEqual(items);
        for (const group of groups) expect(group.length).toBeGreaterThan(0);
        for (const group of groups) expect(group.length).toBeLessThanOrEqual(size);
      }),
    );
  });

  it('within a weight budget: every item once, in order; a group over budget holds one item', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 })), fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 100 }), (weights, maxItems, maxWeight) => {
        const groups = batchesWithin(weights, maxItems, maxWeight, (weight) => weight);
        expect(groups.flat()).toEqual(weights);
        for (const group of groups) {
          expect(group.length).toBeGreaterThan(0);
          expect(group.length).toBeLessThanOrEqual(maxItems);
          const total = group.reduce((sum, weight) => sum + weight, 0);
          if (group.length > 1) expect(total).toBeLessThanOrEqual(maxWeight);
        }
      }),
    );
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => batches([1], 0)).toThrow(/size/);
    expect(() => batchesWithin([1], 1, 0, () => 1)).toThrow(/maxWeight/);
  });
});

describe('similarityFrom', () => {
  it('converts each convention into the same similarity', () => {
    // cos = 0.6: one-minus and distance report 0.4, similarity reports 0.6.
    for (const [convention, raw] of [['similarity', 0.6], ['one-minus', 0.4], ['distance', 0.4]] as const) expect(similarityFrom('cosine', convention, raw)).toBeCloseTo(0.6, 12);
    // dot = 2.5: one-minus reports -1.5, distance -2.5.
    for (const [convention, raw] of [['similarity', 2.5], ['one-minus', -1.5], ['distance', -2.5]] as const) expect(similarityFrom('ip', convention, raw)).toBeCloseTo(2.5, 12);
    // euclidean 3: squared 9 for similarity and one-minus.
    for (const [convention, raw] of [['similarity', 9], ['one-minus', 9], ['distance', 3]] as const) expect(similarityFrom('l2', convention, raw)).toBeCloseTo(0.25, 12);
  });

  it('clamps cosine into [-1, 1] and scores a direction-less (NaN) cosine 0', () => {
    expect(similarityFrom('cosine', 'one-minus', -1e-7)).toBe(1);
    expect(similarityFrom('cosine', 'similarity', -1.0000001)).toBe(-1);
    expect(similarityFrom('cosine', 'distance', Number.NaN)).toBe(0);
    expect(() => similarityFrom('cosine', 'nope' as never, 1)).toThrow(/convention/);
  });
});

describe('Preparation', () => {
  it('runs one attempt for concurrent callers and answers true afterwards without asking', async () => {
    let attempts = 0;
    const preparation = new Preparation(async () => {
      attempts++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return true;
    });
    expect(await Promise.all([preparation.run(undefined, false), preparation.run(3, true), preparation.run(undefined, false)])).toEqual([true, true, true]);
    expect(await preparation.run(undefined, false)).toBe(true);
    expect(attempts).toBe(1);
    preparation.reset();
    expect(preparation.ready).toBe(false);
    await preparation.run(undefined, false);
    expect(attempts).toBe(2);
  });

  it('lets a creating caller start its own attempt after a read-only one found nothing or failed', async () => {
    const seen: boolean[] = [];
    let fail = true;
    const preparation = new Preparation(async (_dimensions, create) => {
      seen.push(create);
      await Promise.resolve();
      if (fail && !create) {
        fail = false;
        throw new Error('connection refused');
      }
      return create;
    });
    const reading = preparation.run(undefined, false);
    const creating = preparation.run(4, true);
    await expect(reading).rejects.toThrow('connection refused');
    expect(await creating).toBe(true);
    expect(seen).toEqual([false, true]);
  });
});

describe('storable text', () => {
  it('names the field holding a character the backend cannot store', () => {
    const utf8 = utf8Storable('Chroma');
    expect(fieldOf(() => checkStorableChunk({ ...chunk('a'), metadata: { ['k\uD800']: 1 } }, 3, utf8))).toBe('chunks[3].metadata key');
    expect(fieldOf(() => checkStorableChunk({ ...chunk('a'), title: 'x\uDC00' }, 0, utf8))).toBe('chunks[0].title');
    expect(fieldOf(() => checkStorableChunk({ ...chunk('a'), text: 'a\u0000b' }, 1, POSTGRES_STORABLE))).toBe('chunks[1].text');
    expect(fieldOf(() => checkStorableChunk({ ...chunk('a'), text: 'a\u0000b' }, 1, utf8))).toBeUndefined();
    expect(fieldOf(() => checkStorableChunk({ ...chunk('😀'), text: 'مرحبا' }, 0, POSTGRES_STORABLE))).toBeUndefined();
  });

  it('skips ids that cannot have been stored, and duplicates', () => {
    expect(storableDistinct(['a', 'b\uD800', 'a', 'c'], utf8Storable('X'))).toEqual(['a', 'c']);
    expect(storableDistinct(['a', 'b\uD800', 'a'], undefined)).toEqual(['a', 'b\uD800']);
  });
});

describe('options', () => {
  it('refuses unknown keys and bad values, naming the field', () => {
    expect(fieldOf(() => checkStoreOptions({ metirc: 'l2' } as object, ['metric']))).toBe('options.metirc');
    expect(fieldOf(() => checkStoreOptions([] as object, ['metric']))).toBe('options');
    expect(checkStoreOptions(undefined, ['metric'])).toEqual({});
    expect(fieldOf(() => metricOption('dot'))).toBe('options.metric');
    expect(metricOption(undefined)).toBe('cosine');
    expect(metricOption('l2')).toBe('l2');
    expect(fieldOf(() => dimensionsOption(0))).toBe('options.dimensions');
    expect(dimensionsOption(undefined)).toBeUndefined();
    expect(fieldOf(() => overFetchOption(0.5))).toBe('options.overFetch');
    expect(overFetchOption(undefined)).toBe(4);
    expect(fieldOf(() => embedderOption({}))).toBe('options.embedder');
  });
});

describe('chunks and embeddings', () => {
  it('reports a NaN embedding as ZERDA_INVALID_EMBEDDING and a missing one when there is no embedder', async () => {
    expect(() => validateChunks([{ ...chunk('a'), embedding: new Float64Array([1, Number.NaN]) }])).toThrow(expect.objectContaining({ code: 'ZERDA_INVALID_EMBEDDING' }));
    await expect(embedMissing([chunk('a')], undefined)).rejects.toMatchObject({ code: 'ZERDA_INVALID_EMBEDDING', details: { field: 'chunks[0].embedding' } });
  });

  it('embeds what is missing in one call, and reports an embedder answering with the wrong count', async () => {
    const chunks = [chunk('a'), { ...chunk('b'), embedding: [1, 0] }, chunk('c')];
    const calls: string[][] = [];
    await embedMissing(chunks, (texts) => (calls.push(texts), texts.map(() => [0, 1])));
    expect(calls).toEqual([['a', 'c']]);
    expect(chunks.map((item) => Array.from(item.embedding as number[]))).toEqual([[0, 1], [1, 0], [0, 1]]);
    await expect(embedMissing([chunk('x')], () => [])).rejects.toMatchObject({ code: 'ZERDA_BACKEND_ERROR' });
  });
});

describe('backendError', () => {
  it('wraps a backend failure and passes a ZerdaError through', () => {
    const wrapped = backendError('Chroma collection x', 'upsert', new Error('timeout'));
    expect(wrapped.code).toBe('ZERDA_BACKEND_ERROR');
    expect(wrapped.details).toMatchObject({ component: 'Chroma collection x', operation: 'upsert', reason: 'timeout' });
    const original = createError('ZERDA_INVALID_FILTER', { field: 'f' });
    expect(backendError('x', 'y', original)).toBe(original);
  });
});
