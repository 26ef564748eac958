import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { uniqueName } from '@zerda/vector-conformance';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

export { temporaryDirectory } from '@zerda/vector-conformance';

/** A collection name no other test in this process uses. */
export function uniqueCollection(prefix = 'c'): string {
  return uniqueName(prefix);
}

/** Starts PGlite with pgvector (in memory, or persisted in `dataDir`). */
export async function startPGlite(dataDir?: string): Promise<PGlite> {
  return PGlite.create(dataDir, { extensions: { vector } });
}

/**
 * One in-memory PGlite for the tests of a file (start-up takes seconds): started before them,
 * closed after them. Call at the top level; the returned function gives the running database.
 */
export function pgliteForFile(): () => PGlite {
  let database: PGlite | undefined;
  beforeAll(async () => {
    database = await startPGlite();
  }, 60_000);
  afterAll(async () => {
    await database?.close();
  });
  return () => {
    if (!database) throw new Error('the PGlite of this test file is not started (pgliteForFile() must be called at the top level)');
    return database;
  };
}

/** A PGlite served over TCP on 127.0.0.1 with an ephemeral port, as a real PostgreSQL server would be. */
export interface SocketDatabase {
  database: PGlite;
  server: PGLiteSocketServer;
  port: number;
  connectionString: string;
  stop(): Promise<void>;
}

export async function startSocketDatabase(): Promise<SocketDatabase> {
  const database = await startPGlite();
  // Port 0: the operating system picks a free port; getServerConn() reports it.
  const server = new PGLiteSocketServer({ db: database, host: '127.0.0.1', port: 0, maxConnections: 8 });
  await server.start();
  const address = server.getServerConn();
  const port = Number(address.slice(address.lastIndexOf(':') + 1));
  return {
    database,
    server,
    port,
    connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      await database.close();
    },
  };
}

/** A node-postgres pool on `connectionString`. PGlite runs one session, so one connection. */
export function nodePostgresPool(connectionString: string): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: 1 });
  pool.on('error', () => undefined);
  return pool;
}
