// The shared isolation suite through LangChain's own calling convention: one retriever shared by every
// request, the tenant and conversation in each call's config (configurable.scope, configurable.thread_id),
// a caller's extra filter through withRunOptions (which can only narrow).
import { testScopeIsolation } from '@zerda/scope-conformance';
import { ZerdaRetriever } from './zerda-retriever.js';

testScopeIsolation({
  name: '@zerda/langchain ZerdaRetriever (invoke with per-call config)',
  capabilities: { tenants: true, conversations: true, callerFilter: true },
  async start(engine) {
    const shared = new ZerdaRetriever({ engine }).asContext();
    const withHistory = shared.withRunOptions({ useHistory: true, recordTurn: true });
    return {
      async ask({ tenant, user, query, conversation, filter }) {
        const retriever = (conversation ? withHistory : shared).withRunOptions(filter ? { metadataFilters: filter as never } : {});
        const documents = await retriever.invoke(query, { configurable: { scope: { id: `${tenant}/${user}`, filter: { tenant } }, ...(conversation ? { thread_id: conversation } : {}) } });
        return { seen: JSON.stringify(documents), fromCache: documents[0]?.metadata.fromCache === true };
      },
    };
  },
});
