import { describe, expect, it } from 'vitest';
import { mergeDatasets, partSlices, type BenchDataset } from './datasets.js';

const part = (name: string, language: string, documentIds: string[], queryId: string, split: string): BenchDataset => ({
  name,
  language,
  documents: documentIds.map((id) => ({ id, title: `title ${id}`, text: `text of ${name} ${id}` })),
  queries: [{ id: queryId, text: `question of ${name}` }],
  qrels: new Map([[queryId, new Map([[documentIds[0]!, 1]])]]),
  full: { documents: documentIds.length + 1, queries: 2 },
  answers: new Map([[queryId, [`answer of ${name}`]]]),
  splits: new Map([[queryId, split]]),
});

describe('mergeDatasets: several datasets as one corpus', () => {
  // Both parts use the ids "1" and "q": without the prefix, documents and judgements would collide.
  const arabic = part('arcd', 'ar', ['1', '2'], 'q', 'test');
  const english = part('tydiqa-goldp-en', 'en', ['1'], 'q', 'dev');
  const merged = mergeDatasets([arabic, english]);

  it('keeps every document and question of each part, ids prefixed with the part name', () => {
    expect(merged.name).toBe('arcd+tydiqa-goldp-en');
    expect(merged.language).toBe('mixed');
    expect(merged.documents.map((document) => document.id)).toEqual(['arcd:1', 'arcd:2', 'tydiqa-goldp-en:1']);
    expect(merged.documents[2]!.text).toBe('text of tydiqa-goldp-en 1');
    expect(merged.queries.map((query) => query.id)).toEqual(['arcd:q', 'tydiqa-goldp-en:q']);
    expect(merged.full).toEqual({ documents: 5, queries: 4 });
  });

  it('maps judgements, answers and splits to the prefixed ids', () => {
    expect([...merged.qrels.get('arcd:q')!]).toEqual([['arcd:1', 1]]);
    expect([...merged.qrels.get('tydiqa-goldp-en:q')!]).toEqual([['tydiqa-goldp-en:1', 1]]);
    expect(merged.answers!.get('tydiqa-goldp-en:q')).toEqual(['answer of tydiqa-goldp-en']);
    expect(merged.splits!.get('arcd:q')).toBe('test');
    expect(merged.splits!.get('tydiqa-goldp-en:q')).toBe('dev');
  });

  it('is one language when every part is, and slices questions by part', () => {
    expect(mergeDatasets([arabic, part('other', 'ar', ['9'], 'x', 'train')]).language).toBe('ar');
    const slices = partSlices(merged, merged.queries);
    expect([...slices.keys()]).toEqual(['arcd', 'tydiqa-goldp-en']);
    expect(slices.get('arcd')!.map((query) => query.id)).toEqual(['arcd:q']);
    expect(partSlices(arabic, arabic.queries).size).toBe(0);
  });
});
