import { describe, expect, it } from 'vitest';
import { matchesFilter, type DocumentChunk, type MetadataFilter } from '@zerda/types';
import { utf8Storable } from './storable.js';
import { VectorStoreBase, type QueryHit, type TranslatedFilter, type VectorQuery, type VectorRecord } from './vector-store-base.js';

/** A backend that can push down nothing of a filter (a superset), reports squared l2, holds batches of 2. */
class RecordingStore extends VectorStoreBase<string, VectorRecord> {
  readonly rows = new Map<string, VectorRecord>();
  readonly calls: string[] = [];

  constructor() {
    super({ name: 'recording', metric: 'l2', capabilities: { persistence: false, nativeFilter: true, textSearch: false }, distance: 'similarity', batchSize: 2, storable: utf8Storable('Recording'), overFetch: 2 });
  }

  close(): void {
    this.markClosed();
  }

  protected override translateFilter(filter: MetadataFilter | undefined): TranslatedFilter<string> {
    return { filter: filter === undefined ? undefined : 'superset', exact: filter === undefined };
  }

  protected async doUpsert(records: VectorRecord[]): Promise<void> {
    this.calls.push(`upsert ${records.map((record) => record.chunk.id).join(',')}`);
    for (const record of records) this.rows.set(record.chunk.id, record);
  }

  protected async doQuery({ vector, limit }: VectorQuery<string>): Promise<QueryHit[]> {
    this.calls.push(`query ${limit}`);
    return [...this.rows.values()]
      .map((row) => ({ chunk: { ...row.chunk, embedding: row.vector }, distance: row.vector.reduce((sum, value, i) => sum + (value - vector[i]!) ** 2, 0) }))
      .sort((a, b) => a.distance - b.distance)
      .slice(0, limit);
  }

  protected async doDelete(key: 'id' | 'docId', values: string[]): Promise<void> {
    this.calls.push(`delete ${key} ${values.join(',')}`);
    for (const [id, row] of this.rows) if (values.includes(key === 'id' ? id : row.chunk.docId)) this.rows.delete(id);
  }

  protected async doCount(): Promise<number> {
    return this.rows.size;
  }

  protected override async doListIds(): Promise<string[]> {
    return [...this.rows.keys()];
  }
}

function chunks(count: number): DocumentChunk[] {
  return Array.from({ length: count }, (_, i) => ({ id: `c${i}`, docId: `d${i % 2}`, text: `t${i}`, source: 's', metadata: { even: i % 2 === 0, small: i < 3 }, position: { index: i }, embedding: [i, 0] }));
}

describe('VectorStoreBase', () => {
  it('writes in batches of batchSize and converts the declared distance into similarities', async () => {
    const store = new RecordingStore();
    await store.add(chunks(5));
    expect(store.calls).toEqual(['upsert c0,c1', 'upsert c2,c3', 'upsert c4']);
    const hits = await store.search([0, 0], { k: 2 });
    expect(hits.map((hit) => [hit.chunk.id, hit.score])).toEqual([['c0', 1], ['c1', 0.5]]);
  });

  it('over-fetches until k candidates pass the exact filter when the translation is a superset', async () => {
    const store = new RecordingStore();
    await store.add(chunks(12));
    store.calls.length = 0;
    const hits = await store.search([11, 0], { k: 3, filter: { even: true } });
    expect(hits.map((hit) => hit.chunk.id)).toEqual(['c10', 'c8', 'c6']);
    for (const hit of hits) expect(matchesFilter(hit.chunk, { even: true })).toBe(true);
    // First 3 * overFetch 2 = 6 candidates (c11…c6: three even ones) suffice.
    expect(store.calls).toEqual(['query 6']);
    // Four candidates (c11…c8) hold none of the small ones; the next round is capped at the count.
    const far = await store.search([11, 0], { k: 2, filter: { small: true } });
    expect(far.map((hit) => hit.chunk.id)).toEqual(['c2', 'c1']);
    expect(store.calls.slice(1)).toEqual(['query 4', 'query 12']);
  });

  it('refuses the whole add when one chunk holds unstorable text or another dimension, before writing', async () => {
    const store = new RecordingStore();
    await expect(store.add([...chunks(2), { ...chunks(3)[2]!, text: 'x\uD800' }])).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', details: { field: 'chunks[2].text' } });
    await expect(store.add([...chunks(2), { ...chunks(3)[2]!, embedding: [1, 2, 3] }])).rejects.toMatchObject({ code: 'ZERDA_DIMENSION_MISMATCH' });
    expect(store.calls).toEqual([]);
    expect(store.dimensions).toBeUndefined();
  });

  it('deletes distinct storable ids in batches, and clears through the listed ids when there is no doClear', async () => {
    const store = new RecordingStore();
    await store.add(chunks(5));
    store.calls.length = 0;
    await store.delete(['c0', 'c0', 'bad\uDC00', 'c1', 'c2']);
    expect(store.calls).toEqual(['delete id c0,c1', 'delete id c2']);
    await store.delete(['only\uD800']);
    expect(store.calls).toHaveLength(2);
    await store.clear();
    expect(await store.count()).toBe(0);
    expect(store.calls.slice(2)).toEqual(['delete id c3,c4']);
  });

  it('serialises writes in call order', async () => {
    const store = new RecordingStore();
    const order: string[] = [];
    await Promise.all([store.add(chunks(1)).then(() => order.push('add')), store.delete(['c0']).then(() => order.push('delete'))]);
    expect(order).toEqual(['add', 'delete']);
    expect(await store.count()).toBe(0);
  });

  it('refuses get without doFetch, and every call once closed', async () => {
    const store = new RecordingStore();
    await expect(store.get(['a'])).rejects.toMatchObject({ code: 'ZERDA_UNSUPPORTED' });
    store.close();
    await expect(store.count()).rejects.toMatchObject({ code: 'ZERDA_NOT_READY' });
    // Rejected promises, never synchronous throws: `store.add(x).catch(…)` must catch it.
    for (const call of [() => store.add(chunks(1)), () => store.clear(), () => store.delete([1 as never]), () => store.search([1, 0], { k: 1 })]) {
      let promise: Promise<unknown> | undefined;
      expect(() => (promise = call())).not.toThrow();
      await expect(promise).rejects.toMatchObject({ code: expect.stringMatching(/ZERDA_NOT_READY|ZERDA_INVALID_ARGUMENT/) });
    }
  });
});

