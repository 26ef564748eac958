import type { LanguageModelMiddleware } from 'ai';
import { z } from 'zod';
import {
  BRIDGE_RUN_DEFAULTS,
  assertContextRunner,
  summarizeResult,
  invalidArgument,
  parseOrThrow,
  type ContextSummary,
  type ContextResult,
  type ContextRunner,
  type RunOptions,
} from '@zerda/context';

type TransformParams = NonNullable<LanguageModelMiddleware['transformParams']>;
/** The call options a language model receives (the AI SDK's `LanguageModelV4CallOptions`). */
export type LanguageModelCallOptions = Awaited<ReturnType<TransformParams>>;
type Prompt = LanguageModelCallOptions['prompt'];
type Message = Prompt[number];
type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>;
type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;

/** What the middleware records in `providerMetadata.zerda` of each generation: the summary without the context text (it is in the prompt). */
export type ContextMetadata = Omit<ContextSummary, 'context'>;

export interface ContextMiddlewareOptions {
  /**
   * Where the context goes: `system` (default) — a system message after the leading system
   * messages; `user` — a text part placed before the text of the last user message.
   */
  placement?: 'system' | 'user';
  /** Turns a result into the text placed in the prompt. Default: an instruction in the query's language and the context in `<context>` tags. */
  render?: (result: ContextResult) => string;
  /**
   * Options of every `run()`, or a function of the request returning them (tenant filters, budgets …).
   * `useHistory` and `recordTurn` default to false: the messages carry the conversation, and the
   * engine's history is one for all users.
   */
  runOptions?: Omit<RunOptions, 'signal'> | ((request: { query: string; params: LanguageModelCallOptions }) => Omit<RunOptions, 'signal'> | Promise<Omit<RunOptions, 'signal'>>);
  /** Called with every result (e.g. to show the citations). */
  onContext?: (result: ContextResult, request: { query: string; type: 'generate' | 'stream' }) => void | Promise<void>;
  /** Leave the prompt as it is when the context is empty (default true). */
  skipEmpty?: boolean;
}

