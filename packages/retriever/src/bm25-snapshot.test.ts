import fc from 'fast-check';
import { createError, InMemorySnapshot, readSnapshotJson, writeChunkTable, writeSnapshotArray, writeSnapshotJson, writeStringColumn, type DocumentChunk, type SnapshotCheck } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { KeywordRetriever } from './keyword-retriever.js';
import { readKeywordIndex } from './keyword-snapshot.js';
import { decodeSegment } from './postings.js';
import type { Bm25SegmentSnapshot } from './bm25-snapshot.js';

const fail = (file: string, check: SnapshotCheck, reason: string) => createError('ZERDA_CORRUPT_SNAPSHOT', { file, check, reason });
const WORDS = ['cat', 'dog', 'purr', 'bark', 'sun', 'mail', 'rose', 'garden', 'qubit', 'المكتبة', 'الكتب', 'code'];

function chunk(docId: string, index: number, text: string, title?: string): DocumentChunk {
  return { id: `${docId}#${index}`, docId, text, source: docId, metadata: {}, position: { index }, ...(title ? { title } : {}) };
}

async function saved(retriever: KeywordRetriever): Promise<InMemorySnapshot> {
  const snapshot = new InMemorySnapshot();
  await retriever.writeSnapshot(snapshot.writer('keyword'));
  return snapshot;
}

async function opened(snapshot: InMemorySnapshot): Promise<KeywordRetriever> {
  const retriever = new KeywordRetriever();
  await retriever.readSnapshot(snapshot.reader(fail, 'keyword'));
  return retriever;
}

/** A corpus with a chunk whose term counts need the exception table (text > 31). */
function corpus(): DocumentChunk[] {
  const chunks: DocumentChunk[] = [];
  for (let index = 0; index < 300; index++) {
    const words = Array.from({ length: 3 + (index % 7) }, (_, position) => WORDS[(index * 7 + position * 3) % WORDS.length]!);
    chunks.push(chunk(`doc${index % 40}`, index, words.join(' '), index % 5 === 0 ? WORDS[index % WORDS.length] : undefined));
  }
  chunks.push(chunk('long', 0, Array.from({ length: 40 }, () => 'cat').join(' ')));
  return chunks;
}

const QUERIES = ['cat', 'dog purr', 'garden rose sun', 'المكتبة الكتب', 'qubit code mail', 'nothing'];

/** What a version-1 zerda wrote: the postings as CSR arrays with packed frequencies. */
async function asVersion1(snapshot: InMemorySnapshot): Promise<InMemorySnapshot> {
  const index = (await readKeywordIndex(snapshot.reader(fail, 'keyword/index'))) as Bm25SegmentSnapshot;
  const { offsets, postingChunks, postingFrequencies } = decodeSegment(index.segment);
  const old = new InMemorySnapshot();
  old.files.set('keyword/keyword.json', snapshot.files.get('keyword/keyword.json')!);
  const writer = old.writer('keyword/index');
  const termPages = await writeStringColumn(writer, 'terms', index.terms.length, (term) => index.terms[term]!);
  await writeSnapshotArray(writer, 'offsets.u32', offsets);
  await writeSnapshotArray(writer, 'posting-chunks.u32', postingChunks);
  await writeSnapshotArray(writer, 'posting-frequencies.u32', postingFrequencies);
  await writeSnapshotArray(writer, 'text-lengths.u32', index.textLengths);
  await writeSnapshotArray(writer, 'title-lengths.u32', index.titleLengths);
  await writeChunkTable(writer.scope('chunks'), index.chunks);
  await writeSnapshotJson(writer, 'index.json', { format: 'zerda.keyword-index', version: 1, terms: index.terms.length, chunks: index.chunks.length, postings: postingChunks.length, termPages });
  return old;
}

