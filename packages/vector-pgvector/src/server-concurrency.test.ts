import type pg from 'pg';
import type { DocumentChunk, VectorSearchHit } from '@zerda/types';
import { seededRandom } from '@zerda/vector-conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueCollection } from './__fixtures__/databases.js';
import { auditKeywordIndex } from './__fixtures__/keyword-index-audit.js';
import { SERVER_SKIP_REASON, SERVER_URL, serverPool } from './__fixtures__/server.js';
import { PgVectorStore } from './pgvector-vector-store.js';
import { keywordIndexNames } from './pgvector-schema.js';
import { toSqlClient } from './sql-client.js';

// 32 clients on one PostgreSQL server for a bounded time, each its own PgVectorStore (as 32
// application servers would be) on a shared 32-connection pool: upserts of shared ids (replacing
// each other), deletes, all-or-nothing batches of fresh ids, filtered vector searches and BM25 text
// searches. Every operation is recorded with when it started and when it was acknowledged, and
// every result is checked against that model of the writes.
const CLIENTS = 32;
const RUN_MS = 6_000;
const SHARED_IDS = 64;
const DIMENSIONS = 8;
const GROUPS = 4;

/** A word the analyzer keeps as one term, unique per number: letters only (digits would split off), ending in x (no stemmer suffix). */
function word(prefix: string, value: number): string {
  let letters = '';
  let rest = value;
  do {
    letters = String.fromCharCode(97 + (rest % 26)) + letters;
    rest = Math.floor(rest / 26);
  } while (rest > 0);
  return `${prefix}${letters}x`;
}

interface Write {
  id: string;
  /** Version written, or null for a delete. */
  version: number | null;
  started: number;
  acknowledged: number;
}

interface Observation {
  kind: string;
  started: number;
  finished: number;
  hits: VectorSearchHit[];
  /** Group the search was filtered to, when it was. */
  group?: number;
}

function vectorOf(version: number): number[] {
  const next = seededRandom(version + 1);
  return Array.from({ length: DIMENSIONS }, () => next() * 2 - 1);
}

