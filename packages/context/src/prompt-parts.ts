/**
 * The context-window planner's public face: the prompt parts it takes, the plan it returns, how a
 * prompt is measured (`promptLength`), the explanation (`explainPromptPlan`) and `planPrompt`, which
 * loads the planner itself (prompt-planner.ts) on its first call — a separate chunk for bundlers, so
 * that a page or a worker that never plans a prompt does not download it. Runtime-neutral (no Node
 * built-in): it runs wherever the engine runs, on every step of an agent's tool loop.
 */
import { toLengthCounter, type LengthCounterName } from '@zerda/context-core';
import { invalidArgument, type LengthCounter, type ScoredChunk } from '@zerda/types';

/**
 * What a tool returned, in the AI SDK's shape (`LanguageModelV4ToolResultOutput`): text or JSON,
 * an error as text or JSON, a denial, or a list of content items.
 */
export type PromptToolOutput =
  | { type: 'text' | 'error-text'; value: string; [key: string]: unknown }
  | { type: 'json' | 'error-json'; value: unknown; [key: string]: unknown }
  | { type: 'execution-denied'; reason?: string; [key: string]: unknown }
  | { type: 'content'; value: Array<{ type: string; text?: string; [key: string]: unknown }>; [key: string]: unknown };

/**
 * One part of a message, in the AI SDK's prompt shape: `text` and `reasoning` (`text`), `tool-call`
 * (`toolCallId`, `toolName`, `input`), `tool-result` (`toolCallId`, `toolName`, `output`), or any
 * other part (a file …), which is kept or dropped with its message and counts
 * {@link PlanPromptOptions.filePartLength}. Other fields (provider options) are carried over.
 */
export interface PromptContentPart {
  type: string;
  text?: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  output?: PromptToolOutput;
  [key: string]: unknown;
}

/** A message of the prompt: a system message's content is a string; others a string or a list of parts. */
export interface PromptMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | PromptContentPart[];
  [key: string]: unknown;
}

/** A remembered fact (long-term memory), placed in a system message when it is relevant. */
export interface PromptMemoryItem {
  id?: string;
  text: string;
}

/** The parts of a prompt the planner fits into the window. */
export interface PromptParts {
  /** The conversation in order: system messages (kept whole), user, assistant and tool messages. */
  messages: PromptMessage[];
  /** Memory items: the ones relevant to the question are kept (whole or shortened), the others dropped. */
  memory?: ReadonlyArray<PromptMemoryItem | string>;
  /** Retrieved passages (e.g. `result.chunks` of a run, or a retriever's hits), composed into what remains. */
  retrieved?: ScoredChunk[];
  /** The current question. Default: the text of the last user message. */
  question?: string;
}

/** Options of {@link planPrompt}. */
export interface PlanPromptOptions {
  /** The window: the model's context length minus what is reserved for its output, in the counter's unit. */
  window: number;
  /** How the prompt is measured: a counter (e.g. `tokenCounter('o200k_base')`) or its name. Default `cl100k_base`. */
  counter?: LengthCounter | LengthCounterName | ((text: string) => number);
  /** Units added per message for the chat format's framing (OpenAI: 3 per message, 3 priming the reply). Default 4. */
  messageOverhead?: number;
  /** Units a part the planner cannot measure (a file, an image) is counted as. Default 1000. */
  filePartLength?: number;
  /** Messages before the question kept whole when they fit, newest first (the recent dialogue). Default 4. */
  recentMessages?: number;
  /** Share of the window reserved for the retrieved passages while the conversation is planned (when there are any). Default 0.3. */
  retrievedShare?: number;
}

/** What happened to a part, and why. */
export interface PromptPlanDecision {
  /** Index of the message in `parts.messages` (undefined for memory and retrieved context). */
  message?: number;
  /** Index of the part in the message's content (undefined for a whole message or a string content). */
  part?: number;
  /** Index of the memory item, for memory. */
  memory?: number;
  role: PromptMessage['role'] | 'memory' | 'context';
  kind: 'text' | 'tool-call' | 'tool-result' | 'file' | 'memory' | 'context';
  action: 'kept' | 'shortened' | 'dropped';
  /**
   * Why: `system` (fixed), `question` (the current question), `current-step` (the tool loop of the
   * current question), `recent` (the newest messages), `relevant` (an older part that matches the
   * question), `room-left` (an older part shortened into what remained), `not-relevant` (dropped:
   * no room once the relevant parts were placed), `no-room`, `retrieved`, `paired` (dropped with the
   * tool call or result it belongs to).
   */
  reason: 'system' | 'question' | 'current-step' | 'recent' | 'relevant' | 'room-left' | 'not-relevant' | 'no-room' | 'retrieved' | 'paired';
  /** Length of the part before and after, in the counter's unit. `before` is undefined when it was too long to count (a reduced megabyte output). */
  before?: number;
  after: number;
  /** BM25 relevance of the part's turn to the question, for older turns and memory. */
  relevance?: number;
}

