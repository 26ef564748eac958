// The `engine` and `model` of @zerda/ai-sdk's README middleware example: an indexed engine and the
// AI SDK's own test model (no network), which answers once.
import { MockLanguageModelV4 } from 'ai/test';
import { ContextEngine } from '@zerda/context';
const engine = new ContextEngine({ config: { composer: { template: 'citations', maxContextLength: 2000 } } });
await engine.index(chunks);
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };
const model = new MockLanguageModelV4({ doGenerate: { content: [{ type: 'text', text: 'تقنية تمنح النموذج الوثائق [1].' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] } });
