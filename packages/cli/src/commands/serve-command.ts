import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { relative, resolve } from 'node:path';
import { redactError, type ContextEngine } from '@zerda/context';
import { ZerdaError } from '@zerda/types';
import { renderInspector } from '../inspector/render.js';
import { CliError, EXIT } from '../errors.js';
import type { CliIo } from '../io.js';
import { runQuery, type QueryOptions } from './query-command.js';

/** Longest question the server accepts. */
const MAX_QUERY_LENGTH = 2000;
/** Longest request target (path and query string) the server reads. */
const MAX_URL_LENGTH = 8_192;
/** Shortest conversation id accepted: an id is the only key to its history, so it must be unguessable (e.g. `crypto.randomUUID()`). */
export const MIN_CONVERSATION_ID_LENGTH = 16;
/** Longest a query may run before the server gives up on it (503). */
const QUERY_TIME_LIMIT_MS = 30_000;
/** Queries running at once; more are refused with 503 rather than queued without bound. */
const MAX_CONCURRENT_QUERIES = 32;

/** Limits and the Host allow-list of `zerda serve`. */
export interface ServeOptions {
  host: string;
  port: number;
  /**
   * Host names (without port) the server answers; any other `Host` header gets 421 — a page on
   * another site cannot reach the index through DNS rebinding. Default: 127.0.0.1, localhost, [::1]
   * and the address it listens on.
   */
  allowedHosts?: string[];
  /** Per-query time limit in ms (default 30,000). */
  timeLimitMs?: number;
  /** Queries at once (default 32). */
  maxConcurrent?: number;
}

/** A running inspector server. */
export interface InspectorServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, {
    'content-type': `${type}; charset=utf-8`,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'",
  });
  response.end(body);
}

function positiveInteger(value: string | null, name: string): number | undefined {
  if (value === null || value === '') return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new CliError(`${name} must be a positive integer, got ${JSON.stringify(value)}`, EXIT.usage);
  return parsed;
}

/**
 * Serves the inspector for one opened engine: `GET /?q=…&budget=…` renders the report (a plain
 * HTML form, so it works without JavaScript), `GET /api/query?q=…` returns the `ContextResult` as
 * JSON, `GET /healthz` answers `ok`.
 *
 * Every request runs in its own scope: nothing of one client reaches another. A follow-up question
 * uses history only when the request names a conversation (`conversation=` or the
 * `x-zerda-conversation` header, at least 16 characters — the id is the only key to its history,
 * so make it unguessable); without one, no history at all. Requests whose `Host` is not allowed get
 * 421; a request target over 8 KB gets 414; more than `maxConcurrent` queries at once get 503, and
 * a query running past `timeLimitMs` is aborted (503). Error texts never quote the engine's values.
 */