/** The fitted prompt and its explanation. */
export interface PlannedPrompt {
  /** The messages to send: the kept messages in their order (shortened parts replaced), with the memory and the retrieved context as system messages after the leading system messages. */
  messages: PromptMessage[];
  /** For each message of `messages`, its index in `parts.messages` (undefined for the memory and context messages). */
  sources: Array<number | undefined>;
  /** Kept memory items (possibly shortened). */
  memory: PromptMemoryItem[];
  /** The composed retrieved context ('' when none). */
  context: string;
  /** The question the relevance was judged against. */
  question: string;
  /** Length of `messages` as measured by {@link promptLength}, never above `window`. */
  length: number;
  window: number;
  unit: string;
  decisions: PromptPlanDecision[];
}

export const DEFAULTS = { messageOverhead: 4, filePartLength: 1000, recentMessages: 4, retrievedShare: 0.3 };

export function number(value: unknown, field: string, minimum: number, maximum = Number.POSITIVE_INFINITY, integer = false): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < minimum || value > maximum || (integer && !Number.isInteger(value))) {
    throw invalidArgument(field, `${integer ? 'an integer' : 'a number'} ${maximum === Number.POSITIVE_INFINITY ? `>= ${minimum}` : `in [${minimum}, ${maximum}]`}`, value);
  }
  return value;
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

export function validateMessages(messages: unknown): PromptMessage[] {
  if (!Array.isArray(messages)) throw invalidArgument('parts.messages', 'an array of messages', messages);
  messages.forEach((message: unknown, index) => {
    const field = `parts.messages[${index}]`;
    if (message === null || typeof message !== 'object') throw invalidArgument(field, 'a message object { role, content }', message);
    const { role, content } = message as PromptMessage;
    if (!ROLES.has(role)) throw invalidArgument(`${field}.role`, 'one of system, user, assistant, tool', role);
    if (typeof content === 'string') return;
    if (!Array.isArray(content)) throw invalidArgument(`${field}.content`, 'a string or an array of parts', content);
    if (role === 'system') throw invalidArgument(`${field}.content`, 'a string (system messages hold text)', content);
    content.forEach((part: unknown, at) => {
      const partField = `${field}.content[${at}]`;
      if (part === null || typeof part !== 'object' || typeof (part as PromptContentPart).type !== 'string') throw invalidArgument(partField, 'a part object with a type', part);
      const typed = part as PromptContentPart;
      if ((typed.type === 'text' || typed.type === 'reasoning') && typeof typed.text !== 'string') throw invalidArgument(`${partField}.text`, 'a string', typed.text);
      if (typed.type === 'tool-result') {
        const output = typed.output as { type?: unknown; value?: unknown } | undefined;
        if (output === null || typeof output !== 'object' || typeof output.type !== 'string') throw invalidArgument(`${partField}.output`, 'a tool output { type, value }', output);
        if ((output.type === 'text' || output.type === 'error-text') && typeof output.value !== 'string') throw invalidArgument(`${partField}.output.value`, 'a string', output.value);
        if (output.type === 'content' && !Array.isArray(output.value)) throw invalidArgument(`${partField}.output.value`, 'an array of content items', output.value);
      }
    });
  });
  return messages as PromptMessage[];
}

/** The text a part is measured by (tool-call inputs and JSON outputs as their JSON). */
export function partText(part: PromptContentPart): string | undefined {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text ?? '';
    case 'tool-call':
      return `${part.toolName ?? ''} ${typeof part.input === 'string' ? part.input : (JSON.stringify(part.input) ?? '')}`;
    case 'tool-result':
      return outputText(part.output!);
    default:
      return undefined;
  }
}

/** JSON texts of JSON outputs already measured (the same outputs come back on every step of a tool loop). */
const jsonTexts = new WeakMap<object, string>();

