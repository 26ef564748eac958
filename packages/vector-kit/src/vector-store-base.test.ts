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
