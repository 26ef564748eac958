import { invalidArgument } from '@zerda/types';

/** The rows a statement returned. Column values arrive as the driver parsed them. */
export interface SqlResult<Row = Record<string, unknown>> {
  rows: Row[];
}

/**
 * The one query interface the store talks to. Every statement is parameterised (`$1`, `$2` …);
 * `transaction` runs `fn` on one connection between BEGIN and COMMIT and rolls back when `fn`
 * throws. Adapters exist for node-postgres pools and clients ({@link fromNodePostgres}) and for
 * PGlite ({@link fromPGlite}); any other driver can be wrapped by implementing these two methods.
 * Without `transaction`, multi-statement writes are not atomic.
 */
export interface SqlClient {
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<Row>>;
  transaction?<T>(fn: (client: SqlClient) => Promise<T>): Promise<T>;
}

/** The part of a node-postgres `Client` or `PoolClient` the adapter uses (structural, so `pg` stays optional). */
export interface NodePostgresClientLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  connect?: unknown;
  release?: unknown;
}

/** The part of a node-postgres `Pool` the adapter uses. */
export interface NodePostgresPoolLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  connect(): Promise<
    NodePostgresClientLike & {
      release(destroy?: boolean | Error): void;
      on?(event: 'error', listener: (error: Error) => void): unknown;
      off?(event: 'error', listener: (error: Error) => void): unknown;
    }
  >;
  totalCount: number;
  idleCount: number;
}

/** The part of a PGlite instance (or a PGlite transaction) the adapter uses. */
export interface PGliteLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  transaction<T>(fn: (transaction: { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }> }) => Promise<T>): Promise<T>;
  exec(text: string): Promise<unknown>;
  close?(): Promise<void>;
  readonly dataDir?: string | undefined;
}

/** Anything {@link toSqlClient} accepts: a node-postgres Pool or Client, a PGlite instance, or a ready SqlClient. */
export type SqlConnection = SqlClient | NodePostgresPoolLike | NodePostgresClientLike | PGliteLike;

const ADAPTED = Symbol.for('zerda.vector-pgvector.sql-client');

type Adapted = SqlClient & { [ADAPTED]: 'pglite' | 'node-postgres-pool' | 'node-postgres-client' };

function hasFunction(value: unknown, name: string): boolean {
  return typeof (value as Record<string, unknown> | null)?.[name] === 'function';
}

/** True for a PGlite instance (it has `exec`, `transaction` and `query`). */
export function isPGliteLike(value: unknown): value is PGliteLike {
  return hasFunction(value, 'query') && hasFunction(value, 'transaction') && hasFunction(value, 'exec');
}

/** True for a node-postgres `Pool` (it checks out clients and counts them). */
export function isNodePostgresPoolLike(value: unknown): value is NodePostgresPoolLike {
  return (
    hasFunction(value, 'query') &&
    hasFunction(value, 'connect') &&
    typeof (value as { totalCount?: unknown }).totalCount === 'number' &&
    typeof (value as { idleCount?: unknown }).idleCount === 'number'
  );
}

function plainClient(query: (text: string, params?: readonly unknown[]) => Promise<{ rows: unknown[] }>): SqlClient {
  return {
    query: async <Row>(text: string, params: readonly unknown[] = []) => ({ rows: (await query(text, params)).rows as Row[] }),
  };
}

/**
 * Runs `fn` between BEGIN and COMMIT on a single connection; ROLLBACK when it throws. Returns
 * whether the connection is still usable (false when even ROLLBACK failed).
 */
async function runInTransaction<T>(client: SqlClient, fn: (client: SqlClient) => Promise<T>): Promise<{ value: T } | { error: unknown; broken: boolean }> {
  await client.query('BEGIN');
  try {
    const value = await fn(client);
    await client.query('COMMIT');
    return { value };
  } catch (error) {
    try {
      await client.query('ROLLBACK');
      return { error, broken: false };
    } catch {
      return { error, broken: true };
    }
  }
}

/**
 * Adapts a node-postgres `Pool` or `Client` (or a checked-out `PoolClient`). With a pool, a
 * transaction checks out one client, runs BEGIN … COMMIT on it and releases it (destroying it if
 * ROLLBACK itself failed); plain queries go to any pooled connection. With a single client, every
 * statement is queued behind a running transaction so that concurrent calls never slip into it.
 */