export function outputText(output: PromptToolOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value as string;
    case 'json':
    case 'error-json': {
      const value = output.value;
      if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
      let text = jsonTexts.get(value);
      if (text === undefined) {
        text = JSON.stringify(value) ?? 'null';
        jsonTexts.set(value, text);
      }
      return text;
    }
    case 'execution-denied':
      return (output.reason as string | undefined) ?? 'execution denied';
    case 'content':
      return (output.value as Array<{ type: string; text?: string }>).map((item) => (item.type === 'text' ? (item.text ?? '') : '')).join('\n');
    default:
      return JSON.stringify(output) ?? '';
  }
}

export function partsOf(message: PromptMessage): PromptContentPart[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/**
 * The length of a prompt as the planner measures it: for every message, `messageOverhead` plus the
 * count of each part's text (tool calls: the tool's name and the input's JSON; tool results: the
 * output's text or JSON), and `filePartLength` per part without text (a file, an image).
 */
export function promptLength(messages: PromptMessage[], counter: LengthCounter | LengthCounterName | ((text: string) => number) = 'cl100k_base', options: Pick<PlanPromptOptions, 'messageOverhead' | 'filePartLength'> = {}): number {
  const count = toLengthCounter(counter);
  const checked = validateMessages(messages);
  const overhead = options.messageOverhead === undefined ? DEFAULTS.messageOverhead : number(options.messageOverhead, 'options.messageOverhead', 0);
  const fileLength = options.filePartLength === undefined ? DEFAULTS.filePartLength : number(options.filePartLength, 'options.filePartLength', 0);
  let total = 0;
  for (const message of checked) {
    total += overhead;
    for (const part of partsOf(message)) {
      const text = partText(part);
      total += text === undefined ? fileLength : count(text);
    }
  }
  return total;
}

/**
 * Fits the whole prompt into `options.window` units of `options.counter`, by value:
 * - system messages are kept whole, and so is the current question (cut only if it alone would take
 *   more than half the window);
 * - the steps of the current question's tool loop are kept, the newest first, their tool results cut
 *   extractively to what remains (head and tail, the segments relevant to the question, JSON kept
 *   valid), a step dropped whole only when not even its call fits;
 * - the newest messages before the question are kept whole when they fit;
 * - older turns relevant to the question (BM25 over the turns, with the most relevant segments of
 *   their tool outputs) are kept, shortened to a share of the window, the most relevant first;
 * - memory items relevant to the question likewise, in one system message;
 * - the retrieved passages are composed (by `SmartContextComposer`, value-based) into what remains;
 * - the other older turns are shortened into what is left, newest first, or dropped.
 * A tool call and its result are kept or dropped together. The result's {@link PlannedPrompt.length}
 * ({@link promptLength} of its messages) never exceeds the window; when the system messages and the
 * question alone cannot fit, a `ZerdaError` says so. `decisions` records every part's fate (see
 * {@link explainPromptPlan}).
 */
export async function planPrompt(parts: PromptParts, options: PlanPromptOptions): Promise<PlannedPrompt> {
  const planner = await import('./prompt-planner.js');
  return planner.fitPrompt(parts, options);
}

/**
 * A readable account of a plan, like `explainResult` for a run: the window and what the prompt
 * uses, then one line per part — kept (✓), shortened (½) or dropped (·) — with its length before and
 * after, its relevance to the question, and why.
 */
export function explainPromptPlan(plan: PlannedPrompt): string {
  if (plan === null || typeof plan !== 'object' || !Array.isArray((plan as PlannedPrompt).decisions)) throw invalidArgument('plan', 'a PlannedPrompt returned by planPrompt()', plan);
  const marks = { kept: '✓', shortened: '½', dropped: '·' } as const;
  const flat = plan.question.replace(/\s+/gu, ' ').trim();
  const lines = [
    `question: ${[...flat].length > 100 ? `${[...flat].slice(0, 99).join('')}…` : flat}`,
    `window: ${plan.length}/${plan.window} ${plan.unit} (${Math.round((plan.length / plan.window) * 100)}%), ${plan.messages.length} messages`,
    '',
  ];
  for (const decision of plan.decisions) {
    const where = decision.message !== undefined ? `message ${decision.message}${decision.part !== undefined ? ` part ${decision.part}` : ''} (${decision.role})` : decision.memory !== undefined ? `memory ${decision.memory}` : 'retrieved context';
    const size = `${decision.before ?? '?'} → ${decision.after}`;
    const relevance = decision.relevance !== undefined ? ` relevance ${decision.relevance.toFixed(2)}` : '';
    lines.push(`${marks[decision.action]} ${where} ${decision.kind}: ${decision.action} (${decision.reason}) ${size}${relevance}`);
  }
  return lines.join('\n');
}
