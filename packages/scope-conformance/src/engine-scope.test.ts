// The suite against the engine's own scopes: what every bridge builds on.
import { redactError } from '@zerda/context';
import { testScopeIsolation } from './index.js';

testScopeIsolation({
  name: 'ContextEngine.scope',
  capabilities: { tenants: true, conversations: true, callerFilter: true },
  async start(engine) {
    return {
      async ask({ tenant, user, query, conversation, filter }) {
        const scope = engine.scope({ id: tenant, filter: { tenant } }).scope({ id: user, ...(conversation ? { conversation } : {}) });
        // What an application shows its client of a failure: the redacted error (code and field path).
        const result = await scope.run(query, filter ? { metadataFilters: filter as never } : {}).catch((error: unknown) => {
          throw redactError(error);
        });
        return { seen: JSON.stringify(result), fromCache: result.fromCache, effectiveQuery: result.effectiveQuery };
      },
    };
  },
});
