import type { Analyzer } from '@zerda/text';
import type { DocumentChunk } from '@zerda/types';
import { PostingColumns, analyseChunk, postingsInsertStatement, type AnalysedChunk } from './keyword-index.js';
import { compareCodePoints, type PgTable } from './pgvector-records.js';
import { foldStatisticsStatements, type KeywordTables } from './pgvector-schema.js';
import type { SqlClient } from './sql-client.js';

/** Attempts of a write transaction the server rolls back as a deadlock victim or a serialization failure. */
const WRITE_ATTEMPTS = 5;
/** Rows analysed per transaction when a table gains its keyword index. */
const BACKFILL_BATCH = 500;
/** Postings per INSERT statement. */
const POSTINGS_PER_STATEMENT = 50_000;
/** Ids per DELETE/SELECT statement. */
export const IDS_PER_STATEMENT = 10_000;

/**
 * Chunks a store writes or deletes between two folds of the keyword index's statistics (see
 * {@link foldStatistics}): the rows left unfolded stay bounded by what these writes touched.
 */
export const FOLD_AFTER_CHUNKS = 10_000;

/**
 * Folds the keyword index's per-backend statistics rows into one per term (and one for the
 * collection): `foldStatisticsStatements`, each statement on its own (atomic, never waiting for a
 * writer's uncommitted rows). Run when a store opens the table and every {@link FOLD_AFTER_CHUNKS}
 * chunks it writes.
 */
export async function foldStatistics(client: SqlClient, tables: KeywordTables): Promise<void> {
  for (const statement of foldStatisticsStatements(tables)) await client.query(statement);
}

/** Thrown inside a write transaction that finds a keyword index this store did not know about. */
export class StaleLayoutError extends Error {}

/** Runs `fn` in a transaction when the client supports one (writes are then all-or-nothing). */
export function inTransaction<T>(client: SqlClient, fn: (client: SqlClient) => Promise<T>): Promise<T> {
  return client.transaction ? client.transaction(fn) : fn(client);
}

/**
 * A write transaction, run again when PostgreSQL rolled it back as a deadlock victim (40P01) or
 * for a serialization failure (40001): rows are locked in one global order, but the server's own
 * index maintenance takes locks too, and its deadlock detector may still pick one of 32
 * concurrent writers. The rolled-back attempt left nothing behind, so running it again is safe.
 */
export async function inWriteTransaction<T>(client: SqlClient, fn: (client: SqlClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTransaction(client, fn);
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (!client.transaction || attempt >= WRITE_ATTEMPTS || (code !== '40P01' && code !== '40001')) throw error;
      await new Promise((resolve) => setTimeout(resolve, attempt * (5 + Math.random() * 20)));
    }
  }
}

/** The multi-row upsert of chunk rows from parallel arrays (with the analysed lengths when the keyword index exists). */
function upsertStatement(table: string, keyword: boolean): string {
  const lengthColumns = keyword ? ', text_length, title_length' : '';
  return `INSERT INTO ${table} AS t (id, doc_id, text, source, title, metadata, position, timestamp_ms, language, embedding${lengthColumns})
      SELECT u.id, u.doc_id, u.text, u.source, u.title, u.metadata::jsonb, u.position::jsonb, u.timestamp_ms, u.language::regconfig, u.embedding::vector${keyword ? ', u.text_length, u.title_length' : ''}
        FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::float8[], $9::text[], $10::text[]${keyword ? ', $11::int4[], $12::int4[]' : ''})
          AS u(id, doc_id, text, source, title, metadata, position, timestamp_ms, language, embedding${lengthColumns})
      ON CONFLICT (id) DO UPDATE SET doc_id = EXCLUDED.doc_id, text = EXCLUDED.text, source = EXCLUDED.source, title = EXCLUDED.title,
        metadata = EXCLUDED.metadata, position = EXCLUDED.position, timestamp_ms = EXCLUDED.timestamp_ms,
        language = EXCLUDED.language, embedding = EXCLUDED.embedding${keyword ? ', text_length = EXCLUDED.text_length, title_length = EXCLUDED.title_length' : ''}`;
}

/** Replaces the postings of `ids` (rows the transaction holds locked) with those of their analyses. */
async function replacePostings(client: SqlClient, postings: string, ids: readonly string[], analyses: readonly AnalysedChunk[]): Promise<void> {
  await client.query(`DELETE FROM ${postings} WHERE chunk_id = ANY($1::text[])`, [ids]);
  const columns = new PostingColumns();
  analyses.forEach((analysis, index) => columns.push(ids[index]!, analysis));
  for (const slice of columns.slices(POSTINGS_PER_STATEMENT)) await client.query(postingsInsertStatement(postings), slice);
}

/** One validated chunk with what its row stores besides it. */
export interface ChunkWrite {
  chunk: DocumentChunk;
  /** The embedding as a pgvector literal. */
  vector: string;
  /** The row's text-search configuration. */
  language: string;
}

/** Where and how {@link writeChunks} writes. */
export interface WriteTarget extends PgTable {
  keywordTables: KeywordTables;
  /** The keyword index's analyzer, or undefined when the table has no keyword index. */
  analyzer: Analyzer | undefined;
  batchSize: number;
}