export async function startInspectorServer(engine: ContextEngine, options: QueryOptions & ServeOptions, origin: string): Promise<InspectorServer> {
  const allowed = new Set((options.allowedHosts ?? ['127.0.0.1', 'localhost', '::1', options.host]).map((name) => name.toLowerCase().replace(/^\[|\]$/g, '')));
  const timeLimitMs = options.timeLimitMs ?? QUERY_TIME_LIMIT_MS;
  const maxConcurrent = options.maxConcurrent ?? MAX_CONCURRENT_QUERIES;
  let running = 0;
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (!hostAllowed(request.headers.host, allowed)) {
      send(response, 421, 'text/plain', 'this server answers only for its own host names (see zerda serve --allowed-hosts)\n');
      return;
    }
    if ((request.url ?? '/').length > MAX_URL_LENGTH) {
      send(response, 414, 'text/plain', `the request target is longer than ${MAX_URL_LENGTH} characters\n`);
      return;
    }
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      send(response, 405, 'text/plain', 'only GET is supported\n');
      return;
    }
    if (url.pathname === '/healthz') {
      send(response, 200, 'text/plain', 'ok\n');
      return;
    }
    if (url.pathname !== '/' && url.pathname !== '/api/query') {
      send(response, 404, 'text/plain', 'not found\n');
      return;
    }
    const json = url.pathname === '/api/query';
    const query = url.searchParams.get('q') ?? '';
    const form = { action: '/', ...(options.budget ? { budget: options.budget } : {}) };
    try {
      if (query.length > MAX_QUERY_LENGTH) throw new CliError(`the question has ${query.length} characters; at most ${MAX_QUERY_LENGTH} are accepted`, EXIT.usage);
      const budget = positiveInteger(url.searchParams.get('budget'), 'budget') ?? options.budget;
      if (query.trim() === '') {
        if (json) throw new CliError('q (the question) is required', EXIT.usage);
        send(response, 200, 'text/html', renderInspector(undefined, { form, origin }));
        return;
      }
      const conversation = url.searchParams.get('conversation') ?? headerValue(request.headers['x-zerda-conversation']);
      if (conversation !== undefined && conversation !== null && conversation.length < MIN_CONVERSATION_ID_LENGTH) {
        throw new CliError(`conversation must be at least ${MIN_CONVERSATION_ID_LENGTH} characters (an unguessable id, e.g. a UUID): it is the only key to its history`, EXIT.usage);
      }
      if (running >= maxConcurrent) {
        send(response, 503, json ? 'application/json' : 'text/plain', json ? JSON.stringify({ error: 'too many queries at once; try again' }) : 'too many queries at once; try again\n');
        return;
      }
      running++;
      let result;
      try {
        // Its own scope: no other request's history, no cache entry of another client.
        const scope = engine.scope(conversation ? { conversation } : {});
        result = await runQuery(scope, query, { ...options, ...(budget ? { budget } : {}), signal: AbortSignal.timeout(timeLimitMs) });
      } finally {
        running--;
      }
      if (json) send(response, 200, 'application/json', JSON.stringify(result));
      else send(response, 200, 'text/html', renderInspector(result, { form: { action: '/', ...(budget ? { budget } : {}) }, origin }));
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || (error.cause as Error | undefined)?.name === 'TimeoutError');
      const status = timedOut ? 503 : error instanceof CliError && error.exitCode === EXIT.usage ? 400 : ZerdaError.isInstance(error) && error.code.startsWith('ZERDA_INVALID') ? 400 : 500;
      // The client reads a redacted text: codes and field paths, never the engine's values.
      const message = timedOut ? `the query ran past ${timeLimitMs} ms and was stopped` : error instanceof CliError ? error.message : redactError(error).message;
      if (json) send(response, status, 'application/json', JSON.stringify({ error: message }));
      else send(response, status, 'text/html', renderInspector(undefined, { form, origin, notice: message }));
    }
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, 'text/plain', `${String(error)}\n`);
      else response.destroy();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolvePromise());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/`,
    server,
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.close(() => resolvePromise());
        server.closeAllConnections();
      }),
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** True when the `Host` header names an allowed host (any port). */
function hostAllowed(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (!header) return false;
  const name = header.startsWith('[') ? header.slice(1, header.indexOf(']')) : header.replace(/:\d+$/, '');
  return allowed.has(name.toLowerCase());
}

/** `zerda serve`: serves the index until Ctrl-C / SIGTERM. */
export async function serveCommand(engine: ContextEngine, options: QueryOptions & ServeOptions, io: CliIo): Promise<number> {
  const origin = relative(io.cwd, resolve(io.cwd, options.index)) || options.index;
  if (!/^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(options.host)) {
    io.stderr.write(`zerda: warning: --host ${options.host} makes the index readable by anyone who can reach this address\n`);
  }
  const running = await startInspectorServer(engine, options, origin);
  io.stdout.write(`zerda: inspector for ${origin} on ${running.url} (Ctrl-C to stop)\n`);
  await io.untilInterrupted();
  await running.close();
  io.stderr.write('zerda: server stopped\n');
  return EXIT.ok;
}
