/**
 * "Long conversations and agents": real questions (TyDi QA English, ARCD) asked at the end of long
 * synthetic conversations — 20–200 turns of distractor dialogue and tool outputs of 1–200 KB drawn
 * from the same corpus, one earlier turn looking up the gold passage — and the final prompt built
 * four ways within a window: zerda's `planPrompt`, (a) everything, (b) the last N messages that fit
 * (Mastra's `lastMessages` + `TokenLimiter`), (c) the oldest messages dropped until it fits.
 */
import { planPrompt, promptLength, type LengthCounter, type PromptMessage } from '@zerda/context';
import { answerInContext } from '@zerda/retriever';
import type { DatasetDocument } from '@zerda/retriever/datasets';
import type { BenchDataset } from './datasets.js';
import { SeededRandom } from './random.js';

/** A conversation ending with a question, and what the question needs. */
export interface LongConversation {
  queryId: string;
  messages: PromptMessage[];
  answers: string[];
  /** Index of the user message that looked the gold passage up (the turn the question refers to). */
  referredMessage: number;
  /** The tool call id of that lookup. */
  referredCall: string;
  /** Characters of tool output in the conversation. */
  toolCharacters: number;
  turns: number;
}

/** How the final prompt was built. */
export type Strategy = 'planner' | 'everything' | 'last-n' | 'drop-oldest';
export const STRATEGIES: readonly Strategy[] = ['planner', 'everything', 'last-n', 'drop-oldest'];

/** Mastra's memory default: the last 10 messages, then its TokenLimiter trims to the window. */
export const LAST_MESSAGES = 10;

/** The outcome of one strategy on one conversation at one window. */
export interface Outcome {
  fits: boolean;
  answer: boolean;
  referredTurn: boolean;
  /** Milliseconds to build the prompt (the planner's time per step). */
  milliseconds: number;
}

const PHRASES = {
  en: {
    lookUp: (title: string) => `Let's look up ${title}.`,
    found: (title: string) => `I found material about ${title}; ask me anything about it.`,
    tellMe: (title: string) => `Tell me about ${title}.`,
    back: (title: string, question: string) => `Going back to what we looked up about ${title}: ${question}`,
    chat: ['Thanks, that helps.', 'Interesting. What else?', 'Can you summarise that?', 'OK, next topic.'],
  },
  ar: {
    lookUp: (title: string) => `لنبحث عن ${title}.`,
    found: (title: string) => `وجدتُ معلومات عن ${title}؛ اسألني ما تشاء.`,
    tellMe: (title: string) => `حدّثني عن ${title}.`,
    back: (title: string, question: string) => `بالعودة إلى ما بحثنا عنه حول ${title}: ${question}`,
    chat: ['شكراً، هذا مفيد.', 'مثير للاهتمام، ماذا أيضاً؟', 'هل يمكنك التلخيص؟', 'حسناً، الموضوع التالي.'],
  },
};

function firstSentences(text: string, characters: number): string {
  if (text.length <= characters) return text;
  const cut = text.lastIndexOf(' ', characters);
  return `${text.slice(0, cut > 0 ? cut : characters)}…`;
}

/** A tool output of about `size` characters: corpus documents (the gold one at a random place when given), as text or as JSON. */
function toolOutput(random: SeededRandom, documents: readonly DatasetDocument[], size: number, gold: DatasetDocument | undefined, json: boolean): { type: 'text'; value: string } | { type: 'json'; value: unknown } {
  const picked: DatasetDocument[] = [];
  let length = 0;
  while (length < size) {
    const document = random.pick(documents);
    if (document === gold) continue;
    picked.push(document);
    length += document.title.length + document.text.length + 20;
  }
  if (gold) picked.splice(random.integer(0, picked.length), 0, gold);
  if (json) return { type: 'json', value: { results: picked.map((document) => ({ id: document.id, title: document.title, text: document.text })) } };
  return { type: 'text', value: picked.map((document) => `[${document.id}] ${document.title}\n${document.text}`).join('\n\n') };
}

