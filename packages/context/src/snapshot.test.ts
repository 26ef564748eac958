import { mkdtemp, readFile, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fnv1a } from '@zerda/text';
import { CompositeRanker } from '@zerda/context-core';
import { ZerdaError, type ContextResult, type DocumentChunk, type DocumentChunkInput, type Embedder, type Embedding, type VectorSearchOptions, type VectorStore } from '@zerda/types';
import { MemoryVectorStore } from '@zerda/vector-memory';
import { HnswVectorStore } from '@zerda/vector-hnswlib';
import { snapshotDirectoryLeftovers } from '@zerda/persistence/testing';
import { ContextEngine } from './engine.js';
import { corpus } from './__fixtures__/corpus.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'zerda-engine-snapshot-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
let counter = 0;
const fresh = (name: string) => join(root, `${name}-${counter++}`);

/** A deterministic embedder: words hashed into buckets, normalised. */
class HashEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  constructor(
    readonly dimensions = 24,
    readonly modelId = 'hash-test',
  ) {}
  async embed(texts: string[]): Promise<Embedding[]> {
    return texts.map((text) => {
      const vector = new Float32Array(this.dimensions);
      for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)) vector[fnv1a(word) % this.dimensions]! += 1;
      vector[0]! += 0.01;
      return vector;
    });
  }
}

/** What a run returns that must not change when the engine is reopened. */
function essence(result: ContextResult) {
  return { context: result.context, ids: result.chunks.map((used) => used.chunk.id), effectiveQuery: result.effectiveQuery, counts: result.counts, guardPassed: result.guardPassed };
}

async function expectSameAnswers(saved: ContextEngine, opened: ContextEngine, queries: string[], options: Parameters<ContextEngine['run']>[1] = {}) {
  for (const query of queries) {
    for (const runOptions of [options, { ...options, metadataFilters: { lang: 'ar' } }]) {
      expect(essence(await opened.run(query, runOptions)), query).toEqual(essence(await saved.run(query, runOptions)));
    }
  }
}

const queries = ['What is retrieval-augmented generation?', 'ما هو التوليد المعزز بالاسترجاع؟', 'BM25 keyword search', 'vector البحث', 'nothing matches this'];

async function rejection(promise: Promise<unknown>): Promise<ZerdaError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ZerdaError.isInstance(error), `expected a ZerdaError, got ${String(error)}`).toBe(true);
  return error as ZerdaError;
}

async function generationOf(directory: string): Promise<string> {
  return (JSON.parse(await readFile(join(directory, 'CURRENT'), 'utf8')) as { generation: string }).generation;
}

