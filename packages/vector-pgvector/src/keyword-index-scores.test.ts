import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { defaultAnalyzer } from '@zerda/text';
import { bm25Contribution, chunkNorm, inverseDocumentFrequency, lengthNormalization, termWeight } from '@zerda/retriever';
import { loadBeirDataset, locateDatasets } from '@zerda/retriever/datasets';
import { seededRandom, type DocumentChunk } from '@zerda/types';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteForFile, startPGlite, uniqueCollection } from './__fixtures__/databases.js';
import { SERVER_SKIP_REASON, SERVER_URL, serverClient, serverPool } from './__fixtures__/server.js';
import { analyseChunk, bm25TopSql, queryTerms, type Bm25Parameters } from './keyword-index.js';
import { compareCodePoints } from './pgvector-records.js';
import { keywordIndexNames, keywordTables } from './pgvector-schema.js';
import { PgVectorStore } from './pgvector-vector-store.js';
import { foldStatistics } from './pgvector-writes.js';
import { toSqlClient, type SqlClient, type SqlConnection } from './sql-client.js';

// The BM25 formula has one definition, @zerda/retriever's scoring.ts; keyword-index.ts computes it
// again in SQL (bm25ScoresSql, and bm25TopSql for the best k) so PostgreSQL can rank. This test
// holds the SQL copy to the formula score for score: every chunk the SQL scores, with every score
// within float rounding of the one the exported formula functions give from the same analysis and
// collection statistics; the top-k plan, which skips postings that cannot reach the best k, returns
// exactly the formula's first k (ties by id) — also after writes left its bounds loose, and on a
// table migrated from the previous layout (no per-term statistics).

/** A small real corpus, one passage a line (id | title | text): Arabic and English, with titles, repeated and shared words. */
const PASSAGES = `
en-1 | Public libraries | A public library lends books, newspapers and recordings to the people of a town, and its librarians help readers find what they need.
en-2 | The Library of Alexandria | The Library of Alexandria was one of the largest libraries of the ancient world; scholars copied and studied manuscripts there.
en-3 |  | Vaccines train the immune system to recognise a virus, so that a later infection is fought off quickly.
en-4 | Immune response | The immune response to an infection involves antibodies and T cells; a vaccine triggers the response without the disease.
en-5 |  | Libraries digitise old books so that readers anywhere can study them; digital libraries keep millions of scanned pages.
en-6 | Desert climate | Deserts receive little rain; their temperature falls sharply at night because dry air holds little heat.
ar-1 | المكتبات العامة | تعير المكتبة العامة الكتب والصحف لسكان المدينة، ويساعد أمناء المكتبة القراء في العثور على ما يحتاجون إليه.
ar-2 | مكتبة الإسكندرية | كانت مكتبة الإسكندرية من أكبر مكتبات العالم القديم، وفيها نسخ العلماء المخطوطات ودرسوها.
ar-3 |  | تدرب اللقاحات جهاز المناعة على التعرف إلى الفيروس، فيقاوم الجسم العدوى اللاحقة بسرعة.
ar-4 | الاستجابة المناعية | تشمل الاستجابة المناعية للعدوى الأجسام المضادة والخلايا التائية، ويحفز اللقاح الاستجابة دون المرض.
ar-5 |  | تقوم المكتبات برقمنة الكتب القديمة ليتمكن القراء في كل مكان من دراستها، وتحفظ المكتبات الرقمية ملايين الصفحات.
ar-6 | مناخ الصحراء | تتلقى الصحارى القليل من المطر، وتنخفض درجة حرارتها ليلا لأن الهواء الجاف لا يحتفظ بالحرارة.
`
  .trim()
  .split('\n')
  .map((line) => {
    const [id, title, text] = line.split(' | ') as [string, string, string];
    return { id, text, ...(title ? { title } : {}) };
  });

const QUERIES = [
  'public library books',
  'libraries library readers',
  'immune response to a vaccine',
  'desert rain at night',
  'Alexandria manuscripts scholars',
  'المكتبة العامة',
  'مكتبة مكتبات الكتب',
  'اللقاح والمناعة والعدوى',
  'الصحراء المطر',
  'library المكتبة vaccine اللقاح',
  'nothing matches xylophone',
];

const PARAMETER_SETS: Bm25Parameters[] = [
  { k1: 1.2, b: 0.75, titleWeight: 1 },
  { k1: 2, b: 0.3, titleWeight: 2.5 },
  { k1: 0.5, b: 1, titleWeight: 0.5 },
];

