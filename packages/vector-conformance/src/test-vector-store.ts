import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ZerdaError, type DocumentChunk, type VectorSearchHit, type VectorStore, type VectorStoreCapabilities } from '@zerda/types';
import { FILTER_CASES, deepFilters, expectedSimilarity, filterFixtureChunks, unitVector } from './fixtures.js';
import { skipAndTitle } from './test-directories.js';

/** Options of {@link testVectorStore}. */
export interface TestVectorStoreOptions {
  /** Name of the registered `describe` block (default: `VectorStore conformance`). */
  name?: string;
  /** Creates a fresh, empty store; called before every test. */
  create: () => Promise<VectorStore> | VectorStore;
  /** Skips the whole suite; a string says why (shown in the suite name), e.g. `"no database available"`. */
  skip?: boolean | string;
  /**
   * The vector dimension the suite uses; must match what `create` builds when the store fixes its
   * dimension at construction. Default 8 (at least 2).
   */
  dimensions?: number;
  /** Registers backend-specific tests inside the same `describe`; `getStore()` returns the current test's store. */
  additionalTests?: (getStore: () => VectorStore) => void;
  /**
   * For stores declaring `capabilities.persistence`: persists `store` and returns a store reopened
   * from what was persisted (e.g. `save(dir)` then `load(dir)`). Without it the round-trip test is skipped.
   */
  reopen?: (store: VectorStore) => Promise<VectorStore>;
  /** The capability flags the store must declare, exactly (checked with `toEqual`); unchecked when omitted. */
  capabilities?: VectorStoreCapabilities;
  /**
   * What `store.dimensions` must be before anything is added: the dimension the store was
   * configured with, or `null` for a store that takes it from the first vector; unchecked when omitted.
   */
  initialDimensions?: number | null;
}

/** Relative tolerance for scores: float32 storage and approximate backends round. */
const SCORE_TOLERANCE = 1e-4;

function expectScore(actual: number, expected: number, context: string): void {
  const tolerance = SCORE_TOLERANCE * Math.max(1, Math.abs(expected));
  if (!(Math.abs(actual - expected) <= tolerance)) {
    throw new Error(`${context}: score ${actual} differs from the expected similarity ${expected} by more than ${tolerance}`);
  }
}

function expectSortedDescending(hits: VectorSearchHit[]): void {
  for (let i = 1; i < hits.length; i++) {
    const previous = hits[i - 1]!.score;
    const current = hits[i]!.score;
    if (!(current <= previous + SCORE_TOLERANCE * Math.max(1, Math.abs(previous)))) {
      throw new Error(`scores are not sorted best first: hit ${i - 1} scored ${previous}, hit ${i} scored ${current}`);
    }
  }
}

/** Runs `action` and returns what it rejected with; fails when it resolves. */
async function rejection(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to be rejected, but it resolved');
}

/** Runs `action` and returns the ZerdaError it rejected with (with one of `codes`, when given); fails on anything else. */
export async function expectZerdaError(action: () => Promise<unknown>, codes?: string[]): Promise<ZerdaError> {
  const error = await rejection(action);
  if (!ZerdaError.isInstance(error)) throw new Error(`expected a ZerdaError, got ${String(error)}`);
  if (codes) expect(codes).toContain(error.code);
  return error;
}

function chunk(id: string, embedding: number[] | Float32Array, extra: Partial<DocumentChunk> = {}): DocumentChunk {
  const docId = extra.docId ?? id.split('#')[0]!;
  return { id, docId, text: `text ${id}`, source: docId, metadata: {}, position: { index: 0 }, embedding, ...extra };
}

function ids(hits: VectorSearchHit[]): string[] {
  return hits.map((hit) => hit.chunk.id);
}

/** Strips the embedding so a stored chunk can be compared with what was added. */
function withoutEmbedding(value: DocumentChunk): Omit<DocumentChunk, 'embedding'> {
  const { embedding: _embedding, ...rest } = value;
  return rest;
}

