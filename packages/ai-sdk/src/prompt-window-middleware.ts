import type { LanguageModelMiddleware } from 'ai';
import { z } from 'zod';
import {
  ZerdaError,
  parseOrThrow,
  planPrompt,
  toLengthCounter,
  type LengthCounter,
  type LengthCounterName,
  type PlannedPrompt,
  type PromptMemoryItem,
  type PromptMessage,
  type ScoredChunk,
} from '@zerda/context';
import { counterFor, knownModel } from './prompt-window-models.js';

type TransformParams = NonNullable<LanguageModelMiddleware['transformParams']>;
type CallOptions = Awaited<ReturnType<TransformParams>>;

/** Tokens reserved for the reply when neither `outputReserve` nor the call's `maxOutputTokens` says (at most a quarter of the context). */
export const DEFAULT_OUTPUT_RESERVE = 4096;

/** Options of {@link promptWindowMiddleware} and {@link promptWindowPrepareStep}. */
export interface PromptWindowOptions {
  /** The model's context length in tokens. May be omitted when the model's id is in `KNOWN_MODELS`. */
  contextLength?: number;
  /** Tokens kept free for the reply. Default: the call's `maxOutputTokens`, else 4096 (at most a quarter of the context length). */
  outputReserve?: number;
  /**
   * How tokens are counted. Default: the model's tokenizer from `KNOWN_MODELS` (OpenAI's encodings
   * exactly), else `estimatedTokenCounter()` (the larger OpenAI count plus 15%).
   */
  counter?: LengthCounter | LengthCounterName | ((text: string) => number);
  /** Memory items and retrieved passages to fit into the same window, per call (or fixed). */
  extraParts?:
    | { memory?: Array<PromptMemoryItem | string>; retrieved?: ScoredChunk[] }
    | ((request: { messages: PromptMessage[]; modelId: string }) => { memory?: Array<PromptMemoryItem | string>; retrieved?: ScoredChunk[] } | Promise<{ memory?: Array<PromptMemoryItem | string>; retrieved?: ScoredChunk[] }>);
  /** Planner settings (see `planPrompt`): framing per message, recent messages kept whole, share reserved for retrieved passages. */
  messageOverhead?: number;
  recentMessages?: number;
  retrievedShare?: number;
  /** Called with every plan (e.g. to log `explainPromptPlan(plan)`). */
  onPlan?: (plan: PlannedPrompt, request: { modelId: string; type: 'generate' | 'stream' | 'prepare-step' }) => void | Promise<void>;
}

const functionSchema = z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', { message: 'a function' });
const optionsSchema = z.strictObject({
  contextLength: z.number().int().positive().optional(),
  outputReserve: z.number().int().nonnegative().optional(),
  counter: z.union([functionSchema, z.enum(['chars', 'words', 'tokens', 'cl100k_base', 'o200k_base'])]).optional(),
  extraParts: z.union([functionSchema, z.record(z.string(), z.unknown())]).optional(),
  messageOverhead: z.number().nonnegative().optional(),
  recentMessages: z.number().int().nonnegative().optional(),
  retrievedShare: z.number().min(0).max(0.9).optional(),
  onPlan: functionSchema.optional(),
});

interface Resolved {
  window: number;
  counter: LengthCounter;
}

function validate(options: PromptWindowOptions): PromptWindowOptions {
  parseOrThrow(optionsSchema, options, 'options');
  if (options.outputReserve !== undefined && options.contextLength !== undefined && options.outputReserve >= options.contextLength) {
    throw new ZerdaError('ZERDA_INVALID_ARGUMENT', { field: 'options.outputReserve', expected: `less than options.contextLength (${options.contextLength})`, received: String(options.outputReserve) });
  }
  return options;
}

/** The window (context length minus the output reserve and the tool definitions) and the counter for a model. */
function resolve(options: PromptWindowOptions, modelId: string, maxOutputTokens: number | undefined, fixedText: string): Resolved {
  const known = knownModel(modelId);
  const contextLength = options.contextLength ?? known?.contextLength;
  if (contextLength === undefined) {
    throw new ZerdaError('ZERDA_INVALID_ARGUMENT', {
      field: 'options.contextLength',
      expected: `the context length of model "${modelId}" in tokens (it is not in KNOWN_MODELS)`,
      received: 'undefined',
    });
  }
  const counter = options.counter !== undefined ? toLengthCounter(options.counter) : counterFor(known?.tokenizer ?? 'estimate');
  const reserve = options.outputReserve ?? maxOutputTokens ?? Math.min(DEFAULT_OUTPUT_RESERVE, Math.floor(contextLength / 4));
  // Tool definitions travel with every call and take their share of the window.
  const fixed = fixedText.length > 0 ? counter(fixedText) : 0;
  const window = contextLength - reserve - fixed;
  if (window < 1) {
    throw new ZerdaError('ZERDA_INVALID_ARGUMENT', {
      field: 'options.outputReserve',
      expected: `a reserve that leaves room for a prompt: context length ${contextLength} − reserve ${reserve} − tool definitions ${fixed}`,
      received: String(reserve),
    });
  }
  return { window, counter };
}

