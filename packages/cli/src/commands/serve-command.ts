import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { relative, resolve } from 'node:path';
import type { ContextEngine } from '@zerda/context';
import { ZerdaError } from '@zerda/types';
import { renderInspector } from '../inspector/render.js';
import { CliError, EXIT } from '../errors.js';
import type { CliIo } from '../io.js';
import { runQuery, type QueryOptions } from './query-command.js';

/** Longest question the server accepts. */
const MAX_QUERY_LENGTH = 2000;

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
 * JSON, `GET /healthz` answers `ok`. Queries run one at a time per request; nothing is kept
 * between requests (the engine's cache is off).
 */
export async function startInspectorServer(engine: ContextEngine, options: QueryOptions & { host: string; port: number }, origin: string): Promise<InspectorServer> {
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
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
      const result = await runQuery(engine, query, { ...options, ...(budget ? { budget } : {}) });
      if (json) send(response, 200, 'application/json', JSON.stringify(result));
      else send(response, 200, 'text/html', renderInspector(result, { form: { action: '/', ...(budget ? { budget } : {}) }, origin }));
    } catch (error) {
      const status = error instanceof CliError && error.exitCode === EXIT.usage ? 400 : ZerdaError.isInstance(error) && error.code.startsWith('ZERDA_INVALID') ? 400 : 500;
      const message = error instanceof Error ? error.message : String(error);
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

/** `zerda serve`: serves the index until Ctrl-C / SIGTERM. */
export async function serveCommand(engine: ContextEngine, options: QueryOptions & { host: string; port: number }, io: CliIo): Promise<number> {
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
