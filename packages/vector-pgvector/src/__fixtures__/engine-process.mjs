// One application instance for server-processes.test.ts: a ContextEngine whose vectors and keyword
// index live in one shared PostgreSQL table (keywordSearch: 'store'). It runs in a Node process of
// its own and obeys the parent's messages: { op: 'open' | 'write' | 'remove' | 'run' | 'close', … }.
// Writes go to the shared table through the store (embedded here); the engine is attached to the
// table without writing (addToVectorDb: false), so no instance replaces what the others wrote.
import { ContextEngine } from '@zerda/context';
import { Analyzer, fnv1a } from '@zerda/text';
import { createNodePostgresStore } from '@zerda/vector-pgvector';

const DIMENSIONS = 64;
const analyzer = new Analyzer();

/** A deterministic bag-of-terms embedder: both processes embed alike without any model. */
const embedder = {
  specificationVersion: 'v1',
  modelId: 'hashing-64',
  dimensions: DIMENSIONS,
  async embed(texts) {
    return texts.map((text) => {
      const vector = new Float32Array(DIMENSIONS);
      for (const term of analyzer.analyze(text)) vector[fnv1a(term) % DIMENSIONS] += 1;
      const norm = Math.hypot(...vector) || 1;
      if (norm === 1 && vector.every((value) => value === 0)) vector[0] = 1;
      return vector.map((value) => value / norm);
    });
  },
};

let store;
let engine;
let attached = false;

const textOf = (chunk) => (chunk.title ? `${chunk.title}\n${chunk.text}` : chunk.text);

async function handle(message) {
  switch (message.op) {
    case 'open':
      store = await createNodePostgresStore({ connectionString: message.url, collection: message.collection, dimensions: DIMENSIONS, pool: { max: 2 } });
      engine = new ContextEngine({ config: { cache: { enabled: false }, multiTurn: { enabled: false }, adaptive: { enabled: false } } });
      return { pid: process.pid };
    case 'write': {
      const vectors = await embedder.embed(message.chunks.map(textOf), { kind: 'document' });
      await store.add(message.chunks.map((chunk, i) => ({ ...chunk, embedding: vectors[i] })));
      if (!attached) {
        // Attach the engine to the shared table: it retrieves from PostgreSQL and writes nothing itself.
        await engine.index(message.chunks, { vectorDb: store, embedder, keywordSearch: 'store', addToVectorDb: false });
        attached = true;
      }
      return { count: await store.count() };
    }
    case 'remove':
      await engine.remove(message.docIds);
      return { count: await store.count() };
    case 'run': {
      const result = await engine.run(message.query, { useHistory: false, recordTurn: false, ...(message.filter ? { metadataFilters: message.filter } : {}) });
      return { context: result.context, ids: result.chunks.map((scored) => scored.chunk.id), retrievers: result.chunks.map((scored) => scored.retrievers ?? []), counts: result.counts, warnings: result.warnings };
    }
    case 'close':
      await store.close();
      return {};
    default:
      throw new Error(`unknown op ${message.op}`);
  }
}

process.on('message', (message) => {
  handle(message).then(
    (value) => process.send({ id: message.id, ok: true, value }),
    (error) => process.send({ id: message.id, ok: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }),
  );
});