describe('keyword index snapshots (version 2: the block segment as it lies in memory)', () => {
  it('answer exactly as the saved index, and later writes behave the same on both', async () => {
    const original = new KeywordRetriever();
    await original.add(corpus());
    await original.removeChunks(['doc3#3']);
    const snapshot = await saved(original);
    const restored = await opened(snapshot);
    expect(restored.chunks()).toEqual(original.chunks());
    for (const query of QUERIES) expect(await restored.retrieve(query, { topK: 50 })).toEqual(await original.retrieve(query, { topK: 50 }));
    // The per-document lists are built by the first write that needs them: writes after the open
    // behave as on an index loaded eagerly (version 1's load, which rebuilds everything).
    const eager = await opened(await asVersion1(snapshot));
    for (const retriever of [eager, restored]) {
      await retriever.remove(['doc7', 'doc8']);
      await retriever.add([chunk('doc9', 900, 'cat dog sun'), chunk('doc7', 0, 'purr purr')]);
      await retriever.removeChunks(['doc9#49']);
    }
    expect(restored.chunks()).toEqual(eager.chunks());
    expect(restored.chunks().some((chunk) => chunk.docId === 'doc8')).toBe(false);
    for (const query of QUERIES) expect(await restored.retrieve(query, { topK: 50 })).toEqual(await eager.retrieve(query, { topK: 50 }));
  });

  it('over random corpora and writes', async () => {
    const text = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 12 }).map((words) => words.join(' '));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), text), { minLength: 1, maxLength: 60 }), fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }), async (rows, removed) => {
        const original = new KeywordRetriever();
        await original.add(rows.map(([doc, body], index) => chunk(`d${doc}`, index, body)));
        await original.remove(removed.map((doc) => `d${doc}`));
        const snapshot = await saved(original);
        const restored = await opened(snapshot);
        for (const query of QUERIES) expect(await restored.retrieve(query, { topK: 20 })).toEqual(await original.retrieve(query, { topK: 20 }));
        const eager = await opened(await asVersion1(snapshot));
        for (const retriever of [eager, restored]) await retriever.remove(['d1']);
        for (const query of QUERIES) expect(await restored.retrieve(query, { topK: 20 })).toEqual(await eager.retrieve(query, { topK: 20 }));
      }),
      { numRuns: 40 },
    );
  });

  it('still opens version 1 (plain postings), answering the same', async () => {
    const original = new KeywordRetriever();
    await original.add(corpus());
    const old = await asVersion1(await saved(original));
    expect(old.files.has('keyword/index/posting-chunks.u32')).toBe(true);
    const restored = await opened(old);
    for (const query of QUERIES) expect(await restored.retrieve(query, { topK: 50 })).toEqual(await original.retrieve(query, { topK: 50 }));
  });

  it('refuses a version it does not know, saying which it reads', async () => {
    const original = new KeywordRetriever();
    await original.add(corpus());
    const snapshot = await saved(original);
    const meta = await readSnapshotJson(snapshot.reader(fail, 'keyword/index'), 'index.json');
    snapshot.files.set('keyword/index/index.json', new TextEncoder().encode(JSON.stringify({ ...meta, version: 3 })));
    await expect(opened(snapshot)).rejects.toMatchObject({ code: 'ZERDA_CORRUPT_SNAPSHOT', details: { file: 'keyword/index/index.json', check: 'version' } });
    await expect(opened(snapshot)).rejects.toThrow(/reads 1 and 2/);
  });

  // Checksums refuse any flipped byte (see @zerda/context's snapshot tests); these are the
  // inconsistencies the structural check refuses by itself (`verify: false`, or a buggy writer).
  const damage: Array<[string, (bytes: Uint8Array, view: DataView) => void]> = [
    ['offsets.u32', (_bytes, view) => view.setUint32(4, view.getUint32(4, true) + 1, true)],
    ['block-offsets.u32', (_bytes, view) => view.setUint32(4, view.getUint32(4, true) + 1, true)],
    ['block-starts.u32', (_bytes, view) => view.setUint32(4, view.getUint32(4, true) + 1, true)],
    ['block-bases.u32', (_bytes, view) => view.setUint32(0, view.getUint32(0, true) + 1, true)],
    ['block-lasts.u32', (_bytes, view) => view.setUint32(0, view.getUint32(0, true) + 1, true)],
    ['block-max-text.u16', (_bytes, view) => view.setUint16(0, view.getUint16(0, true) + 1, true)],
    ['block-max-title.u16', (_bytes, view) => view.setUint16(0, view.getUint16(0, true) + 1, true)],
    ['block-min-text-length.u16', (_bytes, view) => view.setUint16(0, view.getUint16(0, true) + 1, true)],
    ['block-min-title-length.u16', (_bytes, view) => view.setUint16(0, view.getUint16(0, true) + 1, true)],
    ['chunk-offsets.u16', (_bytes, view) => view.setUint16(0, 1, true)],
    ['codes.u8', (bytes) => bytes.fill(0, 0, 1)],
    ['exception-positions.u32', (_bytes, view) => view.setUint32(0, view.getUint32(0, true) + 1, true)],
    ['exception-values.u32', (_bytes, view) => view.setUint32(0, 3, true)],
  ];
  for (const [file, change] of damage) {
    it(`refuses an inconsistent ${file}`, async () => {
      const original = new KeywordRetriever();
      await original.add(corpus());
      const snapshot = await saved(original);
      const bytes = snapshot.files.get(`keyword/index/${file}`)!;
      expect(bytes.byteLength, file).toBeGreaterThan(0);
      change(bytes, new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      await expect(opened(snapshot)).rejects.toMatchObject({ code: 'ZERDA_CORRUPT_SNAPSHOT', details: { file: 'keyword/index/index.json', check: 'consistency' } });
    });
  }
});