describe('engine.save / ContextEngine.open', () => {
  const words = ['retrieval', 'generation', 'vector', 'search', 'model', 'المكتبة', 'الكتب', 'الاسترجاع', 'التوليد', 'البحث', 'النموذج', 'garden', 'roses', 'مياه', 'نهر'];
  const chunkArbitrary = fc.record({
    doc: fc.integer({ min: 0, max: 5 }),
    words: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 30 }),
    title: fc.option(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }), { nil: undefined }),
  });

  it('an opened engine answers every query exactly like the saved one (random Arabic/English corpora, keyword-only and hybrid)', { timeout: 240_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(chunkArbitrary, { minLength: 1, maxLength: 25 }),
        fc.array(fc.array(fc.constantFrom(...words, 'and', 'what', 'ما'), { minLength: 1, maxLength: 5 }).map((query) => query.join(' ')), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.array(chunkArbitrary, { maxLength: 5 }),
        async (inputs, runQueries, hybrid, added) => {
          const toChunk = (input: (typeof inputs)[number], index: number, prefix: string): DocumentChunkInput => ({
            id: `${prefix}${index}`,
            docId: `doc${input.doc}`,
            text: input.words.join(' '),
            ...(input.title ? { title: input.title.join(' ') } : {}),
            metadata: { lang: /[\u0600-\u06ff]/.test(input.words[0]!) ? 'ar' : 'en' },
          });
          const embedder = new HashEmbedder();
          const saved = new ContextEngine(hybrid ? { embedder } : {});
          await saved.index(inputs.map((input, index) => toChunk(input, index, 'c')), { sourceQualityMap: { doc1: 0.2 } });
          await saved.add(added.map((input, index) => toChunk(input, index, 'added')));
          await saved.remove(['doc2']);
          const directory = fresh('property');
          await saved.save(directory);
          const opened = await ContextEngine.open(directory, hybrid ? { embedder: new HashEmbedder() } : {});
          expect(opened.size).toBe(saved.size);
          await expectSameAnswers(saved, opened, runQueries, { useHistory: false, recordTurn: false });
        },
      ),
      { numRuns: 30 },
    );
  });

  it('restores the configuration, source quality, corpus generation and (when asked) the conversation history', async () => {
    const saved = new ContextEngine({ config: { composer: { maxContextLength: 700, template: 'citations' }, retrieval: { bm25: { k1: 1.6 } } } });
    await saved.index(corpus, { sourceQualityMap: { 'handbook/rag.md': 0.9 } });
    await saved.run('What is retrieval-augmented generation?');
    await saved.run('ما هو التوليد المعزز بالاسترجاع؟');
    const directory = fresh('state');
    const info = await saved.save(directory, { history: true });
    expect(info).toMatchObject({ directory, chunks: saved.size, corpusGeneration: 1 });
    const opened = await ContextEngine.open(directory);
    expect(opened.config).toEqual(saved.config);
    expect(opened.getPerformanceReport().corpus).toEqual(saved.getPerformanceReport().corpus);
    expect(opened.getHistory()?.toJSON()).toEqual(saved.getHistory()?.toJSON());
    // A follow-up is enriched by the restored history exactly as by the original one.
    await expectSameAnswers(saved, opened, ['and what about it?', 'وما فوائده؟']);
    // Without { history: true } the history stays out.
    await saved.save(directory);
    expect((await ContextEngine.open(directory)).getHistory()?.size).toBe(0);
    // Configuration may be overridden when opening, except what shaped the index.
    expect((await ContextEngine.open(directory, { config: { composer: { maxContextLength: 300 } } })).config.composer).toMatchObject({ maxContextLength: 300, template: 'citations' });
    expect((await rejection(ContextEngine.open(directory, { config: { retrieval: { bm25: { k1: 1.2 } } } }))).message).toMatch(/options\.config\.retrieval\.bm25\.k1 must be 1\.6, the value the snapshot's keyword index was built with/);
  });

  it('keyword + HNSW: the graph goes into the snapshot and an empty HnswVectorStore is filled from it', async () => {
    const saved = new ContextEngine();
    await saved.index(corpus, { embedder: new HashEmbedder(), vectorDb: new HnswVectorStore({ M: 8 }) });
    const directory = fresh('hnsw');
    await saved.save(directory);
    const generation = await generationOf(directory);
    const files = (await readdir(join(directory, generation, 'retriever', 'retrievers', '0', 'store', 'graph'))).sort();
    expect(files).toEqual(['index.hnsw']);
    const opened = await ContextEngine.open(directory, { embedder: new HashEmbedder(), vectorDb: new HnswVectorStore() });
    await expectSameAnswers(saved, opened, queries);
    expect((await rejection(ContextEngine.open(directory, { embedder: new HashEmbedder() }))).message).toMatch(/options\.vectorDb must be the vector store the snapshot was saved with \(hnswlib\): an empty one of that kind/);
    expect((await rejection(ContextEngine.open(directory, { embedder: new HashEmbedder(), vectorDb: new MemoryVectorStore() }))).message).toMatch(/options\.vectorDb must be an empty hnswlib store/);
  });

  it('refuses a mismatched embedder, a missing one, and a missing custom strategy, naming the option', async () => {
    const ranker = new CompositeRanker();
    const saved = new ContextEngine({ ranker, template: function shortTemplate(chunks) { return chunks.map((chunk) => chunk.text).join(' | '); } });
    await saved.index(corpus, { embedder: new HashEmbedder(24, 'model-a') });
    const directory = fresh('mismatch');
    await saved.save(directory);
    const base = { ranker, template: saved['template'] as never };
    expect((await rejection(ContextEngine.open(directory, { ...base, embedder: new HashEmbedder(24, 'model-b') }))).message).toMatch(/options\.embedder must be the model the snapshot's vectors were made with, model-a \(24 dimensions\), got model-b/);
    expect((await rejection(ContextEngine.open(directory, { ...base, embedder: new HashEmbedder(16, 'model-a') }))).details.field).toBe('options.embedder');
    expect((await rejection(ContextEngine.open(directory, base))).message).toMatch(/options\.embedder must be an embedder for model-a/);
    expect((await rejection(ContextEngine.open(directory, { template: base.template, embedder: new HashEmbedder(24, 'model-a') }))).message).toMatch(/options\.ranker must be the custom ranker the snapshot was saved with \(CompositeRanker\)/);
    expect((await rejection(ContextEngine.open(directory, { ranker, embedder: new HashEmbedder(24, 'model-a') }))).message).toMatch(/options\.template must be the custom template function the snapshot was saved with \(shortTemplate\)/);
    const opened = await ContextEngine.open(directory, { ...base, embedder: new HashEmbedder(24, 'model-a') });
    await expectSameAnswers(saved, opened, queries);
  });

  it('records a database store by identity and needs it back, unchanged', async () => {
    class DatabaseStore implements VectorStore {
      readonly specificationVersion = 'v1' as const;
      readonly name = 'fake-db';
      readonly metric = 'cosine' as const;
      readonly capabilities = { persistence: true, nativeFilter: true, textSearch: false, embeds: false };
      readonly inner = new MemoryVectorStore();
      constructor(readonly location: string) {}
      get dimensions() {
        return this.inner.dimensions;
      }
      add = (chunks: DocumentChunk[]) => this.inner.add(chunks);
      search = (vector: Embedding, options: VectorSearchOptions) => this.inner.search(vector, options);
      delete = (ids: string[]) => this.inner.delete(ids);
      deleteByDocIds = (ids: string[]) => this.inner.deleteByDocIds(ids);
      clear = () => this.inner.clear();
      count = () => this.inner.count();
    }
    const database = new DatabaseStore('"public"."chunks"');
    const saved = new ContextEngine();
    await saved.index(corpus, { embedder: new HashEmbedder(), vectorDb: database });
    const directory = fresh('database');
    await saved.save(directory);
    const opened = await ContextEngine.open(directory, { embedder: new HashEmbedder(), vectorDb: database });
    await expectSameAnswers(saved, opened, queries);
    expect((await rejection(ContextEngine.open(directory, { embedder: new HashEmbedder() }))).message).toMatch(/options\.vectorDb must be the vector store the snapshot was saved with \(fake-db "public"\."chunks"\): a database keeps its own data/);
    expect((await rejection(ContextEngine.open(directory, { embedder: new HashEmbedder(), vectorDb: new DatabaseStore('"public"."other"') }))).message).toMatch(
      /options\.vectorDb must be the store the snapshot was saved with: fake-db "public"\."chunks" \(cosine, 24 dimensions, \d+ chunks\)/,
    );
  });

  it('a save after add/remove replaces the snapshot with the new state and leaves one generation', async () => {
    const engine = new ContextEngine({ embedder: new HashEmbedder() });
    await engine.index(corpus);
    const directory = fresh('incremental');
    await engine.save(directory);
    const first = await generationOf(directory);
    await engine.add([{ docId: 'new', text: 'A new document about vector search and البحث', metadata: { lang: 'en' } }]);
    await engine.remove([String(corpus[0]!.docId)]);
    await engine.save(directory);
    expect(await generationOf(directory)).not.toBe(first);
    expect(await snapshotDirectoryLeftovers(directory)).toEqual([]);
    const opened = await ContextEngine.open(directory, { embedder: new HashEmbedder() });
    expect(opened.size).toBe(engine.size);
    await expectSameAnswers(engine, opened, [...queries, 'new document']);
  });

  it('a save while runs and writes are in flight holds one corpus generation; concurrent saves to one directory wait their turn', async () => {
    const engine = new ContextEngine({ embedder: new HashEmbedder() });
    await engine.index(corpus);
    const extra = (batch: number) => Array.from({ length: 20 }, (_, index) => ({ id: `x${batch}-${index}`, docId: `x${batch}`, text: `extra batch ${batch} text ${index} vector search`, metadata: { lang: 'en' } }));
    const directory = fresh('concurrent');
    const work: Array<Promise<unknown>> = [];
    const saves: Array<Promise<Awaited<ReturnType<ContextEngine['save']>>>> = [];
    for (let round = 0; round < 4; round++) {
      work.push(engine.add(extra(round)));
      work.push(engine.run(`batch ${round} vector`));
      if (round % 2 === 1) work.push(engine.remove([`x${round - 1}`]));
      saves.push(engine.save(directory));
      work.push(engine.run(`extra batch ${round}`));
    }
    const infos = await Promise.all(saves);
    await Promise.all(work);
    // Saves complete in call order, each after the writes issued before it.
    expect(infos.map((info) => info.corpusGeneration)).toEqual([2, 4, 5, 7]);
    expect(infos.map((info) => info.chunks)).toEqual([corpus.length + 20, corpus.length + 20, corpus.length + 40, corpus.length + 40]);
    const opened = await ContextEngine.open(directory, { embedder: new HashEmbedder() });
    expect(opened.getPerformanceReport().corpus).toEqual({ chunks: engine.size, generation: 7 });
    await expectSameAnswers(engine, opened, ['extra batch 3', 'vector search']);
  });

  it('an empty engine and an engine with an injected retriever save and open', async () => {
    const empty = fresh('empty');
    await new ContextEngine({ config: { composer: { maxContextLength: 123 } } }).save(empty);
    const opened = await ContextEngine.open(empty);
    expect([opened.size, opened.config.composer.maxContextLength]).toEqual([0, 123]);
    expect((await opened.run('anything')).context).toBe('');

    const { KeywordRetriever } = await import('@zerda/retriever');
    const injected = new ContextEngine({ retriever: new KeywordRetriever({ name: 'mine' }) });
    await injected.index(corpus);
    const directory = fresh('injected');
    await injected.save(directory);
    expect((await rejection(ContextEngine.open(directory))).message).toMatch(/options\.retriever must be the retriever the snapshot was saved with \("mine"\)/);
    const reopened = await ContextEngine.open(directory, { retriever: new KeywordRetriever({ name: 'mine' }) });
    await expectSameAnswers(injected, reopened, queries);
  });

  it('validates its arguments', async () => {
    const engine = new ContextEngine();
    expect((await rejection(engine.save(''))).message).toMatch(/directory must be a non-empty directory path/);
    expect((await rejection(engine.save(fresh('x'), { histroy: true } as never))).message).toMatch(/histroy/);
    expect((await rejection(ContextEngine.open(42))).message).toMatch(/directory must be a non-empty directory path, got number 42/);
    expect((await rejection(ContextEngine.open(fresh('x'), { vectorDB: 1 } as never))).message).toMatch(/vectorDB/);
    expect(await rejection(ContextEngine.open(fresh('nothing')))).toMatchObject({ code: 'ZERDA_CORRUPT_SNAPSHOT', details: { file: 'CURRENT', check: 'exists' } });
  });
});