function toChunks(passages: ReadonlyArray<{ id: string; title?: string; text: string }>): DocumentChunk[] {
  return passages.map((passage, index) => ({
    id: passage.id,
    docId: passage.id,
    text: passage.text,
    ...(passage.title ? { title: passage.title } : {}),
    source: 'bm25-formula',
    metadata: {},
    position: { index },
    embedding: [1],
  }));
}

/** Every chunk holding a query term, scored with the formula of @zerda/retriever from the same analysis the store indexes. */
function formulaScores(chunks: readonly DocumentChunk[], query: string, parameters: Bm25Parameters): Map<string, number> {
  const analyses = chunks.map((chunk) => analyseChunk(defaultAnalyzer, chunk.text, chunk.title));
  const live = chunks.length;
  const totalLength = analyses.reduce((sum, analysis) => sum + analysis.textLength + parameters.titleWeight * analysis.titleLength, 0);
  const normalization = lengthNormalization(parameters, totalLength / live);
  const { terms, weights } = queryTerms(defaultAnalyzer, query);
  const scores = new Map<string, number>();
  terms.forEach((term, t) => {
    const frequencyOf = (i: number): number => {
      const at = analyses[i]!.terms.indexOf(term);
      return at < 0 ? 0 : analyses[i]!.textFrequencies[at]! + parameters.titleWeight * analyses[i]!.titleFrequencies[at]!;
    };
    const holders = analyses.flatMap((analysis, i) => (analysis.terms.includes(term) && (parameters.titleWeight > 0 || frequencyOf(i) > 0) ? [i] : []));
    if (holders.length === 0) return;
    const weight = termWeight(inverseDocumentFrequency(live, holders.length), weights[t]!, parameters.k1);
    for (const i of holders) {
      const frequency = frequencyOf(i);
      if (!(frequency > 0)) continue;
      const norm = chunkNorm(normalization, analyses[i]!.textLength, analyses[i]!.titleLength, parameters.titleWeight);
      const id = chunks[i]!.id;
      scores.set(id, (scores.get(id) ?? 0) + bm25Contribution(weight, frequency, norm));
    }
  });
  return scores;
}

async function expectSqlAgrees(connection: SqlConnection, chunks: DocumentChunk[], queries: readonly string[]): Promise<number> {
  const store = new PgVectorStore({ connection, collection: uniqueCollection('bm25_formula'), dimensions: 1, hnsw: false, includeEmbeddings: false });
  let compared = 0;
  try {
    await store.add(chunks);
    for (const bm25 of PARAMETER_SETS) {
      for (const query of queries) {
        const expected = formulaScores(chunks, query, bm25);
        const hits = await store.textSearch(query, { k: chunks.length, bm25 });
        const context = `query "${query}" with ${JSON.stringify(bm25)}`;
        expect(new Set(hits.map((hit) => hit.chunk.id)), context).toEqual(new Set(expected.keys()));
        for (const hit of hits) {
          const score = expected.get(hit.chunk.id)!;
          // Summation order differs (SQL's sum() against query-term order): a few ulps apart at most.
          expect(Math.abs(hit.score - score), `${context}, chunk ${hit.chunk.id}: SQL ${hit.score}, formula ${score}`).toBeLessThanOrEqual(1e-10 * Math.max(1, score));
          compared += 1;
        }
      }
    }
  } finally {
    await store.drop();
    await store.close();
  }
  return compared;
}

describe('the SQL copy of BM25 (keyword-index.ts) agrees with @zerda/retriever’s formula score for score', () => {
  const passages = toChunks(PASSAGES);

  describe('PGlite', () => {
    let database: PGlite;
    beforeAll(async () => {
      database = await startPGlite();
    });
    afterAll(async () => {
      await database?.close();
    });

    it('on an Arabic and English corpus with titles, for three parameter sets', async () => {
      expect(await expectSqlAgrees(database, passages, QUERIES)).toBeGreaterThan(50);
    });
  });

  describe.skipIf(!SERVER_URL)(`PostgreSQL server${SERVER_SKIP_REASON ? ` (skipped: ${SERVER_SKIP_REASON})` : ''}`, () => {
    let pool: pg.Pool;
    beforeAll(() => {
      pool = serverPool(2);
    });
    afterAll(async () => {
      await pool?.end();
    });

    it('on an Arabic and English corpus with titles, for three parameter sets', async () => {
      expect(await expectSqlAgrees(pool, passages, QUERIES)).toBeGreaterThan(50);
    });

    // 150 documents and 15 queries each of ARCD (Arabic) and SciFact (English) from ../shared/datasets, when present.
    const root = locateDatasets(process.cwd());
    const datasets = ['arcd', 'beir-scifact'].filter((name) => root !== undefined && existsSync(join(root, name, 'queries.jsonl')));
    it.skipIf(datasets.length < 2)('on the first documents and queries of ARCD and SciFact', async () => {
      const loaded = datasets.map((name) => loadBeirDataset(join(root!, name)));
      const corpus = toChunks(loaded.flatMap((dataset) => dataset.corpus.slice(0, 150).map((document) => ({ id: `${dataset.name}-${document.id}`, text: document.text, ...(document.title ? { title: document.title } : {}) }))));
      const queries = loaded.flatMap((dataset) => dataset.queries.slice(0, 15).map((query) => query.text));
      expect(await expectSqlAgrees(pool, corpus, queries)).toBeGreaterThan(200);
    }, 120_000);
  });
});

