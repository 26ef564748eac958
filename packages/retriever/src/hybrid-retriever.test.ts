import { ZerdaError, toDocumentChunk, type DocumentChunk, type RetrieveOptions, type Retriever, type ScoredChunk } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { HashingEmbedder } from './__fixtures__/hashing-embedder.js';
import { HybridRetriever } from './hybrid-retriever.js';
import { KeywordRetriever } from './keyword-retriever.js';
import { MetadataRetriever } from './metadata-retriever.js';
import { VectorRetriever } from './vector-retriever.js';

function chunk(id: string, metadata: Record<string, string | number> = {}, embedding?: number[]): DocumentChunk {
  const value = toDocumentChunk({ id, docId: `doc-${id}`, text: `text ${id}`, metadata });
  if (embedding) value.embedding = embedding;
  return value;
}

/** A retriever returning a fixed list (score per id), recording the options it was called with. */
class FixedRetriever implements Retriever {
  readonly calls: RetrieveOptions[] = [];
  readonly written: string[] = [];
  constructor(
    readonly name: string,
    private readonly results: Array<[DocumentChunk, number]>,
    private readonly scoreKey: string = name,
  ) {}
  async retrieve(_query: string, options: RetrieveOptions = {}): Promise<ScoredChunk[]> {
    this.calls.push(options);
    return this.results.slice(0, options.topK ?? 30).map(([value, score]) => ({ chunk: value, score, scores: { [this.scoreKey]: score }, retrievers: [this.name] }));
  }
  async add(chunks: DocumentChunk[]): Promise<void> {
    this.written.push(`add:${chunks.length}`);
  }
  async remove(docIds: string[]): Promise<void> {
    this.written.push(`remove:${docIds.join(',')}`);
  }
  size(): number {
    return this.results.length;
  }
}

const a = chunk('a');
const b = chunk('b');
const c = chunk('c');
const d = chunk('d');