/** Log-uniform in [minimum, maximum]. */
function logUniform(random: SeededRandom, minimum: number, maximum: number): number {
  return Math.round(Math.exp(Math.log(minimum) + random.next() * (Math.log(maximum) - Math.log(minimum))));
}

/**
 * The conversation for one question: `turns` (20–200) user/assistant turns of distractor dialogue
 * about other documents, about a third of them with a search whose output (1–200 KB) is drawn from
 * the corpus; at a random place in the first 70%, the user looks up the gold document's title and
 * the search output (1–200 KB) holds the gold passage; the last message asks the question, naming
 * what was looked up.
 */
export function buildConversation(dataset: BenchDataset, queryId: string, seed: number): LongConversation | undefined {
  const query = dataset.queries.find((candidate) => candidate.id === queryId);
  const judged = [...(dataset.qrels.get(queryId) ?? [])].filter(([, grade]) => grade > 0).map(([id]) => id);
  const answers = dataset.answers?.get(queryId) ?? [];
  const gold = dataset.documents.find((document) => document.id === judged[0]);
  if (!query || !gold || answers.length === 0) return undefined;
  const random = new SeededRandom(seed);
  const phrases = dataset.language === 'ar' ? PHRASES.ar : PHRASES.en;
  const others = dataset.documents.filter((document) => document.id !== gold.id && document.title !== gold.title);
  const turns = random.integer(20, 200);
  const referredAt = random.integer(0, Math.floor(turns * 0.7));
  const messages: PromptMessage[] = [{ role: 'system', content: dataset.language === 'ar' ? 'أنت مساعد بحثي. أجب من نتائج الأدوات.' : 'You are a research assistant. Answer from the tool results.' }];
  let referredMessage = -1;
  let toolCharacters = 0;
  const search = (turn: number, title: string, golden: DatasetDocument | undefined) => {
    const callId = `call-${turn}`;
    const output = toolOutput(random, others, logUniform(random, 1_000, 200_000), golden, random.next() < 0.5);
    toolCharacters += output.type === 'text' ? output.value.length : JSON.stringify(output.value).length;
    messages.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: callId, toolName: 'search', input: { query: title } }] });
    messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: callId, toolName: 'search', output }] });
    return callId;
  };
  let referredCall = '';
  for (let turn = 0; turn < turns; turn++) {
    if (turn === referredAt) {
      referredMessage = messages.length;
      messages.push({ role: 'user', content: phrases.lookUp(gold.title) });
      referredCall = search(turn, gold.title, gold);
      messages.push({ role: 'assistant', content: phrases.found(gold.title) });
      continue;
    }
    const topic = random.pick(others);
    if (random.next() < 0.35) {
      messages.push({ role: 'user', content: phrases.lookUp(topic.title) });
      search(turn, topic.title, undefined);
      messages.push({ role: 'assistant', content: phrases.found(topic.title) });
    } else {
      messages.push({ role: 'user', content: random.next() < 0.5 ? phrases.tellMe(topic.title) : random.pick(phrases.chat) });
      messages.push({ role: 'assistant', content: firstSentences(topic.text, 300) });
    }
  }
  const question = query.text.replace(/^[-\s]+/u, '');
  messages.push({ role: 'user', content: phrases.back(gold.title, question) });
  return { queryId, messages, answers, referredMessage, referredCall, toolCharacters, turns };
}

/** Every text of a prompt, joined (what the model reads, for the answer check). */
export function promptText(messages: readonly PromptMessage[]): string {
  const texts: string[] = [];
  for (const message of messages) {
    if (typeof message.content === 'string') {
      texts.push(message.content);
      continue;
    }
    for (const part of message.content) {
      if (typeof part.text === 'string') texts.push(part.text);
      else if (part.type === 'tool-call') texts.push(JSON.stringify(part.input));
      else if (part.output) texts.push(part.output.type === 'json' ? jsonTexts(part.output.value) : String((part.output as { value?: unknown }).value ?? ''));
    }
  }
  return texts.join('\n');
}