/** Words of a Zipf-like vocabulary: word i is drawn with weight 1 / (i + 1), so a few are everywhere and most are rare. */
function syntheticCorpus(seed: number, size: number, vocabulary = 400): { chunks: DocumentChunk[]; queries: string[] } {
  const next = seededRandom(seed);
  const words = Array.from({ length: vocabulary }, (_, i) => `w${i.toString(36)}x`);
  const cumulative: number[] = [];
  words.forEach((_, i) => cumulative.push((cumulative.at(-1) ?? 0) + 1 / (i + 1)));
  const total = cumulative.at(-1)!;
  const word = (): string => {
    const target = next() * total;
    let low = 0;
    while (cumulative[low]! < target) low++;
    return words[low]!;
  };
  const phrase = (length: number): string => Array.from({ length }, word).join(' ');
  const chunks = Array.from({ length: size }, (_, i): DocumentChunk => {
    const chunk: DocumentChunk = { id: `c${i}`, docId: `d${i % 40}`, text: phrase(3 + Math.floor(next() * 30)), source: 'top-k', metadata: {}, position: { index: i }, embedding: [1] };
    if (next() < 0.3) chunk.title = phrase(1 + Math.floor(next() * 4));
    return chunk;
  });
  // Duplicated texts make exact score ties, which the id must break.
  for (let i = 0; i < size; i += 17) chunks[i] = { ...chunks[i]!, text: chunks[(i * 7) % size]!.text, title: chunks[(i * 7) % size]!.title };
  const queries = Array.from({ length: 40 }, () => phrase(1 + Math.floor(next() * 8)));
  return { chunks, queries };
}

/** Differences between the per-term statistics and a recount from the postings (empty: exact). */
async function termStatisticsProblems(sql: SqlClient, collection: string): Promise<string[]> {
  const names = keywordIndexNames(collection);
  const { rows } = await sql.query<{ term: string; stored: string | null; counted: string | null; text_stored: string | null; text_counted: string | null; bounded: boolean }>(
    `WITH stored AS (
       SELECT term, sum(chunks) AS chunks, sum(text_chunks) AS text_chunks, max(max_text_frequency) AS tf, max(max_title_frequency) AS title_tf,
              min(min_text_length) AS tl, min(min_title_length) AS title_tl
         FROM "public"."${names.termStatistics}" GROUP BY term
     ), counted AS (
       SELECT term, count(*) AS chunks, count(*) FILTER (WHERE text_frequency > 0) AS text_chunks, max(text_frequency) AS tf, max(title_frequency) AS title_tf,
              min(text_length) AS tl, min(title_length) AS title_tl
         FROM "public"."${names.postings}" GROUP BY term
     )
     SELECT coalesce(s.term, c.term) AS term, s.chunks::text AS stored, c.chunks::text AS counted, s.text_chunks::text AS text_stored, c.text_chunks::text AS text_counted,
            (c.term IS NULL OR (s.tf >= c.tf AND s.title_tf >= c.title_tf AND s.tl <= c.tl AND s.title_tl <= c.title_tl)) AS bounded
       FROM stored s FULL JOIN counted c ON c.term = s.term`,
  );
  return rows.flatMap((row) => {
    const problems: string[] = [];
    if (Number(row.stored ?? 0) !== Number(row.counted ?? 0) || Number(row.text_stored ?? 0) !== Number(row.text_counted ?? 0)) {
      problems.push(`term ${row.term}: stored ${row.stored}/${row.text_stored} postings, counted ${row.counted}/${row.text_counted}`);
    }
    if (!row.bounded) problems.push(`term ${row.term}: the stored bounds do not bound its postings`);
    return problems;
  });
}

