// Hybrid retrieval on a real PostgreSQL server with pgvector (a report, not a test): a ContextEngine
// whose vector store is PgVectorStore (HNSW in the database) and whose keyword side is the
// database's BM25 (`index(chunks, { vectorDb, keywordSearch: 'store', embedder })`, the engine's own
// way to keep both in the database), over N chunks of the bench's synthetic corpus with the scale
// job's embeddings (the offline GloVe static model, chunk vectors composed from their sentences').
// Reports the load (chunks/s, the HNSW build after it), the size of every table and index, keyword
// `textSearch` top 10, vector `search` top 10 (the query embedded beforehand) and hybrid `run()` at
// the default budget, p50/p95 over seeded SciFact claims one at a time; HNSW recall@10 against exact
// search; then, with --concurrency, the throughput and latency of 1, 8, 32 … clients spread over
// --processes application processes (each its own engine and node-postgres pool, one connection per
// client) sharing the server, for textSearch and run().
//   node scripts/measure-postgres-hybrid.mjs 10000 [100000 ...] [--queries 200] [--rounds 1]
//        [--concurrency 1,8,32] [--processes 4] [--seconds 15] [--keep] [--reuse]
// The server is ZERDA_PG_URL when set, otherwise a private one started by scripts/postgres-fixture.mjs
// (fsync on) and stopped at the end. With ZERDA_PG_URL, --keep leaves the collections in place and
// --reuse queries a kept one of the right size instead of loading it again. Concurrency runs on the
// last size given. Run `pnpm --filter @zerda/bench... build` first.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { percentile } from '@zerda/types';
import { ContextEngine } from '@zerda/context';
import { PgVectorStore } from '@zerda/vector-pgvector';
import { sentencePool, syntheticCorpus } from '../dist/index.js';
import { chooseEmbedder } from '../dist/embedding.js';
import { ENGINE_BENCH_CONFIG, syntheticInputs } from '../dist/jobs.js';
import { acquirePostgres } from '../dist/postgres-server.js';
import { K, SEED, latencySummary, loadAverage, loadChunks, printSizes, relationSizes, scifact, scifactQueries, timeQueries, vacuumAnalyze } from './postgres-scale.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    queries: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '1' },
    concurrency: { type: 'string' },
    processes: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '15' },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    worker: { type: 'boolean', default: false },
  },
});
/** Queries whose HNSW top 10 is compared with the exact top 10. */
const RECALL_QUERIES = 50;
/** The HNSW build's maintenance_work_mem: the graph of 1M 300-dimension vectors fits. */
const BUILD_MEMORY = '2GB';
const collectionOf = (size) => `hybrid_scale_${size}`;
const storeOptions = (connection, size, dimensions) => ({ connection, collection: collectionOf(size), dimensions, deferIndex: true, includeEmbeddings: false });
const { directory, dataset } = scifact();
const queries = scifactQueries(dataset, Number(values.queries));

/** The engine the application builds over a loaded collection: vectors and keyword index both in the database. */
async function hybridEngine(store, chunks, embedder) {
  return new ContextEngine({ config: ENGINE_BENCH_CONFIG }).index(chunks, { embedder, vectorDb: store, keywordSearch: 'store', addToVectorDb: false });
}

const runOptions = { useHistory: false, recordTurn: false };

if (values.worker) await worker();
else await main();

/**
 * A child process: its own pool (one connection per client) and engine over the loaded collection;
 * on each `{ mode, clients, seconds }` message runs that many clients, each sending queries one
 * after another (from its own offset in the list) until the time is up, and replies with every
 * latency and the window it measured.
 */
