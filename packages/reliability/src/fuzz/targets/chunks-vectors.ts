import { ArabicTextChunker, ContextAwareChunker, RecursiveChunker, StructureAwareChunker, parseMarkdownBlocks, resolveChunkConfig, stableDocumentId } from '@zerda/chunks';
import { TransformersEmbedder, findModelFiles } from '@zerda/embeddings';
import { charCounter, wordCounter } from '@zerda/text';
import { toDocumentChunks, type DocumentChunk, type VectorStore } from '@zerda/types';
import { translateWhere, toChromaMetadata, fromChromaRecord } from '@zerda/vector-chroma';
import { HnswVectorStore } from '@zerda/vector-hnswlib';
import { compileFilter as compileLanceFilter, filterColumnsOf, sqlString } from '@zerda/vector-lancedb';
import { MemoryVectorStore } from '@zerda/vector-memory';
import { checkIdentifier, compileFilter as compilePgFilter, fromVectorLiteral, toVectorLiteral } from '@zerda/vector-pgvector';
import { PineconeVectorStore, fromPineconeRecord, toPineconeMetadata, translateFilter } from '@zerda/vector-pinecone';
import { FUZZ_CORPUS, FUZZ_DIMENSIONS, fuzzEmbedder } from '../fixtures.js';
import type { Generator } from '../generator.js';
import { expect, expectFilterHeld, expectOffsets, expectWithinBudget, optionOf, target, type FuzzContext, type FuzzTarget } from '../target.js';

const embedded = await fuzzEmbedder.embed(FUZZ_CORPUS.map((chunk) => chunk.text));
const corpus: DocumentChunk[] = toDocumentChunks(FUZZ_CORPUS).map((chunk, index) => ({ ...chunk, embedding: embedded[index]! }));

function chunkConfig(g: Generator): unknown {
  return g.options({
    size: () => g.number(1, 2000),
    overlap: () => g.number(0, 200),
    minChunkSize: () => g.number(0, 100),
    unit: () => g.pick(['chars', 'words', 'tokens']),
    counter: () => g.pick<unknown>([charCounter, wordCounter, 5]),
  });
}

function vector(g: Generator, dimensions = FUZZ_DIMENSIONS): unknown {
  if (g.chance(0.04)) return g.hostile();
  const length = g.chance(0.95) ? dimensions : g.int(0, dimensions + 2);
  return Float32Array.from({ length }, () => (g.chance(0.99) ? g.float() * 2 - 1 : Number.NaN));
}

/** Adds the corpus and generated chunks, searches with a generated vector and filter, checks k and the filter. */
async function storeLifecycle(g: Generator, c: FuzzContext, store: VectorStore, where: string): Promise<void> {
  const generated = g.array((i = 0) => ({ id: `g${g.int(0, 50)}`, docId: `doc-${g.int(0, 9)}`, text: g.string(g.int(0, 200)), source: 'gen', metadata: (g.metadata() ?? {}) as never, position: { index: i }, embedding: vector(g) as Float32Array }), 4);
  await c.call(() => store.add(g.chance(0.9) ? [...corpus, ...generated] : (g.hostile() as DocumentChunk[])));
  const options = g.options({ k: () => g.number(0, 20), filter: () => g.filter() }, 0.02);
  const hits = await c.call(() => store.search(vector(g) as Float32Array, options as never));
  expectFilterHeld(hits.map((hit) => hit.chunk), optionOf(options, 'filter'), where);
  const k = optionOf(options, 'k');
  if (typeof k === 'number') expect(hits.length <= k, `${where} returned more than k hits`);
  expect(hits.every((hit, i) => i === 0 || hit.score <= hits[i - 1]!.score + 1e-6), `${where} hits are not sorted best first`);
  if (g.chance(0.3)) await c.call(() => store.delete(g.chance(0.9) ? ['doc-1#0', 'g1'] : (g.hostile() as string[])));
  if (g.chance(0.2) && store.deleteByDocIds) await c.call(() => store.deleteByDocIds!(['doc-2']));
  await c.call(() => store.count());
}