describe('HybridRetriever: fusion', () => {
  it('weighted reciprocal rank fusion: Σ weight / (k + rank)', async () => {
    const vector = new FixedRetriever('vector', [[a, 0.9], [b, 0.8], [c, 0.1]]);
    const keyword = new FixedRetriever('keyword', [[c, 12], [a, 3]]);
    const hybrid = new HybridRetriever({ retrievers: [vector, keyword], fusion: 'rrf', weights: { vector: 2, keyword: 1 }, rrfK: 10 });
    const results = await hybrid.retrieve('q', { topK: 10 });
    const expected = new Map([
      ['a', 2 / 11 + 1 / 12],
      ['b', 2 / 12],
      ['c', 2 / 13 + 1 / 11],
    ]);
    expect(results.map((result) => result.chunk.id)).toEqual(['a', 'c', 'b']);
    for (const result of results) {
      expect(result.score).toBeCloseTo(expected.get(result.chunk.id)!, 12);
      expect(result.scores.fused).toBe(result.score);
    }
    const fusedA = results.find((result) => result.chunk.id === 'a')!;
    expect(fusedA.scores).toMatchObject({ vector: 0.9, keyword: 3 });
    expect(fusedA.retrievers).toEqual(['vector', 'keyword']);
    expect(results.find((result) => result.chunk.id === 'b')!.retrievers).toEqual(['vector']);
  });

  it('gives tied scores the same rank in RRF', async () => {
    const metadata = new FixedRetriever('metadata', [[a, 1], [b, 1], [c, 1]]);
    const hybrid = new HybridRetriever({ retrievers: [metadata], fusion: 'rrf' });
    const results = await hybrid.retrieve('q');
    expect(new Set(results.map((result) => result.score)).size).toBe(1);
    expect(results[0]!.score).toBeCloseTo(1 / 61, 12);
    expect(results.map((result) => result.chunk.id)).toEqual(['a', 'b', 'c']);
  });

  it('weighted fusion: min-max normalised scores × weight', async () => {
    const vector = new FixedRetriever('vector', [[a, 0.9], [b, 0.5], [c, 0.1]]);
    const keyword = new FixedRetriever('keyword', [[c, 20], [a, 10], [d, 5]]);
    const hybrid = new HybridRetriever({ retrievers: [vector, keyword], fusion: 'weighted', weights: { vector: 0.7, keyword: 0.3 } });
    const results = await hybrid.retrieve('q');
    const expected = new Map([
      ['a', 0.7 * 1 + 0.3 * (5 / 15)],
      ['b', 0.7 * 0.5],
      ['c', 0.7 * 0 + 0.3 * 1],
      ['d', 0],
    ]);
    expect(results.map((result) => result.chunk.id)).toEqual(['a', 'b', 'c', 'd']);
    for (const result of results) expect(result.score).toBeCloseTo(expected.get(result.chunk.id)!, 12);
  });

  it('asks each sub-retriever for topK × candidateMultiplier with the filter and analysis, and trims to topK', async () => {
    const vector = new FixedRetriever('vector', [[a, 0.9], [b, 0.8], [c, 0.7], [d, 0.6]]);
    const hybrid = new HybridRetriever({ retrievers: [vector], candidateMultiplier: 1.5 });
    const filter = { lang: { $ne: 'xx' } };
    const analysis = { query: 'q' } as never;
    const results = await hybrid.retrieve('q', { topK: 3, filter, analysis });
    expect(results).toHaveLength(3);
    expect(vector.calls).toEqual([{ topK: 5, filter, analysis }]);
  });

  it('takes defaults from the retrieval config section', async () => {
    const hybrid = new HybridRetriever({ retrievers: [new FixedRetriever('vector', [])], config: { topK: 7, fusion: 'weighted', candidateMultiplier: 3 } });
    expect(hybrid.topK).toBe(7);
    expect(hybrid.fusion).toBe('weighted');
    expect(hybrid.rrfK).toBe(60);
    expect(hybrid.weights).toEqual({ vector: 0.15, keyword: 1 });
    const overridden = new HybridRetriever({ retrievers: [new FixedRetriever('vector', [])], config: { topK: 7 }, topK: 9 });
    expect(overridden.topK).toBe(9);
  });

  it('skips retrievers weighted 0 and weighs unnamed ones 1', async () => {
    const vector = new FixedRetriever('vector', [[a, 1]]);
    const other = new FixedRetriever('other', [[b, 1]]);
    const hybrid = new HybridRetriever({ retrievers: [vector, other], fusion: 'rrf', weights: { vector: 0 } });
    const results = await hybrid.retrieve('q');
    expect(vector.calls).toEqual([]);
    expect(results.map((result) => result.chunk.id)).toEqual(['b']);
    expect(results[0]!.score).toBeCloseTo(1 / 61, 12);
  });

  it('never returns a chunk that fails the filter, even from a sub-retriever that ignores it', async () => {
    const sloppy = new FixedRetriever('vector', [[chunk('x', { lang: 'en' }), 0.9], [chunk('y', { lang: 'ar' }), 0.8]]);
    const hybrid = new HybridRetriever({ retrievers: [sloppy] });
    expect((await hybrid.retrieve('q', { filter: { lang: 'ar' } })).map((result) => result.chunk.id)).toEqual(['y']);
  });

  it('keeps the copy of a chunk that has an embedding', async () => {
    const bare = chunk('a');
    const embedded = chunk('a', {}, [1, 0]);
    const hybrid = new HybridRetriever({ retrievers: [new FixedRetriever('keyword', [[bare, 2]]), new FixedRetriever('vector', [[embedded, 0.5]])] });
    expect((await hybrid.retrieve('q'))[0]!.chunk.embedding).toEqual([1, 0]);
  });
});

