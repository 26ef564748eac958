import { analyseChunk, analyzerFor } from '../keyword-index.js';
import type { PgVectorStore } from '../pgvector-vector-store.js';
import { keywordIndexNames } from '../pgvector-schema.js';
import type { SqlClient } from '../sql-client.js';

interface Posting {
  term: string;
  chunk_id: string;
  text_frequency: number;
  title_frequency: number;
  text_length: number;
  title_length: number;
}

function key(posting: Posting): string {
  return JSON.stringify([posting.term, posting.chunk_id, posting.text_frequency, posting.title_frequency, posting.text_length, posting.title_length]);
}

/**
 * Recomputes a collection's keyword index from its rows, in one REPEATABLE READ snapshot, and
 * lists every difference from what the database holds: collection statistics (chunks, total
 * lengths), per-row lengths and the postings themselves. An empty list: the index is exact.
 */
export async function auditKeywordIndex(sql: SqlClient, store: PgVectorStore): Promise<string[]> {
  const names = keywordIndexNames(store.collection);
  const postingsTable = `"${store.schema}"."${names.postings}"`;
  const statisticsTable = `"${store.schema}"."${names.statistics}"`;
  return sql.transaction!(async (client) => {
    await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const comment = await client.query<{ comment: string }>(`SELECT obj_description($1::regclass, 'pg_class') AS comment`, [`"${store.schema}"."${store.collection}"`]);
    const analyzer = analyzerFor(JSON.parse(comment.rows[0]!.comment).analyzer);
    const rows = (await client.query<{ id: string; text: string; title: string | null; text_length: number | null; title_length: number | null }>(`SELECT id, text, title, text_length, title_length FROM ${store.qualifiedTableName}`)).rows;
    const statistics = (await client.query<{ chunks: string | number; text_length: string | number; title_length: string | number }>(
      `SELECT coalesce(sum(chunks), 0) AS chunks, coalesce(sum(text_length), 0) AS text_length, coalesce(sum(title_length), 0) AS title_length FROM ${statisticsTable}`,
    )).rows[0]!;
    const stored = (await client.query<Posting>(`SELECT term, chunk_id, text_frequency, title_frequency, text_length, title_length FROM ${postingsTable}`)).rows;
    const problems: string[] = [];
    let textTotal = 0;
    let titleTotal = 0;
    const expected = new Set<string>();
    for (const row of rows) {
      const analysis = analyseChunk(analyzer, row.text, row.title ?? undefined);
      if (row.text_length !== analysis.textLength || row.title_length !== analysis.titleLength) {
        problems.push(`row ${row.id}: lengths ${row.text_length}/${row.title_length}, analysed ${analysis.textLength}/${analysis.titleLength}`);
      }
      textTotal += analysis.textLength;
      titleTotal += analysis.titleLength;
      analysis.terms.forEach((term, index) =>
        expected.add(key({ term, chunk_id: row.id, text_frequency: analysis.textFrequencies[index]!, title_frequency: analysis.titleFrequencies[index]!, text_length: analysis.textLength, title_length: analysis.titleLength })),
      );
    }
    if (Number(statistics.chunks) !== rows.length) problems.push(`statistics count ${statistics.chunks} chunks, the table holds ${rows.length}`);
    if (Number(statistics.text_length) !== textTotal) problems.push(`statistics total text length ${statistics.text_length}, recount ${textTotal}`);
    if (Number(statistics.title_length) !== titleTotal) problems.push(`statistics total title length ${statistics.title_length}, recount ${titleTotal}`);
    const found = new Set(stored.map(key));
    if (found.size !== stored.length) problems.push(`${stored.length - found.size} duplicate postings`);
    let missing = 0;
    for (const entry of expected) if (!found.has(entry)) missing++;
    let extra = 0;
    for (const entry of found) if (!expected.has(entry)) extra++;
    if (missing > 0) problems.push(`${missing} of ${expected.size} postings missing (e.g. ${[...expected].find((entry) => !found.has(entry))})`);
    if (extra > 0) problems.push(`${extra} stale or orphaned postings (e.g. ${[...found].find((entry) => !expected.has(entry))})`);
    return problems;
  });
}