/** The formula's ranking: score descending, then id in code-point order (the store's tie rule). */
function formulaRanking(chunks: readonly DocumentChunk[], query: string, parameters: Bm25Parameters): Array<[string, number]> {
  return [...formulaScores(chunks, query, parameters)].sort(([a, x], [b, y]) => y - x || compareCodePoints(a, b));
}

/** The pruning plan run directly, at any size (the store scores queries with few postings by the full plan). */
async function prunedTop(sql: SqlClient, collection: string, query: string, k: number, bm25: Bm25Parameters): Promise<Array<[string, number]>> {
  const { terms, weights } = queryTerms(defaultAnalyzer, query);
  if (terms.length === 0) return [];
  const text = bm25TopSql({ ...keywordTables('public', collection), terms: '$1', weights: '$2', k1: '$3', b: '$4', titleWeight: '$5', k: '$6', plan: 'pruned' });
  const { rows } = await sql.query<{ chunk_id: string; score: number | string }>(text, [terms, weights, bm25.k1, bm25.b, bm25.titleWeight, k]);
  return rows.map((row) => [row.chunk_id, Number(row.score)]);
}

/** Every query's best k — the pruning plan's, and the store's — against the first k of the formula's ranking. */
async function expectTopAgrees(store: PgVectorStore, sql: SqlClient, chunks: readonly DocumentChunk[], queries: readonly string[], ks: readonly number[]): Promise<number> {
  let compared = 0;
  for (const bm25 of PARAMETER_SETS) {
    for (const query of queries) {
      const expected = formulaRanking(chunks, query, bm25);
      for (const k of ks) {
        const stored = (await store.textSearch(query, { k, bm25 })).map((hit): [string, number] => [hit.chunk.id, hit.score]);
        for (const [plan, top] of [['pruned', await prunedTop(sql, store.collection, query, k, bm25)], ['store', stored]] as const) {
          const context = `${plan}: query "${query}", k ${k}, ${JSON.stringify(bm25)}`;
          expect(top.map(([id]) => id), context).toEqual(expected.slice(0, k).map(([id]) => id));
          top.forEach(([, score], i) => expect(Math.abs(score - expected[i]![1]), context).toBeLessThanOrEqual(1e-10 * Math.max(1, score)));
          compared += top.length;
        }
      }
    }
  }
  return compared;
}