export function fromNodePostgres(connection: NodePostgresPoolLike | NodePostgresClientLike): SqlClient {
  if (!hasFunction(connection, 'query')) throw invalidArgument('connection', 'a node-postgres Pool or Client (an object with query())', connection);
  if (isNodePostgresPoolLike(connection)) {
    const pool = connection;
    const adapted: Adapted = {
      [ADAPTED]: 'node-postgres-pool',
      ...plainClient((text, params) => pool.query(text, params as unknown[])),
      async transaction<T>(fn: (client: SqlClient) => Promise<T>): Promise<T> {
        const checkedOut = await pool.connect();
        // A checked-out client's connection error (the server went away) is an 'error' event that
        // would crash the process unless someone listens; the statement in flight reports it anyway.
        let lost = false;
        const onError = (): void => {
          lost = true;
        };
        checkedOut.on?.('error', onError);
        const outcome = await runInTransaction(
          plainClient((text, params) => checkedOut.query(text, params as unknown[])),
          fn,
        ).catch((error: unknown) => ({ error, broken: true }));
        checkedOut.off?.('error', onError);
        checkedOut.release(lost || ('broken' in outcome && outcome.broken) ? true : undefined);
        if ('error' in outcome) throw outcome.error;
        return outcome.value;
      },
    };
    return adapted;
  }
  const client = connection;
  const direct = plainClient((text, params) => client.query(text, params as unknown[]));
  // One connection runs one statement at a time anyway; the queue only keeps other callers out of an open transaction.
  let tail: Promise<unknown> = Promise.resolve();
  const enqueue = <T>(work: () => Promise<T>): Promise<T> => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };
  const adapted: Adapted = {
    [ADAPTED]: 'node-postgres-client',
    query: <Row>(text: string, params?: readonly unknown[]) => enqueue(() => direct.query<Row>(text, params)),
    transaction: <T>(fn: (client: SqlClient) => Promise<T>) =>
      enqueue(async () => {
        const outcome = await runInTransaction(direct, fn);
        if ('error' in outcome) throw outcome.error;
        return outcome.value;
      }),
  };
  return adapted;
}

/**
 * Adapts a PGlite instance. Transactions use PGlite's own `transaction`, which serialises them
 * with every other statement on the instance.
 */
export function fromPGlite(database: PGliteLike): SqlClient {
  if (!isPGliteLike(database)) throw invalidArgument('connection', 'a PGlite instance', database);
  const adapted: Adapted = {
    [ADAPTED]: 'pglite',
    ...plainClient((text, params) => database.query(text, params as unknown[])),
    transaction: <T>(fn: (client: SqlClient) => Promise<T>) =>
      database.transaction((transaction) => fn(plainClient((text, params) => transaction.query(text, params as unknown[])))),
  };
  return adapted;
}

/**
 * Turns whatever connection the user has into a {@link SqlClient}: a PGlite instance, a
 * node-postgres Pool, Client or PoolClient, or an object that already implements SqlClient.
 */
export function toSqlClient(connection: SqlConnection, field = 'options.connection'): SqlClient {
  if (connection === null || typeof connection !== 'object' || !hasFunction(connection, 'query')) {
    throw invalidArgument(field, 'a node-postgres Pool or Client, a PGlite instance, or an object implementing SqlClient (query(text, params))', connection);
  }
  if ((connection as Partial<Adapted>)[ADAPTED] !== undefined) return connection as SqlClient;
  if (isPGliteLike(connection)) return fromPGlite(connection);
  if (isNodePostgresPoolLike(connection)) return fromNodePostgres(connection);
  // A pg Client has connect(), a checked-out PoolClient has release(); a custom SqlClient has neither.
  if (hasFunction(connection, 'connect') || hasFunction(connection, 'release')) return fromNodePostgres(connection as NodePostgresClientLike);
  if ((connection as { transaction?: unknown }).transaction !== undefined && !hasFunction(connection, 'transaction')) {
    throw invalidArgument(`${field}.transaction`, 'a function (fn) => Promise', (connection as { transaction?: unknown }).transaction);
  }
  return connection as SqlClient;
}

/** Which adapter produced a client (for diagnostics), or `custom` for a user-implemented SqlClient. */
export function sqlClientKind(client: SqlClient): 'pglite' | 'node-postgres-pool' | 'node-postgres-client' | 'custom' {
  return (client as Partial<Adapted>)[ADAPTED] ?? 'custom';
}
