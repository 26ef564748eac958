import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ContextEngine } from '@zerda/context';
import { ZerdaError, toDocumentChunk, type ScoredChunk } from '@zerda/types';
import { CrossEncoderReranker } from './cross-encoder-reranker.js';
import type { ModelLoadProgress } from './transformers-embedder-options.js';

// A one-layer random-weight BERT with a pooler and a one-logit classifier, built by
// `scripts/build-tiny-bert.mjs --cross-encoder` from the same builder (and encoder) as tiny-bert:
// the real loading and scoring path of a BertForSequenceClassification, meaningless relevance.
const fixtures = fileURLToPath(new URL('./__fixtures__', import.meta.url));
const tiny = { modelId: 'tiny-cross-encoder', localModelPath: fixtures };

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const passages = ['the cat sat on the mat', 'money in the bank by the river', 'كتاب في المكتبة', 'students read books in the library', '', 'quick brown fox'];
const candidate = (id: string, text: string): ScoredChunk => ({ chunk: toDocumentChunk({ id, docId: id, text }), score: 1, scores: {} });

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('CrossEncoderReranker on the tiny cross-encoder fixture (offline, real loading path)', () => {
  it('loads lazily and scores every passage in (0, 1), in input order', async () => {
    const reranker = new CrossEncoderReranker(tiny);
    expect(reranker.name).toBe('cross-encoder:tiny-cross-encoder');
    expect(reranker.loaded).toBe(false);
    const scores = await reranker.score('the cat sat', passages);
    expect(reranker.loaded).toBe(true);
    expect(scores).toHaveLength(passages.length);
    for (const score of scores) {
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThan(1);
    }
    const reversed = await reranker.score('the cat sat', [...passages].reverse());
    expect(reversed).toEqual([...scores].reverse());
    expect(new Set(scores.map((score) => score.toFixed(8))).size, 'different passages, different scores').toBe(passages.length);
  });

  it('gives a pair the same score whatever its batch and padding', async () => {
    const one = await new CrossEncoderReranker({ ...tiny, batchSize: 1 }).score('machine learning models', passages);
    const all = await new CrossEncoderReranker({ ...tiny, batchSize: 16 }).score('machine learning models', passages);
    for (let i = 0; i < passages.length; i++) expect(Math.abs((one[i] as number) - (all[i] as number))).toBeLessThan(1e-5);
  });

  it('reads the query and the passage as a pair (segment order matters)', async () => {
    const reranker = new CrossEncoderReranker(tiny);
    const [forward] = await reranker.score('the cat sat', ['money in the bank']);
    const [backward] = await reranker.score('money in the bank', ['the cat sat']);
    expect(Math.abs((forward as number) - (backward as number))).toBeGreaterThan(1e-6);
  });

  it('cuts a passage too long for the model after the query, restoring the closing separator', async () => {
    // `the cat` is 2 tokens: [CLS] the cat [SEP] passage [SEP] leaves 123 of the 128 positions to the passage.
    const reranker = new CrossEncoderReranker(tiny);
    const fitting = Array.from({ length: 123 }, () => 'dog').join(' ');
    const [exact] = await reranker.score('the cat', [fitting]);
    const [long] = await reranker.score('the cat', [`${fitting} ${Array.from({ length: 300 }, () => 'fish').join(' ')}`]);
    const [otherTail] = await reranker.score('the cat', [`${fitting} ${Array.from({ length: 40 }, () => 'ocean').join(' ')}`]);
    expect(long).toBeCloseTo(exact as number, 6);
    expect(otherTail).toBeCloseTo(exact as number, 6);
  });

  it('rerank() keeps the best topN by score, ties in input order, and loads once for concurrent calls', async () => {
    const events: ModelLoadProgress[] = [];
    const reranker = new CrossEncoderReranker({ ...tiny, onProgress: (event) => events.push(event) });
    const candidates = passages.map((text, i) => candidate(`c${i}`, text));
    const [kept, again] = await Promise.all([reranker.rerank('the library', candidates, { topN: 3 }), reranker.rerank('the library', candidates, { topN: 3 })]);
    expect(events.filter((event) => event.status === 'initiate' && event.file === 'onnx/model_quantized.onnx')).toHaveLength(1);
    const scores = await reranker.score('the library', passages);
    const expected = scores.map((score, index) => ({ index, score })).sort((a, b) => b.score - a.score || a.index - b.index).slice(0, 3);
    expect(kept).toEqual(expected);
    expect(again).toEqual(expected);
  });

  it('scores any Unicode (Arabic with diacritics, emoji, lone surrogates) to a probability', async () => {
    const reranker = new CrossEncoderReranker(tiny);
    const [arabic] = await reranker.score('ما هي المكتبة؟', ['الْكِتَابُ فِي الْمَكْتَبَةِ']);
    expect(arabic).toBeGreaterThan(0);
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 30 }), fc.array(fc.string({ unit: 'binary', maxLength: 60 }), { minLength: 1, maxLength: 4 }), async (query, texts) => {
        const scores = await reranker.score(query, texts);
        expect(scores).toHaveLength(texts.length);
        for (const score of scores) expect(score >= 0 && score <= 1).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it('loads the float32 model when quantized is false (close to the int8 one, not equal)', async () => {
    const [full] = await new CrossEncoderReranker({ ...tiny, quantized: false }).score('the cat', ['the cat sat on the mat']);
    const [int8] = await new CrossEncoderReranker(tiny).score('the cat', ['the cat sat on the mat']);
    expect(Math.abs((full as number) - (int8 as number))).toBeLessThan(0.05);
    expect(full).not.toBe(int8);
  });

  it('returns [] without loading for no passages, honours an aborted signal, and can be disposed and reloaded', async () => {
    const reranker = new CrossEncoderReranker(tiny);
    expect(await reranker.score('q', [])).toEqual([]);
    expect(await reranker.rerank('q', [], { topN: 3 })).toEqual([]);
    expect(reranker.loaded).toBe(false);
    const controller = new AbortController();
    controller.abort();
    expect(((await rejection(reranker.score('q', ['text'], { signal: controller.signal }))) as Error).name).toBe('AbortError');
    const [before] = await reranker.score('dog', ['the dog sat']);
    await reranker.dispose();
    expect(reranker.loaded).toBe(false);
    const [after] = await reranker.score('dog', ['the dog sat']);
    expect(after).toBe(before);
  });
});

describe('CrossEncoderReranker errors', () => {
  it('reports a missing model offline with the folders searched and how to provide it', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'zerda-cross-encoder-'));
    folders.push(empty);
    const reranker = new CrossEncoderReranker({ modelId: 'Xenova/ms-marco-MiniLM-L-6-v2', localModelPath: empty });
    const error = (await rejection(reranker.score('query', ['passage']))) as ZerdaError;
    expect(ZerdaError.isInstance(error)).toBe(true);
    expect(error.code).toBe('ZERDA_MODEL_NOT_FOUND');
    expect(error.message).toContain(join(empty, 'Xenova', 'ms-marco-MiniLM-L-6-v2'));
    expect(error.message).toContain('allowRemoteModels: true');
    expect(error.details.missing).toContain('onnx/model_quantized.onnx');
  });

  it('refuses a model that is not a cross-encoder (a feature extractor has no logits)', async () => {
    const error = (await rejection(new CrossEncoderReranker({ modelId: 'tiny-bert', localModelPath: fixtures }).score('q', ['passage']))) as ZerdaError;
    expect(ZerdaError.isInstance(error)).toBe(true);
    expect(error.code).toBe('ZERDA_UNSUPPORTED');
    expect(error.message).toMatch(/no logits output .* a cross-encoder \(sequence classification\) gives logits of shape \[pairs, 1\]/);
  });

  it('rejects bad options and arguments, naming the field', async () => {
    expect(() => new CrossEncoderReranker({ modelId: '' })).toThrow(/options\.modelId/);
    expect(() => new CrossEncoderReranker({ ...tiny, batchSize: 0 })).toThrow(/options\.batchSize must be >= 1/);
    expect(() => new CrossEncoderReranker({ ...tiny, pooling: 'mean' } as never)).toThrow(/options\.pooling must be a known option/);
    const reranker = new CrossEncoderReranker(tiny);
    await expect(reranker.score(5 as never, ['x'])).rejects.toThrow(/query must be a string/);
    await expect(reranker.score('q', ['x', 3] as never)).rejects.toThrow(/passages must be an array of strings/);
    await expect(reranker.rerank('q', [{ chunk: {} } as never], { topN: 1 })).rejects.toThrow(/candidates\[0\]\.chunk\.text must be a string/);
  });
});

