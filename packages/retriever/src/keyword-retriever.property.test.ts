import fc from 'fast-check';
import { createError, InMemorySnapshot, type DocumentChunk } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { KeywordRetriever } from './keyword-retriever.js';

const VOCABULARY = ['river', 'rivers', 'bank', 'money', 'water', 'flows', 'the', 'green', 'نهر', 'الأنهار', 'مياه', 'البنك', 'في', 'جميلة', 'جميله'];
const QUERIES = ['river bank', 'money', 'water flows green', 'نهر مياه', 'البنك money', 'جميلة', 'the', 'rivers الأنهار bank water'];

const chunkArbitrary = fc.record({
  id: fc.constantFrom('c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9'),
  docId: fc.constantFrom('d0', 'd1', 'd2', 'd3'),
  words: fc.array(fc.constantFrom(...VOCABULARY), { minLength: 0, maxLength: 12 }),
  title: fc.option(fc.array(fc.constantFrom(...VOCABULARY), { minLength: 1, maxLength: 3 }), { nil: undefined }),
});

type Operation =
  | { type: 'add'; chunks: Array<{ id: string; docId: string; words: string[]; title: string[] | undefined }> }
  | { type: 'remove'; docIds: string[] }
  | { type: 'removeChunks'; ids: string[] }
  | { type: 'compact' };

const operationArbitrary: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ type: fc.constant('add' as const), chunks: fc.uniqueArray(chunkArbitrary, { selector: (chunk) => chunk.id, minLength: 1, maxLength: 5 }) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('remove' as const), docIds: fc.uniqueArray(fc.constantFrom('d0', 'd1', 'd2', 'd3', 'nope'), { maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('removeChunks' as const), ids: fc.uniqueArray(fc.constantFrom('c0', 'c3', 'c7', 'zz'), { maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.constant({ type: 'compact' as const }) },
);

function toChunk(input: { id: string; docId: string; words: string[]; title: string[] | undefined }): DocumentChunk {
  const chunk: DocumentChunk = { id: input.id, docId: input.docId, text: input.words.join(' '), source: input.docId, metadata: { docId: input.docId }, position: { index: 0 } };
  if (input.title) chunk.title = input.title.join(' ');
  return chunk;
}

describe('KeywordRetriever: incremental updates equal a rebuild (property)', () => {
  it('any add/remove/compact sequence gives the same top-k, scores and order as indexing the final set', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(chunkArbitrary, { maxLength: 8 }).map((chunks) => [...new Map(chunks.map((chunk) => [chunk.id, chunk])).values()]),
        fc.array(operationArbitrary, { minLength: 1, maxLength: 25 }),
        fc.constantFrom(0, 1, 2.5),
        async (initial, operations, titleWeight) => {
          const options = { titleWeight, k1: 1.2, b: 0.75 };
          const incremental = new KeywordRetriever(options);
          // The model: a Map keeps an updated key in its place, as the retriever promises.
          const model = new Map<string, DocumentChunk>();
          await incremental.index(initial.map(toChunk));
          for (const chunk of initial) model.set(chunk.id, toChunk(chunk));
          for (const operation of operations) {
            if (operation.type === 'add') {
              await incremental.add(operation.chunks.map(toChunk));
              for (const chunk of operation.chunks) model.set(chunk.id, toChunk(chunk));
            } else if (operation.type === 'remove') {
              await incremental.remove(operation.docIds);
              for (const [id, chunk] of model) if (operation.docIds.includes(chunk.docId)) model.delete(id);
            } else if (operation.type === 'removeChunks') {
              await incremental.removeChunks(operation.ids);
              for (const id of operation.ids) model.delete(id);
            } else {
              incremental.compact();
            }
          }
          const rebuilt = new KeywordRetriever(options);
          await rebuilt.index([...model.values()]);
          expect(incremental.size()).toBe(model.size);
          expect(incremental.chunks()).toEqual([...model.values()]);
          const filter = { docId: { $in: ['d1', 'd2'] } };
          // Compare before serialising: toJSON() compacts, which would hide delta/tombstone bugs.
          for (const query of QUERIES) {
            for (const topK of [3, 20]) expect(await incremental.retrieve(query, { topK })).toEqual(await rebuilt.retrieve(query, { topK }));
            expect(await incremental.retrieve(query, { topK: 5, filter })).toEqual(await rebuilt.retrieve(query, { topK: 5, filter }));
          }
          const reloaded = KeywordRetriever.fromJSON(JSON.parse(JSON.stringify(incremental)));
          for (const query of QUERIES) expect(await reloaded.retrieve(query, { topK: 20 })).toEqual(await rebuilt.retrieve(query, { topK: 20 }));
          // The binary snapshot (ContextEngine.save) restores the same index.
          const snapshot = new InMemorySnapshot();
          await incremental.writeSnapshot(snapshot.writer());
          const opened = new KeywordRetriever(options);
          await opened.readSnapshot(snapshot.reader((file, check, reason) => createError('ZERDA_CORRUPT_SNAPSHOT', { file, check, reason })));
          expect(opened.chunks()).toEqual([...model.values()]);
          for (const query of QUERIES) {
            expect(await opened.retrieve(query, { topK: 20 })).toEqual(await rebuilt.retrieve(query, { topK: 20 }));
            expect(await opened.retrieve(query, { topK: 5, filter })).toEqual(await rebuilt.retrieve(query, { topK: 5, filter }));
          }
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);
});
