import { DEFAULT_ANALYZER_OPTIONS, type ResolvedAnalyzerOptions } from '@zerda/text';
import { createError, type VectorMetric } from '@zerda/types';
import { quoteIdentifier } from './identifiers.js';
import { tooManyDimensionsForHnsw, type ResolvedPgVectorOptions } from './pgvector-options.js';
import {
  HNSW_MAX_DIMENSIONS,
  checkExistingTable,
  commentStatement,
  hnswIndexStatement,
  inspectTable,
  keywordIndexStatements,
  termStatisticsStatements,
  tableStatements,
  textSearchStatements,
  type TableLayout,
} from './pgvector-schema.js';
import { inTransaction } from './pgvector-writes.js';
import type { SqlClient } from './sql-client.js';

/** The settings a table is set up with: the store's resolved options and its metric. */
export interface SetupSettings extends Pick<
  ResolvedPgVectorOptions,
  'schema' | 'collection' | 'hnsw' | 'deferIndex' | 'textSearch' | 'textRanking' | 'analyzer' | 'textSearchConfigurations' | 'createExtension'
> {
  metric: VectorMetric;
}

/** The layout of the settings' table with `dimensions` and the given keyword index. */
export function tableLayout(settings: SetupSettings, dimensions: number, keywordIndex: ResolvedAnalyzerOptions | false): TableLayout {
  return {
    schema: settings.schema,
    table: settings.collection,
    metric: settings.metric,
    dimensions,
    hnsw: settings.hnsw,
    fullText: settings.textSearch && settings.textRanking === 'ts_rank_cd',
    keywordIndex,
  };
}

/** Creates the `vector` extension when asked and returns its version; a ZerdaError when it is missing. */
export async function prepareExtension(client: SqlClient, createExtension: boolean): Promise<string> {
  const version = await inTransaction(client, async (transaction) => {
    if (createExtension) {
      // Two processes creating the extension at once would collide on the catalog's unique index.
      await transaction.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['zerda:create-extension-vector']);
      await transaction.query('CREATE EXTENSION IF NOT EXISTS vector');
    }
    const { rows } = await transaction.query<{ extversion: string }>("SELECT extversion FROM pg_extension WHERE extname = 'vector'");
    return rows[0]?.extversion;
  });
  if (version === undefined) {
    throw createError('ZERDA_NOT_READY', {
      component: 'pgvector',
      reason: 'the vector extension is not installed in this database (run CREATE EXTENSION vector as a privileged user, or leave options.createExtension on)',
    });
  }
  return version;
}

async function checkTextSearchConfigurations(client: SqlClient, configurations: readonly string[]): Promise<void> {
  const { rows } = await client.query<{ cfgname: string }>('SELECT cfgname FROM pg_ts_config WHERE cfgname = ANY($1::text[])', [[...configurations]]);
  const present = new Set(rows.map((row) => row.cfgname));
  const missing = configurations.filter((name) => !present.has(name));
  if (missing.length > 0) {
    throw createError('ZERDA_UNSUPPORTED', {
      operation: `text search with configuration(s) ${missing.join(', ')}`,
      component: 'this PostgreSQL server',
      reason: 'pass options.textSearchConfigurations (and chooseTextSearchConfiguration) with configurations listed in pg_ts_config',
    });
  }
}

/** What a set-up table is: its dimension and its keyword index (the analyzer options, or false). */
export interface ReadyTable {
  dimensions: number;
  keywordIndex: ResolvedAnalyzerOptions | false;
}

/**
 * Checks an existing table against the settings and adds what it lacks (the keyword index, the
 * full-text column, the HNSW index) or migrates what is older (a keyword index without per-term
 * statistics gains them), or creates the table when `create` gives its dimension.
 * Returns undefined when there is no table and none is created. One transaction under an
 * advisory lock of the collection, so concurrent set-ups (other processes too) take turns.
 */
export async function setUpTable(client: SqlClient, settings: SetupSettings, knownDimensions: number | undefined, create: number | undefined): Promise<ReadyTable | undefined> {
  const { schema, collection, hnsw } = settings;
  const wantKeywordIndex = settings.textSearch && settings.textRanking === 'bm25';
  const requested = settings.analyzer ?? { ...DEFAULT_ANALYZER_OPTIONS };
  return inTransaction(client, async (transaction) => {
    await transaction.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`zerda:${schema}.${collection}`]);
    const existing = await inspectTable(transaction, schema, collection);
    if (!existing) {
      if (create === undefined) return undefined;
      if (hnsw && create > HNSW_MAX_DIMENSIONS) throw tooManyDimensionsForHnsw(create, 'the first vector');
      await checkTextSearchConfigurations(transaction, settings.textSearchConfigurations);
      if (schema !== 'public') await transaction.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
      const layout = tableLayout(settings, create, wantKeywordIndex ? requested : false);
      for (const statement of tableStatements(layout)) await transaction.query(statement);
      if (hnsw && !settings.deferIndex) await transaction.query(hnswIndexStatement(layout, hnsw));
      return { dimensions: create, keywordIndex: layout.keywordIndex };
    }
    const name = `${schema}.${collection}`;
    const dimensions = checkExistingTable(existing, name, { metric: settings.metric, dimensions: knownDimensions });
    if (hnsw && dimensions > HNSW_MAX_DIMENSIONS) throw tooManyDimensionsForHnsw(dimensions, 'the existing table');
    await checkTextSearchConfigurations(transaction, settings.textSearchConfigurations);
    let keywordIndex: ResolvedAnalyzerOptions | false = false;
    if (existing.hasKeywordIndex) {
      keywordIndex = existing.comment!.analyzer ?? { ...DEFAULT_ANALYZER_OPTIONS };
      if (settings.analyzer && JSON.stringify(settings.analyzer) !== JSON.stringify(keywordIndex)) {
        throw createError('ZERDA_INVALID_CONFIG', {
          field: 'options.analyzer',
          expected: `the analyzer table ${name} was indexed with (${JSON.stringify(keywordIndex)}), or no analyzer option`,
          received: JSON.stringify(settings.analyzer),
        });
      }
      if (!existing.hasTermStatistics) {
        // A keyword index without per-term statistics (an earlier release's): migrated in this transaction.
        for (const statement of termStatisticsStatements({ schema, table: collection })) await transaction.query(statement);
      }
    } else if (wantKeywordIndex) {
      keywordIndex = requested;
      const upgraded = tableLayout(settings, dimensions, keywordIndex);
      for (const statement of keywordIndexStatements(upgraded)) await transaction.query(statement);
      await transaction.query(commentStatement(upgraded));
    }
    const layout = tableLayout(settings, dimensions, keywordIndex);
    if (layout.fullText && !existing.hasTextSearchColumn) {
      for (const statement of textSearchStatements(layout)) await transaction.query(statement);
    }
    if (hnsw && !settings.deferIndex && !existing.hasHnswIndex) await transaction.query(hnswIndexStatement(layout, hnsw));
    return { dimensions, keywordIndex };
  });
}
