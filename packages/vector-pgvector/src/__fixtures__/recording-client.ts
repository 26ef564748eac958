import type { SqlClient, SqlResult } from '../sql-client.js';

export interface RecordedStatement {
  text: string;
  params: readonly unknown[];
  inTransaction: boolean;
}

/** A SqlClient that records every statement and can fail chosen ones (fault injection). */
export interface RecordingClient extends SqlClient {
  statements: RecordedStatement[];
  /** Return an error to make that statement fail instead of running. */
  failWhen: ((statement: RecordedStatement, index: number) => Error | undefined) | undefined;
}

export function recordingClient(inner: SqlClient): RecordingClient {
  const recorder: RecordingClient = {
    statements: [],
    failWhen: undefined,
    query: (text, params) => run(inner, text, params, false),
    transaction: <T>(fn: (client: SqlClient) => Promise<T>) =>
      inner.transaction!((transaction) => fn({ query: (text, params) => run(transaction, text, params, true) })),
  };
  async function run<Row>(client: SqlClient, text: string, params: readonly unknown[] | undefined, inTransaction: boolean): Promise<SqlResult<Row>> {
    const statement = { text, params: params ?? [], inTransaction };
    recorder.statements.push(statement);
    const error = recorder.failWhen?.(statement, recorder.statements.length - 1);
    if (error) throw error;
    return client.query<Row>(text, params);
  }
  return recorder;
}
