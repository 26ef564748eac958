// The shared isolation suite through the AI SDK's own clients (generateText, streamText) and mock models:
// the tool (scope from toolsContext → execution.context), the middleware (scope from providerOptions) in a
// two-step tool loop, and streamText. One tool and one middleware serve every request, as in a server.
import { generateText, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { testScopeIsolation, type IsolationRequest } from '@zerda/scope-conformance';
import { contextTool } from './context-tool.js';
import { contextMiddleware } from './context-middleware.js';
import { answer, streamed, toolCall } from './__fixtures__/mock-responses.js';

/** The scope an application derives from its request (its session, its auth): tenant filter, user identity, conversation. */
const scopeOf = ({ tenant, user, conversation }: IsolationRequest) => ({ id: `${tenant}/${user}`, filter: { tenant }, ...(conversation ? { conversation } : {}) });

testScopeIsolation({
  name: '@zerda/ai-sdk contextTool (generateText tool loop, toolsContext)',
  capabilities: { tenants: true, conversations: true, callerFilter: true },
  async start(engine) {
    const search = contextTool(engine);
    return {
      async ask(request) {
        const mock = new MockLanguageModelV4({ doGenerate: [toolCall('search', { query: request.query, ...(request.filter ? { filter: request.filter } : {}) }), answer('done')] });
        const result = await generateText({ model: mock, tools: { search }, toolsContext: { search: scopeOf(request) }, prompt: request.query, stopWhen: stepCountIs(2) });
        const outputs = result.steps.flatMap((step) => step.toolResults.map((toolResult) => toolResult.output as { fromCache?: boolean }));
        const errors = result.steps.flatMap((step) => step.content.filter((part) => part.type === 'tool-error'));
        return {
          seen: JSON.stringify({ prompts: mock.doGenerateCalls.map((call) => call.prompt), outputs }),
          fromCache: outputs.some((output) => output.fromCache === true),
          ...(errors.length > 0 ? { error: JSON.stringify(errors.map((part) => String((part as { error: unknown }).error))) } : {}),
        };
      },
    };
  },
});

const clock = tool({ description: 'The time', inputSchema: z.object({}), execute: async () => 'noon' });

testScopeIsolation({
  name: '@zerda/ai-sdk contextMiddleware (generateText, two-step tool loop, providerOptions)',
  capabilities: { tenants: true, conversations: true, callerFilter: false },
  async start(engine) {
    const middleware = contextMiddleware(engine);
    return {
      async ask(request) {
        const mock = new MockLanguageModelV4({ doGenerate: [toolCall('clock', {}), answer('done')] });
        const model = wrapLanguageModel({ model: mock, middleware });
        const result = await generateText({ model, tools: { clock }, prompt: request.query, stopWhen: stepCountIs(2), providerOptions: { zerda: { scope: scopeOf(request) } } });
        const metadata = result.steps.map((step) => step.providerMetadata?.zerda as { fromCache?: boolean } | undefined);
        return { seen: JSON.stringify({ prompts: mock.doGenerateCalls.map((call) => call.prompt), metadata }), fromCache: metadata[0]?.fromCache === true };
      },
    };
  },
});

testScopeIsolation({
  name: '@zerda/ai-sdk contextMiddleware (streamText, scope resolver)',
  capabilities: { tenants: true, conversations: true, callerFilter: false },
  async start(engine) {
    // The application's resolver reads the request's own headers (here: what its auth put there).
    const middleware = contextMiddleware(engine, { scope: ({ params }) => JSON.parse(String(params.headers?.['x-scope'])) });
    return {
      async ask(request) {
        const mock = new MockLanguageModelV4({ doStream: streamed('done') });
        const result = streamText({ model: wrapLanguageModel({ model: mock, middleware }), prompt: request.query, headers: { 'x-scope': JSON.stringify(scopeOf(request)) } });
        await result.text;
        const metadata = (await result.providerMetadata)?.zerda as { fromCache?: boolean } | undefined;
        return { seen: JSON.stringify({ prompts: mock.doStreamCalls.map((call) => call.prompt), metadata }), fromCache: metadata?.fromCache === true };
      },
    };
  },
});