/** Entry points of @zerda/chunks, @zerda/embeddings and the vector store packages (those that run in process). */
export const chunkAndVectorTargets: FuzzTarget[] = [
  target('chunks.chunkers', async (g, c) => {
    const Chunker = g.pick([RecursiveChunker, StructureAwareChunker, ArabicTextChunker]);
    const config = chunkConfig(g);
    const chunker = await c.call(() => new Chunker(config as never));
    const text = g.text();
    const options = g.chance(0.2) ? g.word() : g.options({ docId: () => g.pick(['d', '', g.hostile()]), source: () => g.word(), metadata: () => g.metadata(), title: () => g.word() });
    const chunks = await c.call(() => chunker.chunk(text as string, options as never));
    expectOffsets(text as string, chunks.map((chunk) => ({ start: chunk.position.start, end: chunk.position.end, text: chunk.text })), `${Chunker.name}.chunk`);
    for (const chunk of chunks) if (chunk.metadata.oversize !== true) expectWithinBudget(chunk.text, chunker.config.size, chunker.config.counter, `${Chunker.name} chunk size`);
    await c.call(() => resolveChunkConfig(config as never));
    await c.call(() => stableDocumentId(text as string));
  }, 4),
  target('chunks.parseMarkdownBlocks', async (g, c) => {
    const text = g.text();
    const blocks = await c.call(() => parseMarkdownBlocks(text as string));
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]!.start >= blocks[i - 1]!.end, 'Markdown blocks overlap');
  }, 2),
  target('chunks.ContextAwareChunker', async (g, c) => {
    const chunker = await c.call(() => new ContextAwareChunker(g.options({ embedder: () => (g.chance(0.9) ? fuzzEmbedder : g.hostile()), size: () => g.number(50, 1000), breakpointPercentile: () => g.pick([0, 25, 100, 150]), bufferSize: () => g.number(0, 3) }, 0.02) as never));
    const text = g.chance(0.9) ? g.string(g.int(0, 3000)) : g.text();
    const chunks = await c.call(() => chunker.chunk(text as string, { docId: 'd' }));
    expectOffsets(text as string, chunks.map((chunk) => ({ start: chunk.position.start, end: chunk.position.end, text: chunk.text })), 'ContextAwareChunker.chunk');
  }),
  target('vector-memory.MemoryVectorStore', async (g, c) => {
    const store = await c.call(() => new MemoryVectorStore(g.options({ metric: () => g.pick(['cosine', 'ip', 'l2', 'dot']), dimensions: () => g.pick([FUZZ_DIMENSIONS, 0, -1, 3]) }) as never));
    await storeLifecycle(g, c, store, 'MemoryVectorStore.search');
    if (g.chance(0.2)) await c.call(() => MemoryVectorStore.fromJSON(g.chance(0.7) ? store.toJSON() : g.hostile()));
  }, 3),
  target('vector-hnswlib.HnswVectorStore', async (g, c) => {
    const store = await c.call(() => new HnswVectorStore(g.options({ dimensions: () => g.pick([FUZZ_DIMENSIONS, 0, 3.5]), metric: () => g.pick(['cosine', 'ip', 'l2', 'dot']), M: () => g.number(2, 64), efSearch: () => g.number(1, 200), maxElements: () => g.number(1, 100) }) as never));
    await storeLifecycle(g, c, store, 'HnswVectorStore.search');
  }, 2),
  target('vector-pgvector.helpers', async (g, c) => {
    const filter = g.filter();
    const parameters: unknown[] = [];
    const sql = await c.call(() => compilePgFilter(filter as never, parameters, { metadata: 'metadata', docId: 'doc_id', source: 'source' }));
    // Keys and values only ever travel as bind parameters.
    // The only quoted literals are the compiler's own (type names, the UTF-16 order key's constants).
    expect(!/'/.test(sql.replace(/'(?:number|string|UTF8|hex|\(\.\.\)| \\1|g| ee| f5| ef| f6)'/g, '')), 'pgvector compileFilter put a quoted literal into the SQL text');
    await c.call(() => checkIdentifier(g.text(), 'table'));
    const literal = await c.call(() => toVectorLiteral(vector(g) as Float32Array));
    await c.call(() => fromVectorLiteral(g.chance(0.7) ? literal : g.text()));
  }, 2),
  target('vector-lancedb.helpers', async (g, c) => {
    await c.call(() => compileLanceFilter(g.filter() as never));
    await c.call(() => filterColumnsOf(g.metadata() as never));
    const value = g.text();
    const quoted = await c.call(() => sqlString(value as string));
    expect(quoted.startsWith("'") && quoted.endsWith("'"), 'sqlString did not quote');
  }, 2),
  target('vector-chroma.helpers', async (g, c) => {
    await c.call(() => translateWhere(g.filter() as never));
    const chunk = g.chance(0.8) ? { ...g.pick(corpus), metadata: (g.metadata() ?? {}) as never } : (g.hostile() as DocumentChunk);
    const metadata = await c.call(() => toChromaMetadata(chunk));
    await c.call(() => fromChromaRecord(g.word(), g.chance(0.8) ? chunk.text : (g.hostile() as string), g.chance(0.8) ? metadata : (g.hostile() as never), null, 'chroma'));
  }, 2),
  target('vector-pinecone.helpers', async (g, c) => {
    await c.call(() => translateFilter(g.filter() as never));
    const chunk = g.chance(0.8) ? { ...g.pick(corpus), metadata: (g.metadata() ?? {}) as never } : (g.hostile() as DocumentChunk);
    const metadata = await c.call(() => toPineconeMetadata(chunk));
    await c.call(() => fromPineconeRecord(g.word(), g.chance(0.8) ? (metadata as never) : (g.hostile() as never), undefined, 'pinecone'));
    await c.call(() => new PineconeVectorStore(g.options({ index: () => g.hostile(), namespace: () => g.word(), metric: () => g.pick(['cosine', 'ip', 'hamming']) }, 0.02) as never));
  }, 2),
  target('embeddings.TransformersEmbedder', async (g, c) => {
    const embedder = await c.call(() => new TransformersEmbedder(g.options({ modelId: () => g.pick(['Xenova/all-MiniLM-L6-v2', '', g.text()]), batchSize: () => g.number(0, 5000), pooling: () => g.pick(['mean', 'cls', 'max']), quantized: () => g.chance(0.5), queryPrefix: () => g.text() }, 0.02) as never));
    // Only inputs that fail validation or need no model: no model hub here, and loading one is not the fuzz's business.
    await c.call(() => embedder.embed(g.chance(0.5) ? [] : (g.pick<unknown>([g.hostile(), [1, 'a'], [g.hostile()], 'text']) as string[]), g.options({ kind: () => g.pick(['query', 'document', 'other']) }) as never));
    const search = { modelId: g.chance(0.9) ? g.word() : g.hostile(), localModelPath: '/nonexistent/models', cacheDir: '/nonexistent/cache', allowLocalModels: g.chance(0.5), revision: 'main', files: g.chance(0.9) ? ['tokenizer.json', 'onnx/model_quantized.onnx'] : g.hostile() };
    await c.call(() => findModelFiles(search as never));
  }),
];
