import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ZerdaError } from '@zerda/types';
import { TransformersEmbedder } from './transformers-embedder.js';
import type { ModelLoadProgress } from './transformers-embedder-options.js';

// A one-layer random-weight BERT built by scripts/build-tiny-bert.mjs: real tokenizer + ONNX
// session + pooling, meaningless similarities.
const fixtures = fileURLToPath(new URL('./__fixtures__', import.meta.url));
const tiny = { modelId: 'tiny-bert', localModelPath: fixtures };

const temporaryFolders: string[] = [];
function temporaryFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'zerda-embeddings-'));
  temporaryFolders.push(folder);
  return folder;
}
afterAll(() => {
  for (const folder of temporaryFolders) rmSync(folder, { recursive: true, force: true });
});

function norm(vector: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) ** 2;
  return Math.sqrt(sum);
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] as number) * (b[i] as number);
  return dot / (norm(a) * norm(b));
}

function maxDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs((a[i] as number) - (b[i] as number)));
  return max;
}

async function captureError(promise: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('TransformersEmbedder on the tiny BERT fixture (offline, real loading path)', () => {
  it('loads lazily and knows its dimensions only after loading', async () => {
    const embedder = new TransformersEmbedder(tiny);
    expect(embedder.specificationVersion).toBe('v1');
    expect(embedder.modelId).toBe('tiny-bert');
    expect(embedder.dimensions).toBeUndefined();
    expect(embedder.loaded).toBe(false);
    const [vector] = await embedder.embed(['the cat sat on the mat']);
    expect(embedder.dimensions).toBe(32);
    expect(vector).toBeInstanceOf(Float32Array);
    expect(vector).toHaveLength(32);
    expect(norm(vector as Float32Array)).toBeCloseTo(1, 5);
  });

  it('loads once when many first calls arrive together', async () => {
    const events: ModelLoadProgress[] = [];
    const embedder = new TransformersEmbedder({ ...tiny, onProgress: (event) => events.push(event) });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => embedder.embed([`quick brown fox ${i}`, 'lazy dog'])),
    );
    const tokenizerReads = events.filter((event) => event.status === 'initiate' && event.file === 'tokenizer.json');
    expect(tokenizerReads).toHaveLength(1);
    const modelReads = events.filter((event) => event.status === 'initiate' && event.file === 'onnx/model_quantized.onnx');
    expect(modelReads).toHaveLength(1);
    for (const result of results) expect(maxDifference(result[1] as Float32Array, results[0]?.[1] as Float32Array)).toBe(0);
  });

  it('gives the same vectors whatever the batch size and padding, in input order', async () => {
    const texts = ['sat', 'the quick brown fox jumps over the lazy dog in the library', 'machine learning', 'كتاب في المكتبة', ''];
    const one = await new TransformersEmbedder({ ...tiny, batchSize: 1 }).embed(texts);
    const many = await new TransformersEmbedder({ ...tiny, batchSize: 16 }).embed(texts);
    expect(many).toHaveLength(texts.length);
    for (let i = 0; i < texts.length; i++) {
      expect(maxDifference(one[i] as Float32Array, many[i] as Float32Array)).toBeLessThan(1e-4);
    }
    // Different texts give different vectors: the order really is the input order.
    expect(maxDifference(many[0] as Float32Array, many[1] as Float32Array)).toBeGreaterThan(1e-3);
  });

  it('prepends the query or document prefix according to kind', async () => {
    const prefixed = new TransformersEmbedder({ ...tiny, queryPrefix: 'query: ', documentPrefix: 'passage: ' });
    const plain = new TransformersEmbedder(tiny);
    const [asQuery] = await prefixed.embed(['small model'], { kind: 'query' });
    const [asDocument] = await prefixed.embed(['small model'], { kind: 'document' });
    const [byDefault] = await prefixed.embed(['small model']);
    const [manualQuery, manualDocument] = await plain.embed(['query: small model', 'passage: small model']);
    expect(maxDifference(asQuery as Float32Array, manualQuery as Float32Array)).toBeLessThan(1e-5);
    expect(maxDifference(asDocument as Float32Array, manualDocument as Float32Array)).toBeLessThan(1e-5);
    expect(maxDifference(byDefault as Float32Array, asDocument as Float32Array)).toBe(0);
    expect(maxDifference(asQuery as Float32Array, asDocument as Float32Array)).toBeGreaterThan(1e-3);
  });

  it('normalizes only when asked, and pools by mean or CLS', async () => {
    const [raw] = await new TransformersEmbedder({ ...tiny, normalize: false }).embed(['the cat sat on the mat']);
    const [unit] = await new TransformersEmbedder(tiny).embed(['the cat sat on the mat']);
    const [cls] = await new TransformersEmbedder({ ...tiny, pooling: 'cls' }).embed(['the cat sat on the mat']);
    expect(Math.abs(norm(raw as Float32Array) - 1)).toBeGreaterThan(1e-3);
    expect(cosine(raw as Float32Array, unit as Float32Array)).toBeCloseTo(1, 5);
    expect(norm(cls as Float32Array)).toBeCloseTo(1, 5);
    expect(maxDifference(cls as Float32Array, unit as Float32Array)).toBeGreaterThan(1e-3);
  });

  it('loads the float32 model when quantized is false', async () => {
    const events: ModelLoadProgress[] = [];
    const full = new TransformersEmbedder({ ...tiny, quantized: false, onProgress: (event) => events.push(event) });
    const [a] = await full.embed(['students read books in the library']);
    const [b] = await new TransformersEmbedder(tiny).embed(['students read books in the library']);
    expect(events.some((event) => event.file === 'onnx/model.onnx')).toBe(true);
    expect(cosine(a as Float32Array, b as Float32Array)).toBeGreaterThan(0.95);
    expect(maxDifference(a as Float32Array, b as Float32Array)).toBeGreaterThan(0);
  });

  it('embeds any Unicode (Arabic with diacritics, emoji, lone surrogates) into finite unit vectors', async () => {
    const embedder = new TransformersEmbedder(tiny);
    const [arabic, mixed] = await embedder.embed(['الْكِتَابُ فِي الْمَكْتَبَةِ', 'RAG مع zerda ؟ 😀 \uD800']);
    expect(norm(arabic as Float32Array)).toBeCloseTo(1, 5);
    expect(norm(mixed as Float32Array)).toBeCloseTo(1, 5);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { minLength: 1, maxLength: 4 }), async (texts) => {
        const vectors = await embedder.embed(texts);
        expect(vectors).toHaveLength(texts.length);
        for (const vector of vectors) {
          expect(vector).toHaveLength(32);
          expect(Array.from(vector).every(Number.isFinite)).toBe(true);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('returns [] for no texts without loading the model', async () => {
    const embedder = new TransformersEmbedder(tiny);
    expect(await embedder.embed([])).toEqual([]);
    expect(embedder.loaded).toBe(false);
  });

  it('honours an aborted signal', async () => {
    const embedder = new TransformersEmbedder(tiny);
    const controller = new AbortController();
    controller.abort();
    const error = await captureError(embedder.embed(['text'], { signal: controller.signal }));
    expect((error as Error).name).toBe('AbortError');
  });

  it('restores the global transformers.js settings after loading', async () => {
    const { env } = await import('@xenova/transformers');
    const before = { localModelPath: env.localModelPath, allowRemoteModels: env.allowRemoteModels, cacheDir: env.cacheDir };
    await new TransformersEmbedder(tiny).load();
    expect({ localModelPath: env.localModelPath, allowRemoteModels: env.allowRemoteModels, cacheDir: env.cacheDir }).toEqual(before);
  });

  it('loads two different models concurrently, each from its own folder', async () => {
    const other = temporaryFolder();
    cpSync(join(fixtures, 'tiny-bert'), join(other, 'copy', 'tiny'), { recursive: true });
    const first = new TransformersEmbedder(tiny);
    const second = new TransformersEmbedder({ modelId: 'copy/tiny', localModelPath: other, quantized: false });
    const [[a], [b]] = await Promise.all([first.embed(['cat']), second.embed(['cat'])]);
    expect(first.dimensions).toBe(32);
    expect(second.dimensions).toBe(32);
    // quantized vs float32 weights: the same network, slightly different numbers.
    expect(maxDifference(a as Float32Array, b as Float32Array)).toBeGreaterThan(0);
  });

  it('can be disposed and loads again on the next call', async () => {
    const embedder = new TransformersEmbedder(tiny);
    const [before] = await embedder.embed(['dog']);
    await embedder.dispose();
    expect(embedder.dimensions).toBeUndefined();
    const [after] = await embedder.embed(['dog']);
    expect(maxDifference(before as Float32Array, after as Float32Array)).toBe(0);
  });
});

describe('TransformersEmbedder errors', () => {
  it('reports a missing model offline with the model id, the folders searched and how to provide it', async () => {
    const empty = temporaryFolder();
    const embedder = new TransformersEmbedder({ modelId: 'Xenova/multilingual-e5-small', localModelPath: empty });
    const error = await captureError(embedder.embed(['hello']));
    expect(ZerdaError.isInstance(error)).toBe(true);
    const zerdaError = error as ZerdaError;
    expect(zerdaError.code).toBe('ZERDA_MODEL_NOT_FOUND');
    expect(zerdaError.message).toContain('Xenova/multilingual-e5-small');
    expect(zerdaError.message).toContain(join(empty, 'Xenova', 'multilingual-e5-small'));
    expect(zerdaError.message).toContain('allowRemoteModels: true');
    expect(zerdaError.message).toContain('localModelPath');
    expect(zerdaError.message).toContain('onnx/model_quantized.onnx');
    expect(zerdaError.details.missing).toContain('tokenizer.json');
    expect(embedder.dimensions).toBeUndefined();
  });

  it('tells how to build the static GloVe model when it is missing', async () => {
    const error = await captureError(
      new TransformersEmbedder({ modelId: 'zerda/glove-sg-100d', localModelPath: temporaryFolder() }).load(),
    );
    expect((error as ZerdaError).code).toBe('ZERDA_MODEL_NOT_FOUND');
    expect((error as ZerdaError).message).toContain('build:glove-model');
  });

  it('retries after a failed load once the files are provided', async () => {
    const folder = temporaryFolder();
    const embedder = new TransformersEmbedder({ modelId: 'late/tiny', localModelPath: folder });
    const [first, second] = await Promise.all([captureError(embedder.embed(['a'])), captureError(embedder.load())]);
    expect((first as ZerdaError).code).toBe('ZERDA_MODEL_NOT_FOUND');
    expect(second).toBe(first);
    cpSync(join(fixtures, 'tiny-bert'), join(folder, 'late', 'tiny'), { recursive: true });
    const [vector] = await embedder.embed(['a']);
    expect(vector).toHaveLength(32);
  });

  it('wraps a corrupt model file in ZERDA_MODEL_NOT_FOUND with the reason, not a raw stack', async () => {
    const folder = temporaryFolder();
    cpSync(join(fixtures, 'tiny-bert'), join(folder, 'broken'), { recursive: true });
    writeFileSync(join(folder, 'broken', 'onnx', 'model_quantized.onnx'), 'not an onnx file');
    const error = await captureError(new TransformersEmbedder({ modelId: 'broken', localModelPath: folder }).load());
    expect(ZerdaError.isInstance(error)).toBe(true);
    expect((error as ZerdaError).code).toBe('ZERDA_MODEL_NOT_FOUND');
    expect((error as ZerdaError).message).toContain('model broken could not be loaded');
    expect((error as ZerdaError).message.split('\n')).toHaveLength(1);
  });

  it('rejects bad options with the field named', () => {
    const cases: Array<[unknown, string]> = [
      [{ ...tiny, batchSize: 0 }, 'options.batchSize'],
      [{ localModelPath: fixtures }, 'options.modelId'],
      [{ ...tiny, modelId: '  ' }, 'options.modelId'],
      [{ ...tiny, pooling: 'max' }, 'options.pooling'],
      [{ ...tiny, quantised: true }, 'options.quantised'],
      [{ ...tiny, allowLocalModels: false }, 'options.allowLocalModels'],
    ];
    for (const [options, field] of cases) {
      let caught: unknown;
      try {
        new TransformersEmbedder(options as never);
      } catch (error) {
        caught = error;
      }
      expect(ZerdaError.isInstance(caught), field).toBe(true);
      expect((caught as ZerdaError).code).toBe('ZERDA_INVALID_CONFIG');
      expect((caught as ZerdaError).details.field).toBe(field);
    }
  });

  it('rejects bad embed arguments with the field named', async () => {
    const embedder = new TransformersEmbedder(tiny);
    const notArray = (await captureError(embedder.embed('text' as never))) as ZerdaError;
    expect(notArray.code).toBe('ZERDA_INVALID_ARGUMENT');
    expect(notArray.message).toBe('texts must be an array, got string "text"');
    const badItem = (await captureError(embedder.embed(['a', 5 as never]))) as ZerdaError;
    expect(badItem.details.field).toBe('texts[1]');
    const badKind = (await captureError(embedder.embed(['a'], { kind: 'passage' as never }))) as ZerdaError;
    expect(badKind.details.field).toBe('options.kind');
  });
});

describe('model presets', () => {
  it('applies the known model preset and lets explicit options win', () => {
    const e5 = new TransformersEmbedder({ modelId: 'Xenova/multilingual-e5-small', localModelPath: fixtures });
    expect(e5.settings.queryPrefix).toBe('query: ');
    expect(e5.settings.documentPrefix).toBe('passage: ');
    const bge = new TransformersEmbedder({ modelId: 'Xenova/bge-small-en-v1.5', localModelPath: fixtures, queryPrefix: '' });
    expect(bge.settings.pooling).toBe('cls');
    expect(bge.settings.queryPrefix).toBe('');
    const raw = new TransformersEmbedder({ modelId: 'Xenova/multilingual-e5-small', localModelPath: fixtures, usePreset: false });
    expect(raw.settings.queryPrefix).toBe('');
    expect(raw.settings.pooling).toBe('mean');
    expect(e5.settings.cacheDir).toBe(fixtures);
  });
});
