// The `model` of @zerda/ai-sdk's README tool example: the AI SDK's own test model (no network),
// which calls the tool `search_docs` and then answers.
import { MockLanguageModelV4 } from 'ai/test';
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };
const model = new MockLanguageModelV4({
  doGenerate: [
    { content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'search_docs', input: JSON.stringify({ query: 'How does BM25 rank documents?' }) }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] },
    { content: [{ type: 'text', text: 'By term frequency and document length [1].' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
  ],
});
