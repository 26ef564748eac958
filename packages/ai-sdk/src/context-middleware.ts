import type { LanguageModelMiddleware } from 'ai';
import { z } from 'zod';
import {
  assertContextRunner,
  summarizeResult,
  invalidArgument,
  parseOrThrow,
  runForRequest,
  type ContextSummary,
  type ContextResult,
  type ContextRunner,
  type RunOptions,
  type ScopeOptions,
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
   * Options of every `run()`, or a function of the request returning them (budgets, extra filters …).
   * History is used only in a scope with a conversation (see `scope`): the messages carry the conversation.
   */
  runOptions?: Omit<RunOptions, 'signal'> | ((request: { query: string; params: LanguageModelCallOptions }) => Omit<RunOptions, 'signal'> | Promise<Omit<RunOptions, 'signal'>>);
  /**
   * The scope of one call, from the request: given the call's params (and the question), it returns
   * `{ id?, filter?, conversation? }` — the tenant's filter, the identity that keys the cache and
   * history. Default: `params.providerOptions.zerda.scope` — what the application passed to
   * `generateText({ providerOptions: { zerda: { scope: { id: 'acme', filter: { tenant: 'acme' } } } } })`
   * — or an anonymous scope that shares nothing. Resolved on every call (every step of a tool loop),
   * so no state of one request is kept where another request can read it.
   */
  scope?: (request: { query: string; params: LanguageModelCallOptions }) => ScopeOptions | undefined | Promise<ScopeOptions | undefined>;
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
  scope: z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', { message: 'a function' }).optional(),
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
 * The last user message of the prompt: its index, its text, and whether it ends the prompt (a new
 * question rather than a later step of a tool loop, after tool results).
 */
function lastUserMessage(prompt: Prompt): { index: number; text: string; isLast: boolean } | undefined {
  for (let index = prompt.length - 1; index >= 0; index--) {
    const message = prompt[index] as Message;
    if (message.role !== 'user') continue;
    const text = textOf(message);
    if (text.length === 0) return undefined;
    return { index, text, isLast: index === prompt.length - 1 };
  }
  return undefined;
}

/** The scope the application passed in `providerOptions.zerda.scope`, if any. */
function providerScope(params: LanguageModelCallOptions): ScopeOptions | undefined {
  const zerda = (params.providerOptions as Record<string, Record<string, unknown> | undefined> | undefined)?.zerda;
  const scope = zerda?.scope;
  return scope !== null && typeof scope === 'object' && !Array.isArray(scope) ? (scope as ScopeOptions) : undefined;
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
 * prompt from the conversation). Every step resolves its scope again and runs in it; nothing is kept
 * in the middleware between calls, so one middleware serves any number of tenants. The first step —
 * whose last message is the user's — records the conversation turn (in a scope with a conversation);
 * the later steps do not, and their question, identical to the turn just recorded, is enriched as it
 * was on the first step, so every step gets the same context (a scope with an id gets it from the
 * engine's cache).
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
  // Per call only: the transformed params of this call → its result (read back by wrapGenerate/wrapStream of the same call).
  const results = new WeakMap<LanguageModelCallOptions, ContextResult>();

  return {
    specificationVersion: 'v4',
    async transformParams({ params, type }) {
      const user = lastUserMessage(params.prompt);
      if (!user) return params;
      const base = typeof runOptions === 'function' ? await runOptions({ query: user.text, params }) : (runOptions ?? {});
      const scope = options.scope ? await options.scope({ query: user.text, params }) : providerScope(params);
      const result = await runForRequest(engine, user.text, scope, {
        ...base,
        // A later step of a tool loop: the question was recorded by the first step.
        ...(user.isLast ? {} : { recordTurn: false }),
        ...(params.abortSignal ? { signal: params.abortSignal } : {}),
      });
      if (user.isLast) await options.onContext?.(result, { query: user.text, type });
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