describe('CrossEncoderReranker in the engine', () => {
  it('orders the context by its scores and records them as the rerank factor', async () => {
    const reranker = new CrossEncoderReranker(tiny);
    const engine = new ContextEngine({ reranker, config: { composer: { maxContextLength: 4000 } } });
    await engine.index([
      { docId: 'cats', text: 'The cat sat on the mat and slept in the sun all day long.' },
      { docId: 'bank', text: 'The bank by the river keeps money for the students of the school.' },
      { docId: 'library', text: 'Students read books in the library of the city after school.' },
      { docId: 'arabic', text: 'الطالب قرأ الكتاب في المكتبة بعد المدرسة.' },
    ]);
    const query = 'the students read books in the school library';
    const result = await engine.run(query, { maxChunks: 4 });
    expect(result.reranker).toBe('cross-encoder:tiny-cross-encoder');
    expect(result.chunks.length).toBeGreaterThan(1);
    const direct = await reranker.score(query, result.chunks.map((used) => used.chunk.text));
    result.chunks.forEach((used, i) => expect(used.scores.rerank).toBeCloseTo(direct[i] as number, 6));
    for (let i = 1; i < result.chunks.length; i++) expect(result.chunks[i - 1]!.scores.rerank!).toBeGreaterThanOrEqual(result.chunks[i]!.scores.rerank!);
  });
});
