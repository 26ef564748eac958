import { createError, invalidArgument } from '@zerda/types';
import type { PgVectorStoreOptions } from './pgvector-options.js';
import { PgVectorStore } from './pgvector-vector-store.js';

/** Options of {@link createPGliteStore}: the store's options (without `connection`) plus where PGlite keeps its data. */
export interface CreatePGliteStoreOptions extends Omit<PgVectorStoreOptions, 'connection' | 'closeConnection'> {
  /** Directory of the database files (persistent across restarts); omitted: in memory. */
  dataDir?: string;
  /** Further PGlite options (e.g. `{ relaxedDurability: true }`); `extensions` gets `vector` added. */
  pglite?: Record<string, unknown>;
}

/** Options of {@link createNodePostgresStore}: the store's options (without `connection`) plus the pool's. */
export interface CreateNodePostgresStoreOptions extends Omit<PgVectorStoreOptions, 'connection' | 'closeConnection'> {
  /** A PostgreSQL connection string, e.g. `postgres://user:password@host:5432/database`. */
  connectionString?: string;
  /** Further node-postgres `Pool` options (`max`, `ssl`, `host` …). */
  pool?: Record<string, unknown>;
}

async function importOptional<T>(name: string, install: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (error) {
    throw createError('ZERDA_NOT_READY', { component: name, reason: `it could not be loaded (${install})` }, error);
  }
}

/**
 * Opens an embedded PostgreSQL (PGlite, with pgvector) and a store on it, with the schema ready.
 * PGlite and its pgvector extension are optional peer dependencies loaded only here, so a server
 * deployment never loads them. `close()` on the store also closes the database. With `dataDir`
 * the data persists: a later `createPGliteStore({ dataDir })` sees it again.
 */
export async function createPGliteStore(options: CreatePGliteStoreOptions = {}): Promise<PgVectorStore> {
  if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an options object', options);
  const { dataDir, pglite, ...storeOptions } = options;
  if (dataDir !== undefined && (typeof dataDir !== 'string' || dataDir.length === 0)) throw invalidArgument('options.dataDir', 'a directory path', dataDir);
  if (pglite !== undefined && (pglite === null || typeof pglite !== 'object')) throw invalidArgument('options.pglite', 'a PGlite options object', pglite);
  const install = 'npm install @electric-sql/pglite @electric-sql/pglite-pgvector';
  const [{ PGlite }, { vector }] = await Promise.all([
    importOptional<typeof import('@electric-sql/pglite')>('@electric-sql/pglite', install),
    importOptional<typeof import('@electric-sql/pglite-pgvector')>('@electric-sql/pglite-pgvector', install),
  ]);
  const extensions = { ...((pglite?.extensions as Record<string, unknown> | undefined) ?? {}), vector };
  let database: Awaited<ReturnType<typeof PGlite.create>>;
  try {
    database = await PGlite.create(dataDir, { ...pglite, extensions } as never);
  } catch (error) {
    throw createError('ZERDA_STORE_IO', { operation: 'opening PGlite', path: dataDir ?? 'memory://', reason: error instanceof Error ? error.message : String(error) }, error);
  }
  return openStore(() => new PgVectorStore({ ...storeOptions, connection: database, closeConnection: true }), () => database.close());
}

/**
 * Connects a node-postgres `Pool` to a PostgreSQL server with pgvector and opens a store on it,
 * with the schema ready. `pg` is an optional peer dependency loaded only here. `close()` on the
 * store ends the pool.
 */
export async function createNodePostgresStore(options: CreateNodePostgresStoreOptions = {}): Promise<PgVectorStore> {
  if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an options object', options);
  const { connectionString, pool: poolOptions, ...storeOptions } = options;
  if (connectionString !== undefined && (typeof connectionString !== 'string' || connectionString.length === 0)) {
    throw invalidArgument('options.connectionString', 'a PostgreSQL connection string', connectionString);
  }
  if (poolOptions !== undefined && (poolOptions === null || typeof poolOptions !== 'object')) throw invalidArgument('options.pool', 'a node-postgres Pool options object', poolOptions);
  const pg = await importOptional<typeof import('pg') & { default?: typeof import('pg') }>('pg', 'npm install pg');
  const Pool = (pg.default ?? pg).Pool;
  const pool = new Pool({ ...poolOptions, ...(connectionString !== undefined ? { connectionString } : {}) });
  // An idle pooled connection that drops emits 'error'; without a listener Node would crash. The next query reports it.
  pool.on('error', () => undefined);
  return openStore(() => new PgVectorStore({ ...storeOptions, connection: pool, closeConnection: true }), () => pool.end());
}

/** Builds the store and readies its schema; on any failure the connection opened for it is closed again. */
async function openStore(build: () => PgVectorStore, closeConnection: () => Promise<void>): Promise<PgVectorStore> {
  let store: PgVectorStore;
  try {
    store = build();
  } catch (error) {
    await closeConnection().catch(() => undefined);
    throw error;
  }
  try {
    await store.ensureSchema();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  return store;
}