describe('HybridRetriever: MMR', () => {
  it('diversifies when chunks have embeddings', async () => {
    const near1 = chunk('near1', {}, [1, 0, 0]);
    const near2 = chunk('near2', {}, [0.99, 0.01, 0]);
    const far = chunk('far', {}, [0, 1, 0]);
    const vector = new FixedRetriever('vector', [[near1, 0.95], [near2, 0.94], [far, 0.9]]);
    const plain = new HybridRetriever({ retrievers: [vector] });
    expect((await plain.retrieve('q', { topK: 2 })).map((result) => result.chunk.id)).toEqual(['near1', 'near2']);
    const diverse = new HybridRetriever({ retrievers: [vector], mmr: { lambda: 0.5, fetchK: 3 } });
    const results = await diverse.retrieve('q', { topK: 2 });
    expect(results.map((result) => result.chunk.id)).toEqual(['near1', 'far']);
    expect(results[0]!.scores.mmr).toBeDefined();
    expect(results[1]!.score).toBe(results[1]!.scores.fused);
    const relevanceOnly = new HybridRetriever({ retrievers: [vector], mmr: { lambda: 1 } });
    expect((await relevanceOnly.retrieve('q', { topK: 2 })).map((result) => result.chunk.id)).toEqual(['near1', 'near2']);
  });

  it('leaves the order alone when no candidate has an embedding', async () => {
    const hybrid = new HybridRetriever({ retrievers: [new FixedRetriever('keyword', [[a, 3], [b, 2], [c, 1]])], mmr: { lambda: 0 } });
    expect((await hybrid.retrieve('q', { topK: 2 })).map((result) => result.chunk.id)).toEqual(['a', 'b']);
  });
});

describe('HybridRetriever: failures and writes', () => {
  it('names the sub-retriever that failed', async () => {
    const broken: Retriever = { name: 'vector', retrieve: () => Promise.reject(new Error('socket hang up')) };
    const hybrid = new HybridRetriever({ retrievers: [new FixedRetriever('keyword', [[a, 1]]), broken] });
    const error = await hybrid.retrieve('q').then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(ZerdaError.isInstance(error)).toBe(true);
    expect((error as ZerdaError).code).toBe('ZERDA_BACKEND_ERROR');
    expect((error as ZerdaError).details.retriever).toBe('vector');
    expect((error as Error).message).toContain('retriever "vector"');
    expect((error as Error).message).toContain('socket hang up');
  });

  it('rejects a malformed sub-retriever result naming the retriever', async () => {
    const odd: Retriever = { name: 'odd', retrieve: async () => [{ score: Number.NaN }] as never };
    await expect(new HybridRetriever({ retrievers: [odd] }).retrieve('q')).rejects.toThrow(/retriever "odd"/);
  });

  it('fans add, remove and index out to the sub-retrievers that support them', async () => {
    const first = new FixedRetriever('keyword', []);
    const second = new FixedRetriever('vector', []);
    const readOnly: Retriever = { name: 'readonly', retrieve: async () => [] };
    const hybrid = new HybridRetriever({ retrievers: [first, second, readOnly] });
    await hybrid.add([a, b]);
    await hybrid.remove(['doc-a']);
    await hybrid.index([c]);
    expect(first.written).toEqual(['add:2', 'remove:doc-a']);
    expect(second.written).toEqual(['add:2', 'remove:doc-a']);
    expect(await hybrid.size()).toBe(0);
  });

  it('keeps input errors as they are, naming the field and the retriever', async () => {
    const keyword = new KeywordRetriever();
    const hybrid = new HybridRetriever({ retrievers: [keyword] });
    await expect(hybrid.add([{ docId: 'x', text: 7 }] as never)).rejects.toThrow(/chunks\[0\]\.text/);
    await expect(hybrid.retrieve('q', { filter: { $bad: 1 } as never })).rejects.toThrow(/options\.filter\.\$bad/);
    await expect(hybrid.remove('x' as never)).rejects.toThrow(/docIds/);
  });

  it('rejects bad options naming the field', () => {
    const cases: Array<[unknown, string]> = [
      [{ retrievers: [] }, 'options.retrievers'],
      [{ retrievers: [{ name: 'x' }] }, 'options.retrievers[0]'],
      [{ retrievers: [new FixedRetriever('x', []), new FixedRetriever('x', [])] }, 'options.retrievers[1].name'],
      [{ retrievers: [new FixedRetriever('x', [])], fusion: 'borda' }, 'options.fusion'],
      [{ retrievers: [new FixedRetriever('x', [])], rrfK: 0 }, 'options.rrfK'],
      [{ retrievers: [new FixedRetriever('x', [])], weights: { x: -1 } }, 'options.weights.x'],
      [{ retrievers: [new FixedRetriever('x', [])], config: { topk: 3 } }, 'options.config.topk'],
      [{ retrievers: [new FixedRetriever('x', [])], mmr: { lambda: 2 } }, 'options.mmr.lambda'],
      [{ retrievers: [new FixedRetriever('x', [])], mmr: { fetchK: 0 } }, 'options.mmr.fetchK'],
      [{ retrievers: [new FixedRetriever('x', [])], depth: 3 }, 'options.depth'],
    ];
    for (const [options, field] of cases) {
      try {
        new HybridRetriever(options as never);
        throw new Error(`accepted ${JSON.stringify(options)}`);
      } catch (error) {
        expect(ZerdaError.isInstance(error), String(error)).toBe(true);
        expect((error as Error).message).toContain(field);
      }
    }
  });
});

