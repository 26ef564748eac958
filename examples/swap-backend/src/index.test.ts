import { describe, expect, it } from 'vitest';
import { ZerdaError, cosineSimilarity } from '@zerda/context';
import { faissAvailability } from '@zerda/vector-faiss';
import { TrigramHashingEmbedder, backends, queries, runInDatabaseHybrid, runSwapBackendExample, textSearchBackends } from './index.js';

describe('swap-backend example', () => {
  // PGlite compiles PostgreSQL (WASM) and runs initdb on start: seconds, many more on a loaded machine.
  it('gives the same context chunks and the same vector top 3 on memory, HNSW, pgvector, LanceDB (and FAISS where it loads)', { timeout: 180_000 }, async () => {
    const lines: string[] = [];
    const runs = await runSwapBackendExample((line) => lines.push(line));
    expect(runs.map((run) => run.backend)).toEqual(backends.map((backend) => backend.name));
    const expectedStores = ['memory', 'hnswlib', 'pgvector', 'lancedb', ...(faissAvailability().available ? ['faiss'] : [])];
    expect(runs.map((run) => run.storeName)).toEqual(expectedStores);

    const [reference, ...others] = runs;
    queries.forEach(({ query }, i) => {
      const expected = reference!.outcomes[i]!;
      expect(expected.query).toBe(query);
      expect(expected.result.chunks.length).toBeGreaterThan(0);
      for (const run of others) {
        const outcome = run.outcomes[i]!;
        expect(outcome.result.chunks.map((chunk) => chunk.chunk.id), `${run.backend}: ${query}`).toEqual(expected.result.chunks.map((chunk) => chunk.chunk.id));
        expect(outcome.vectorHits.map((hit) => hit.id), `${run.backend}: ${query}`).toEqual(expected.vectorHits.map((hit) => hit.id));
        outcome.vectorHits.forEach((hit, k) => expect(hit.score).toBeCloseTo(expected.vectorHits[k]!.score, 4));
      }
    });

    const [hnsw, arabic, typos, filtered] = reference!.outcomes;
    expect(hnsw!.result.chunks[0]!.chunk.docId).toBe('vectors-en');
    expect(hnsw!.result.chunks[0]!.retrievers).toEqual(expect.arrayContaining(['vector', 'keyword']));
    expect(arabic!.result.chunks[0]!.chunk.docId).toBe('arabic-nlp-ar');
    // Misspelled words: BM25 finds nothing, the 3-gram vectors still find the page.
    expect(typos!.result.chunks[0]!.chunk.docId).toBe('bm25-en');
    expect(typos!.result.chunks.every((chunk) => chunk.retrievers?.join() === 'vector')).toBe(true);
    for (const run of runs) {
      for (const chunk of run.outcomes[3]!.result.chunks) expect(chunk.chunk.metadata.lang).toBe('ar');
    }
    expect(filtered!.result.chunks[0]!.chunk.docId).toBe('vector-db-ar');
    expect(lines.filter((line) => line === 'all backends agree')).toHaveLength(queries.length);
  });

  it("moves keyword search into PostgreSQL and LanceDB with keywordSearch: 'store' and gives the same contexts as the in-memory BM25", { timeout: 180_000 }, async () => {
    const lines: string[] = [];
    const runs = await runInDatabaseHybrid((line) => lines.push(line));
    expect(runs.map((run) => run.backend)).toEqual(textSearchBackends.map((backend) => backend.name));
    expect(runs.map((run) => run.backend)).toEqual(['pgvector', 'lancedb']);
    const reference = (await runSwapBackendExample(() => undefined)).find((run) => run.backend === 'memory')!;
    for (const run of runs) {
      queries.forEach(({ query }, i) => {
        const chunksOf = (outcome: (typeof run.outcomes)[number]) => outcome.result.chunks.map((chunk) => `${chunk.chunk.id} ${[...(chunk.retrievers ?? [])].sort().join('+')}`);
        // Each database keeps its own keyword index (PostgreSQL BM25 over zerda's analysis, LanceDB BM25),
        // and on this corpus the fused contexts are the in-memory ones, chunk for chunk, found by the same retrievers.
        expect(chunksOf(run.outcomes[i]!), `${run.backend}: ${query}`).toEqual(chunksOf(reference.outcomes[i]!));
      });
      const [hnsw, arabic] = run.outcomes;
      expect(hnsw!.result.chunks[0]!.retrievers, run.backend).toEqual(expect.arrayContaining(['vector', 'keyword']));
      expect(arabic!.result.chunks[0]!.chunk.docId, run.backend).toBe('arabic-nlp-ar');
      for (const chunk of run.outcomes[3]!.result.chunks) expect(chunk.chunk.metadata.lang).toBe('ar');
    }
    expect(lines.some((line) => line.includes("keywordSearch: 'store'"))).toBe(true);
  });

  it('embeds deterministically and lexically: typos and Arabic spelling variants stay close', async () => {
    const embedder = new TrigramHashingEmbedder(256);
    const [a, b, c, d, e, f] = await embedder.embed(['normalization', 'normalizaton', 'chocolate cake', 'الاسترجاع', 'الاسْتِرْجَاع', 'الاستـــرجاع']);
    expect(a).toHaveLength(256);
    let norm = 0;
    for (const value of a!) norm += value * value;
    expect(norm).toBeCloseTo(1, 5);
    expect(await embedder.embed(['normalization'])).toEqual([a]);
    expect(cosineSimilarity(a!, b!)).toBeGreaterThan(0.5);
    expect(cosineSimilarity(a!, c!)).toBeLessThan(0.3);
    expect(cosineSimilarity(d!, e!)).toBeCloseTo(1, 6);
    expect(cosineSimilarity(d!, f!)).toBeCloseTo(1, 6);
    expect([...embedder.embedOne('?!')].filter((value) => value !== 0)).toHaveLength(1);
    expect(() => new TrigramHashingEmbedder(1)).toThrow(ZerdaError);
  });
});
