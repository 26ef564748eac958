import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DocumentChunk } from '@zerda/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueCollection } from './__fixtures__/databases.js';
import { SERVER_SKIP_REASON, SERVER_URL, serverPool } from './__fixtures__/server.js';
import { PgVectorStore } from './pgvector-vector-store.js';

// Many application instances, one database: two ContextEngines in two Node processes share one
// table (vectors and the BM25 keyword index in PostgreSQL, keywordSearch: 'store'). Each writes its
// own half of a corpus, concurrently; both must see the other's writes (and removals), and answer
// the same query with the same context, byte for byte.
const ENGINE_PROCESS = fileURLToPath(new URL('./__fixtures__/engine-process.mjs', import.meta.url));

class Instance {
  private next = 0;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  readonly child: ChildProcess;

  constructor() {
    this.child = fork(ENGINE_PROCESS, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (message: { id: number; ok: boolean; value?: unknown; error?: string }) => {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.ok) waiting?.resolve(message.value);
      else waiting?.reject(new Error(message.error));
    });
    this.child.on('exit', (code) => {
      for (const waiting of this.pending.values()) waiting.reject(new Error(`engine process exited (${code})`));
      this.pending.clear();
    });
  }

  call<T>(op: string, payload: Record<string, unknown> = {}): Promise<T> {
    const id = ++this.next;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.child.send({ id, op, ...payload });
    });
  }
}

const corpus: DocumentChunk[] = [
  ['rag', 'Retrieval-augmented generation gives a language model the documents it needs at question time.', 'en', 'RAG'],
  ['bm25', 'BM25 ranks documents by term frequency, inverse document frequency and document length.', 'en', 'BM25'],
  ['hnsw', 'HNSW graphs find approximate nearest neighbours of an embedding in logarithmic time.', 'en', 'HNSW'],
  ['pg', 'PostgreSQL with pgvector keeps vectors and text in one database that many servers share.', 'en', 'pgvector'],
  ['rag-ar', 'التوليد المعزز بالاسترجاع يمنح النموذج اللغوي الوثائق التي يحتاجها وقت السؤال.', 'ar', 'الاسترجاع'],
  ['bm25-ar', 'يرتب BM25 الوثائق حسب تكرار المصطلح وندرته في المجموعة وطول الوثيقة.', 'ar', 'الترتيب'],
  ['library-ar', 'افتتحت المكتبة العامة في المدينة قسماً جديداً للأطفال وتضم آلاف الكتب.', 'ar', 'المكتبات'],
  ['library', 'The city library opened a new children section with thousands of books.', 'en', 'Libraries'],
].map(([docId, text, lang, title]) => ({ id: `${docId}#0`, docId: docId!, text: text!, title: title!, source: `${docId}.md`, metadata: { lang: lang! }, position: { index: 0 } }));

const queries = ['how does BM25 rank documents?', 'ما هو التوليد المعزز بالاسترجاع؟', 'مكتبة الأطفال', 'vector database shared by many servers', 'nearest neighbour graph'];

describe.skipIf(!SERVER_URL)(`two engines in two processes on one PostgreSQL table${SERVER_SKIP_REASON ? ` (${SERVER_SKIP_REASON})` : ''}`, () => {
  const collection = uniqueCollection('shared');
  let first: Instance;
  let second: Instance;

  beforeAll(async () => {
    first = new Instance();
    second = new Instance();
    const [a, b] = await Promise.all([first.call<{ pid: number }>('open', { url: SERVER_URL, collection }), second.call<{ pid: number }>('open', { url: SERVER_URL, collection })]);
    expect(a.pid).not.toBe(b.pid);
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled([first?.call('close'), second?.call('close')]);
    first?.child.kill();
    second?.child.kill();
    const pool = serverPool(1);
    await new PgVectorStore({ connection: pool, collection }).drop().catch(() => undefined);
    await pool.end();
  });

  it('each sees the chunks the other wrote, and both give the same context for the same query', async () => {
    // Written concurrently, one half by each process.
    await Promise.all([first.call('write', { chunks: corpus.filter((_, i) => i % 2 === 0) }), second.call('write', { chunks: corpus.filter((_, i) => i % 2 === 1) })]);
    for (const query of queries) {
      const [a, b] = await Promise.all([first.call<{ context: string; ids: string[] }>('run', { query }), second.call<{ context: string; ids: string[] }>('run', { query })]);
      expect(a.ids.length, `${query}: ${JSON.stringify(a)}`).toBeGreaterThan(0);
      expect(b.context, query).toBe(a.context);
      expect(b.ids, query).toEqual(a.ids);
    }
    // A chunk written by the second process is found by the first, through both retrievers.
    const fromSecond = await first.call<{ ids: string[]; retrievers: string[][] }>('run', { query: 'How does BM25 rank documents by term frequency?' });
    expect(fromSecond.ids[0]).toBe('bm25#0');
    expect(fromSecond.retrievers[0]!.sort()).toEqual(['keyword', 'vector']);
    const arabic = await second.call<{ ids: string[] }>('run', { query: 'المكتبات العامة للأطفال', filter: { lang: 'ar' } });
    expect(arabic.ids[0]).toBe('library-ar#0');
  }, 60_000);

  it('a removal by one instance is seen by the other at its next query', async () => {
    await second.call('remove', { docIds: ['bm25'] });
    const after = await first.call<{ ids: string[] }>('run', { query: 'How does BM25 rank documents by term frequency?' });
    expect(after.ids).not.toContain('bm25#0');
    const [a, b] = await Promise.all([first.call<{ context: string }>('run', { query: queries[0] }), second.call<{ context: string }>('run', { query: queries[0] })]);
    expect(b.context).toBe(a.context);
  }, 60_000);
});