describe('the BM25 top-k plan (bm25TopSql) returns exactly the formula’s best k (PGlite)', () => {
  const database = pgliteForFile();

  it('for k from 1 to more than match, on a corpus of a few frequent and many rare words with exact ties', async () => {
    const store = new PgVectorStore({ connection: database(), collection: uniqueCollection('top_k'), dimensions: 1, hnsw: false, includeEmbeddings: false });
    try {
      const { chunks, queries } = syntheticCorpus(7, 400);
      await store.add(chunks);
      expect(await expectTopAgrees(store, toSqlClient(database()), chunks, queries, [1, 3, 10, 40])).toBeGreaterThan(4000);
    } finally {
      await store.drop();
    }
  }, 240_000);

  it('after rewrites and deletes have left its bounds loose, with per-term statistics exact through every write', async () => {
    const collection = uniqueCollection('top_k_writes');
    const store = new PgVectorStore({ connection: database(), collection, dimensions: 1, hnsw: false, includeEmbeddings: false });
    const sql = toSqlClient(database());
    try {
      const { chunks, queries } = syntheticCorpus(11, 300);
      await store.add(chunks.slice(0, 200));
      await store.add(chunks.slice(200));
      expect(await termStatisticsProblems(sql, collection)).toEqual([]);
      const live = new Map(chunks.map((chunk) => [chunk.id, chunk]));
      // A third of the chunks rewritten with other texts (old postings out, new in), some deleted by id, two documents by docId.
      const rewritten = chunks.filter((_, i) => i % 3 === 0).map((chunk, i): DocumentChunk => ({ ...chunk, text: chunks[(i * 13) % chunks.length]!.text, title: undefined }));
      await store.add(rewritten);
      for (const chunk of rewritten) live.set(chunk.id, chunk);
      const deleted = chunks.filter((_, i) => i % 5 === 1).map((chunk) => chunk.id);
      await store.delete(deleted);
      for (const id of deleted) live.delete(id);
      await store.deleteByDocIds(['d3', 'd4']);
      for (const [id, chunk] of live) if (chunk.docId === 'd3' || chunk.docId === 'd4') live.delete(id);
      expect(await termStatisticsProblems(sql, collection)).toEqual([]);
      expect(await expectTopAgrees(store, sql, [...live.values()], queries.slice(0, 15), [1, 10])).toBeGreaterThan(600);
      await store.clear();
      const { rows } = await sql.query<{ count: string | number }>(`SELECT count(*) AS count FROM "public"."${keywordIndexNames(collection).termStatistics}"`);
      expect(Number(rows[0]!.count)).toBe(0);
    } finally {
      await store.drop();
    }
  }, 240_000);

  it('migrates a keyword index of the previous layout (no per-term statistics) when a store opens it: built from the postings, kept by the trigger from then on', async () => {
    const collection = uniqueCollection('migrate');
    const sql = toSqlClient(database());
    const names = keywordIndexNames(collection);
    const { chunks, queries } = syntheticCorpus(23, 200);
    const first = new PgVectorStore({ connection: database(), collection, dimensions: 1, hnsw: false, includeEmbeddings: false });
    await first.add(chunks);
    const before = await Promise.all(queries.map((query) => first.textSearch(query, { k: 10 })));
    const comment = async () => JSON.parse((await sql.query<{ comment: string }>(`SELECT obj_description('"public"."${collection}"'::regclass, 'pg_class') AS comment`)).rows[0]!.comment);
    const layout = await comment();
    // Back to the previous layout exactly: no per-term statistics table, no trigger on the postings (the comment was and stays version 2).
    await sql.query(`DROP TABLE "public"."${names.termStatistics}"`);
    await sql.query(`DROP FUNCTION "public"."${names.termSync}"() CASCADE`);

    const reopened = await PgVectorStore.open({ connection: database(), collection, dimensions: 1, hnsw: false, includeEmbeddings: false });
    try {
      expect(await comment()).toEqual(layout);
      expect(await termStatisticsProblems(sql, collection)).toEqual([]);
      const after = await Promise.all(queries.map((query) => reopened.textSearch(query, { k: 10 })));
      expect(after.map((hits) => hits.map((hit) => [hit.chunk.id, hit.score]))).toEqual(before.map((hits) => hits.map((hit) => [hit.chunk.id, hit.score])));
      // The trigger is in place: later writes keep the statistics exact.
      await reopened.add(chunks.slice(0, 20).map((chunk) => ({ ...chunk, text: `${chunk.text} wnewx` })));
      await reopened.delete(chunks.slice(50, 60).map((chunk) => chunk.id));
      expect(await termStatisticsProblems(sql, collection)).toEqual([]);
      expect((await reopened.textSearch('wnewx', { k: 50 })).map((hit) => hit.chunk.id).sort()).toEqual(chunks.slice(0, 20).map((chunk) => chunk.id).sort());
      // A per-term table without its trigger (an earlier release dropped and re-created the collection): stale, so rebuilt.
      await sql.query(`DROP FUNCTION "public"."${names.termSync}"() CASCADE`);
      await sql.query(`INSERT INTO "public"."${names.termStatistics}" VALUES ('wstalex', 1, 5, 5, 1, 0, 1, 0)`);
      const again = await PgVectorStore.open({ connection: database(), collection, dimensions: 1, hnsw: false, includeEmbeddings: false });
      expect(await termStatisticsProblems(sql, collection)).toEqual([]);
      await again.delete([chunks[0]!.id]);
      expect(await termStatisticsProblems(sql, collection)).toEqual([]);
      await again.close();
    } finally {
      await reopened.drop();
      await first.close();
    }
  }, 240_000);
});

/** Rows, distinct terms and distinct slots of the per-term statistics, and rows of the collection statistics. */
async function statisticsRows(sql: SqlClient, collection: string): Promise<{ rows: number; terms: number; slots: number[]; collectionRows: number }> {
  const names = keywordIndexNames(collection);
  const { rows } = await sql.query<{ rows: string; terms: string; slots: number[]; collection_rows: string }>(
    `SELECT count(*) AS rows, count(DISTINCT term) AS terms, array_agg(DISTINCT slot ORDER BY slot) AS slots,
            (SELECT count(*) FROM "public"."${names.statistics}") AS collection_rows
       FROM "public"."${names.termStatistics}"`,
  );
  return { rows: Number(rows[0]!.rows), terms: Number(rows[0]!.terms), slots: (rows[0]!.slots ?? []).map(Number), collectionRows: Number(rows[0]!.collection_rows) };
}

