import {
  HybridRetriever,
  KeywordRetriever,
  MetadataRetriever,
  VectorRetriever,
  chunkToLangChainDocument,
  embedTexts,
  evaluateRun,
  langChainDocumentToChunk,
  langChainScoreToSimilarity,
  maximalMarginalRelevance,
  ndcgAtK,
  parseQrels,
  recallAtK,
  reciprocalRankAtK,
  restrict,
  toEmbedder,
} from '@zerda/retriever';
import { toDocumentChunks, type Retriever } from '@zerda/types';
import { FUZZ_CORPUS, chunkList, fuzzEmbedder } from '../fixtures.js';
import type { Generator } from '../generator.js';
import { expect, expectFilterHeld, optionOf, target, type FuzzTarget } from '../target.js';
import { query, scoredChunks } from './core.js';

const corpus = toDocumentChunks(FUZZ_CORPUS);

function retrieveOptions(g: Generator): { options: unknown; filter: unknown; topK: unknown } {
  const options = g.options({ filter: () => g.filter(), topK: () => g.number(0, 20) }, 0.03);
  return { options, filter: optionOf(options, 'filter'), topK: optionOf(options, 'topK') };
}

/** Indexes the corpus plus generated chunks, retrieves, and checks the filter and topK held. */
async function lifecycle(g: Generator, c: { call<T>(entry: () => T | Promise<T>): Promise<T> }, retriever: Retriever, where: string): Promise<void> {
  await c.call(() => retriever.index!(g.chance(0.8) ? [...corpus, ...toDocumentChunks(chunkList(g, 4) as never)] : (chunkList(g) as never)));
  const { options, filter, topK } = retrieveOptions(g);
  const hits = await c.call(() => retriever.retrieve(query(g) as string, options as never));
  expectFilterHeld(hits.map((hit) => hit.chunk), filter, where);
  if (typeof topK === 'number') expect(hits.length <= topK, `${where} returned ${hits.length} hits for topK ${topK}`);
  expect(hits.every((hit) => Number.isFinite(hit.score)), `${where} returned a non-finite score`);
  if (g.chance(0.3)) await c.call(() => retriever.add!(chunkList(g, 3) as never));
  if (g.chance(0.3)) await c.call(() => retriever.remove!(g.chance(0.9) ? [g.pick(['doc-1', 'doc-2', 'doc-9'])] : (g.hostile() as string[])));
}

