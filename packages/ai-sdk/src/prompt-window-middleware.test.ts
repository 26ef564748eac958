import { describe, expect, it } from 'vitest';
import { generateText, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { ZerdaError, tokenCounter, type LengthCounter, type PlannedPrompt, type PromptMessage } from '@zerda/context';
import { KNOWN_MODELS, knownModel, promptWindowMiddleware, promptWindowPrepareStep } from './index.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] });
const callTool = (step: number, toolName: string, input: object) => ({
  content: [{ type: 'tool-call' as const, toolCallId: `call-${step}`, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
  usage,
  warnings: [],
});

const o200k = tokenCounter('o200k_base');

/**
 * The prompt's length measured here, independently of the planner's code: 4 tokens of framing per
 * message, plus every text, every tool call's name and JSON input, and every tool output's text or JSON.
 */
function measure(prompt: readonly PromptMessage[], counter: LengthCounter): number {
  let total = 0;
  for (const message of prompt) {
    total += 4;
    if (typeof message.content === 'string') {
      total += counter(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') total += counter(part.text!);
      else if (part.type === 'tool-call') total += counter(`${part.toolName} ${typeof part.input === 'string' ? part.input : JSON.stringify(part.input)}`);
      else if (part.type === 'tool-result') {
        const output = part.output!;
        total += counter(output.type === 'text' || output.type === 'error-text' ? (output.value as string) : JSON.stringify(output.value));
      } else total += 1000;
    }
  }
  return total;
}

/** Every tool call has its result in the prompt and every result its call. */
function pairsHold(prompt: readonly PromptMessage[]): boolean {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const message of prompt) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') calls.add(part.toolCallId!);
      if (part.type === 'tool-result') results.add(part.toolCallId!);
    }
  }
  return calls.size === results.size && [...calls].every((id) => results.has(id));
}

/** A log of about `bytes` characters with one line that matters at `needleAt` (a fraction of the way in). */
function megabyteLog(seed: number, bytes: number, needle: string, needleAt: number): string {
  const lines: string[] = [];
  let length = 0;
  let index = 0;
  let placed = false;
  while (length < bytes) {
    const line = !placed && length >= bytes * needleAt ? needle : `${seed}:${index} INFO worker processed batch ${(index * 7919) % 100_003} in ${index % 97} ms`;
    if (line === needle) placed = true;
    lines.push(line);
    length += line.length + 1;
    index++;
  }
  return lines.join('\n');
}

function searchResults(seed: number, count: number, needle: { title: string; body: string }, at: number): object {
  return {
    query: `batch ${seed}`,
    hits: Array.from({ length: count }, (_, index) =>
      index === at ? { id: `doc-${seed}-${index}`, ...needle } : { id: `doc-${seed}-${index}`, title: `Quarterly report ${index}`, body: `Routine figures for region ${index % 40}, nothing unusual. `.repeat(6) },
    ),
  };
}

/**
 * Checks a call's plan against the prompt the model received: every kept part is there unchanged,
 * every shortened part is there changed, every dropped message is absent.
 */
function explanationMatches(plan: PlannedPrompt, original: readonly PromptMessage[], received: readonly PromptMessage[]): void {
  expect(received).toEqual(plan.messages);
  const present = new Set(plan.sources.filter((source): source is number => source !== undefined));
  for (const decision of plan.decisions) {
    if (decision.message === undefined) continue;
    if (decision.action === 'dropped') {
      expect(present.has(decision.message), `message ${decision.message} is said dropped`).toBe(false);
      continue;
    }
    expect(present.has(decision.message), `message ${decision.message} is said ${decision.action}`).toBe(true);
    const at = plan.sources.indexOf(decision.message);
    const sent = plan.messages[at]!;
    const before = original[decision.message]!;
    const sentPart = typeof sent.content === 'string' ? sent.content : sent.content[decision.part ?? 0];
    const beforePart = typeof before.content === 'string' ? before.content : before.content[decision.part ?? 0];
    if (decision.action === 'kept') expect(sentPart).toEqual(beforePart);
    else expect(sentPart).not.toEqual(beforePart);
  }
}

/** The middleware, recording the conversation each call hands it (what the plan's decisions refer to). */
function recording(middleware: ReturnType<typeof promptWindowMiddleware>): { middleware: ReturnType<typeof promptWindowMiddleware>; conversations: PromptMessage[][] } {
  const conversations: PromptMessage[][] = [];
  return {
    conversations,
    middleware: {
      ...middleware,
      transformParams: async (options: Parameters<NonNullable<typeof middleware.transformParams>>[0]) => {
        // The planner never mutates what it is given, so the conversation is kept as it came.
        conversations.push(options.params.prompt as unknown as PromptMessage[]);
        return middleware.transformParams!(options);
      },
    },
  };
}

describe('promptWindowMiddleware in a 20-step tool loop with megabyte tool outputs (MockLanguageModelV4)', () => {
  const contextLength = 8192;
  const outputReserve = 1024;

  it('every prompt the model receives fits its window, and the retained parts are the ones the explanation says', { timeout: 300_000 }, async () => {
    const needle = 'ERROR zebra-sync failed: connection refused by replica db-7 on port 6543';
    const steps = 20;
    const mock: MockLanguageModelV4 = new MockLanguageModelV4({
      doGenerate: async (options) => {
        // The mock records the call before it answers: this is step `step` (0-based).
        const step = mock.doGenerateCalls.length - 1;
        if (step >= steps) return answer('The zebra-sync job failed because replica db-7 refused connections on port 6543.');
        return step % 2 === 1 ? callTool(step, 'readLog', { job: `job-${step}` }) : callTool(step, 'search', { query: `report ${step}` });
      },
    });
    const plans: PlannedPrompt[] = [];
    const recorder = recording(promptWindowMiddleware({ contextLength, outputReserve, counter: 'o200k_base', onPlan: (plan) => void plans.push(plan) }));
    const model = wrapLanguageModel({ model: mock, middleware: recorder.middleware });
    const readLog = tool({
      description: 'Reads the log of a job',
      inputSchema: z.object({ job: z.string() }),
      execute: async ({ job }) => megabyteLog(Number(job.slice(4)), 1_000_000, Number(job.slice(4)) === 7 ? needle : 'INFO nothing to see', 0.61),
    });
    const search = tool({
      description: 'Searches the reports',
      inputSchema: z.object({ query: z.string() }),
      execute: async ({ query }) => searchResults(Number(query.slice(7)), 2500, { title: 'Incident zebra-sync', body: 'The zebra-sync incident: replica db-7 refused connections.' }, 1234),
    });
    const system = 'You are an operations assistant. Answer from the tool outputs.';
    const messages = [
      { role: 'user' as const, content: 'Hello! Can you help me with the nightly jobs?' },
      { role: 'assistant' as const, content: 'Of course. Which job?' },
      { role: 'user' as const, content: 'Why did the zebra-sync job fail last night, and on which port?' },
    ];
    const result = await generateText({ model, system, messages, tools: { readLog, search }, stopWhen: stepCountIs(steps + 1) });

    expect(mock.doGenerateCalls).toHaveLength(steps + 1);
    expect(plans).toHaveLength(steps + 1);
    const toolsText = (call: number) => counterLength(JSON.stringify(mock.doGenerateCalls[call]!.tools));
    for (const [call, received] of mock.doGenerateCalls.entries()) {
      const prompt = received.prompt as unknown as PromptMessage[];
      expect(measure(prompt, o200k) + toolsText(call), `prompt of step ${call + 1}`).toBeLessThanOrEqual(contextLength - outputReserve);
      expect(plans[call]!.length).toBe(measure(prompt, o200k));
      expect(pairsHold(prompt)).toBe(true);
      expect(prompt[0]).toEqual({ role: 'system', content: system });
      expect(JSON.stringify(prompt)).toContain('Why did the zebra-sync job fail last night');
      explanationMatches(plans[call]!, recorder.conversations[call]!, prompt);
    }
    // The later steps carry megabytes of tool output; the prompts stay within the window.
    const original = (call: number) => mock.doGenerateCalls[call]!.prompt;
    expect(plans.at(-1)!.decisions.some((decision) => decision.kind === 'tool-result' && decision.action === 'shortened')).toBe(true);
    // The log line that answers the question (in a megabyte log of step 8) is still in the last prompt.
    expect(JSON.stringify(original(steps))).toContain(needle.slice(0, 40));
    expect(result.text).toContain('port 6543');
  });

  it('the retained parts are the ones the explanation says, with dropped and shortened parts', { timeout: 60_000 }, async () => {
    // The AI SDK hands the middleware the full conversation of each step; the plan's decisions refer to it.
    const plans: PlannedPrompt[] = [];
    const steps = 6;
    const mock: MockLanguageModelV4 = new MockLanguageModelV4({
      doGenerate: async () => (mock.doGenerateCalls.length > steps ? answer('done') : callTool(mock.doGenerateCalls.length, 'readLog', { job: `job-${mock.doGenerateCalls.length}` })),
    });
    const { middleware: recordingMiddleware, conversations } = recording(promptWindowMiddleware({ contextLength: 4096, outputReserve: 512, counter: 'o200k_base', onPlan: (plan) => void plans.push(plan) }));
    const readLog = tool({ inputSchema: z.object({ job: z.string() }), execute: async ({ job }) => megabyteLog(job.length, 300_000, 'ERROR disk full on /var', 0.5) });
    await generateText({ model: wrapLanguageModel({ model: mock, middleware: recordingMiddleware }), prompt: 'Which job ran out of disk space?', tools: { readLog }, stopWhen: stepCountIs(steps + 1) });
    expect(plans).toHaveLength(steps + 1);
    for (const [call, plan] of plans.entries()) {
      explanationMatches(plan, conversations[call]!, mock.doGenerateCalls[call]!.prompt as unknown as PromptMessage[]);
    }
    const actions = new Set(plans.flatMap((plan) => plan.decisions.map((decision) => decision.action)));
    expect([...actions].sort()).toEqual(['kept', 'shortened']);
  });

  it('streamText: every step of the loop is planned', { timeout: 60_000 }, async () => {
    const steps = 4;
    let calls = 0;
    const mock: MockLanguageModelV4 = new MockLanguageModelV4({
      doStream: async () => {
        const step = calls++;
        const parts =
          step < steps
            ? [{ type: 'tool-call' as const, toolCallId: `s${step}`, toolName: 'readLog', input: JSON.stringify({ job: `job-${step}` }) }, { type: 'finish' as const, finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' }, usage }]
            : [{ type: 'text-start' as const, id: 't' }, { type: 'text-delta' as const, id: 't', delta: 'ok' }, { type: 'text-end' as const, id: 't' }, { type: 'finish' as const, finishReason: { unified: 'stop' as const, raw: 'stop' }, usage }];
        return { stream: new ReadableStream({ start(controller) { for (const part of parts) controller.enqueue(part); controller.close(); } }) };
      },
    });
    const readLog = tool({ inputSchema: z.object({ job: z.string() }), execute: async ({ job }) => megabyteLog(job.length, 1_000_000, 'ERROR quota exceeded', 0.3) });
    const result = streamText({ model: wrapLanguageModel({ model: mock, middleware: promptWindowMiddleware({ contextLength: 2048, outputReserve: 256, counter: 'cl100k_base' }) }), prompt: 'Which job exceeded its quota?', tools: { readLog }, stopWhen: stepCountIs(steps + 1) });
    expect(await result.text).toBe('ok');
    expect(mock.doStreamCalls).toHaveLength(steps + 1);
    const cl100k = tokenCounter('cl100k_base');
    for (const received of mock.doStreamCalls) {
      expect(measure(received.prompt as unknown as PromptMessage[], cl100k) + cl100k(JSON.stringify(received.tools))).toBeLessThanOrEqual(2048 - 256);
    }
  });

  it('counts Arabic conversations with the model tokenizer and keeps the Arabic question', { timeout: 60_000 }, async () => {
    const arabicTurn = (index: number) => `تحدّثنا في الجلسة رقم ${index} عن المكتبات العامة، وعن تنظيم الكتب، وعن مواعيد الإعارة؛ هل تتذكّر؟`;
    const messages: Array<{ role: 'user' | 'assistant'; content: string }> = [];
    for (let index = 0; index < 120; index++) messages.push({ role: index % 2 === 0 ? 'user' : 'assistant', content: arabicTurn(index) });
    messages.push({ role: 'user', content: 'ما هي مواعيد الإعارة في المكتبة المركزية؟' });
    const mock = new MockLanguageModelV4({ modelId: 'gpt-4o-2024-08-06', doGenerate: answer('من التاسعة إلى الخامسة.') });
    const plans: PlannedPrompt[] = [];
    // gpt-4o is in the table: its context length would be 128k; a small contextLength option shows the cut.
    await generateText({ model: wrapLanguageModel({ model: mock, middleware: promptWindowMiddleware({ contextLength: 1500, outputReserve: 200, onPlan: (plan) => void plans.push(plan) }) }), messages });
    const prompt = mock.doGenerateCalls[0]!.prompt as unknown as PromptMessage[];
    expect(measure(prompt, o200k)).toBeLessThanOrEqual(1300);
    expect(plans[0]!.unit).toBe('tokens');
    expect(measure(prompt, o200k)).toBe(plans[0]!.length);
    expect(JSON.stringify(prompt)).toContain('ما هي مواعيد الإعارة في المكتبة المركزية؟');
    expect(plans[0]!.decisions.filter((decision) => decision.action === 'dropped').length).toBeGreaterThan(0);
  });
});

function counterLength(text: string | undefined): number {
  return text === undefined ? 0 : o200k(text);
}

describe('the model table', () => {
  it('finds a model by its id, with or without the provider and a date suffix', () => {
    expect(knownModel('gpt-4o-mini-2024-07-18')).toEqual(KNOWN_MODELS['gpt-4o-mini']);
    expect(knownModel('openai/gpt-4o')).toEqual({ contextLength: 128_000, tokenizer: 'o200k_base' });
    expect(knownModel('gpt-4-0613')).toEqual({ contextLength: 8192, tokenizer: 'cl100k_base' });
    expect(knownModel('claude-3-5-sonnet-latest')?.tokenizer).toBe('estimate');
    expect(knownModel('o1x-preview')).toBeUndefined();
    expect(knownModel('mock-model-id')).toBeUndefined();
  });

  it('plans with the table when contextLength is omitted, and refuses an unknown model without it', async () => {
    const known = new MockLanguageModelV4({ modelId: 'gpt-4', doGenerate: answer('ok') });
    const plans: PlannedPrompt[] = [];
    await generateText({ model: wrapLanguageModel({ model: known, middleware: promptWindowMiddleware({ onPlan: (plan) => void plans.push(plan) }) }), prompt: 'Hello there' });
    // gpt-4: 8192 tokens, minus the default reserve (a quarter of the context, at most 4096).
    expect(plans[0]!.window).toBe(8192 - 2048);
    const unknown = new MockLanguageModelV4({ doGenerate: answer('ok') });
    const failure = await generateText({ model: wrapLanguageModel({ model: unknown, middleware: promptWindowMiddleware() }), prompt: 'Hello' }).catch((error: unknown) => error);
    expect(ZerdaError.isInstance(failure) || ZerdaError.isInstance((failure as { cause?: unknown }).cause)).toBe(true);
    expect(String((failure as Error).message)).toContain('options.contextLength');
  });
});

describe('promptWindowPrepareStep', () => {
  it('returns each step messages planned from the whole conversation', { timeout: 60_000 }, async () => {
    const steps = 5;
    const mock: MockLanguageModelV4 = new MockLanguageModelV4({ doGenerate: async () => (mock.doGenerateCalls.length > steps ? answer('done') : callTool(mock.doGenerateCalls.length, 'readLog', { job: `job-${mock.doGenerateCalls.length}` })) });
    const readLog = tool({ inputSchema: z.object({ job: z.string() }), execute: async ({ job }) => megabyteLog(job.length, 500_000, 'ERROR certificate expired', 0.9) });
    await generateText({ model: mock, prompt: 'Which certificate expired?', tools: { readLog }, stopWhen: stepCountIs(steps + 1), prepareStep: promptWindowPrepareStep({ contextLength: 3000, outputReserve: 500, counter: 'o200k_base' }) });
    expect(mock.doGenerateCalls).toHaveLength(steps + 1);
    for (const received of mock.doGenerateCalls) expect(measure(received.prompt as unknown as PromptMessage[], o200k)).toBeLessThanOrEqual(2500);
    expect(JSON.stringify(mock.doGenerateCalls.at(-1)!.prompt)).toContain('ERROR certificate expired');
  });
});

describe('validation', () => {
  it('refuses bad options with a ZerdaError naming the field', () => {
    expect(() => promptWindowMiddleware({ contextLength: -5 })).toThrow(/options\.contextLength/);
    expect(() => promptWindowMiddleware({ contextLength: 1000, outputReserve: 1000 })).toThrow(/options\.outputReserve/);
    expect(() => promptWindowMiddleware({ counter: 'bytes' as never })).toThrow(ZerdaError);
    expect(() => promptWindowMiddleware({ window: 10 } as never)).toThrow(/window/);
    expect(() => promptWindowPrepareStep({ retrievedShare: 2 })).toThrow(/options\.retrievedShare/);
  });
});