describe('HybridRetriever: real retrievers on Arabic and English', () => {
  const corpus = [
    { id: 'en-cats', docId: 'en', text: 'Cats are small domestic animals that purr.', metadata: { lang: 'en', kind: 'animal' } },
    { id: 'en-python', docId: 'en', text: 'Python is a programming language.', metadata: { lang: 'en', kind: 'tech' } },
    { id: 'ar-cats', docId: 'ar', text: 'القطط حيوانات أليفة صغيرة.', metadata: { lang: 'ar', kind: 'animal' } },
    { id: 'ar-python', docId: 'ar', text: 'بايثون لغة برمجة سهلة، تعلم Python الآن!', metadata: { lang: 'ar', kind: 'tech' } },
  ] as unknown as DocumentChunk[];

  it('fuses keyword, vector and metadata retrievers with every sub-score kept', async () => {
    const keyword = new KeywordRetriever();
    const vector = new VectorRetriever({ embedder: new HashingEmbedder() });
    const metadata = new MetadataRetriever();
    const hybrid = new HybridRetriever({ retrievers: [keyword, vector, metadata] });
    await hybrid.index(corpus);
    expect(await hybrid.size()).toBe(4);

    const results = await hybrid.retrieve('لغة برمجة Python', { topK: 3 });
    expect(results[0]!.chunk.id).toBe('ar-python');
    expect(results[0]!.retrievers).toEqual(['keyword', 'vector']);
    expect(results[0]!.scores.keyword).toBeGreaterThan(0);
    expect(results[0]!.scores.vector).toBeGreaterThan(0);

    const filtered = await hybrid.retrieve('Python', { topK: 5, filter: { kind: 'tech', lang: 'ar' } });
    expect(filtered.map((result) => result.chunk.id)).toEqual(['ar-python']);
    expect(filtered[0]!.retrievers).toEqual(['keyword', 'vector', 'metadata']);
    expect(filtered[0]!.scores.metadata).toBe(1);

    await hybrid.remove(['ar']);
    expect(await hybrid.size()).toBe(2);
    expect((await hybrid.retrieve('برمجة Python')).every((result) => result.chunk.docId === 'en')).toBe(true);
  });
});

