import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { ContextEngine, type ContextSummary } from '@zerda/context';
import { contextMiddleware, contextTool, type ContextMetadata } from '@zerda/ai-sdk';
import { documents } from '@zerda/example-quickstart';

// A stand-in for a real model (no network, no key): it answers with the first sentence of the first
// numbered passage it was given, and cites it. Swap in any AI SDK model (openai('gpt-…'), …).
const usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};
type CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0];

/** The first sentence of passage [1] in `text` (the `citations` template numbers passages `[1] …`). */
function firstCitedSentence(text: string): string | undefined {
  const start = text.indexOf('[1]');
  if (start < 0) return undefined;
  const passage = text.slice(start + 3).trim();
  const end = passage.search(/[.!?؟]/u);
  return end < 0 ? passage : passage.slice(0, end + 1);
}

function answerFrom(text: string, arabic: boolean) {
  const sentence = firstCitedSentence(text);
  const answer = sentence ? `${sentence} [1]` : arabic ? 'لا أعرف.' : "I don't know.";
  return { content: [{ type: 'text' as const, text: answer }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] };
}

const userText = (options: CallOptions) =>
  options.prompt
    .filter((message) => message.role === 'user')
    .flatMap((message) => (message.role === 'user' ? message.content : []))
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('\n');

/** A mock model that first calls the `search_handbook` tool with the user's question, then answers from what the tool returned. */
function toolUsingModel() {
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      const toolMessage = options.prompt.find((message) => message.role === 'tool');
      if (!toolMessage) {
        return {
          content: [{ type: 'tool-call' as const, toolCallId: 'call-1', toolName: 'search_handbook', input: JSON.stringify({ query: userText(options) }) }],
          finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
          usage,
          warnings: [],
        };
      }
      const part = toolMessage.role === 'tool' ? toolMessage.content[0] : undefined;
      const read = part?.type === 'tool-result' && part.output.type === 'text' ? part.output.value : '';
      return answerFrom(read, /[\u0600-\u06FF]/u.test(userText(options)));
    },
  });
}

/** A mock model that answers from the system messages (where the middleware puts the context). */
function contextReadingModel() {
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      const system = options.prompt.map((message) => (message.role === 'system' ? message.content : '')).join('\n');
      return answerFrom(system, /[\u0600-\u06FF]/u.test(userText(options)));
    },
  });
}

export interface AiSdkExampleRun {
  question: string;
  answer: string;
  /** The context the model read and its sources. */
  sources: string[];
}

/**
 * The AI SDK example: the same bilingual handbook as the quickstart, used two ways — as a tool the
 * model calls (`contextTool`), and through a middleware that adds the context to every call
 * (`contextMiddleware`). Runs offline with the AI SDK's mock model.
 */
export async function runAiSdkExample(print: (line: string) => void = console.log): Promise<{ tool: AiSdkExampleRun[]; middleware: AiSdkExampleRun[] }> {
  const engine = new ContextEngine({ config: { composer: { maxContextLength: 900, template: 'citations' } } });
  await engine.index(documents.map(({ docId, source, title, text, metadata }) => ({ docId, source, title, text, metadata })));
  const questions = ['What is retrieval-augmented generation?', 'كيف تُعالَج النصوص العربية قبل الفهرسة؟'];

  print('── 1. contextTool: the model calls the tool, reads the context, answers with a citation');
  const tool: AiSdkExampleRun[] = [];
  for (const question of questions) {
    const { text, steps } = await generateText({
      model: toolUsingModel(),
      tools: { search_handbook: contextTool(engine, { description: 'Search the zerda handbook (English and Arabic).' }) },
      stopWhen: stepCountIs(2),
      prompt: question,
    });
    const output = steps[0]?.toolResults[0]?.output as ContextSummary | undefined;
    const sources = (output?.citations ?? []).map((citation) => citation.source);
    tool.push({ question, answer: text, sources });
    print(`\n> ${question}\n${text}\n  sources: ${sources.join(', ')}`);
  }

  print('\n── 2. contextMiddleware: every call gets the context for the last user message');
  const model = wrapLanguageModel({ model: contextReadingModel(), middleware: contextMiddleware(engine) });
  const middleware: AiSdkExampleRun[] = [];
  for (const question of questions) {
    const result = await generateText({ model, system: 'You answer questions about the zerda handbook.', prompt: question });
    const metadata = result.providerMetadata?.zerda as unknown as ContextMetadata | undefined;
    const sources = (metadata?.citations ?? []).map((citation) => citation.source);
    middleware.push({ question, answer: result.text, sources });
    print(`\n> ${question}\n${result.text}\n  sources: ${sources.join(', ')} (${metadata?.budget.used}/${metadata?.budget.limit} ${metadata?.budget.unit})`);
  }
  return { tool, middleware };
}
