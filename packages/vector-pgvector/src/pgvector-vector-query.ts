import type { MetadataFilter, VectorMetric } from '@zerda/types';
import { MAX_EF_SEARCH, type EfSearch, type IterativeScanMode } from './pgvector-options.js';
import { compileFilter } from './pgvector-filter.js';
import { chunkColumns, type ChunkRow, type PgTable } from './pgvector-records.js';
import { METRIC_SQL } from './pgvector-schema.js';
import { toVectorLiteral } from './vector-literal.js';

/** pgvector's own default `hnsw.ef_search`. */
const PGVECTOR_DEFAULT_EF_SEARCH = 40;

/** One nearest-neighbour query, its knobs resolved. */
export interface VectorQuery {
  vector: Float32Array;
  k: number;
  filter: MetadataFilter | undefined;
  /** Only these ids are candidates (scored exactly). */
  restrictTo: readonly string[] | undefined;
  exact: boolean;
  efSearch: EfSearch;
  iterativeScan: IterativeScanMode;
}

/** What the query needs to know about the table besides {@link PgTable}. */
export interface VectorQueryTarget extends PgTable {
  metric: VectorMetric;
  /** The table has an HNSW index configuration (false: exact scans only). */
  hnsw: boolean;
  /** The server's pgvector version (iterative scans need 0.8). */
  pgvectorVersion: string | undefined;
}

function versionAtLeast(version: string | undefined, major: number, minor: number): boolean {
  if (!version) return false;
  const [a = 0, b = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  return a > major || (a === major && b >= minor);
}

/**
 * Runs `ORDER BY embedding <op> $1 LIMIT k` so the HNSW index answers it, with `hnsw.ef_search`
 * set for the query (to `efSearch`, and at least `k` up to 1000; `'server'` keeps the server's
 * setting, raised to `k`) and iterative index scans for filtered queries on pgvector 0.8+.
 * `exact`, a candidate list, or `k` above 1000 scan without the index. Returns rows with their
 * raw distances, in the backend's order.
 */
export async function nearestRows(target: VectorQueryTarget, query: VectorQuery): Promise<Array<ChunkRow & { distance: number | string | null }>> {
  const { k, filter, restrictTo, efSearch } = query;
  // A restricted candidate set is scored exactly: an index scan would find ef_search neighbours and then drop most of them.
  const exact = query.exact || restrictTo !== undefined || k > MAX_EF_SEARCH;
  const { operator } = METRIC_SQL[target.metric];
  const parameters: unknown[] = [toVectorLiteral(query.vector)];
  let where = compileFilter(filter, parameters, { metadata: 'metadata', docId: 'doc_id', source: 'source' });
  if (restrictTo) where = `id = ANY($${parameters.push(restrictTo)}::text[]) AND ${where}`;
  const distance = `(embedding ${operator} $1::vector)`;
  // Exact scans order zero vectors (NaN cosine distance) as similarity 0, like the other stores; the index skips them.
  const order = exact ? (target.metric === 'cosine' ? `(CASE WHEN ${distance} = 'NaN'::float8 THEN 1 ELSE ${distance} END), id` : `${distance}, id`) : distance;
  const text = `SELECT ${chunkColumns(target.includeEmbeddings)}, ${distance} AS distance
      FROM ${target.table} WHERE ${where} ORDER BY ${order} LIMIT $${parameters.push(k)}`;

  // Each setting is [name, value] or [name, value, "at least the current value"].
  const settings: Array<[string, string, boolean?]> = [];
  if (exact) settings.push(['enable_indexscan', 'off']);
  else if (target.hnsw) {
    const atLeastK = Math.min(k, MAX_EF_SEARCH);
    if (efSearch !== 'server') settings.push(['hnsw.ef_search', String(Math.max(efSearch, atLeastK))]);
    // The server's own setting: only a k above pgvector's default needs raising it (never lowering it).
    else if (k > PGVECTOR_DEFAULT_EF_SEARCH) settings.push(['hnsw.ef_search', String(atLeastK), true]);
    if (filter && query.iterativeScan !== 'off' && versionAtLeast(target.pgvectorVersion, 0, 8)) settings.push(['hnsw.iterative_scan', query.iterativeScan]);
  }
  type Row = ChunkRow & { distance: number | string | null };
  if (settings.length === 0 || !target.client.transaction) return (await target.client.query<Row>(text, parameters)).rows;
  return target.client.transaction(async (client) => {
    for (const [name, value, atLeast] of settings) {
      if (atLeast) {
        await client.query(`SELECT set_config($1, greatest(coalesce(current_setting($1, true), '${PGVECTOR_DEFAULT_EF_SEARCH}')::int, $2::int)::text, true)`, [name, value]);
      } else {
        await client.query('SELECT set_config($1, $2, true)', [name, value]);
      }
    }
    return (await client.query<Row>(text, parameters)).rows;
  });
}