describe.skipIf(!SERVER_URL)(`32 concurrent clients on one PostgreSQL server${SERVER_SKIP_REASON ? ` (${SERVER_SKIP_REASON})` : ''}`, () => {
  let pool: pg.Pool;
  const collection = uniqueCollection('concurrent');

  beforeAll(async () => {
    pool = serverPool(CLIENTS + 2);
    const setup = new PgVectorStore({ connection: pool, collection, dimensions: DIMENSIONS });
    await setup.ensureSchema();
  });

  afterAll(async () => {
    await new PgVectorStore({ connection: pool, collection }).drop().catch(() => undefined);
    await pool?.end();
  });

  it('loses no acknowledged write, errs never, and every search shows a committed state', async () => {
    const writes: Write[] = [];
    const observations: Observation[] = [];
    const batches = new Map<string, { size: number; started: number; acknowledged?: number }>();
    const statisticsChecks: boolean[] = [];
    const errors: unknown[] = [];
    let versions = 0;
    const deadline = performance.now() + RUN_MS;
    const { statistics } = keywordIndexNames(collection);
    const sql = toSqlClient(pool);

    const versionChunk = (id: string, version: number): DocumentChunk => ({
      id,
      docId: `doc${Number(id.slice(1)) % 16}`,
      text: `shared chunk ${word('ver', version)} about ${version % 2 ? 'libraries' : 'المكتبات'}`,
      source: 'concurrency',
      metadata: { version, group: version % GROUPS },
      position: { index: 0 },
      embedding: vectorOf(version),
    });

    async function client(number: number): Promise<void> {
      const store = new PgVectorStore({ connection: pool, collection });
      const random = seededRandom(1000 + number);
      let ownBatches = 0;
      while (performance.now() < deadline) {
        const choice = random();
        try {
          if (choice < 0.3) {
            // Upsert 1–6 shared ids (other clients write the same ids).
            const ids = [...new Set(Array.from({ length: 1 + Math.floor(random() * 6) }, () => `s${Math.floor(random() * SHARED_IDS)}`))];
            const chunks = ids.map((id) => versionChunk(id, ++versions));
            const started = performance.now();
            await store.add(chunks);
            const acknowledged = performance.now();
            for (const chunk of chunks) writes.push({ id: chunk.id, version: chunk.metadata.version as number, started, acknowledged });
          } else if (choice < 0.4) {
            const ids = [...new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, () => `s${Math.floor(random() * SHARED_IDS)}`))];
            const started = performance.now();
            await store.delete(ids);
            const acknowledged = performance.now();
            for (const id of ids) writes.push({ id, version: null, started, acknowledged });
          } else if (choice < 0.5) {
            // A batch of fresh ids under one tag: all of it is visible, or none.
            const tag = word('zq', number * 10_000 + ++ownBatches);
            const size = 5 + Math.floor(random() * 40);
            const entry: { size: number; started: number; acknowledged?: number } = { size, started: performance.now() };
            batches.set(tag, entry);
            await store.add(Array.from({ length: size }, (_, i) => ({ id: `${tag}-${i}`, docId: tag, text: `member of ${tag}`, source: 'batch', metadata: { batch: tag }, position: { index: i }, embedding: vectorOf(i) })));
            entry.acknowledged = performance.now();
          } else if (choice < 0.65) {
            // Read back a batch (finished or still in flight) by its tag, through the BM25 index.
            const tags = [...batches.keys()];
            if (tags.length === 0) continue;
            const tag = tags[Math.floor(random() * tags.length)]!;
            const started = performance.now();
            const hits = await store.textSearch(tag, { k: 100 });
            observations.push({ kind: `batch:${tag}`, started, finished: performance.now(), hits });
          } else if (choice < 0.8) {
            const group = Math.floor(random() * GROUPS);
            const started = performance.now();
            const hits = await store.search(vectorOf(Math.floor(random() * 1000)), { k: 10, filter: { group } });
            observations.push({ kind: 'vector', started, finished: performance.now(), hits, group });
          } else if (choice < 0.95) {
            const started = performance.now();
            const query = random() < 0.5 ? `libraries ${word('ver', Math.floor(random() * (versions + 1)))}` : 'مكتبة';
            const hits = await store.textSearch(query, { k: 10, ...(random() < 0.5 ? { filter: { group: 1 } } : {}) });
            observations.push({ kind: 'text', started, finished: performance.now(), hits });
          } else {
            // One statement, one snapshot: the statistics agree with the rows at every moment.
            const { rows } = await sql.query<{ agree: boolean }>(
              `SELECT (SELECT coalesce(sum(chunks), 0) FROM "public"."${statistics}") = (SELECT count(*) FROM ${store.qualifiedTableName} WHERE text_length IS NOT NULL) AS agree`,
            );
            statisticsChecks.push(rows[0]!.agree);
          }
        } catch (error) {
          errors.push(error);
        }
      }
    }

    await Promise.all(Array.from({ length: CLIENTS }, (_, number) => client(number)));
    expect(errors.map((error) => (error instanceof Error ? error.message : String(error)))).toEqual([]);

    // Per shared id, the writes to it; a version could be visible to a search running [started, finished]
    // when it was written before the search ended and no write of the id surely came after it and before the search began.
    const byId = new Map<string, Write[]>();
    for (const write of writes) byId.set(write.id, [...(byId.get(write.id) ?? []), write]);
    const writeOf = new Map(writes.filter((write) => write.version !== null).map((write) => [write.version!, write]));
    const possible = (id: string, version: number, searchStarted: number, searchFinished: number): boolean => {
      const write = writeOf.get(version);
      if (!write || write.id !== id || write.started > searchFinished) return false;
      return !(byId.get(id) ?? []).some((other) => other !== write && other.started > write.acknowledged && other.acknowledged < searchStarted);
    };
    let checkedHits = 0;
    for (const observation of observations) {
      if (observation.kind.startsWith('batch:')) {
        const tag = observation.kind.slice('batch:'.length);
        const batch = batches.get(tag)!;
        // All-or-nothing, and nothing before the batch was sent; everything once it was acknowledged.
        expect([0, batch.size], `batch ${tag} seen with ${observation.hits.length} of ${batch.size} chunks`).toContain(observation.hits.length);
        if (batch.acknowledged !== undefined && batch.acknowledged < observation.started) expect(observation.hits.length).toBe(batch.size);
        expect(observation.hits.every((hit) => hit.chunk.metadata.batch === tag)).toBe(true);
        continue;
      }
      for (const hit of observation.hits) {
        if (!hit.chunk.id.startsWith('s')) continue;
        const version = hit.chunk.metadata.version as number;
        expect(possible(hit.chunk.id, version, observation.started, observation.finished), `${observation.kind} search saw ${hit.chunk.id} at version ${version}, which no committed state held then`).toBe(true);
        expect(hit.chunk.text).toBe(versionChunk(hit.chunk.id, version).text);
        if (observation.group !== undefined) expect(hit.chunk.metadata.group).toBe(observation.group);
        if (observation.kind === 'text') expect(hit.score).toBeGreaterThan(0);
        checkedHits++;
      }
    }
    expect(statisticsChecks.every(Boolean)).toBe(true);

    // No acknowledged write is lost: each shared id holds a version that may have been the last write.
    const store = new PgVectorStore({ connection: pool, collection });
    const stored = new Map((await store.get([...byId.keys()])).map((chunk) => [chunk.id, chunk]));
    for (const [id, history] of byId) {
      const candidates = history.filter((write) => !history.some((other) => other !== write && other.started > write.acknowledged));
      const value = stored.get(id);
      const actual = value ? (value.metadata.version as number) : null;
      expect(candidates.map((write) => write.version), `id ${id} holds ${actual}`).toContain(actual);
      if (value) expect(value.text).toBe(versionChunk(id, actual!).text);
    }
    for (const [tag, batch] of batches) {
      expect(batch.acknowledged, `batch ${tag}`).toBeDefined();
      expect((await store.textSearch(tag, { k: 100 })).length).toBe(batch.size);
    }
    expect(await auditKeywordIndex(sql, store)).toEqual([]);
    console.info(`[concurrency] ${writes.length} writes, ${batches.size} batches, ${observations.length} searches (${checkedHits} hits checked), ${statisticsChecks.length} snapshot checks`);
    expect(writes.length).toBeGreaterThan(CLIENTS);
    expect(observations.length).toBeGreaterThan(CLIENTS);
  }, 120_000);
});
