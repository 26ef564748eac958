import type pg from 'pg';
import type { DocumentChunk } from '@zerda/types';
import { seededRandom } from '@zerda/vector-conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditKeywordIndex } from './__fixtures__/keyword-index-audit.js';
import { ownServerSkipReason, serverPool, startOwnServer } from './__fixtures__/server.js';
import type { PostgresServer } from '../../../scripts/postgres-fixture.mjs';
import { PgVectorStore } from './pgvector-vector-store.js';
import { toSqlClient } from './sql-client.js';

// The transaction promise under a crash: a private server (this test starts it, so it may kill it)
// takes large batched adds; its postmaster is SIGKILLed while a batch is being written; after a
// restart (crash recovery from the WAL) every acknowledged batch is there in full, the batch in
// flight is there in full or not at all, the HNSW and keyword indexes answer and are exact, and
// ensureSchema() is still idempotent.
const skipReason = await ownServerSkipReason();
if (skipReason) console.warn(`[vector-pgvector] crash-recovery test skipped — ${skipReason}`);
const DIMENSIONS = 16;
const BATCH = 2_000;

function batchChunks(batch: number): DocumentChunk[] {
  const next = seededRandom(batch + 7);
  return Array.from({ length: BATCH }, (_, i) => ({
    id: `b${batch}-${i}`,
    docId: `b${batch}`,
    text: `row ${i} of batch ${batch}: ${i % 2 ? 'an English sentence about libraries' : 'جملة عربية عن المكتبات'} tagq${'abcdefghij'[batch % 10]}${'abcdefghij'[Math.floor(batch / 10) % 10]}x`,
    source: 'crash',
    metadata: { batch },
    position: { index: i },
    embedding: Array.from({ length: DIMENSIONS }, () => next() * 2 - 1),
  }));
}

describe.skipIf(skipReason !== undefined)('crash recovery on a PostgreSQL server', () => {
  let server: PostgresServer;
  const pools: pg.Pool[] = [];
  const pool = (): pg.Pool => {
    const created = serverPool(4, server.url);
    pools.push(created);
    return created;
  };

  beforeAll(async () => {
    // fsync on: what a production server runs with.
    server = await startOwnServer({ fsync: true });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(pools.map((each) => each.end().catch(() => undefined)));
    await server?.stop();
  });

  it('SIGKILL of the postmaster mid-batch: acknowledged batches whole, the one in flight all or nothing, indexes answer, ensureSchema idempotent', async () => {
    const collection = 'crash_chunks';
    const store = await PgVectorStore.open({ connection: pool(), collection, dimensions: DIMENSIONS, batchSize: 250 });
    const acknowledged: number[] = [];
    let inFlight = -1;
    let writerError: unknown;
    const writer = (async () => {
      for (let batch = 0; ; batch++) {
        inFlight = batch;
        await store.add(batchChunks(batch));
        acknowledged.push(batch);
      }
    })().catch((error: unknown) => {
      writerError = error;
    });

    // Wait until two batches are in, then until the third is being written (its rows are in the
    // table, uncommitted: pg_stat_activity shows our INSERT running inside a transaction), and kill.
    const watcher = serverPool(1, server.url);
    pools.push(watcher);
    const deadline = Date.now() + 120_000;
    while (acknowledged.length < 2 && Date.now() < deadline && writerError === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    let caught = false;
    while (!caught && Date.now() < deadline && writerError === undefined) {
      const { rows } = await watcher.query<{ busy: boolean }>(
        `SELECT count(*) > 0 AS busy FROM pg_stat_activity WHERE state = 'active' AND backend_xid IS NOT NULL AND query LIKE 'INSERT INTO%' AND pid <> pg_backend_pid()`,
      );
      caught = rows[0]!.busy === true && acknowledged.length >= 2;
      if (!caught) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(caught, 'the writer was caught inside a transaction').toBe(true);
    const victim = inFlight;
    const before = [...acknowledged];
    await server.crash();
    await writer;
    expect(writerError, 'the add in flight failed').toBeDefined();
    expect(acknowledged).toEqual(before);
    expect(victim).toBe(before.length);

    await server.restart();
    const reopened = await PgVectorStore.open({ connection: pool(), collection });
    await reopened.ensureSchema();
    const second = await PgVectorStore.open({ connection: pool(), collection });
    await second.ensureSchema();
    const sql = toSqlClient(pool());
    const { rows: counts } = await sql.query<{ batch: number; rows: string | number }>(
      `SELECT (metadata->>'batch')::int AS batch, count(*) AS rows FROM ${reopened.qualifiedTableName} GROUP BY 1 ORDER BY 1`,
    );
    const present = new Map(counts.map((row) => [Number(row.batch), Number(row.rows)]));
    for (const batch of acknowledged) expect(present.get(batch), `acknowledged batch ${batch}`).toBe(BATCH);
    expect([0, BATCH], `the batch in flight (${victim}) is all or nothing`).toContain(present.get(victim) ?? 0);
    expect([...present.keys()].every((batch) => batch <= victim)).toBe(true);

    // The HNSW index is valid and answers (each probe finds itself); the keyword index is exact.
    const { rows: indexes } = await sql.query<{ valid: boolean; name: string }>(
      `SELECT i.relname AS name, x.indisvalid AS valid FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = $1::regclass`,
      [reopened.qualifiedTableName],
    );
    expect(indexes.find((index) => index.name.endsWith('_embedding_hnsw'))?.valid).toBe(true);
    expect(indexes.every((index) => index.valid)).toBe(true);
    expect(indexes).toHaveLength(5);
    for (const batch of acknowledged) {
      const probe = batchChunks(batch)[123]!;
      expect((await reopened.search(probe.embedding!, { k: 1 }))[0]?.chunk.id).toBe(probe.id);
      const tag = probe.text.split(' ').pop()!;
      expect((await reopened.textSearch(tag, { k: BATCH + 10, filter: { batch } })).length).toBe(BATCH);
    }
    expect(await auditKeywordIndex(sql, reopened)).toEqual([]);
    // And it takes writes again.
    await reopened.add(batchChunks(victim));
    expect(await reopened.count()).toBe((acknowledged.length + 1) * BATCH);
  }, 300_000);
});
