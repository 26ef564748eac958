// In-database BM25 (`PgVectorStore.textSearch`, textRanking 'bm25') at scale on a real PostgreSQL
// server with pgvector (a report, not a test): loads N chunks of the bench's synthetic corpus
// (2–5 SciFact sentences and a title each, the same corpus as the scale job), then reports the
// bulk-load time, keyword top-10 p50/p95 over seeded SciFact claims, and the size of every table
// and index of the collection.
//   node scripts/measure-postgres-keyword.mjs 10000 [100000 ...] [--queries 200] [--rounds 2]
//        [--clients 4] [--explain 3] [--save results.json] [--compare results.json] [--keep] [--reuse]
// The server is ZERDA_PG_URL when set, otherwise a private one started by scripts/postgres-fixture.mjs
// (fsync on, as in production) and stopped at the end. --explain N prints EXPLAIN (ANALYZE, BUFFERS)
// of every statement of N queries (auto_explain, sent to this client as NOTICEs; needs a superuser,
// which the private server's user is). --save writes each query's top-10 ids and scores; --compare
// checks another run's saved top-10 against this one (same ids in the same order, scores within 1e-9).
// With ZERDA_PG_URL, --keep leaves the collection in place and --reuse queries a kept one of the
// right size instead of loading it again (opening it migrates an older layout: the load time is then
// not measured).
// Chunks carry a one-dimensional embedding and no HNSW index: this measures the keyword index only.
// Run `pnpm --filter @zerda/bench... build` first.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PgVectorStore } from '@zerda/vector-pgvector';
import { sentencePool, syntheticCorpus } from '../dist/index.js';
import { acquirePostgres } from '../dist/postgres-server.js';
import { K, SEED, latencySummary, loadAverage, loadChunks, printSizes, relationSizes, scifact, scifactQueries, timeQueries, vacuumAnalyze } from './postgres-scale.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    queries: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '2' },
    clients: { type: 'string', default: '4' },
    explain: { type: 'string', default: '0' },
    save: { type: 'string' },
    compare: { type: 'string' },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
  },
});
const source = scifact().dataset;
const pool = sentencePool(source.documents);
const queries = scifactQueries(source, Number(values.queries));
const rounds = Number(values.rounds);
const saved = {};
const compared = values.compare ? JSON.parse(readFileSync(values.compare, 'utf8')) : undefined;

const server = await acquirePostgres();
console.log(`${server.description}; ${queries.length} SciFact claims × ${rounds} rounds, top ${K}; pool of ${values.clients} connections`);

async function explainQueries(collection, count) {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  client.on('notice', (notice) => console.log(`    ${notice.message.replace(/\n/g, '\n    ')}`));
  try {
    const store = await PgVectorStore.open({ connection: client, collection, dimensions: 1, hnsw: false, includeEmbeddings: false });
    await client.query("LOAD 'auto_explain'");
    for (const setting of ['log_min_duration = 0', 'log_analyze = on', 'log_buffers = on', 'log_timing = on', 'log_nested_statements = on', "log_level = 'notice'"]) {
      await client.query(`SET auto_explain.${setting}`);
    }
    for (const query of queries.slice(0, count)) {
      console.log(`  EXPLAIN for "${query}":`);
      await store.textSearch(query, { k: K });
    }
  } finally {
    await client.end();
  }
}

try {
  for (const size of positionals.map(Number)) {
    const collection = `keyword_scale_${size}`;
    const connection = new pg.Pool({ connectionString: server.url, max: Number(values.clients) });
    connection.on('error', () => undefined);
    const store = new PgVectorStore({ connection, collection, dimensions: 1, hnsw: false, includeEmbeddings: false });
    try {
      const existing = values.reuse ? await connection.query(`SELECT count(*) AS count FROM "${collection}"`).catch(() => undefined) : undefined;
      const reused = Number(existing?.rows[0]?.count) === size;
      if (reused) {
        const began = performance.now();
        await store.ensureSchema();
        console.log(`  reusing ${collection} (open ${((performance.now() - began) / 1000).toFixed(1)} s)`);
      } else await store.drop();
      const chunks = reused ? [] : syntheticCorpus(pool, SEED, size);
      const loadSeconds = await loadChunks(store, chunks, (batch) => batch.map((chunk) => ({ ...chunk, embedding: [1] })));
      chunks.length = 0;
      const vacuumSeconds = await vacuumAnalyze(connection, collection);
      const tops = {};
      const times = await timeQueries(queries, rounds, (query) => store.textSearch(query, { k: K }), (query, hits) => {
        tops[query] = hits.map((hit) => [hit.chunk.id, hit.score]);
      });
      saved[size] = tops;
      const sizes = await relationSizes(connection, collection);
      console.log(
        `${size} chunks: load ${loadSeconds.toFixed(1)} s (${Math.round(size / loadSeconds)} chunks/s; VACUUM ANALYZE after it ${vacuumSeconds.toFixed(1)} s); ` +
          `textSearch top ${K} ${latencySummary(times)}; ${loadAverage()}`,
      );
      printSizes(sizes);
      if (compared?.[size]) {
        let differing = 0;
        for (const [query, expected] of Object.entries(compared[size])) {
          const actual = tops[query];
          if (!actual) continue;
          const same = actual.length === expected.length && actual.every(([id, score], index) => id === expected[index][0] && Math.abs(score - expected[index][1]) <= 1e-9 * Math.max(1, score));
          if (!same) {
            differing++;
            if (differing <= 3) console.log(`  differs from ${values.compare} for "${query}": ${JSON.stringify(actual)} vs ${JSON.stringify(expected)}`);
          }
        }
        console.log(`  top ${K} against ${values.compare}: ${differing === 0 ? 'identical' : `${differing} queries differ`} (${Object.keys(compared[size]).length} queries)`);
      }
      if (Number(values.explain) > 0) await explainQueries(collection, Number(values.explain));
      if (!values.keep) await store.drop();
    } finally {
      await store.close();
      await connection.end().catch(() => undefined);
    }
  }
  if (values.save) writeFileSync(values.save, JSON.stringify(saved));
} finally {
  await server.release();
}