async function worker() {
  const { size, dimensions, url } = JSON.parse(process.env.ZERDA_HYBRID_WORKER);
  const chunks = syntheticCorpus(sentencePool(dataset.documents), SEED, size);
  const { embedder } = await chooseEmbedder('en');
  let go;
  process.on('message', async (message) => {
    if (message.go) return go();
    const { mode, clients, seconds, offset } = message;
    const pool = new pg.Pool({ connectionString: url, max: Math.max(1, clients) });
    pool.on('error', () => undefined);
    const store = await PgVectorStore.open(storeOptions(pool, size, dimensions));
    const engine = await hybridEngine(store, chunks, embedder);
    const ask = mode === 'keyword' ? (query) => store.textSearch(query, { k: K }) : (query) => engine.run(query, runOptions);
    // Warm: every client's connection opened, the model and caches loaded.
    await Promise.all(Array.from({ length: clients }, (_, client) => ask(queries[(offset + client) % queries.length])));
    const started = new Promise((resolve) => (go = resolve));
    process.send({ ready: true });
    await started;
    const began = performance.now();
    const deadline = began + seconds * 1000;
    const latencies = [];
    await Promise.all(
      Array.from({ length: clients }, async (_, client) => {
        for (let next = (offset + client) * 7; performance.now() < deadline; next++) {
          const started = performance.now();
          await ask(queries[next % queries.length]);
          latencies.push(performance.now() - started);
        }
      }),
    );
    const window = (performance.now() - began) / 1000;
    await store.close();
    await pool.end();
    process.send({ latencies, window });
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ started: true });
}

/** One concurrency level: `clients` spread over the processes as evenly as they go, started together. */
async function concurrent(children, mode, clients, seconds) {
  const shares = children.map((_, index) => Math.floor(clients / children.length) + (index < clients % children.length ? 1 : 0));
  const active = children.filter((_, index) => shares[index] > 0);
  const reply = (child) => new Promise((resolve) => child.once('message', resolve));
  const ready = active.map(reply);
  active.forEach((child, index) => child.send({ mode, clients: shares[children.indexOf(child)], seconds, offset: index * 50 }));
  await Promise.all(ready);
  const done = active.map(reply);
  active.forEach((child) => child.send({ go: true }));
  const results = await Promise.all(done);
  const latencies = results.flatMap((result) => result.latencies);
  const window = Math.max(...results.map((result) => result.window));
  return { latencies, throughput: latencies.length / window, shares: shares.filter((share) => share > 0) };
}