/** The strings of a JSON value, one per line (a JSON text escapes quotes, which would hide answers that hold them). */
function jsonTexts(value: unknown): string {
  const strings: string[] = [];
  const visit = (node: unknown) => {
    if (typeof node === 'string') strings.push(node);
    else if (typeof node === 'number' || typeof node === 'boolean') strings.push(String(node));
    else if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === 'object') for (const [key, member] of Object.entries(node)) {
      strings.push(key);
      visit(member);
    }
  };
  visit(value);
  return strings.join('\n');
}

/** Messages without tool results whose call is gone, and without tool calls whose result is gone (what an API accepts). */
function withoutOrphans(messages: PromptMessage[]): PromptMessage[] {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') calls.add(part.toolCallId!);
      if (part.type === 'tool-result') results.add(part.toolCallId!);
    }
  }
  return messages.filter((message) => {
    if (typeof message.content === 'string') return true;
    return message.content.every((part) => (part.type === 'tool-call' ? results.has(part.toolCallId!) : part.type === 'tool-result' ? calls.has(part.toolCallId!) : true));
  });
}

/** Each message's length (framing included), counted once per conversation and shared by the baselines. */
export function messageLengths(messages: PromptMessage[], counter: LengthCounter): number[] {
  return messages.map((message) => promptLength([message], counter));
}

/** (b) Mastra: the last `LAST_MESSAGES` messages, then TokenLimiter — newest first while the total fits, stopping at the first that does not. */
function lastMessagesThatFit(messages: PromptMessage[], lengths: number[], window: number): PromptMessage[] {
  const system = messages[0]!;
  let total = lengths[0]!;
  const kept: PromptMessage[] = [];
  for (let index = messages.length - 1; index >= Math.max(1, messages.length - LAST_MESSAGES); index--) {
    if (total + lengths[index]! > window) break;
    total += lengths[index]!;
    kept.unshift(messages[index]!);
  }
  return withoutOrphans([system, ...kept]);
}

/** (c) The oldest messages (after the system message) dropped until the rest fits. */
function dropOldest(messages: PromptMessage[], lengths: number[], window: number): PromptMessage[] {
  let total = lengths.reduce((sum, length) => sum + length, 0);
  let first = 1;
  while (total > window && first < messages.length) total -= lengths[first++]!;
  return withoutOrphans([messages[0]!, ...messages.slice(first)]);
}

function judge(conversation: LongConversation, prompt: PromptMessage[], fits: boolean, milliseconds: number): Outcome {
  const referred = conversation.messages[conversation.referredMessage]!;
  const referredTurn =
    prompt.includes(referred) || prompt.some((message) => message.role === 'user' && typeof message.content === 'string' && typeof referred.content === 'string' && referred.content.startsWith(message.content.replace(/…$/u, '')));
  const resultKept = prompt.some((message) => Array.isArray(message.content) && message.content.some((part) => part.type === 'tool-result' && part.toolCallId === conversation.referredCall));
  return { fits, answer: fits && answerInContext(promptText(prompt), conversation.answers), referredTurn: fits && referredTurn && resultKept, milliseconds };
}

/** Builds the final prompt with one strategy and judges it. */
export async function runStrategy(strategy: Strategy, conversation: LongConversation, lengths: number[], window: number, counter: LengthCounter): Promise<Outcome> {
  const { messages } = conversation;
  const started = performance.now();
  let prompt: PromptMessage[];
  switch (strategy) {
    case 'planner':
      prompt = (await planPrompt({ messages }, { window, counter })).messages;
      break;
    case 'everything':
      prompt = messages;
      break;
    case 'last-n':
      prompt = lastMessagesThatFit(messages, lengths, window);
      break;
    case 'drop-oldest':
      prompt = dropOldest(messages, lengths, window);
      break;
  }
  const milliseconds = performance.now() - started;
  const length = strategy === 'planner' || strategy === 'everything' ? (strategy === 'everything' ? lengths.reduce((sum, value) => sum + value, 0) : promptLength(prompt, counter)) : promptLength(prompt, counter);
  return judge(conversation, prompt, length <= window, milliseconds);
}