describe('HybridRetriever: one corpus generation per retrieval (issue 15, defect 9)', () => {
  /** An embedder whose document embeddings wait until `release()` is called. */
  class GatedEmbedder extends HashingEmbedder {
    private gate: Promise<void> | undefined;
    private open: (() => void) | undefined;
    documentCallStarted: Promise<void>;
    private started: (() => void) | undefined;
    constructor() {
      super();
      this.documentCallStarted = new Promise((resolve) => (this.started = resolve));
    }
    hold(): void {
      this.gate = new Promise((resolve) => (this.open = resolve));
    }
    release(): void {
      this.open?.();
      this.gate = undefined;
    }
    override async embed(texts: string[], options?: { kind?: 'query' | 'document' }): Promise<Float32Array[]> {
      if (options?.kind === 'document' && this.gate) {
        this.started?.();
        await this.gate;
      }
      return super.embed(texts, options);
    }
  }

  const base = [toDocumentChunk({ id: 'old', docId: 'old', text: 'an old note about gardening' })];
  const fresh = toDocumentChunk({ id: 'new', docId: 'new', text: 'zebra migration across the savanna' });

  it('a retrieval during an add sees neither sub-retriever change until both have the new chunk', async () => {
    const embedder = new GatedEmbedder();
    const hybrid = new HybridRetriever({ retrievers: [new VectorRetriever({ embedder }), new KeywordRetriever()] });
    await hybrid.index(base);
    embedder.hold();
    const adding = hybrid.add([fresh]);
    await embedder.documentCallStarted;
    // Give the keyword side every chance to finish its part of the write.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const during = await hybrid.retrieve('zebra savanna migration', { topK: 5 });
    // Before the fix the keyword side already held "new" while the vector side did not.
    expect(during.map((hit) => hit.chunk.id)).not.toContain('new');
    embedder.release();
    await adding;
    const after = await hybrid.retrieve('zebra savanna migration', { topK: 5 });
    const hit = after.find((result) => result.chunk.id === 'new');
    expect(hit?.retrievers).toEqual(expect.arrayContaining(['vector', 'keyword']));
    expect(hit?.scores.vector).toBeTypeOf('number');
    expect(hit?.scores.keyword).toBeTypeOf('number');
  });

  it('a retrieval that arrives while a slow sub-retriever commits waits and then sees every sub-retriever new', async () => {
    let finishSlow: () => void = () => {};
    const slowWrite = new Promise<void>((resolve) => (finishSlow = resolve));
    const keyword = new KeywordRetriever();
    await keyword.index(base);
    const slow: Retriever & { chunks: DocumentChunk[] } = {
      name: 'slow',
      chunks: [...base],
      async retrieve() {
        return this.chunks.map((value) => ({ chunk: value, score: 1, scores: { slow: 1 }, retrievers: ['slow'] }));
      },
      async add(chunks: DocumentChunk[]) {
        await slowWrite;
        this.chunks.push(...chunks);
      },
    };
    const hybrid = new HybridRetriever({ retrievers: [slow, keyword] });
    const adding = hybrid.add([fresh]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const reading = hybrid.retrieve('zebra', { topK: 5 });
    let settled = false;
    void reading.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settled).toBe(false);
    finishSlow();
    await adding;
    const results = await reading;
    const hit = results.find((result) => result.chunk.id === 'new');
    expect(hit?.retrievers).toEqual(expect.arrayContaining(['slow', 'keyword']));
  });

  it('keeps writes in call order and a failed write does not block later ones', async () => {
    const embedder = new HashingEmbedder();
    const hybrid = new HybridRetriever({ retrievers: [new VectorRetriever({ embedder }), new KeywordRetriever()] });
    const writes = [hybrid.index(base), hybrid.add([fresh]), hybrid.add([{ docId: '' } as never]).catch((error: unknown) => error), hybrid.remove(['old'])];
    const outcomes = await Promise.all(writes);
    expect(ZerdaError.isInstance(outcomes[2])).toBe(true);
    const results = await hybrid.retrieve('zebra gardening', { topK: 5 });
    expect(results.map((result) => result.chunk.id)).toEqual(['new']);
  });
});
