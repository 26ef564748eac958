// `zerda serve` runs every request in its own scope: the shared isolation suite over HTTP, and the
// issue 27 regressions (one history shared by all clients; any Host header answered).
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextEngine, type ContextResult } from '@zerda/context';
import { testScopeIsolation } from '@zerda/scope-conformance';
import { startInspectorServer, type InspectorServer } from './serve-command.js';

/** A word only client `i` uses (letters only: the tokenizer splits digits from letters). */
const wordOf = (i: number) => `zeta${'abcdefghijklmnopqrstuvwxyz'[Math.floor(i / 26)]}${'abcdefghijklmnopqrstuvwxyz'[i % 26]}alpha`;

/** GET `path` with an explicit Host header (fetch does not let a caller set it). */
function get(server: InspectorServer, path: string, host?: string): Promise<{ status: number; body: string }> {
  const url = new URL(path, server.url);
  return new Promise((resolvePromise, reject) => {
    const request = httpRequest({ hostname: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers: { host: host ?? url.host } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolvePromise({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

testScopeIsolation({
  name: 'zerda serve (GET /api/query, a conversation per client)',
  capabilities: { tenants: false, conversations: true, callerFilter: false },
  async start(engine) {
    const server = await startInspectorServer(engine, { index: '.zerda', host: '127.0.0.1', port: 0 }, '.zerda');
    return {
      async ask({ query, conversation }) {
        const { status, body } = await get(server, `/api/query?q=${encodeURIComponent(query)}${conversation ? `&conversation=${encodeURIComponent(conversation)}` : ''}`);
        if (status !== 200) return { seen: body, error: body };
        const result = JSON.parse(body) as ContextResult;
        return { seen: body, fromCache: result.fromCache, effectiveQuery: result.effectiveQuery };
      },
      close: () => server.close(),
    };
  },
});

describe('zerda serve: issue 27 regressions', () => {
  let engine: ContextEngine;
  let server: InspectorServer;
  beforeAll(async () => {
    engine = new ContextEngine({ config: { cache: { enabled: true } } });
    await engine.index(
      Array.from({ length: 100 }, (_, i) => ({ docId: `d${i}`, text: `Topic ${wordOf(i)} is explained here: ${wordOf(i)} concerns one subsystem of the tachyon array.` })).concat([
        { docId: 'exploit', text: 'The exploit targets the parser of the tachyon system; say bar to disable it.' },
      ]),
    );
    server = await startInspectorServer(engine, { index: '.zerda', host: '127.0.0.1', port: 0 }, '.zerda');
  });
  afterAll(() => server?.close());

  it('client B\'s follow-up is never expanded with client A\'s words (one history per conversation, none without one)', async () => {
    expect((await get(server, `/api/query?q=${encodeURIComponent('tachyon say bar')}`)).status).toBe(200);
    const b = JSON.parse((await get(server, `/api/query?q=${encodeURIComponent('and the exploit?')}`)).body) as ContextResult;
    expect(b.effectiveQuery).toBe('and the exploit?');
    expect(engine.getHistory()?.size ?? 0).toBe(0);
  });

  it('a burst of 200 concurrent requests: every question is expanded with its own client\'s words only', async () => {
    const clients = Array.from({ length: 100 }, (_, i) => ({ i, conversation: `client-${i}-conversation-0123456789` }));
    await Promise.all(clients.map(({ i, conversation }) => get(server, `/api/query?q=${encodeURIComponent(`what is ${wordOf(i)}?`)}&conversation=${conversation}`)));
    const followUps = await Promise.all([
      ...clients.map(({ conversation }) => get(server, `/api/query?q=${encodeURIComponent('and what about it?')}&conversation=${conversation}`)),
      ...clients.map(() => get(server, `/api/query?q=${encodeURIComponent('and what about it?')}`)),
    ]);
    followUps.forEach(({ status, body }, index) => {
      expect(status).toBe(200);
      const result = JSON.parse(body) as ContextResult;
      const words = [...result.effectiveQuery.matchAll(/zeta[a-z]{2}alpha/g)].map((match) => match[0]);
      if (index < 100) expect(words).toEqual([wordOf(index)]);
      else expect(words).toEqual([]);
    });
  });

  it('answers only its own host names (DNS rebinding), refuses short conversation ids, long request targets, and keeps values out of errors', async () => {
    expect((await get(server, '/healthz', 'evil.example')).status).toBe(421);
    expect((await get(server, '/api/query?q=hours', `attacker.example:${new URL(server.url).port}`)).status).toBe(421);
    expect((await get(server, '/healthz', `localhost:${new URL(server.url).port}`)).status).toBe(200);
    expect((await get(server, '/healthz', `[::1]:${new URL(server.url).port}`)).status).toBe(200);
    const short = await get(server, '/api/query?q=hours&conversation=abc');
    expect(short.status).toBe(400);
    expect(short.body).toMatch(/at least 16 characters/);
    expect((await get(server, `/api/query?q=${'x'.repeat(10_000)}`)).status).toBe(414);
  });

  it('a server started with --allowed-hosts answers those names only', async () => {
    const named = await startInspectorServer(engine, { index: '.zerda', host: '127.0.0.1', port: 0, allowedHosts: ['zerda.internal'] }, '.zerda');
    try {
      expect((await get(named, '/healthz', 'zerda.internal:8080')).status).toBe(200);
      expect((await get(named, '/healthz')).status).toBe(421);
    } finally {
      await named.close();
    }
  });
});
