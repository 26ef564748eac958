import { describe, expect, it } from 'vitest';
import type { DocumentChunk } from '@zerda/types';
import { HybridRetriever } from './hybrid-retriever.js';
import { KeywordRetriever } from './keyword-retriever.js';

function chunk(docId: string, index: number, text: string, metadata: Record<string, string> = {}): DocumentChunk {
  return { id: `${docId}#${index}`, docId, text, source: `${docId}.md`, metadata, position: { index } };
}

const corpus = [
  chunk('nile', 0, 'The Nile is a river in Africa.'),
  chunk('nile', 1, 'It flows north through Egypt.'),
  chunk('nile', 2, 'Its delta is fertile.', { tenant: 'b' }),
  chunk('nile', 3, 'Dams control its floods.'),
  chunk('نيل', 0, 'النيل نهر في إفريقيا.'),
  chunk('نيل', 1, 'يجري النيل شمالا عبر مصر.'),
  chunk('other', 0, 'Unrelated text about mountains.'),
];

describe('neighbors (small-to-big)', () => {
  it('returns the chunks of the same documents within the distance, in document and position order, without the given ones', async () => {
    const retriever = new KeywordRetriever();
    await retriever.index(corpus);
    const [hit] = await retriever.retrieve('delta fertile', { topK: 1 });
    expect(hit!.chunk.id).toBe('nile#2');
    expect((await retriever.neighbors([hit!.chunk], 1)).map((found) => found.id)).toEqual(['nile#1', 'nile#3']);
    expect((await retriever.neighbors([hit!.chunk], 2)).map((found) => found.id)).toEqual(['nile#0', 'nile#1', 'nile#3']);
    const arabic = corpus[4]!;
    expect((await retriever.neighbors([arabic, corpus[0]!], 1)).map((found) => found.id)).toEqual(['نيل#1', 'nile#1']);
    expect(await retriever.neighbors([hit!.chunk], 0)).toEqual([]);
  });

  it('keeps to the filter: a neighbour of another tenant is never returned', async () => {
    const retriever = new KeywordRetriever();
    await retriever.index(corpus.map((item) => ({ ...item, metadata: { tenant: item.metadata.tenant ?? 'a' } })));
    const found = await retriever.neighbors([corpus[1]!], 1, { filter: { tenant: 'a' } });
    expect(found.map((item) => item.id)).toEqual(['nile#0']);
  });

  it('follows writes: added and removed chunks are seen at once', async () => {
    const retriever = new KeywordRetriever();
    await retriever.index(corpus);
    expect((await retriever.neighbors([corpus[6]!], 1)).map((item) => item.id)).toEqual([]);
    await retriever.add([chunk('other', 1, 'More about mountains.')]);
    expect((await retriever.neighbors([corpus[6]!], 1)).map((item) => item.id)).toEqual(['other#1']);
    await retriever.remove(['other']);
    expect(await retriever.neighbors([corpus[6]!], 1)).toEqual([]);
  });

  it('is delegated by the hybrid retriever to a sub-retriever that can look neighbours up', async () => {
    const keyword = new KeywordRetriever();
    await keyword.index(corpus);
    const hybrid = new HybridRetriever({ retrievers: [keyword] });
    expect((await hybrid.neighbors([corpus[0]!], 1)).map((item) => item.id)).toEqual(['nile#1']);
  });

  it('rejects bad input naming the field', async () => {
    const retriever = new KeywordRetriever();
    await retriever.index(corpus);
    await expect(retriever.neighbors('x' as never, 1)).rejects.toThrow(/chunks/);
    await expect(retriever.neighbors([corpus[0]!], -1)).rejects.toThrow(/distance/);
    await expect(retriever.neighbors([corpus[0]!], 1.5)).rejects.toThrow(/distance/);
    await expect(retriever.neighbors([{ id: 'x' } as never], 1)).rejects.toThrow(/chunks\[0\]/);
    await expect(retriever.neighbors([corpus[0]!], 1, { filter: { tags: ['faq'] } as never })).rejects.toThrow(/filter/);
  });
});
