import pg from 'pg';
import type { PostgresServer } from '../../../../scripts/postgres-fixture.mjs';

/**
 * The PostgreSQL server the server tests use: `ZERDA_PG_URL`, set by `npm test` (scripts/zerda.mjs
 * starts a private server with pgvector around the package tests) or by the user for their own server.
 */
export const SERVER_URL = process.env.ZERDA_PG_URL;

const HOW_TO_GET_ONE =
  'run `npm test` (it starts a private PostgreSQL with pgvector when the machine has PostgreSQL: apt-get install postgresql-15 postgresql-server-dev-15), ' +
  'or `node scripts/postgres-fixture.mjs run -- pnpm --filter @zerda/vector-pgvector test`, or set ZERDA_PG_URL=postgres://user@host:port/database (a server with pgvector)';

/** Why the server tests skip, or undefined when a server is configured. */
export const SERVER_SKIP_REASON = SERVER_URL ? undefined : `no PostgreSQL server: ${HOW_TO_GET_ONE}`;
if (SERVER_SKIP_REASON) console.warn(`[vector-pgvector] server tests skipped — ${SERVER_SKIP_REASON}`);

/** A node-postgres pool on the test server; idle-connection errors are reported by the next query, not thrown. */
export function serverPool(max = 8, connectionString = SERVER_URL): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  pool.on('error', () => undefined);
  return pool;
}

/** A connected single node-postgres client on the test server. */
export async function serverClient(connectionString = SERVER_URL): Promise<pg.Client> {
  const client = new pg.Client({ connectionString });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

type Fixture = typeof import('../../../../scripts/postgres-fixture.mjs');

async function fixture(): Promise<Fixture> {
  return import('../../../../scripts/postgres-fixture.mjs');
}

/**
 * Whether this process can start (and kill) a PostgreSQL server of its own — needed by the crash
 * test, which must SIGKILL the postmaster: the server binaries and pgvector installed into them.
 */
export async function ownServerSkipReason(): Promise<string | undefined> {
  const availability = (await fixture()).postgresAvailability();
  if (!availability.available) return `${availability.reason} (this test starts and kills a server of its own)`;
  if (!availability.pgvector) return 'pgvector is not installed into the local PostgreSQL: run `node scripts/postgres-fixture.mjs install-pgvector` (builds ../shared/vendor/pgvector-0.8.6 against postgresql-server-dev)';
  return undefined;
}

/** Starts a private server (the project fixture); fsync off unless asked (a killed process does not need it, only an OS crash would). */
export async function startOwnServer({ fsync = false }: { fsync?: boolean } = {}): Promise<PostgresServer> {
  return (await fixture()).startPostgres({ fsync });
}