async function plan(options: PromptWindowOptions, messages: PromptMessage[], modelId: string, maxOutputTokens: number | undefined, fixedText: string): Promise<PlannedPrompt> {
  const { window, counter } = resolve(options, modelId, maxOutputTokens, fixedText);
  const extra = typeof options.extraParts === 'function' ? await options.extraParts({ messages, modelId }) : (options.extraParts ?? {});
  return planPrompt(
    { messages, ...(extra.memory ? { memory: extra.memory } : {}), ...(extra.retrieved ? { retrieved: extra.retrieved } : {}) },
    {
      window,
      counter,
      ...(options.messageOverhead !== undefined ? { messageOverhead: options.messageOverhead } : {}),
      ...(options.recentMessages !== undefined ? { recentMessages: options.recentMessages } : {}),
      ...(options.retrievedShare !== undefined ? { retrievedShare: options.retrievedShare } : {}),
    },
  );
}

/**
 * A language-model middleware (`wrapLanguageModel({ model, middleware: promptWindowMiddleware({ contextLength, outputReserve }) })`)
 * that fits every call's prompt into the model's window with zerda's planner (`planPrompt`): the
 * system messages and the question whole, the current tool loop's steps with their results cut
 * extractively, older turns kept by relevance to the question or shortened, never more than the
 * window. It runs on every call, so on every step of a `generateText`/`streamText` tool loop with
 * `stopWhen` (each step's prompt is planned from the full conversation the AI SDK passes).
 *
 * The window is `contextLength − outputReserve − the tool definitions`; `contextLength` and the
 * tokenizer come from the model's id when it is in `KNOWN_MODELS` (OpenAI models are counted
 * exactly; others by `estimatedTokenCounter()`, which overestimates on purpose).
 */
export function promptWindowMiddleware(options: PromptWindowOptions = {}): LanguageModelMiddleware {
  validate(options);
  return {
    specificationVersion: 'v4',
    async transformParams({ params, model, type }) {
      const fixedText = params.tools && params.tools.length > 0 ? JSON.stringify(params.tools) : '';
      const planned = await plan(options, params.prompt as unknown as PromptMessage[], model.modelId, params.maxOutputTokens, fixedText);
      await options.onPlan?.(planned, { modelId: model.modelId, type });
      return { ...params, prompt: planned.messages as unknown as CallOptions['prompt'] };
    },
  };
}

/** What `prepareStep` receives that the helper reads (a structural subset of the AI SDK's argument). */
export interface PrepareStepInput {
  model: string | { modelId: string };
  messages: unknown[];
  initialMessages?: unknown[];
  responseMessages?: unknown[];
}

/**
 * A `prepareStep` function for `generateText`/`streamText` (`prepareStep: promptWindowPrepareStep({ contextLength })`)
 * that returns each step's messages planned into the window, for code that prefers the call's own
 * options to a wrapped model. It plans from the initial messages and every response message so far
 * (not from an earlier step's planned messages, which the AI SDK would carry forward), so a part
 * left out at one step can return at the next when it becomes relevant. The system prompt given as
 * `system`/`instructions` is not in the messages: count it out of `contextLength` (or pass it as a
 * system message).
 */
export function promptWindowPrepareStep(options: PromptWindowOptions = {}): (step: PrepareStepInput) => Promise<{ messages: never[] }> {
  validate(options);
  return async (step: PrepareStepInput) => {
    const modelId = typeof step.model === 'string' ? step.model : step.model.modelId;
    const full = step.initialMessages && step.responseMessages ? [...step.initialMessages, ...step.responseMessages] : step.messages;
    const planned = await plan(options, full as PromptMessage[], modelId, undefined, '');
    await options.onPlan?.(planned, { modelId, type: 'prepare-step' });
    return { messages: planned.messages as never[] };
  };
}
