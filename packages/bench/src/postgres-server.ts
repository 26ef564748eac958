import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PgVectorStore, PgVectorStoreOptions } from '@zerda/vector-pgvector';
import { repositoryRoot } from './paths.js';
import { SystemUnavailableError } from './systems/search-system.js';

/** A PostgreSQL server with pgvector for one benchmark job, and how to give it back. */
export interface BenchPostgres {
  url: string;
  /** `PostgreSQL 15.20 …, pgvector 0.8.6` as the server reports it. */
  description: string;
  /** The postmaster's pid when this job started the server (its memory can be read), else undefined. */
  pid: number | undefined;
  release: () => Promise<void>;
}

interface Fixture {
  ensurePgvector(options?: { log?: (line: string) => void }): { ok: true } | { ok: false; reason: string };
  startPostgres(options?: { fsync?: boolean }): Promise<{ url: string; postmasterPid(): number | undefined; stop(): Promise<void> }>;
}

/**
 * The server a PostgreSQL row measures: `ZERDA_PG_URL` when set (yours, left running), otherwise a
 * private one started for this job by the repository's fixture (scripts/postgres-fixture.mjs: the
 * machine's PostgreSQL binaries, pgvector built from ../shared/vendor when missing, a temporary data
 * directory, fsync on as in production) and stopped by `release`. Throws SystemUnavailableError
 * with the reason when there is none.
 */
export async function acquirePostgres(): Promise<BenchPostgres> {
  const { default: pg } = await import('pg');
  const describe = async (url: string): Promise<string> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ server: string; pgvector: string | null }>(
        "SELECT current_setting('server_version') AS server, (SELECT default_version FROM pg_available_extensions WHERE name = 'vector') AS pgvector",
      );
      if (!rows[0]?.pgvector) throw new SystemUnavailableError(`the PostgreSQL server at ZERDA_PG_URL has no pgvector extension`);
      return `PostgreSQL ${rows[0].server.replace(/ \(.*\)$/, '')}, pgvector ${rows[0].pgvector}`;
    } finally {
      await client.end();
    }
  };
  const configured = process.env.ZERDA_PG_URL;
  if (configured) return { url: configured, description: await describe(configured), pid: undefined, release: async () => undefined };
  let fixture: Fixture;
  try {
    fixture = (await import(pathToFileURL(join(repositoryRoot(), 'scripts', 'postgres-fixture.mjs')).href)) as Fixture;
  } catch (error) {
    throw new SystemUnavailableError(`no ZERDA_PG_URL and the repository's PostgreSQL fixture could not be loaded (${error instanceof Error ? error.message : String(error)})`);
  }
  const pgvector = fixture.ensurePgvector();
  if (!pgvector.ok) throw new SystemUnavailableError(`no PostgreSQL server: ${pgvector.reason} (or set ZERDA_PG_URL)`);
  let server: Awaited<ReturnType<Fixture['startPostgres']>>;
  try {
    server = await fixture.startPostgres({ fsync: true });
  } catch (error) {
    throw new SystemUnavailableError(`the PostgreSQL server did not start: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return { url: server.url, description: await describe(server.url), pid: server.postmasterPid(), release: () => server.stop() };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/**
 * A PgVectorStore on `server` through a node-postgres pool of `clients` connections, on a fresh
 * collection (dropped first, in case a killed run left it); `close` drops it, ends the pool and
 * releases the server.
 */
export async function openServerStore(
  server: BenchPostgres,
  clients: number,
  options: Omit<PgVectorStoreOptions, 'connection'> & { collection: string },
): Promise<{ store: PgVectorStore; close: () => Promise<void> }> {
  const [{ PgVectorStore: Store }, { default: pg }] = await Promise.all([import('@zerda/vector-pgvector'), import('pg')]);
  const pool = new pg.Pool({ connectionString: server.url, max: clients });
  pool.on('error', () => undefined);
  const store = new Store({ ...options, connection: pool });
  const close = async (): Promise<void> => {
    try {
      await store.drop();
    } finally {
      await pool.end().catch(() => undefined);
      await server.release();
    }
  };
  try {
    await store.drop();
    await store.ensureSchema();
  } catch (error) {
    await pool.end().catch(() => undefined);
    await server.release();
    throw error;
  }
  return { store, close };
}
