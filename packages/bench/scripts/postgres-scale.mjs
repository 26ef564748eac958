// What the PostgreSQL scale measurements share (measure-postgres-keyword.mjs, measure-postgres-hybrid.mjs):
// the corpus seed and the queries (seeded SciFact claims, as the scale job's), the bulk load and the
// VACUUM ANALYZE after it, the timing of a query list, the size of every table and index of a
// collection, and the 1-minute load average printed with every figure (the machine is shared).
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { percentile } from '@zerda/types';
import { datasetsDirectory, loadDataset, SeededRandom } from '../dist/index.js';

export const SEED = 20250101;
export const LOAD_BATCH = 5000;
export const K = 10;
/** Queries run before the timed rounds (server caches, JIT). */
export const WARMUP_QUERIES = 20;

/** The SciFact dataset the synthetic corpus is drawn from (its directory and its loaded form). */
export function scifact() {
  const directory = join(datasetsDirectory(), 'beir-scifact');
  return { directory, dataset: loadDataset(directory) };
}

/** The first `count` SciFact claims in the seeded order (the scale job's queries). */
export function scifactQueries(dataset, count) {
  return new SeededRandom(SEED).shuffle(dataset.queries.map((query) => query.text)).slice(0, count);
}

/** `load 1.23 2.34 3.45` (1, 5 and 15 minutes). */
export function loadAverage() {
  return `load ${loadavg().map((value) => value.toFixed(2)).join(' ')}`;
}

export const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/** Every table and index of the collection (names starting with it), with its own and its total size. */
export async function relationSizes(sql, collection) {
  const { rows } = await sql.query(
    `SELECT c.relname, c.relkind, pg_relation_size(c.oid) AS bytes, pg_total_relation_size(c.oid) AS total
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relname LIKE $1 AND c.relkind IN ('r', 'i') ORDER BY c.relkind DESC, c.relname`,
    [`${collection}%`],
  );
  return rows.map((row) => ({ name: row.relname, kind: row.relkind === 'r' ? 'table' : 'index', bytes: Number(row.bytes), total: Number(row.total) }));
}

/** Prints the sizes {@link relationSizes} found. */
export function printSizes(sizes) {
  console.log(`  tables (pg_relation_size / pg_total_relation_size): ${sizes.filter((entry) => entry.kind === 'table').map((entry) => `${entry.name} ${mb(entry.bytes)} / ${mb(entry.total)}`).join('; ')}`);
  console.log(`  indexes: ${sizes.filter((entry) => entry.kind === 'index').map((entry) => `${entry.name} ${mb(entry.bytes)}`).join('; ')}`);
}

/** Adds `chunks` with `store.add` in batches of {@link LOAD_BATCH} (`prepare` maps each batch); resolves to the seconds the adds took. */
export async function loadChunks(store, chunks, prepare = (batch) => batch) {
  let seconds = 0;
  for (let start = 0; start < chunks.length; start += LOAD_BATCH) {
    const batch = prepare(chunks.slice(start, start + LOAD_BATCH));
    const began = performance.now();
    await store.add(batch);
    seconds += (performance.now() - began) / 1000;
  }
  return seconds;
}

/** VACUUM ANALYZE of every table of the collection; resolves to the seconds it took. */
export async function vacuumAnalyze(sql, collection) {
  const began = performance.now();
  for (const { name, kind } of await relationSizes(sql, collection)) if (kind === 'table') await sql.query(`VACUUM ANALYZE "${name}"`);
  return (performance.now() - began) / 1000;
}

/**
 * Runs `run(query)` on the first {@link WARMUP_QUERIES} queries untimed, then on every query
 * `rounds` times, one at a time; resolves to the milliseconds of each timed call (and calls
 * `collect(query, result)` with each result).
 */
export async function timeQueries(queries, rounds, run, collect = () => undefined) {
  for (const query of queries.slice(0, WARMUP_QUERIES)) await run(query);
  const times = [];
  for (let round = 0; round < rounds; round++) {
    for (const query of queries) {
      const began = performance.now();
      const result = await run(query);
      times.push(performance.now() - began);
      collect(query, result);
    }
  }
  return times;
}

/** `p50 1.23 ms, p95 4.56 ms, mean 2.34 ms`. */
export function latencySummary(times) {
  return `p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms, mean ${(times.reduce((a, b) => a + b, 0) / Math.max(1, times.length)).toFixed(2)} ms`;
}