/** Entry points of @zerda/retriever. */
export const retrieverTargets: FuzzTarget[] = [
  target('retriever.KeywordRetriever', async (g, c) => {
    const retriever = await c.call(() => new KeywordRetriever(g.options({ k1: () => g.pick([0, 1.2, -1, Number.NaN]), b: () => g.pick([0, 0.75, 1, 2]), titleWeight: () => g.pick([0, 1, 3]), analyzer: () => g.options({ stem: () => g.chance(0.5), arabic: () => g.options({ stemmer: () => g.pick(['light', 'snowball']) }) }) }) as never));
    await lifecycle(g, c, retriever, 'KeywordRetriever.retrieve');
    if (g.chance(0.3)) {
      const json = JSON.stringify(retriever.toJSON());
      const damaged = g.chance(0.5) ? json : json.slice(0, g.int(0, json.length)) + g.string(3) + json.slice(g.int(0, json.length));
      await c.call(() => KeywordRetriever.fromJSON(g.chance(0.5) ? damaged : JSON.parse(json)));
    }
  }, 4),
  target('retriever.MetadataRetriever', async (g, c) => {
    const retriever = await c.call(() => new MetadataRetriever(g.options({ name: () => g.pick(['metadata', '', g.hostile()]) }) as never));
    await lifecycle(g, c, retriever, 'MetadataRetriever.retrieve');
    await c.call(() => restrict(corpus, g.filter() as never));
  }, 2),
  target('retriever.VectorRetriever', async (g, c) => {
    const retriever = await c.call(() => new VectorRetriever(g.options({ embedder: () => (g.chance(0.9) ? fuzzEmbedder : g.hostile()), metric: () => g.pick(['cosine', 'ip', 'l2', 'manhattan']), batchSize: () => g.number(1, 64), overFetch: () => g.number(1, 6) }, 0.02) as never));
    await lifecycle(g, c, retriever, 'VectorRetriever.retrieve');
  }, 3),
  target('retriever.HybridRetriever', async (g, c) => {
    const hybrid = await c.call(
      () =>
        new HybridRetriever(
          g.options({
            retrievers: () => (g.chance(0.95) ? [new KeywordRetriever(), new VectorRetriever({ embedder: fuzzEmbedder }), ...(g.chance(0.3) ? [new MetadataRetriever()] : [])] : g.hostile()),
            fusion: () => g.pick(['rrf', 'weighted', 'max']),
            mmr: () => g.options({ lambda: () => g.pick([0, 0.5, 1, 2]), fetchK: () => g.number(1, 30) }),
            weights: () => ({ keyword: g.pick([0, 1, 2]), vector: g.pick([0, 0.15, 1]) }),
          }, 0.02) as never,
        ),
    );
    await lifecycle(g, c, hybrid, 'HybridRetriever.retrieve');
  }, 3),
  target('retriever.mmr+embedders', async (g, c) => {
    // scoredChunks may hand back a hostile value instead of an array: it goes to MMR as it is.
    const raw: unknown = scoredChunks(g);
    const candidates = (Array.isArray(raw) ? raw.map((scored) => (scored && typeof scored === 'object' && scored.chunk && g.chance(0.7) ? { ...scored, chunk: { ...scored.chunk, embedding: Float32Array.from({ length: 4 }, () => g.float()) } } : scored)) : raw) as ReturnType<typeof scoredChunks>;
    const selected = await c.call(() => maximalMarginalRelevance(candidates, g.options({ lambda: () => g.pick([0, 0.5, 1, 1.5]), topK: () => g.number(0, 10) }, 0.03) as never));
    expect(selected.length <= candidates.length, 'MMR selected more candidates than it was given');
    const embedder = await c.call(() => toEmbedder(g.chance(0.8) ? fuzzEmbedder : g.hostile()));
    await c.call(() => embedTexts(embedder, g.chance(0.9) ? g.array(() => g.string(g.int(0, 200)), 5) : (g.hostile() as string[]), g.options({ kind: () => g.pick(['query', 'document', 'other']), batchSize: () => g.number(1, 3) }) as never));
  }),
  target('retriever.evaluation', async (g, c) => {
    const ranked = g.chance(0.9) ? g.array(() => `d${g.int(0, 9)}`, 10) : (g.hostile() as string[]);
    const judgements = new Map(g.array(() => [`d${g.int(0, 9)}`, g.int(0, 3)] as const, 5));
    const k = g.number(0, 10);
    for (const metric of [ndcgAtK, recallAtK, reciprocalRankAtK]) {
      const value = await c.call(() => metric(ranked, judgements, k as number));
      expect(value >= 0 && value <= 1, `${metric.name} outside [0, 1]: ${value}`);
    }
    await c.call(() => evaluateRun(new Map([['q1', ranked]]), new Map([['q1', judgements]])));
    await c.call(() => parseQrels(g.chance(0.5) ? 'q1\td1\t1\nq1\td2\t0\n' : (g.text() as string)));
  }),
  target('retriever.langchain-mapping', async (g, c) => {
    const chunk = g.chance(0.8) ? g.pick(corpus) : (g.hostile() as never);
    const document = await c.call(() => chunkToLangChainDocument(chunk));
    await c.call(() => langChainDocumentToChunk(g.chance(0.8) ? document : (g.hostile() as never)));
    await c.call(() => langChainScoreToSimilarity(g.pick(['similarity', 'cosine-distance', 'l2-distance', 'ip', 'bogus']) as never, g.number(-2, 5) as number));
  }),
];
