import { describe, expect, it } from 'vitest';
import { ZerdaError, type Embedder, type Embedding } from '@zerda/types';
import { charCounter } from '@zerda/text';
import { ContextAwareChunker } from './context-aware-chunker.js';
import { expectChunkInvariants } from './__fixtures__/invariants.js';

// A topic embedder: one dimension per topic, by keyword (Arabic and English).
const TOPICS: RegExp[] = [/cat|kitten|dog|pet|قط|كلب/iu, /stock|market|investor|price|سوق|أسهم/iu, /rain|storm|weather|cloud|مطر|طقس/iu];
function topicVector(text: string): number[] {
  return TOPICS.map((topic) => (text.match(new RegExp(topic.source, 'giu')) ?? []).length + 0.01);
}
const topicEmbed = (texts: string[]) => texts.map(topicVector);

const ANIMALS = ['Cats are calm pets.', 'A kitten is a young cat.', 'Dogs are loyal pets too.'];
const MARKETS = ['The stock market fell today.', 'Investors sold as prices dropped.', 'Markets may recover next week.'];
const WEATHER = ['Heavy rain is expected tonight.', 'A storm will bring clouds and rain.'];

async function captureError(promise: Promise<unknown>): Promise<ZerdaError> {
  try {
    await promise;
  } catch (error) {
    expect(ZerdaError.isInstance(error)).toBe(true);
    return error as ZerdaError;
  }
  throw new Error('expected a ZerdaError');
}