describe.skipIf(!SERVER_URL)(`folding the statistics rows of many backends (PostgreSQL server${SERVER_SKIP_REASON ? `, skipped: ${SERVER_SKIP_REASON}` : ''})`, () => {
  let pool: pg.Pool;
  beforeAll(() => {
    pool = serverPool(4);
  });
  afterAll(async () => {
    await pool?.end();
  });
  const open = (connection: SqlConnection, collection: string) => new PgVectorStore({ connection, collection, dimensions: 1, hnsw: false, includeEmbeddings: false });

  it('keeps one row per term when every write comes from a new connection (a pool recycling its connections)', async () => {
    const collection = uniqueCollection('fold_recycled');
    const sql = toSqlClient(pool);
    const { chunks } = syntheticCorpus(41, 60);
    const writers = 8;
    try {
      for (let writer = 0; writer < writers; writer++) {
        const client = await serverClient();
        try {
          // Each a new backend (a new slot) rewriting the same chunks: without folding, a row per term per writer.
          await open(client, collection).add(chunks.map((chunk) => ({ ...chunk, text: `${chunk.text} ${writer % 2 === 0 ? 'wevenx' : 'woddx'}` })));
        } finally {
          await client.end();
        }
      }
      const before = await statisticsRows(sql, collection);
      // Each store folded the earlier backends' rows when it opened the table: slot 0 and the last writer's at most.
      expect(before.slots.length).toBeLessThanOrEqual(2);
      expect(before.rows).toBeLessThanOrEqual(2 * before.terms);
      expect(await termStatisticsProblems(sql, collection)).toEqual([]);
      await PgVectorStore.open({ connection: pool, collection, dimensions: 1, hnsw: false, includeEmbeddings: false });
      expect(await statisticsRows(sql, collection)).toEqual({ rows: before.terms, terms: before.terms, slots: [0], collectionRows: 1 });
      expect(await termStatisticsProblems(sql, collection)).toEqual([]);
    } finally {
      await open(pool, collection).drop();
    }
  }, 120_000);

  it('folds concurrently with 24 writers on their own connections and folds of their own, and the scores stay exact', async () => {
    const collection = uniqueCollection('fold_concurrent');
    const sql = toSqlClient(pool);
    const { chunks, queries } = syntheticCorpus(43, 480);
    const live = new Map(chunks.map((chunk) => [chunk.id, chunk]));
    const setup = await PgVectorStore.open({ connection: pool, collection, dimensions: 1, hnsw: false, includeEmbeddings: false });
    try {
      let writing = true;
      let folds = 0;
      const folder = (async () => {
        while (writing) {
          await foldStatistics(sql, keywordTables('public', collection));
          folds += 1;
        }
      })();
      const writers = Array.from({ length: 24 }, async (_, writer) => {
        const client = await serverClient();
        try {
          // Opening folds too (every store folds the table when it opens it), racing the folder and the other writers.
          const store = open(client, collection);
          const mine = chunks.slice(writer * 20, writer * 20 + 20);
          await store.add(mine);
          const rewritten = mine.slice(0, 5).map((chunk, i): DocumentChunk => ({ ...chunk, text: chunks[(writer * 7 + i * 11) % chunks.length]!.text }));
          await store.add(rewritten);
          await store.delete([mine[19]!.id]);
          return { rewritten, deleted: mine[19]!.id };
        } finally {
          await client.end();
        }
      });
      const results = await Promise.all(writers).finally(() => {
        writing = false;
      });
      await folder;
      expect(folds).toBeGreaterThan(0);
      for (const { rewritten, deleted } of results) {
        for (const chunk of rewritten) live.set(chunk.id, chunk);
        live.delete(deleted);
      }
      expect(await termStatisticsProblems(sql, collection)).toEqual([]);
      await foldStatistics(sql, keywordTables('public', collection));
      const folded = await statisticsRows(sql, collection);
      expect(folded).toEqual({ rows: folded.terms, terms: folded.terms, slots: [0], collectionRows: 1 });
      expect(await termStatisticsProblems(sql, collection)).toEqual([]);
      expect(await expectTopAgrees(setup, sql, [...live.values()], queries.slice(0, 10), [1, 10, live.size])).toBeGreaterThan(1000);
    } finally {
      await setup.drop();
      await setup.close();
    }
  }, 240_000);
});
