import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';

let counter = 0;

/** A collection name no other test in this process uses. */
export function uniqueCollection(prefix = 'c'): string {
  counter += 1;
  return `${prefix}_${process.pid}_${counter}`;
}

/** Starts PGlite with pgvector (in memory, or persisted in `dataDir`). */
export async function startPGlite(dataDir?: string): Promise<PGlite> {
  return PGlite.create(dataDir, { extensions: { vector } });
}

/** A temporary directory, removed by the returned function. */
export async function temporaryDirectory(prefix: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
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