/**
 * Registers the `VectorStore` v1 conformance suite as one vitest `describe` with lifecycle hooks:
 * add/search/delete/count, every operator of the filter language, validation before any write,
 * id uniqueness, score semantics per metric, edge cases (empty store, `k` above the count), the
 * optional methods a store provides (`deleteByDocIds`, `get`, `clear`), persistence through
 * `reopen`, and concurrent writes. Every backend package calls it from one test file.
 *
 * ```ts
 * import { testVectorStore } from '@zerda/vector-conformance';
 * testVectorStore({ name: 'MemoryVectorStore', create: () => new MemoryVectorStore() });
 * ```
 */
export function testVectorStore(options: TestVectorStoreOptions): void {
  const dimensions = options.dimensions ?? 8;
  if (!Number.isInteger(dimensions) || dimensions < 2) throw new Error(`testVectorStore: dimensions must be an integer >= 2, got ${String(options.dimensions)}`);
  const baseName = options.name ?? 'VectorStore conformance';
  const { skipped, title } = skipAndTitle(baseName, options.skip);
  const at = (degrees: number) => unitVector(degrees, dimensions);

  describe.skipIf(skipped)(title, () => {
    let store: VectorStore;
    const extraStores: VectorStore[] = [];

    beforeEach(async () => {
      store = await options.create();
    });

    afterEach(async () => {
      for (const opened of [store, ...extraStores.splice(0)]) {
        if (!opened) continue;
        await opened.clear?.().catch(() => undefined);
        await opened.close?.();
      }
    });

    describe('contract surface', () => {
      it('declares specificationVersion v1, a name, a metric and every capability flag', () => {
        expect(store.specificationVersion).toBe('v1');
        expect(typeof store.name).toBe('string');
        expect(store.name.length).toBeGreaterThan(0);
        expect(['cosine', 'ip', 'l2']).toContain(store.metric);
        for (const flag of ['persistence', 'nativeFilter', 'textSearch', 'embeds'] as const) expect(typeof store.capabilities[flag]).toBe('boolean');
        expect(['boolean', 'undefined'], 'capabilities.snapshot is optional, a boolean').toContain(typeof store.capabilities.snapshot);
        if (store.capabilities.textSearch) expect(typeof store.textSearch).toBe('function');
        if (store.capabilities.persistence && !options.reopen) {
          // Not a failure: the backend package decides how to reopen, but says so in its own tests.
          console.warn(`${baseName}: capabilities.persistence is true but no reopen() was given; the round-trip test is skipped`);
        }
      });

      if (options.capabilities !== undefined) {
        const expected = options.capabilities;
        it('declares the capabilities its backend has', () => {
          expect(store.capabilities).toEqual(expected);
        });
      }

      if (options.initialDimensions !== undefined) {
        const expected = options.initialDimensions ?? undefined;
        it(expected === undefined ? 'has no dimension until the first add' : `has its configured dimension (${expected}) before anything is added`, () => {
          expect(store.dimensions).toBe(expected);
        });
      }
    });

    describe('empty store', () => {
      it('counts 0 and returns [] for any search', async () => {
        expect(await store.count()).toBe(0);
        expect(await store.search(at(0), { k: 5 })).toEqual([]);
        expect(await store.search(at(0), { k: 5, filter: { lang: 'ar' } })).toEqual([]);
      });

      it('ignores deletes of unknown ids', async () => {
        await store.delete(['nope', 'nothing#3']);
        expect(await store.count()).toBe(0);
      });
    });

    describe('add, search, delete, count', () => {
      it('stores chunks and returns them with every field intact', async () => {
        const added: DocumentChunk[] = [
          chunk('a#0', at(0), { text: 'القِطَّةُ تَنامُ — the cat sleeps', title: 'قطط', metadata: { lang: 'ar', nested: { deep: [1, 'two', null, true] }, emoji: '🐈' }, position: { index: 0, total: 2, start: 0, end: 28 }, timestamp: 1700000000000, source: 'https://example.com/قطط' }),
          chunk('a#1', at(30), { docId: 'a', position: { index: 1, total: 2 } }),
          chunk('b#0', at(60)),
        ];
        await store.add(added);
        expect(await store.count()).toBe(3);
        const hits = await store.search(at(0), { k: 3 });
        expect(ids(hits)).toEqual(['a#0', 'a#1', 'b#0']);
        expect(withoutEmbedding(hits[0]!.chunk)).toEqual(withoutEmbedding(added[0]!));
        expect(withoutEmbedding(hits[1]!.chunk)).toEqual(withoutEmbedding(added[1]!));
      });

      it('does not modify the chunks it is given', async () => {
        const input = chunk('keep#0', at(10), { metadata: { tag: 'x' } });
        const snapshot = structuredClone(input);
        await store.add([input]);
        expect(input).toEqual(snapshot);
      });

      it('accepts Float32Array and number[] embeddings and queries alike', async () => {
        await store.add([chunk('f32', Float32Array.from(at(0))), chunk('arr', at(90))]);
        expect(ids(await store.search(Float32Array.from(at(5)), { k: 1 }))).toEqual(['f32']);
        expect(ids(await store.search(at(85), { k: 1 }))).toEqual(['arr']);
      });

      it('returns the k best, and everything when k exceeds the count', async () => {
        await store.add([0, 20, 40, 60, 80].map((degrees) => chunk(`d${degrees}`, at(degrees))));
        expect(ids(await store.search(at(0), { k: 2 }))).toEqual(['d0', 'd20']);
        expect(ids(await store.search(at(75), { k: 1 }))).toEqual(['d80']);
        const all = await store.search(at(0), { k: 1000 });
        expect(ids(all)).toEqual(['d0', 'd20', 'd40', 'd60', 'd80']);
      });

      it('deletes by id, ignoring unknown ids, and never returns deleted chunks', async () => {
        await store.add([0, 10, 20, 30].map((degrees) => chunk(`d${degrees}`, at(degrees))));
        await store.delete(['d0', 'unknown', 'd20']);
        expect(await store.count()).toBe(2);
        expect(ids(await store.search(at(0), { k: 10 }))).toEqual(['d10', 'd30']);
        await store.delete(['d10', 'd30']);
        expect(await store.count()).toBe(0);
        expect(await store.search(at(0), { k: 10 })).toEqual([]);
      });

      it('re-adding an id replaces the chunk (text, metadata and vector), it does not duplicate it', async () => {
        await store.add([chunk('x', at(0), { text: 'old', metadata: { version: 1 } }), chunk('y', at(45))]);
        await store.add([chunk('x', at(90), { text: 'new', metadata: { version: 2 } })]);
        expect(await store.count()).toBe(2);
        const hits = await store.search(at(0), { k: 10 });
        expect(ids(hits)).toEqual(['y', 'x']);
        const replaced = hits.find((hit) => hit.chunk.id === 'x')!;
        expect(replaced.chunk.text).toBe('new');
        expect(replaced.chunk.metadata).toEqual({ version: 2 });
        expectScore(replaced.score, expectedSimilarity(store.metric, at(0), at(90)), 'replaced chunk');
        expect(ids(await store.search(at(0), { k: 10, filter: { version: 1 } }))).toEqual([]);
      });

      it('re-adding a deleted id works', async () => {
        await store.add([chunk('z', at(0))]);
        await store.delete(['z']);
        await store.add([chunk('z', at(10), { text: 'back' })]);
        expect(await store.count()).toBe(1);
        const [hit] = await store.search(at(0), { k: 1 });
        expect(hit?.chunk.text).toBe('back');
      });
    });

    describe('scores', () => {
      it('are the metric similarity at known angles, sorted best first', async () => {
        const angles = [0, 15, 30, 45, 60, 90, 120, 180];
        await store.add(angles.map((degrees) => chunk(`a${degrees}`, at(degrees))));
        const hits = await store.search(at(0), { k: angles.length });
        expect(ids(hits)).toEqual(angles.map((degrees) => `a${degrees}`));
        expectSortedDescending(hits);
        hits.forEach((hit, i) => expectScore(hit.score, expectedSimilarity(store.metric, at(0), at(angles[i]!)), `chunk at ${angles[i]} degrees`));
        if (store.metric === 'cosine') {
          expectScore(hits[0]!.score, 1, 'identical direction');
          expectScore(hits.at(-1)!.score, -1, 'opposite direction');
        }
      });

      it('distinguish length where the metric does (ip, l2) and ignore it where it does not (cosine)', async () => {
        const long = at(0).map((x) => x * 2);
        const short = at(0).map((x) => x * 0.5);
        const across = at(90);
        await store.add([chunk('long', long), chunk('short', short), chunk('across', across)]);
        const hits = await store.search(at(0), { k: 3 });
        expectSortedDescending(hits);
        const stored: Record<string, number[]> = { long, short, across };
        for (const hit of hits) expectScore(hit.score, expectedSimilarity(store.metric, at(0), stored[hit.chunk.id]!), hit.chunk.id);
        if (store.metric === 'ip') expect(ids(hits)).toEqual(['long', 'short', 'across']);
        if (store.metric === 'l2') expect(ids(hits)).toEqual(['short', 'long', 'across']);
        if (store.metric === 'cosine') expect(ids(hits).at(-1)).toBe('across');
      });
    });

    describe('validation before any write', () => {
      it('rejects a dimension mismatch with a ZerdaError and keeps the store as it was', async () => {
        await store.add([chunk('old', at(0))]);
        await expectZerdaError(() => store.add([chunk('wide', [...at(10), 0.5])]), ['ZERDA_DIMENSION_MISMATCH']);
        await expectZerdaError(() => store.add([chunk('good', at(20)), chunk('narrow', at(30).slice(1))]), ['ZERDA_DIMENSION_MISMATCH']);
        expect(await store.count()).toBe(1);
        expect(ids(await store.search(at(0), { k: 10 }))).toEqual(['old']);
        expect(store.dimensions).toBe(dimensions);
      });

      it('rejects NaN and infinite values (in arrays and Float32Arrays) before writing anything', async () => {
        await store.add([chunk('old', at(0))]);
        const withNaN = at(10);
        withNaN[1] = Number.NaN;
        const withInfinity = Float32Array.from(at(20));
        withInfinity[0] = Number.POSITIVE_INFINITY;
        for (const bad of [withNaN, withInfinity]) {
          const error = await expectZerdaError(() => store.add([chunk('good', at(5)), chunk('bad', bad)]));
          expect(error.message).toMatch(/embedding/);
        }
        expect(await store.count()).toBe(1);
        expect(ids(await store.search(at(0), { k: 10 }))).toEqual(['old']);
      });

      it('rejects a chunk that is not a chunk, and a list that is not a list, with a ZerdaError', async () => {
        await store.add([chunk('old', at(0))]);
        await expectZerdaError(() => store.add([chunk('fine', at(5)), { id: 'broken', text: 42, embedding: at(5) } as unknown as DocumentChunk]));
        await expectZerdaError(() => store.add('not a list' as unknown as DocumentChunk[]));
        expect(await store.count()).toBe(1);
      });

      it('rejects a bad query vector, a bad k and a bad filter with a ZerdaError', async () => {
        await store.add([chunk('old', at(0))]);
        await expectZerdaError(() => store.search([...at(0), 1], { k: 1 }), ['ZERDA_DIMENSION_MISMATCH']);
        const nanQuery = at(0);
        nanQuery[0] = Number.NaN;
        await expectZerdaError(() => store.search(nanQuery, { k: 1 }), ['ZERDA_INVALID_EMBEDDING']);
        for (const k of [-1, 1.5, Number.NaN, '3' as unknown as number]) await expectZerdaError(() => store.search(at(0), { k }), ['ZERDA_INVALID_ARGUMENT']);
        await expectZerdaError(() => store.search(at(0), { k: 1, filter: { year: { $near: 2020 } } as never }), ['ZERDA_INVALID_FILTER']);
        await expectZerdaError(() => store.search(at(0), { k: 1, filter: { $or: [] } }), ['ZERDA_INVALID_FILTER']);
        // An unknown option is a typo: refused, not ignored.
        await expectZerdaError(() => store.search(at(0), { k: 1, fliter: { lang: 'ar' } } as never), ['ZERDA_INVALID_ARGUMENT']);
      });

      it('rejects a filter nested 5,000 levels deep with ZERDA_INVALID_FILTER, never a stack overflow', async () => {
        await store.add([chunk('old', at(0))]);
        for (const filter of deepFilters()) await expectZerdaError(() => store.search(at(0), { k: 1, filter }), ['ZERDA_INVALID_FILTER']);
        expect(ids(await store.search(at(0), { k: 1 }))).toEqual(['old']);
      });
    });

    describe('filters (the shared filter language)', () => {
      beforeEach(async () => {
        await store.add(filterFixtureChunks(dimensions));
      });

      for (const testCase of FILTER_CASES) {
        it(`${testCase.name}: ${JSON.stringify(testCase.filter)}`, async () => {
          const hits = await store.search(at(0), { k: 100, filter: testCase.filter });
          expect(ids(hits)).toEqual(testCase.expected);
          expectSortedDescending(hits);
        });
      }

      it('returns the best k among the matching chunks only', async () => {
        expect(ids(await store.search(at(0), { k: 2, filter: { lang: 'ar' } }))).toEqual(['f1', 'f2']);
        expect(ids(await store.search(at(120), { k: 1, filter: { docId: 'doc-a' } }))).toEqual(['f1']);
      });
    });

    describe('optional methods', () => {
      it('deleteByDocIds removes every chunk of the listed documents and nothing else', async () => {
        if (!store.deleteByDocIds) return;
        await store.add(filterFixtureChunks(dimensions));
        await store.deleteByDocIds(['doc-a', 'doc-c', 'unknown-doc']);
        expect(await store.count()).toBe(5);
        expect(ids(await store.search(at(0), { k: 100 }))).toEqual(['f2', 'f3', 'f6', 'f7', 'f8']);
        await store.deleteByDocIds([]);
        expect(await store.count()).toBe(5);
      });

      it('get returns the chunks asked for and skips missing ids', async () => {
        if (!store.get) return;
        const added = filterFixtureChunks(dimensions);
        await store.add(added);
        const got = await store.get(['f3', 'missing', 'f0']);
        expect(got.map((c) => c.id).sort()).toEqual(['f0', 'f3']);
        const f3 = got.find((c) => c.id === 'f3')!;
        expect(withoutEmbedding(f3)).toEqual(withoutEmbedding(added[3]!));
        if (f3.embedding) expect(Array.from(f3.embedding)).toEqual(Array.from(Float32Array.from(at(45))));
      });

      it('clear empties the store, which stays usable', async () => {
        if (!store.clear) return;
        await store.add(filterFixtureChunks(dimensions));
        await store.clear();
        expect(await store.count()).toBe(0);
        expect(await store.search(at(0), { k: 5 })).toEqual([]);
        await store.add([chunk('after', at(0))]);
        expect(ids(await store.search(at(0), { k: 5 }))).toEqual(['after']);
      });
    });

    describe('persistence', () => {
      it('round-trips chunks, vectors, scores and filters through reopen', async () => {
        if (!store.capabilities.persistence || !options.reopen) return;
        const added = filterFixtureChunks(dimensions);
        await store.add(added);
        await store.delete(['f7']);
        const before = await store.search(at(10), { k: 100 });
        const reopened = await options.reopen(store);
        if (reopened !== store) extraStores.push(reopened);
        expect(reopened.metric).toBe(store.metric);
        expect(reopened.dimensions).toBe(dimensions);
        expect(await reopened.count()).toBe(added.length - 1);
        const after = await reopened.search(at(10), { k: 100 });
        expect(ids(after)).toEqual(ids(before));
        after.forEach((hit, i) => {
          expectScore(hit.score, before[i]!.score, `reopened ${hit.chunk.id}`);
          expect(withoutEmbedding(hit.chunk)).toEqual(withoutEmbedding(before[i]!.chunk));
        });
        expect(ids(await reopened.search(at(0), { k: 100, filter: { lang: 'ar' } }))).toEqual(['f1', 'f2', 'f5', 'f8']);
        // The reopened store accepts writes and still validates them.
        await reopened.add([chunk('new', at(-5))]);
        expect(ids(await reopened.search(at(-5), { k: 2 }))).toEqual(['new', 'f0']);
        await expectZerdaError(() => reopened.add([chunk('wide', [...at(0), 1])]), ['ZERDA_DIMENSION_MISMATCH']);
      });
    });

    describe('snapshots', () => {
      it('a store declaring capabilities.snapshot restores into a fresh store with the same answers, and refuses to restore into a filled one', async () => {
        if (store.capabilities.snapshot !== true) return;
        expect(typeof store.writeSnapshot, 'capabilities.snapshot needs writeSnapshot').toBe('function');
        expect(typeof store.readSnapshot, 'capabilities.snapshot needs readSnapshot').toBe('function');
        const { mkdtemp, rm } = await import('node:fs/promises');
        const { tmpdir } = await import('node:os');
        const { join } = await import('node:path');
        const { readSnapshotDirectory, writeSnapshotDirectory } = await import('@zerda/persistence');
        const format = { format: 'zerda-conformance', formatVersion: 1, producer: 'vector-conformance', zerdaVersion: 'test' };
        const directory = await mkdtemp(join(tmpdir(), 'zerda-conformance-snapshot-'));
        try {
          const added = filterFixtureChunks(dimensions);
          await store.add(added);
          await store.delete(['f3']);
          await writeSnapshotDirectory(directory, format, (writer) => store.writeSnapshot!(writer.scope('store')));
          const fresh = await options.create();
          extraStores.push(fresh);
          await readSnapshotDirectory(directory, format, (reader) => fresh.readSnapshot!(reader.scope('store')));
          expect(await fresh.count()).toBe(added.length - 1);
          const before = await store.search(at(10), { k: 100 });
          const after = await fresh.search(at(10), { k: 100 });
          expect(ids(after)).toEqual(ids(before));
          after.forEach((hit, i) => expectScore(hit.score, before[i]!.score, `restored ${hit.chunk.id}`));
          expect(ids(await fresh.search(at(0), { k: 100, filter: { lang: 'ar' } }))).toEqual(ids(await store.search(at(0), { k: 100, filter: { lang: 'ar' } })));
          const error = await readSnapshotDirectory(directory, format, (reader) => fresh.readSnapshot!(reader.scope('store'))).then(
            () => undefined,
            (caught: unknown) => caught,
          );
          expect(ZerdaError.isInstance(error), 'restoring into a store that holds chunks must fail with a ZerdaError').toBe(true);
        } finally {
          await rm(directory, { recursive: true, force: true });
        }
      });
    });

    describe('concurrency', () => {
      it('20 parallel adds all land', async () => {
        await Promise.all(
          Array.from({ length: 20 }, (_, batch) => store.add(Array.from({ length: 5 }, (_, i) => chunk(`p${batch}#${i}`, at(batch * 5 + i * 0.7))))),
        );
        expect(await store.count()).toBe(100);
        const hits = await store.search(at(0), { k: 1000 });
        expect(new Set(ids(hits)).size).toBe(100);
      });

      it('parallel adds, replacements and deletes leave a consistent store', async () => {
        await store.add(Array.from({ length: 20 }, (_, i) => chunk(`c${i}`, at(i * 4))));
        await Promise.all([
          store.add(Array.from({ length: 10 }, (_, i) => chunk(`c${i}`, at(i * 4), { text: 'replaced' }))),
          store.delete(['c15', 'c16']),
          store.add([chunk('extra', at(1))]),
          store.search(at(0), { k: 5 }),
        ]);
        expect(await store.count()).toBe(19);
        const hits = await store.search(at(0), { k: 100 });
        expect(new Set(ids(hits)).size).toBe(19);
        expect(hits.filter((hit) => hit.chunk.text === 'replaced')).toHaveLength(10);
      });
    });

    options.additionalTests?.(() => store);
  });
}