/**
 * Upserts the rows in one write transaction, as multi-row statements of `batchSize` rows. Rows
 * are written (and locked) in one global order — the ids' "C" collation order — so two concurrent
 * writes sharing ids wait for each other instead of deadlocking (deletes lock in that order too).
 * With the keyword index each batch's postings are replaced after the upsert has locked its rows,
 * so concurrent writers of one id apply whole, one after the other. Without it, a table that
 * gained a keyword index meanwhile throws {@link StaleLayoutError} (unindexed rows must not be written).
 */
export async function writeChunks(target: WriteTarget, writes: readonly ChunkWrite[]): Promise<void> {
  const ordered = [...writes].sort((a, b) => compareCodePoints(a.chunk.id, b.chunk.id));
  const { analyzer, keywordTables } = target;
  const statement = upsertStatement(target.table, analyzer !== undefined);
  await inWriteTransaction(target.client, async (client) => {
    if (!analyzer) {
      const { rows } = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [keywordTables.postingsName]);
      if (rows[0]?.present) throw new StaleLayoutError();
    }
    for (let start = 0; start < ordered.length; start += target.batchSize) {
      const batch = ordered.slice(start, start + target.batchSize);
      const chunks = batch.map((write) => write.chunk);
      const ids = chunks.map((chunk) => chunk.id);
      const parameters: unknown[] = [
        ids,
        chunks.map((chunk) => chunk.docId),
        chunks.map((chunk) => chunk.text),
        chunks.map((chunk) => chunk.source),
        chunks.map((chunk) => chunk.title ?? null),
        chunks.map((chunk) => JSON.stringify(chunk.metadata)),
        chunks.map((chunk) => JSON.stringify(chunk.position)),
        chunks.map((chunk) => chunk.timestamp ?? null),
        batch.map((write) => write.language),
        batch.map((write) => write.vector),
      ];
      if (!analyzer) {
        await client.query(statement, parameters);
        continue;
      }
      // Analysed here, batch by batch, so the analyses of a large add are never all held at once.
      const analyses = chunks.map((chunk) => analyseChunk(analyzer, chunk.text, chunk.title));
      parameters.push(analyses.map((analysis) => analysis.textLength), analyses.map((analysis) => analysis.titleLength));
      await client.query(statement, parameters);
      // INSERT … SELECT FROM unnest keeps the array order, so the locks were taken in id order.
      await replacePostings(client, keywordTables.postings, ids, analyses);
    }
  });
}

/**
 * Analyses the rows that have no keyword-index entry yet (a table that gained its keyword index,
 * or rows written by a process that did not know of it), in batches of one transaction each, so
 * the work survives an interruption and resumes at the next open. Rows another writer holds
 * locked are skipped: that writer indexes them itself.
 */
export async function analyseUnanalysedRows(target: Pick<WriteTarget, 'client' | 'table' | 'keywordTables'>, analyzer: Analyzer): Promise<void> {
  const { table } = target;
  for (;;) {
    const analysed = await inTransaction(target.client, async (client) => {
      const { rows } = await client.query<{ id: string; text: string; title: string | null }>(
        `SELECT id, text, title FROM ${table} WHERE text_length IS NULL ORDER BY id LIMIT ${BACKFILL_BATCH} FOR UPDATE SKIP LOCKED`,
      );
      if (rows.length === 0) return 0;
      const analyses = rows.map((row) => analyseChunk(analyzer, row.text, row.title ?? undefined));
      const ids = rows.map((row) => row.id);
      await client.query(
        `UPDATE ${table} AS t SET text_length = u.text_length, title_length = u.title_length
           FROM unnest($1::text[], $2::int4[], $3::int4[]) AS u(id, text_length, title_length) WHERE t.id = u.id`,
        [ids, analyses.map((analysis) => analysis.textLength), analyses.map((analysis) => analysis.titleLength)],
      );
      await replacePostings(client, target.keywordTables.postings, ids, analyses);
      return rows.length;
    });
    if (analysed < BACKFILL_BATCH) return;
  }
}

/** Runs `DELETE … WHERE column = ANY($1)` in slices of values, in one write transaction, locking rows in the global id order first. */
export async function deleteRows(target: Pick<PgTable, 'client' | 'table'>, column: 'id' | 'doc_id', values: readonly string[]): Promise<void> {
  const unique = [...new Set(values)].sort(compareCodePoints);
  if (unique.length === 0) return;
  await inWriteTransaction(target.client, async (client) => {
    for (let start = 0; start < unique.length; start += IDS_PER_STATEMENT) {
      const slice = unique.slice(start, start + IDS_PER_STATEMENT);
      // Lock the rows in the global id order first (as writeChunks does), then delete them.
      await client.query(`SELECT 1 FROM ${target.table} WHERE ${column} = ANY($1::text[]) ORDER BY id COLLATE "C" FOR UPDATE`, [slice]);
      await client.query(`DELETE FROM ${target.table} WHERE ${column} = ANY($1::text[])`, [slice]);
    }
  });
}