const optionsSchema = z.strictObject({
  placement: z.enum(['system', 'user']).optional(),
  render: z.custom<(result: ContextResult) => string>((value) => typeof value === 'function', { message: 'a function' }).optional(),
  runOptions: z.union([z.record(z.string(), z.unknown()), z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', { message: 'a function' })]).optional(),
  onContext: z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', { message: 'a function' }).optional(),
  skipEmpty: z.boolean().optional(),
});

/** The default rendering: a one-line instruction (Arabic for an Arabic query) and the context. */
export function renderContext(result: ContextResult): string {
  const instruction =
    result.analysis.language === 'ar'
      ? 'أجب اعتماداً على السياق التالي، واذكر أرقام المقاطع التي تستند إليها.'
      : 'Answer using the context below, and cite the numbers of the passages you rely on.';
  return `${instruction}\n\n<context>\n${result.context}\n</context>`;
}

function textOf(message: Extract<Message, { role: 'user' }>): string {
  return message.content
    .filter((part): part is Extract<typeof part, { type: 'text' }> => part.type === 'text')
    .map((part) => part.text)
    .join('\n')
    .trim();
}

/**
 * The last user message of the prompt: its index, its text, whether it ends the prompt (a new
 * question rather than a step after tool results), and the texts of every user message so far.
 */
function lastUserMessage(prompt: Prompt): { index: number; text: string; isLast: boolean; conversation: string } | undefined {
  for (let index = prompt.length - 1; index >= 0; index--) {
    const message = prompt[index] as Message;
    if (message.role !== 'user') continue;
    const text = textOf(message);
    if (text.length === 0) return undefined;
    const conversation = prompt
      .slice(0, index + 1)
      .filter((earlier): earlier is Extract<Message, { role: 'user' }> => earlier.role === 'user')
      .map(textOf)
      .join('\u0000');
    return { index, text, isLast: index === prompt.length - 1, conversation };
  }
  return undefined;
}

/** Key of a question in its conversation under given run options (undefined when they are not JSON). */
function stepKey(conversation: string, options: unknown): string | undefined {
  try {
    return `${conversation}\u0001${JSON.stringify(options)}`;
  } catch {
    return undefined;
  }
}

function place(prompt: Prompt, userIndex: number, text: string, placement: 'system' | 'user'): Prompt {
  if (placement === 'user') {
    const message = prompt[userIndex] as Extract<Message, { role: 'user' }>;
    const withContext: Message = { ...message, content: [{ type: 'text', text }, ...message.content] };
    return [...prompt.slice(0, userIndex), withContext, ...prompt.slice(userIndex + 1)];
  }
  // After the leading system messages: providers that accept system text only at the start accept it here.
  let at = 0;
  while (at < prompt.length && (prompt[at] as Message).role === 'system') at++;
  return [...prompt.slice(0, at), { role: 'system', content: text }, ...prompt.slice(at)];
}

const FIRST_STEPS_KEPT = 256;

function metadataOf(result: ContextResult): ContextMetadata {
  const { context: _context, ...metadata } = summarizeResult(result);
  return metadata;
}

/**
 * A language-model middleware (`wrapLanguageModel({ model, middleware: contextMiddleware(engine) })`)
 * that builds a zerda context for the last user message of every call and places it in the prompt
 * ({@link ContextMiddlewareOptions.placement}); the citations go to the result's
 * `providerMetadata.zerda` (generate: on the result; stream: on the `finish` part) and to `onContext`.
 *
 * In a multi-step tool loop the context is placed on every step (the AI SDK rebuilds each step's
 * prompt from the conversation) but built once: the first step — whose last message is the user's —
 * runs the engine (and records the conversation turn when `recordTurn` is on); the later steps of the
 * same question (same user messages, same run options) reuse its result.
 */
export function contextMiddleware(engine: ContextRunner, options: ContextMiddlewareOptions = {}): LanguageModelMiddleware {
  assertContextRunner(engine);
  const parsed = parseOrThrow(optionsSchema, options, 'options') ?? {};
  const runOptions = options.runOptions;
  if (runOptions !== undefined && typeof runOptions !== 'function' && (runOptions === null || typeof runOptions !== 'object')) {
    throw invalidArgument('options.runOptions', 'run options or a function returning them', runOptions);
  }
  const placement = parsed.placement ?? 'system';
  const render = options.render ?? renderContext;
  const skipEmpty = parsed.skipEmpty ?? true;
  const results = new WeakMap<LanguageModelCallOptions, ContextResult>();
  // First-step results by conversation and options, so that the later steps of a tool loop (whose
  // prompts the AI SDK rebuilds) reuse the context of the question instead of building another one
  // from a history that now holds the question itself. Bounded; oldest first out.
  const firstSteps = new Map<string, ContextResult>();
  const remember = (key: string, result: ContextResult) => {
    firstSteps.delete(key);
    firstSteps.set(key, result);
    if (firstSteps.size > FIRST_STEPS_KEPT) firstSteps.delete(firstSteps.keys().next().value as string);
  };

  return {
    specificationVersion: 'v4',
    async transformParams({ params, type }) {
      const user = lastUserMessage(params.prompt);
      if (!user) return params;
      const base = typeof runOptions === 'function' ? await runOptions({ query: user.text, params }) : (runOptions ?? {});
      const key = stepKey(user.conversation, base);
      let result = !user.isLast && key !== undefined ? firstSteps.get(key) : undefined;
      if (!result) {
        result = await engine.run(user.text, {
          ...BRIDGE_RUN_DEFAULTS,
          ...base,
          // A later step of a tool loop: the question was recorded by the first step.
          ...(user.isLast ? {} : { recordTurn: false }),
          ...(params.abortSignal ? { signal: params.abortSignal } : {}),
        });
        if (user.isLast && key !== undefined) remember(key, result);
        await options.onContext?.(result, { query: user.text, type });
      }
      if (skipEmpty && result.context.trim().length === 0) return params;
      const transformed = { ...params, prompt: place(params.prompt, user.index, render(result), placement) };
      results.set(transformed, result);
      return transformed;
    },
    async wrapGenerate({ doGenerate, params }) {
      const generated: GenerateResult = await doGenerate();
      const result = results.get(params);
      if (!result) return generated;
      return { ...generated, providerMetadata: { ...generated.providerMetadata, zerda: metadataOf(result) as never } };
    },
    async wrapStream({ doStream, params }) {
      const streamed: StreamResult = await doStream();
      const result = results.get(params);
      if (!result) return streamed;
      const zerda = metadataOf(result);
      const stream = streamed.stream.pipeThrough(
        new TransformStream<StreamPart, StreamPart>({
          transform(part, controller) {
            controller.enqueue(part.type === 'finish' ? ({ ...part, providerMetadata: { ...part.providerMetadata, zerda: zerda as never } } as StreamPart) : part);
          },
        }),
      );
      return { ...streamed, stream };
    },
  };
}