describe('ContextAwareChunker', () => {
  it('breaks where the topic changes', async () => {
    const text = [...ANIMALS, ...MARKETS, ...WEATHER].join(' ');
    const chunker = new ContextAwareChunker({ size: 500, embedder: topicEmbed, bufferSize: 0 });
    const chunks = await chunker.chunk(text, 'topics');
    expectChunkInvariants(text, chunks, { size: 500, counter: charCounter });
    expect(chunks.map((chunk) => chunk.text)).toEqual([ANIMALS.join(' '), MARKETS.join(' '), WEATHER.join(' ')]);
  });

  it('finds topic changes in Arabic text too', async () => {
    const arabic = ['القط حيوان أليف هادئ.', 'والكلب حيوان أليف وفي؟', 'انخفض سوق الأسهم اليوم.', 'وباع المستثمرون الأسهم في السوق.'];
    const text = arabic.join(' ');
    const chunks = await new ContextAwareChunker({ size: 500, embedder: topicEmbed, bufferSize: 0, breakpointPercentile: 40 }).chunk(text);
    expect(chunks.map((chunk) => chunk.text)).toEqual([arabic.slice(0, 2).join(' '), arabic.slice(2).join(' ')]);
  });

  it('uses the percentile threshold: 0 never breaks on similarity, higher percentiles break more', async () => {
    const text = [...ANIMALS, ...MARKETS, ...WEATHER].join(' ');
    const none = await new ContextAwareChunker({ size: 1000, embedder: topicEmbed, breakpointPercentile: 0 }).chunk(text);
    expect(none).toHaveLength(1);
    const many = await new ContextAwareChunker({ size: 1000, embedder: topicEmbed, bufferSize: 0, breakpointPercentile: 100 }).chunk(text);
    expect(many.length).toBeGreaterThan(3);
  });

  it('respects the size limit inside a topic, cutting at the least similar boundary', async () => {
    const sentences = Array.from({ length: 12 }, (_, index) => `Cat fact number ${index} about pets.`);
    const text = sentences.join(' ');
    const chunks = await new ContextAwareChunker({ size: 120, overlap: 30, embedder: topicEmbed }).chunk(text);
    expectChunkInvariants(text, chunks, { size: 120, overlap: 30, counter: charCounter });
    expect(chunks.length).toBeGreaterThan(2);
  });

  it('merges chunks below minChunkSize into a neighbour when they fit', async () => {
    const text = ['Cats purr.', 'Dogs bark.', 'Stocks fell.', 'Rain fell.'].join(' ');
    const loose = await new ContextAwareChunker({ size: 200, embedder: topicEmbed, bufferSize: 0, breakpointPercentile: 100 }).chunk(text);
    const merged = await new ContextAwareChunker({ size: 200, minChunkSize: 25, embedder: topicEmbed, bufferSize: 0, breakpointPercentile: 100 }).chunk(text);
    expect(loose.length).toBeGreaterThan(merged.length);
    for (const chunk of merged.slice(0, -1)) expect(chunk.text.length).toBeGreaterThanOrEqual(25);
    expectChunkInvariants(text, merged, { size: 200, counter: charCounter });
  });

  it('embeds each sentence with its neighbours, through an Embedder with kind "document"', async () => {
    const calls: Array<{ texts: string[]; kind: string | undefined }> = [];
    const embedder: Embedder = {
      specificationVersion: 'v1',
      modelId: 'topics',
      dimensions: 3,
      async embed(texts, options) {
        calls.push({ texts, kind: options?.kind });
        return texts.map(topicVector);
      },
    };
    const text = ANIMALS.join(' ');
    await new ContextAwareChunker({ size: 500, embedder, bufferSize: 1 }).chunk(text);
    expect(calls).toEqual([
      { texts: [`${ANIMALS[0]} ${ANIMALS[1]}`, text, `${ANIMALS[1]} ${ANIMALS[2]}`], kind: 'document' },
    ]);
  });

  it('does not embed a single sentence', async () => {
    let called = false;
    const chunks = await new ContextAwareChunker({
      embedder: (texts: string[]) => {
        called = true;
        return texts.map(() => [1]);
      },
    }).chunk('Just one sentence here.', 'one');
    expect(called).toBe(false);
    expect(chunks.map((chunk) => chunk.id)).toEqual(['one#0']);
  });

  it('reports embedder failures as ZerdaErrors', async () => {
    const text = ANIMALS.join(' ');
    const wrongCount = await captureError(new ContextAwareChunker({ embedder: () => [[1]] }).chunk(text));
    expect(wrongCount.code).toBe('ZERDA_BACKEND_ERROR');
    expect(wrongCount.message).toContain('expected 3 embeddings, got 1');
    const notFinite = await captureError(new ContextAwareChunker({ embedder: (texts: string[]) => texts.map((_, i) => (i === 1 ? [Number.NaN, 1] : [1, 1])) }).chunk(text));
    expect(notFinite.code).toBe('ZERDA_INVALID_EMBEDDING');
    expect(notFinite.details.field).toBe('embeddings[1]');
    const cause = new Error('connection refused');
    const thrown = await captureError(
      new ContextAwareChunker({
        embedder: async (): Promise<Embedding[]> => {
          throw cause;
        },
      }).chunk(text),
    );
    expect(thrown.code).toBe('ZERDA_BACKEND_ERROR');
    expect(thrown.cause).toBe(cause);
    const original = new ZerdaError('ZERDA_MODEL_NOT_FOUND', { model: 'm' });
    const passedThrough = await captureError(
      new ContextAwareChunker({
        embedder: () => {
          throw original;
        },
      }).chunk(text),
    );
    expect(passedThrough).toBe(original);
  });

  it('validates its options', () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'options.embedder'],
      [{ embedder: {} }, 'options.embedder'],
      [{ embedder: topicEmbed, breakpointPercentile: 150 }, 'options.breakpointPercentile'],
      [{ embedder: topicEmbed, bufferSize: -1 }, 'options.bufferSize'],
      [{ embedder: topicEmbed, size: 10, overlap: 10 }, 'options.overlap'],
    ];
    for (const [options, field] of cases) {
      let caught: unknown;
      try {
        new ContextAwareChunker(options as never);
      } catch (error) {
        caught = error;
      }
      expect(ZerdaError.isInstance(caught), field).toBe(true);
      expect((caught as ZerdaError).code).toBe('ZERDA_INVALID_CONFIG');
      expect((caught as ZerdaError).details.field).toBe(field);
    }
  });
});