async function main() {
  const server = await acquirePostgres();
  const admin = new pg.Pool({ connectionString: server.url, max: 2 });
  admin.on('error', () => undefined);
  const settings = await admin.query(
    "SELECT name, current_setting(name) AS value FROM pg_settings WHERE name IN ('shared_buffers', 'work_mem', 'maintenance_work_mem', 'effective_cache_size', 'max_connections', 'fsync', 'max_parallel_workers_per_gather', 'jit') ORDER BY name",
  );
  console.log(`${server.description}; ${settings.rows.map((row) => `${row.name}=${row.value}`).join(', ')}`);
  console.log(`${queries.length} SciFact claims × ${values.rounds} rounds, top ${K}; ${loadAverage()}`);
  const children = [];
  try {
    let last;
    for (const size of positionals.map(Number)) {
      const inputs = await syntheticInputs(directory, SEED, size, true);
      const { chunks, choice } = inputs;
      const dimensions = chunks[0].embedding.length;
      console.log(`${size} chunks: ${choice.modelId} (${dimensions} dimensions), embeddings composed in ${inputs.embeddingSeconds.toFixed(1)} s; ${loadAverage()}`);
      const connection = new pg.Pool({ connectionString: server.url, max: 4 });
      connection.on('error', () => undefined);
      const store = new PgVectorStore(storeOptions(connection, size, dimensions));
      try {
        const existing = values.reuse ? await connection.query(`SELECT count(*) AS count FROM "${collectionOf(size)}"`).catch(() => undefined) : undefined;
        if (Number(existing?.rows[0]?.count) === size) {
          await store.ensureSchema();
          console.log(`  reusing ${collectionOf(size)}`);
        } else {
          await store.drop();
          const loadSeconds = await loadChunks(store, chunks);
          const indexStarted = performance.now();
          await store.createIndex({ maintenanceWorkMem: BUILD_MEMORY });
          const indexSeconds = (performance.now() - indexStarted) / 1000;
          const vacuumSeconds = await vacuumAnalyze(connection, collectionOf(size));
          console.log(
            `  load: add ${loadSeconds.toFixed(1)} s (${Math.round(size / loadSeconds)} chunks/s, batches of 5,000, keyword index kept by its triggers), ` +
              `HNSW build ${indexSeconds.toFixed(1)} s (maintenance_work_mem ${BUILD_MEMORY}), VACUUM ANALYZE ${vacuumSeconds.toFixed(1)} s: ` +
              `${Math.round(size / (loadSeconds + indexSeconds))} chunks/s with the index; ${loadAverage()}`,
          );
        }
        printSizes(await relationSizes(connection, collectionOf(size)));
        const rounds = Number(values.rounds);
        const keyword = await timeQueries(queries, rounds, (query) => store.textSearch(query, { k: K }));
        console.log(`  keyword textSearch top ${K}: ${latencySummary(keyword)}; ${loadAverage()}`);
        const vectors = new Map();
        for (const query of queries) vectors.set(query, (await choice.embedder.embed([query], { kind: 'query' }))[0]);
        const vector = await timeQueries(queries, rounds, (query) => store.search(vectors.get(query), { k: K }));
        console.log(`  vector search top ${K} (HNSW, ef_search 256; query embedded beforehand): ${latencySummary(vector)}; ${loadAverage()}`);
        const engine = await hybridEngine(store, chunks, choice.embedder);
        const retrieve = [];
        const hybrid = await timeQueries(queries, rounds, (query) => engine.run(query, runOptions), (_query, result) => retrieve.push(result.timings.retrieve));
        console.log(`  hybrid run() at the default budget: ${latencySummary(hybrid)} (of which retrieve ${latencySummary(retrieve)}); ${loadAverage()}`);
        let found = 0;
        for (const query of queries.slice(0, RECALL_QUERIES)) {
          const approximate = new Set((await store.search(vectors.get(query), { k: K })).map((hit) => hit.chunk.id));
          const exact = await store.search(vectors.get(query), { k: K, exact: true });
          found += exact.filter((hit) => approximate.has(hit.chunk.id)).length;
        }
        console.log(`  HNSW recall@${K} against exact search: ${(found / (RECALL_QUERIES * K)).toFixed(3)} (${RECALL_QUERIES} queries)`);
        last = { size, dimensions };
      } finally {
        await store.close();
        await connection.end().catch(() => undefined);
      }
    }
    if (values.concurrency && last) {
      const processes = Number(values.processes);
      const seconds = Number(values.seconds);
      const env = { ...process.env, ZERDA_HYBRID_WORKER: JSON.stringify({ ...last, url: server.url }) };
      for (let index = 0; index < processes; index++) {
        const child = fork(fileURLToPath(import.meta.url), ['--worker', '--queries', values.queries], { env });
        await new Promise((resolve) => child.once('message', resolve));
        children.push(child);
      }
      console.log(`concurrency at ${last.size} chunks: ${processes} application processes, each a node-postgres pool of one connection per client it runs; ${seconds} s a level`);
      for (const mode of ['keyword', 'hybrid']) {
        for (const clients of values.concurrency.split(',').map(Number)) {
          const { latencies, throughput, shares } = await concurrent(children, mode, clients, seconds);
          console.log(
            `  ${mode === 'keyword' ? 'textSearch' : 'hybrid run()'} × ${clients} clients (${shares.join('+')} over ${shares.length} processes): ${throughput.toFixed(1)} queries/s, ` +
              `p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms (${latencies.length} queries); ${loadAverage()}`,
          );
        }
      }
    }
    if (!values.keep) for (const size of positionals.map(Number)) await new PgVectorStore({ connection: admin, collection: collectionOf(size) }).drop();
  } finally {
    for (const child of children) child.disconnect();
    await admin.end().catch(() => undefined);
    await server.release();
  }
}