describe('corrupted snapshots are refused, naming the file and the check', () => {
  let directory: string;
  let generation: string;
  let files: string[];
  beforeAll(async () => {
    directory = fresh('pristine');
    const engine = new ContextEngine({ embedder: new HashEmbedder() });
    await engine.index(corpus);
    await engine.save(directory, { history: true });
    generation = await generationOf(directory);
    files = (JSON.parse(await readFile(join(directory, generation, 'manifest.json'), 'utf8')) as { files: Array<{ name: string }> }).files.map((file) => file.name);
  });

  async function damaged(change: (copy: string) => Promise<void>): Promise<ZerdaError> {
    const copy = fresh('damaged');
    const { cp } = await import('node:fs/promises');
    await cp(directory, copy, { recursive: true });
    await change(copy);
    return rejection(ContextEngine.open(copy, { embedder: new HashEmbedder() }));
  }

  it('a flipped byte in any file', { timeout: 180_000 }, async () => {
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const error = await damaged(async (copy) => {
        const path = join(copy, generation, file);
        const bytes = await readFile(path);
        if (bytes.length === 0) await writeFile(path, 'x');
        else {
          bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0x04;
          await writeFile(path, bytes);
        }
      });
      expect(error, file).toMatchObject({ code: 'ZERDA_CORRUPT_SNAPSHOT', details: { file, check: (await stat(join(directory, generation, file))).size === 0 ? 'size' : 'sha256' } });
      expect(error.message).toContain(file);
    }
  });

  it('a truncated file, a missing file, an edited manifest, a broken pointer', async () => {
    expect(await damaged((copy) => truncate(join(copy, generation, 'retriever/retrievers/1/index/chunk-offsets.u16'), 8))).toMatchObject({ details: { file: 'retriever/retrievers/1/index/chunk-offsets.u16', check: 'size' } });
    expect(await damaged((copy) => rm(join(copy, generation, 'engine.json')))).toMatchObject({ details: { file: 'engine.json', check: 'exists' } });
    const edited = await damaged(async (copy) => {
      const path = join(copy, generation, 'manifest.json');
      await writeFile(path, (await readFile(path, 'utf8')).replace(/"createdAt": "[^"]+"/, '"createdAt": "2000-01-01T00:00:00.000Z"'));
    });
    expect(edited).toMatchObject({ details: { file: 'manifest.json', check: 'sha256' } });
    expect(await damaged((copy) => writeFile(join(copy, 'CURRENT'), '{"format":"zerda-snapshot-pointer","version":1,"generation":"g-000000000-00000000"}'))).toMatchObject({ details: { file: 'CURRENT', check: 'pointer' } });
  });

  it('a snapshot of another format version says which version is needed', async () => {
    const { writeSnapshotDirectory } = await import('@zerda/persistence');
    const future = fresh('future');
    await writeSnapshotDirectory(future, { format: 'zerda-engine-snapshot', formatVersion: 7, producer: 'zerda 9', zerdaVersion: '9.0.0' }, async () => undefined);
    const error = await rejection(ContextEngine.open(future));
    expect(error).toMatchObject({ code: 'ZERDA_CORRUPT_SNAPSHOT', details: { check: 'version' } });
    expect(error.message).toMatch(/format version 7 by zerda 9\.0\.0; @zerda\/context [^ ]+ reads version 1: a newer zerda that reads format version 7 is needed/);
  });
});