/** A remote-like backend: nothing exists until the first write creates it; fetches, text search and snapshots. */
class LazyStore extends VectorStoreBase {
  readonly prepared: Array<[number | undefined, boolean]> = [];
  readonly rows = new Map<string, DocumentChunk>();
  exists = false;

  constructor(textSearch = true) {
    super({ name: 'lazy', metric: 'cosine', capabilities: { persistence: true, nativeFilter: true, textSearch, snapshot: true }, distance: 'one-minus', maxK: 3 });
  }

  textSearch(query: string, options: { k: number; filter?: MetadataFilter }) {
    return this.searchText(query, options);
  }

  readSnapshot(reader: never) {
    return this.restoreFrom(reader);
  }

  protected override async doPrepare(dimensions: number | undefined, create: boolean): Promise<boolean> {
    this.prepared.push([dimensions, create]);
    if (!this.exists && create) this.exists = true;
    return this.exists;
  }

  protected async doUpsert(records: VectorRecord[]): Promise<void> {
    for (const { chunk } of records) this.rows.set(chunk.id, chunk);
  }

  protected async doQuery({ limit }: VectorQuery<MetadataFilter>): Promise<QueryHit[]> {
    return [...this.rows.values()].slice(0, limit).map((chunk, i) => ({ chunk, distance: i / 10 }));
  }

  protected async doDelete(): Promise<void> {
    throw new Error('nothing to delete');
  }

  protected async doCount(): Promise<number> {
    return this.rows.size;
  }

  protected override async doFetch(ids: string[]): Promise<DocumentChunk[]> {
    return ids.flatMap((id) => (this.rows.has(id) ? [this.rows.get(id)!] : [])).reverse();
  }

  protected override async doTextSearch({ query, limit }: { query: string; limit: number }): Promise<QueryHit[]> {
    const matching = [...this.rows.values()].filter((chunk) => chunk.text.includes(query));
    return matching.map((chunk) => ({ chunk, score: chunk.text.length })).sort((a, b) => b.score - a.score).slice(0, limit);
  }

  protected override async doReadSnapshot(): Promise<void> {}
}

describe('VectorStoreBase with a backend that does not exist yet', () => {
  it('answers reads without creating it, and creates it (once) on the first add with the dimension', async () => {
    const store = new LazyStore();
    expect(await store.count()).toBe(0);
    expect(await store.search([1, 0], { k: 2 })).toEqual([]);
    expect(await store.get(['a'])).toEqual([]);
    await store.delete(['a']); // would throw from doDelete if it reached the backend
    expect(store.prepared.every(([, create]) => !create)).toBe(true);
    await Promise.all([store.add(chunks(2)), store.add(chunks(3))]);
    expect(store.prepared.filter(([, create]) => create)).toEqual([[2, true]]);
    expect(store.dimensions).toBe(2);
  });

  it('returns get in the order asked, skipping missing ids, whatever order the backend answers in', async () => {
    const store = new LazyStore();
    await store.add(chunks(3));
    expect((await store.get(['c2', 'missing', 'c0', 'c2'])).map((chunk) => chunk.id)).toEqual(['c2', 'c0', 'c2']);
  });

  it('caps k at maxK, converts one-minus distances, and runs keyword search through doTextSearch', async () => {
    const store = new LazyStore();
    await store.add([...chunks(5), { id: 'long', docId: 'x', text: 't-long', source: 's', metadata: {}, position: { index: 0 }, embedding: [1, 1] }]);
    const hits = await store.search([1, 0], { k: 10 });
    expect(hits).toHaveLength(3);
    expect(hits[0]!.score).toBeCloseTo(1, 12);
    const text = await store.textSearch('t', { k: 2 });
    expect(text.map((hit) => hit.chunk.id)).toEqual(['long', 'c0']);
    await expect(new LazyStore(false).textSearch('t', { k: 1 })).rejects.toMatchObject({ code: 'ZERDA_UNSUPPORTED' });
    await expect(store.textSearch(1 as never, { k: 1 })).rejects.toMatchObject({ details: { field: 'query' } });
  });

  it('restores a snapshot only into an empty store', async () => {
    const store = new LazyStore();
    await store.readSnapshot(undefined as never);
    await store.add(chunks(1));
    await expect(store.readSnapshot(undefined as never)).rejects.toMatchObject({ code: 'ZERDA_UNSUPPORTED' });
  });
});
