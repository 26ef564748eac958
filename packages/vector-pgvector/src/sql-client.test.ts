import { EventEmitter } from 'node:events';
import { ZerdaError } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { fromNodePostgres, fromPGlite, sqlClientKind, toSqlClient, type SqlClient } from './sql-client.js';

/** A stand-in for one node-postgres connection: records statements, can fail chosen ones, emits 'error' like a client. */
class FakeConnection extends EventEmitter {
  readonly log: string[] = [];
  released: Array<boolean | Error | undefined> = [];
  failOn = new Set<string>();
  /** Resolves the next statement only when `gate` resolves (to interleave calls deterministically). */
  gate: Promise<void> | undefined;

  constructor(readonly name: string) {
    super();
  }

  async query(text: string): Promise<{ rows: unknown[] }> {
    this.log.push(text);
    if (this.gate) await this.gate;
    if (this.failOn.has(text)) throw new Error(`${text} failed`);
    return { rows: [{ connection: this.name, text }] };
  }

  release(destroy?: boolean | Error): void {
    this.released.push(destroy);
  }
}

class FakePool {
  totalCount = 0;
  idleCount = 0;
  readonly connections: FakeConnection[] = [];
  readonly direct = new FakeConnection('pool');

  async query(text: string): Promise<{ rows: unknown[] }> {
    return this.direct.query(text);
  }

  async connect(): Promise<FakeConnection> {
    const connection = new FakeConnection(`checked-out-${this.connections.length}`);
    this.connections.push(connection);
    return connection;
  }
}

describe('fromNodePostgres with a Pool', () => {
  it('runs a transaction on one checked-out connection and releases it', async () => {
    const pool = new FakePool();
    const client = toSqlClient(pool);
    expect(sqlClientKind(client)).toBe('node-postgres-pool');
    const result = await client.transaction!(async (transaction) => {
      await transaction.query('INSERT 1');
      return (await transaction.query('SELECT 2')).rows;
    });
    expect(result).toEqual([{ connection: 'checked-out-0', text: 'SELECT 2' }]);
    expect(pool.connections[0]!.log).toEqual(['BEGIN', 'INSERT 1', 'SELECT 2', 'COMMIT']);
    expect(pool.connections[0]!.released).toEqual([undefined]);
    expect(pool.direct.log).toEqual([]);
  });

  it('rolls back and rethrows when the work fails, and destroys a connection whose ROLLBACK failed', async () => {
    const pool = new FakePool();
    const client = fromNodePostgres(pool);
    const failing = client.transaction!(async (transaction) => {
      await transaction.query('INSERT 1');
      throw new Error('second statement failed');
    });
    await expect(failing).rejects.toThrow('second statement failed');
    expect(pool.connections[0]!.log).toEqual(['BEGIN', 'INSERT 1', 'ROLLBACK']);
    expect(pool.connections[0]!.released).toEqual([undefined]);

    const original = pool.connect.bind(pool);
    pool.connect = async () => {
      const connection = await original();
      connection.failOn.add('ROLLBACK');
      return connection;
    };
    await expect(client.transaction!(async () => Promise.reject(new Error('work failed')))).rejects.toThrow('work failed');
    expect(pool.connections[1]!.released).toEqual([true]);
  });

  it('listens for the error a checked-out connection emits when the server goes away, and destroys that connection', async () => {
    const pool = new FakePool();
    const client = fromNodePostgres(pool);
    const lost = client.transaction!(async (transaction) => {
      await transaction.query('INSERT 1');
      // What node-postgres does when the postmaster dies mid-transaction: an 'error' event (which
      // would crash the process without a listener) and a failing statement.
      pool.connections[0]!.emit('error', new Error('terminating connection due to unexpected postmaster exit'));
      throw new Error('Connection terminated unexpectedly');
    });
    await expect(lost).rejects.toThrow('Connection terminated unexpectedly');
    expect(pool.connections[0]!.released).toEqual([true]);
    expect(pool.connections[0]!.listenerCount('error')).toBe(0);
    await client.transaction!(async (transaction) => transaction.query('SELECT 1'));
    expect(pool.connections[1]!.released).toEqual([undefined]);
  });

  it('sends plain queries to the pool', async () => {
    const pool = new FakePool();
    await fromNodePostgres(pool).query('SELECT 1');
    expect(pool.direct.log).toEqual(['SELECT 1']);
  });
});

describe('fromNodePostgres with a single Client', () => {
  it('keeps concurrent statements out of a running transaction', async () => {
    const connection = Object.assign(new FakeConnection('client'), { connect: async () => undefined });
    const client = toSqlClient(connection);
    expect(sqlClientKind(client)).toBe('node-postgres-client');
    let open!: () => void;
    const inside = new Promise<void>((resolve) => (open = resolve));
    const transaction = client.transaction!(async (scoped) => {
      await scoped.query('INSERT 1');
      await inside;
      await scoped.query('INSERT 2');
    });
    const outside = client.query('SELECT outside');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(connection.log).toEqual(['BEGIN', 'INSERT 1']);
    open();
    await Promise.all([transaction, outside]);
    expect(connection.log).toEqual(['BEGIN', 'INSERT 1', 'INSERT 2', 'COMMIT', 'SELECT outside']);
  });

  it('rolls back a failed transaction and keeps serving queries', async () => {
    const connection = Object.assign(new FakeConnection('client'), { connect: async () => undefined });
    const client = fromNodePostgres(connection);
    connection.failOn.add('FAIL');
    await expect(client.transaction!(async (scoped) => scoped.query('FAIL'))).rejects.toThrow('FAIL failed');
    await client.query('SELECT after');
    expect(connection.log.slice(-4)).toEqual(['BEGIN', 'FAIL', 'ROLLBACK', 'SELECT after']);
  });
});

describe('toSqlClient', () => {
  it('passes a custom SqlClient through and refuses what cannot run queries', () => {
    const custom: SqlClient = { query: async () => ({ rows: [] }) };
    expect(toSqlClient(custom)).toBe(custom);
    expect(sqlClientKind(custom)).toBe('custom');
    for (const bad of [null, undefined, 42, {}, { query: 'SELECT' }]) {
      let error: unknown;
      try {
        toSqlClient(bad as never);
      } catch (caught) {
        error = caught;
      }
      expect(ZerdaError.isInstance(error)).toBe(true);
      expect((error as ZerdaError).message).toContain('options.connection');
    }
    expect(() => toSqlClient({ query: async () => ({ rows: [] }), transaction: 'yes' } as never)).toThrow(/transaction/);
    expect(() => fromPGlite({ query: async () => ({ rows: [] }) } as never)).toThrow(/PGlite/);
  });

  it('recognises a PGlite-shaped object and delegates transactions to it', async () => {
    const log: string[] = [];
    const pglite = {
      exec: async () => undefined,
      query: async (text: string) => {
        log.push(`db:${text}`);
        return { rows: [] };
      },
      transaction: async <T>(fn: (transaction: { query(text: string): Promise<{ rows: unknown[] }> }) => Promise<T>) =>
        fn({
          query: async (text: string) => {
            log.push(`tx:${text}`);
            return { rows: [] };
          },
        }),
    };
    const client = toSqlClient(pglite);
    expect(sqlClientKind(client)).toBe('pglite');
    expect(toSqlClient(client)).toBe(client);
    await client.query('SELECT 1');
    await client.transaction!((scoped) => scoped.query('INSERT 1'));
    expect(log).toEqual(['db:SELECT 1', 'tx:INSERT 1']);
  });
});
