// The shared isolation suite through the MCP SDK's own Client: one session per user (as a streamable HTTP
// server has), a server per session over one shared engine, the tenant from the transport's auth info
// (what a bearer-token middleware establishes) and the session id — resolved by the `scope` option.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { testScopeIsolation, type Tenant, type User } from '@zerda/scope-conformance';
import { createContextServer } from './context-server.js';

testScopeIsolation({
  name: '@zerda/mcp createContextServer (a session per user, tenant from authInfo)',
  capabilities: { tenants: true, conversations: false, callerFilter: true },
  async start(engine) {
    const sessions = new Map<string, Promise<Client>>();
    const open = async (tenant: Tenant, user: User): Promise<Client> => {
      const server = createContextServer(engine, {
        scope: ({ authInfo, sessionId }) => {
          const claims = authInfo?.extra as { tenant: string; user: string };
          return { id: `${claims.tenant}/${claims.user}/${sessionId}`, filter: { tenant: claims.tenant } };
        },
      });
      const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
      serverTransport.sessionId = `session-${tenant}-${user}`;
      const authInfo = { token: `token-${tenant}-${user}`, clientId: `${tenant}-${user}`, scopes: ['read'], extra: { tenant, user } };
      const send = clientTransport.send.bind(clientTransport);
      clientTransport.send = (message, options) => send(message, { ...options, authInfo });
      await server.connect(serverTransport);
      const client = new Client({ name: `${tenant}-${user}`, version: '1.0.0' });
      await client.connect(clientTransport);
      return client;
    };
    return {
      async ask({ tenant, user, query, filter }) {
        const key = `${tenant}/${user}`;
        if (!sessions.has(key)) sessions.set(key, open(tenant, user));
        const client = await sessions.get(key)!;
        const built = await client.callTool({ name: 'build_context', arguments: { query, ...(filter ? { filter } : {}) } });
        const searched = await client.callTool({ name: 'search', arguments: { query, ...(filter ? { filter } : {}) } });
        const errors = [built, searched].filter((result) => result.isError).map((result) => JSON.stringify(result.content));
        return {
          seen: JSON.stringify([built, searched]),
          fromCache: (built.structuredContent as { fromCache?: boolean } | undefined)?.fromCache === true,
          ...(errors.length > 0 ? { error: errors.join('\n') } : {}),
        };
      },
      async close() {
        for (const session of sessions.values()) await (await session).close();
      },
    };
  },
});
