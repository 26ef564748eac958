import { ZerdaError, type DocumentChunk, type ScoredChunk } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { MetadataRetriever, chunkMatchesFilter, restrict } from './metadata-retriever.js';

const chunks = [
  { id: 'a', docId: 'guide', text: 'Install the package.', source: 'docs', metadata: { lang: 'en', tags: ['setup', 'faq'], year: 2023 } },
  { id: 'b', docId: 'guide', text: 'Configure the engine.', source: 'docs', metadata: { lang: 'en', tags: ['config'], year: 2024 } },
  { id: 'c', docId: 'دليل', text: 'ثبّت الحزمة ثم شغّلها.', source: 'wiki', metadata: { lang: 'ar', tags: ['setup'], year: 2024, 'المؤلف': 'سارة' } },
  { id: 'd', docId: 'blog', text: 'Release notes.', source: 'blog', metadata: { lang: 'en', draft: true } },
] as unknown as DocumentChunk[];

async function retriever(): Promise<MetadataRetriever> {
  const metadata = new MetadataRetriever();
  await metadata.index(chunks);
  return metadata;
}

describe('MetadataRetriever', () => {
  it('returns the chunks matching the filter in insertion order, with score 1', async () => {
    const results = await (await retriever()).retrieve('ignored text', { filter: { tags: 'setup' } });
    expect(results.map((result) => result.chunk.id)).toEqual(['a', 'c']);
    for (const result of results) {
      expect(result.score).toBe(1);
      expect(result.scores).toEqual({ metadata: 1 });
      expect(result.retrievers).toEqual(['metadata']);
    }
  });

  it('evaluates every operator, docId and source, and Arabic keys and values', async () => {
    const metadata = await retriever();
    const ids = async (filter: object) => (await metadata.retrieve('', { filter: filter as never, topK: 10 })).map((result) => result.chunk.id);
    expect(await ids({ year: { $gte: 2024 } })).toEqual(['b', 'c']);
    expect(await ids({ draft: { $exists: false } })).toEqual(['a', 'b', 'c']);
    expect(await ids({ $or: [{ source: 'blog' }, { docId: 'دليل' }] })).toEqual(['c', 'd']);
    expect(await ids({ $not: { lang: 'en' } })).toEqual(['c']);
    expect(await ids({ 'المؤلف': 'سارة' })).toEqual(['c']);
    expect(await ids({ tags: { $nin: ['faq', 'config'] }, lang: { $in: ['en', 'ar'] } })).toEqual(['c', 'd']);
  });

  it('returns nothing without a filter, and honours topK', async () => {
    const metadata = await retriever();
    expect(await metadata.retrieve('anything')).toEqual([]);
    expect(await metadata.retrieve('x', { filter: { lang: 'en' }, topK: 2 })).toHaveLength(2);
    expect(await metadata.retrieve('x', { filter: { lang: 'en' }, topK: 0 })).toEqual([]);
  });

  it('adds, updates in place and removes by document', async () => {
    const metadata = await retriever();
    await metadata.add([{ id: 'a', docId: 'guide', text: 'Updated.', metadata: { lang: 'fr' } }, { id: 'e', docId: 'new', text: 'New.', metadata: { lang: 'en' } }] as unknown as DocumentChunk[]);
    expect(metadata.chunks().map((chunk) => chunk.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect((await metadata.retrieve('', { filter: { lang: 'en' } })).map((result) => result.chunk.id)).toEqual(['b', 'd', 'e']);
    await metadata.remove(['guide', 'دليل']);
    expect(metadata.size()).toBe(2);
    await metadata.index([]);
    expect(metadata.size()).toBe(0);
  });

  it('rejects bad input naming the field, leaving the chunks intact', async () => {
    const metadata = await retriever();
    await expect(metadata.retrieve('x', { filter: { year: { $gt: [1] } } as never })).rejects.toThrow(/options\.filter\.year/);
    await expect(metadata.add([{ docId: 'x', text: 'ok' }, { docId: 'y' }] as never)).rejects.toThrow(/chunks\[1\]\.text/);
    await expect(metadata.remove('guide' as never)).rejects.toThrow(/docIds/);
    expect(() => new MetadataRetriever({ nam: 'x' } as never)).toThrow(/options\.nam/);
    expect(metadata.size()).toBe(4);
  });
});

describe('restrict and chunkMatchesFilter', () => {
  it('keep chunks and scored chunks that pass, in order', () => {
    const scored: ScoredChunk[] = chunks.map((chunk, index) => ({ chunk, score: 1 - index / 10, scores: {} }));
    expect(restrict(scored, { lang: 'en', year: { $exists: true } }).map((item) => item.chunk.id)).toEqual(['a', 'b']);
    expect(restrict(chunks, { source: 'wiki' }).map((chunk) => chunk.id)).toEqual(['c']);
    expect(restrict(chunks, undefined)).toEqual(chunks);
    expect(chunkMatchesFilter(chunks[3]!, { draft: true })).toBe(true);
    expect(chunkMatchesFilter(chunks[0]!, { draft: true })).toBe(false);
  });

  it('validate the filter and the items', () => {
    try {
      restrict(chunks, { $where: 'x' } as never);
      throw new Error('accepted');
    } catch (error) {
      expect(ZerdaError.isInstance(error)).toBe(true);
      expect((error as ZerdaError).code).toBe('ZERDA_INVALID_FILTER');
      expect((error as Error).message).toContain('filter.$where');
    }
    expect(() => restrict('chunks' as never, { a: 1 })).toThrow(/items/);
    expect(() => restrict([5] as never, { a: 1 })).toThrow(/items\[0\]/);
  });
});
