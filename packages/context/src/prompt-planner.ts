/**
 * The context-window planner itself (see `planPrompt` in prompt-parts.ts, which loads this module on
 * its first call): units of messages placed by value — system and question, the current tool loop,
 * recent turns, relevant older turns, memory, retrieved passages, then the rest shortened — each
 * part measured with the caller's counter, so that the plan never exceeds the window.
 */
import { SmartContextComposer } from '@zerda/composer';
import { toLengthCounter } from '@zerda/context-core';
import { KeywordRetriever } from '@zerda/retriever';
import { defaultAnalyzer, truncateAtWordBoundary } from '@zerda/text';
import { invalidArgument, ZerdaError, type DocumentChunk } from '@zerda/types';
import {
  DEFAULTS,
  number,
  outputText,
  partText,
  partsOf,
  promptLength,
  validateMessages,
  type PlanPromptOptions,
  type PlannedPrompt,
  type PromptContentPart,
  type PromptMemoryItem,
  type PromptMessage,
  type PromptParts,
  type PromptPlanDecision,
  type PromptToolOutput,
} from './prompt-parts.js';
import { countWithin, parseJsonText, rankSegments, reduceJson, reduceText } from './tool-output-reduction.js';

/** A part as planned: its current form and cost. */
interface PlannedPart {
  source: PromptContentPart;
  kind: PromptPlanDecision['kind'];
  /** The replacement, when shortened. */
  replaced?: PromptContentPart;
  cost: number;
  before?: number;
}

/** Messages that stand or fall together: a user message, or an assistant message with the tool messages answering it. */
interface Unit {
  messages: number[];
  /** Index into units. */
  index: number;
}

function questionText(messages: PromptMessage[], index: number): string {
  if (index < 0) return '';
  return partsOf(messages[index]!)
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('\n')
    .trim();
}

function unitsOf(messages: PromptMessage[]): Unit[] {
  const units: Unit[] = [];
  let current: Unit | undefined;
  messages.forEach((message, index) => {
    if (message.role === 'tool' && current && messages[current.messages[0]!]!.role === 'assistant') {
      current.messages.push(index);
      return;
    }
    current = { messages: [index], index: units.length };
    units.push(current);
  });
  return units;
}

function memoryItems(memory: PromptParts['memory']): PromptMemoryItem[] {
  if (memory === undefined) return [];
  if (!Array.isArray(memory)) throw invalidArgument('parts.memory', 'an array of strings or { id?, text }', memory);
  return memory.map((item: unknown, index) => {
    if (typeof item === 'string') return { text: item };
    if (item === null || typeof item !== 'object' || typeof (item as PromptMemoryItem).text !== 'string') throw invalidArgument(`parts.memory[${index}]`, 'a string or { id?, text: string }', item);
    return item as PromptMemoryItem;
  });
}

const MEMORY_HEADER = 'Memory:';

/** `planPrompt` (prompt-parts.ts) once this module is loaded. */
export async function fitPrompt(parts: PromptParts, options: PlanPromptOptions): Promise<PlannedPrompt> {
  if (parts === null || typeof parts !== 'object') throw invalidArgument('parts', 'an object { messages, memory?, retrieved?, question? }', parts);
  if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an object { window, counter? }', options);
  const known = new Set(['window', 'counter', 'messageOverhead', 'filePartLength', 'recentMessages', 'retrievedShare']);
  for (const key of Object.keys(options)) if (!known.has(key)) throw invalidArgument(`options.${key}`, `one of the options ${[...known].join(', ')}`, key);
  const window = number(options.window, 'options.window', 1);
  const counter = toLengthCounter(options.counter ?? 'cl100k_base');
  await counter.load?.();
  const overhead = options.messageOverhead === undefined ? DEFAULTS.messageOverhead : number(options.messageOverhead, 'options.messageOverhead', 0);
  const fileLength = options.filePartLength === undefined ? DEFAULTS.filePartLength : number(options.filePartLength, 'options.filePartLength', 0);
  const recentMessages = options.recentMessages === undefined ? DEFAULTS.recentMessages : number(options.recentMessages, 'options.recentMessages', 0, Number.POSITIVE_INFINITY, true);
  const retrievedShare = options.retrievedShare === undefined ? DEFAULTS.retrievedShare : number(options.retrievedShare, 'options.retrievedShare', 0, 0.9);
  const messages = validateMessages(parts.messages);
  const memory = memoryItems(parts.memory);
  if (parts.retrieved !== undefined && !Array.isArray(parts.retrieved)) throw invalidArgument('parts.retrieved', 'an array of scored chunks', parts.retrieved);
  if (parts.question !== undefined && typeof parts.question !== 'string') throw invalidArgument('parts.question', 'a string', parts.question);

  let questionIndex = -1;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]!.role === 'user') {
      questionIndex = index;
      break;
    }
  }
  const question = parts.question ?? questionText(messages, questionIndex);
  const decisions: PromptPlanDecision[] = [];
  const planned = new Map<number, PlannedPart[]>();
  let used = 0;
  const remaining = () => window - used;

  const measure = (part: PromptContentPart): number => {
    const text = partText(part);
    return text === undefined ? fileLength : counter(text);
  };
  /** A part shortened to at most `limit` (undefined when nothing of it fits). */
  const shorten = async (part: PromptContentPart, limit: number): Promise<{ part: PromptContentPart; cost: number } | undefined> => {
    if (limit <= 0) return undefined;
    if (part.type === 'text' || part.type === 'reasoning') {
      const text = truncateAtWordBoundary(part.text ?? '', limit, counter);
      return text.length === 0 ? undefined : { part: { ...part, text }, cost: counter(text) };
    }
    if (part.type === 'tool-call') {
      const name = `${part.toolName ?? ''} `;
      const room = limit - counter(name);
      if (room <= 0) return undefined;
      const input = typeof part.input === 'string' ? parseJsonText(part.input) : part.input;
      const reduced = reduceJson(input, room, counter, question);
      if (!reduced) return undefined;
      const replaced = { ...part, input: typeof part.input === 'string' ? reduced.text : reduced.value };
      return { part: replaced, cost: measure(replaced) };
    }
    if (part.type === 'tool-result') {
      const output = part.output!;
      let reducedOutput: PromptToolOutput | undefined;
      if (output.type === 'json' || output.type === 'error-json') {
        const reduced = reduceJson(output.value, limit, counter, question);
        if (reduced) reducedOutput = { ...output, value: reduced.value };
      } else if (output.type === 'text' || output.type === 'error-text') {
        const json = parseJsonText(output.value as string);
        if (json !== undefined) {
          const reduced = reduceJson(json, limit, counter, question);
          if (reduced) reducedOutput = { ...output, value: reduced.text };
        } else {
          const text = await reduceText(output.value as string, limit, counter, question);
          if (text.length > 0) reducedOutput = { ...output, value: text };
        }
      } else if (output.type === 'content') {
        const items = output.value as Array<{ type: string; text?: string }>;
        const texts = items.filter((item) => item.type === 'text').length;
        const others = items.length - texts;
        const share = Math.floor((limit - others * fileLength) / Math.max(1, texts));
        if (share > 0) {
          const value = [];
          for (const item of items) value.push(item.type === 'text' ? { ...item, text: await reduceText(item.text ?? '', share, counter, question) } : item);
          reducedOutput = { ...output, value } as PromptToolOutput;
        }
      }
      if (!reducedOutput) return undefined;
      const replaced = { ...part, output: reducedOutput };
      const cost = measure(replaced);
      return cost <= limit ? { part: replaced, cost } : undefined;
    }
    return undefined;
  };
  /** Cost of a part when it fits in `limit` whole (undefined otherwise); megabyte texts are not counted whole. */
  const wholeCost = (part: PromptContentPart, limit: number): number | undefined => {
    const text = partText(part);
    if (text === undefined) return fileLength <= limit ? fileLength : undefined;
    return countWithin(text, Math.max(0, limit), counter);
  };
  const record = (message: number, partIndex: number | undefined, part: PlannedPart, action: PromptPlanDecision['action'], reason: PromptPlanDecision['reason'], relevance?: number) => {
    const role = messages[message]!.role;
    decisions.push({
      message,
      ...(partIndex === undefined ? {} : { part: partIndex }),
      role,
      kind: part.kind,
      action,
      reason,
      ...(part.before === undefined ? {} : { before: part.before }),
      after: action === 'dropped' ? 0 : part.cost,
      ...(relevance === undefined ? {} : { relevance }),
    });
  };
  const kindOf = (part: PromptContentPart): PromptPlanDecision['kind'] =>
    part.type === 'tool-call' ? 'tool-call' : part.type === 'tool-result' ? 'tool-result' : part.type === 'text' || part.type === 'reasoning' ? 'text' : 'file';

  /**
   * Places a unit: every part whole when it fits in `wholeLimit`, else shortened to `shortLimit` (a
   * tool call to what its result leaves); all or nothing within the budget left. Returns whether it was placed.
   */
  const placeUnit = async (unit: Unit, limits: { text: number; tool: number }, budget: number, reasonKept: PromptPlanDecision['reason'], relevance?: number): Promise<boolean> => {
    const placed: Array<{ message: number; parts: PlannedPart[] }> = [];
    let cost = 0;
    for (const index of unit.messages) {
      cost += overhead;
      const message = messages[index]!;
      const plannedParts: PlannedPart[] = [];
      for (const part of partsOf(message)) {
        const kind = kindOf(part);
        const limit = kind === 'tool-result' ? limits.tool : limits.text;
        const room = Math.min(limit, budget - cost);
        if (room < 0) return false;
        const whole = wholeCost(part, room);
        if (whole !== undefined) {
          plannedParts.push({ source: part, kind, cost: whole, before: whole });
          cost += whole;
          continue;
        }
        if (kind === 'file') return false;
        const short = await shorten(part, room);
        if (!short) return false;
        // The length before is reported when it is cheap to know (a counter remembers short texts); a long output's is left unknown rather than counted on every step.
        const before = partText(part)!;
        plannedParts.push({ source: part, kind, replaced: short.part, cost: short.cost, ...(before.length <= 20_000 ? { before: counter(before) } : {}) });
        cost += short.cost;
      }
      placed.push({ message: index, parts: plannedParts });
    }
    if (cost > budget) return false;
    used += cost;
    for (const { message, parts: plannedParts } of placed) {
      planned.set(message, plannedParts);
      const whole = typeof messages[message]!.content === 'string';
      plannedParts.forEach((part, at) => record(message, whole ? undefined : at, part, part.replaced ? 'shortened' : 'kept', reasonKept, relevance));
    }
    return true;
  };

  // 1. System messages, whole.
  const units = unitsOf(messages);
  for (const unit of units) {
    const index = unit.messages[0]!;
    if (messages[index]!.role !== 'system') continue;
    const part: PlannedPart = { source: partsOf(messages[index]!)[0]!, kind: 'text', cost: counter(messages[index]!.content as string) };
    part.before = part.cost;
    used += overhead + part.cost;
    planned.set(index, [part]);
    record(index, undefined, part, 'kept', 'system');
  }
  if (used > window) {
    throw new ZerdaError('ZERDA_INVALID_ARGUMENT', { field: 'options.window', expected: `at least ${used} ${counter.unit ?? 'units'} (the system messages alone)`, received: String(window) });
  }
  const memoryMessages = (memory.length > 0 ? 1 : 0) + (parts.retrieved && parts.retrieved.length > 0 ? 1 : 0);
  // 2. The question: whole, or cut to half of what remains.
  const questionUnit = units.find((unit) => unit.messages[0] === questionIndex);
  if (questionUnit) {
    const half = Math.floor((remaining() - overhead) / 2);
    const placed = await placeUnit(questionUnit, { text: Math.max(half, 1), tool: Math.max(half, 1) }, remaining(), 'question');
    if (!placed) {
      throw new ZerdaError('ZERDA_INVALID_ARGUMENT', { field: 'options.window', expected: `room for the system messages (${used} ${counter.unit ?? 'units'}) and the question`, received: String(window) });
    }
  }
  const retrievedReserve = parts.retrieved && parts.retrieved.length > 0 ? Math.floor(remaining() * retrievedShare) : 0;
  // Older messages are judged by turn: a user message and everything up to the next one (the
  // assistant's tool calls, their results, its reply) stand or fall together, so that a question
  // about something looked up earlier keeps the lookup with the request that named it.
  const older: Unit[] = [];
  for (const unit of units) {
    const first = unit.messages[0]!;
    if (first >= Math.max(questionIndex, 0) || messages[first]!.role === 'system') continue;
    const last = older[older.length - 1];
    if (last && messages[first]!.role !== 'user') last.messages.push(...unit.messages);
    else older.push({ messages: [...unit.messages], index: units.length + older.length });
  }
  // Without a user message every non-system message is a step of the current task.
  const later = units.filter((unit) => unit.messages[0]! > questionIndex && messages[unit.messages[0]!]!.role !== 'system');
  const olderReserve = older.length > 0 ? Math.floor(remaining() * 0.25) : 0;

  // 3. The current question's tool loop, newest step first, each tool result cut to its share.
  const dropUnit = (unit: Unit, reason: PromptPlanDecision['reason'], relevance?: number) => {
    for (const index of unit.messages) {
      partsOf(messages[index]!).forEach((part, at) => {
        record(index, typeof messages[index]!.content === 'string' ? undefined : at, { source: part, kind: kindOf(part), cost: 0 }, 'dropped', reason, relevance);
      });
    }
  };
  // Each result's limit: the results' budget shared by weight (1, +2 for the newest step, +3 × its
  // relevance to the question relative to the most relevant result), a result shorter than its
  // share keeping its length and leaving the rest to the others (water-filling).
  const laterResults: Array<{ unit: Unit; part: PromptContentPart; weight: number; whole?: number; limit: number }> = [];
  let laterFixed = 0;
  for (const unit of later) {
    for (const index of unit.messages) {
      laterFixed += overhead;
      for (const part of partsOf(messages[index]!)) {
        if (part.type === 'tool-result') laterResults.push({ unit, part, weight: 1, limit: 0 });
        else laterFixed += wholeCost(part, window) ?? window;
      }
    }
  }
  if (laterResults.length > 0) {
    const scores: number[] = [];
    for (const result of laterResults) scores.push(question.length > 0 ? (await rankSegments(outputText(result.part.output!), question)).topScore : 0);
    const best = Math.max(0, ...scores);
    const newest = later[later.length - 1];
    laterResults.forEach((result, at) => {
      result.weight = 1 + (result.unit === newest ? 2 : 0) + (best > 0 ? (3 * scores[at]!) / best : 0);
    });
    let budget = Math.max(0, remaining() - retrievedReserve - olderReserve - memoryMessages * overhead - laterFixed);
    let open = laterResults;
    for (let round = 0; round < 8 && open.length > 0; round++) {
      const total = open.reduce((sum, result) => sum + result.weight, 0);
      const still: typeof open = [];
      let given = 0;
      for (const result of open) {
        const share = Math.floor((budget * result.weight) / total);
        result.whole ??= countWithin(outputText(result.part.output!), Math.max(share, 0), counter);
        if (result.whole !== undefined && result.whole <= share) {
          result.limit = result.whole;
          given += result.whole;
        } else {
          result.limit = share;
          still.push(result);
        }
      }
      if (still.length === open.length) break;
      budget -= given;
      open = still;
      for (const result of open) result.whole = undefined;
    }
  }
  for (let position = later.length - 1; position >= 0; position--) {
    const unit = later[position]!;
    const available = remaining() - retrievedReserve - olderReserve - memoryMessages * overhead;
    const limits = laterResults.filter((result) => result.unit === unit).map((result) => result.limit);
    // The unit's results share its limits (one result per tool message in practice: the smallest limit bounds each).
    const toolLimit = Math.max(1, limits.length > 0 ? Math.min(...limits) : available);
    const placed = await placeUnit(unit, { text: available, tool: toolLimit }, Math.max(0, available), 'current-step');
    if (!placed) dropUnit(unit, 'no-room');
  }

  // 4. Older turns: the newest whole, then the relevant ones shortened, most relevant first.
  const relevance = new Map<number, number>();
  const memoryRelevance = new Map<number, number>();
  if (question.length > 0 && defaultAnalyzer.analyze(question).length > 0 && (older.length > 0 || memory.length > 0)) {
    const documents: DocumentChunk[] = [];
    for (const unit of older) {
      const texts: string[] = [];
      for (const index of unit.messages) {
        for (const part of partsOf(messages[index]!)) {
          if (part.type === 'text' || part.type === 'reasoning') texts.push((part.text ?? '').slice(0, 20_000));
          else if (part.type === 'tool-call') texts.push(partText(part)!.slice(0, 20_000));
          else if (part.type === 'tool-result') texts.push((await rankSegments(outputText(part.output!), question)).digest);
        }
      }
      documents.push({ id: `u${unit.index}`, docId: `u${unit.index}`, source: 'conversation', metadata: {}, position: { index: unit.index }, text: texts.join('\n') });
    }
    memory.forEach((item, index) => documents.push({ id: `m${index}`, docId: `m${index}`, source: 'memory', metadata: {}, position: { index }, text: item.text.slice(0, 20_000) }));
    const index = new KeywordRetriever({ name: 'prompt-planner' });
    await index.index(documents.filter((document) => document.text.trim().length > 0));
    for (const hit of await index.retrieve(question, { topK: documents.length })) {
      if (!(hit.score > 0)) continue;
      const id = hit.chunk.id;
      if (id.startsWith('u')) relevance.set(Number(id.slice(1)), hit.score);
      else memoryRelevance.set(Number(id.slice(1)), hit.score);
    }
  }
  const shareBase = Math.max(0, remaining() - retrievedReserve);
  const textLimit = Math.max(32, Math.floor(shareBase / 16));
  const toolLimit = Math.max(64, Math.floor(shareBase / 6));
  const placedOlder = new Set<number>();
  let recentLeft = recentMessages;
  for (let position = older.length - 1; position >= 0 && recentLeft > 0; position--) {
    const unit = older[position]!;
    recentLeft -= unit.messages.length;
    const budget = remaining() - retrievedReserve - memoryMessages * overhead;
    if (await placeUnit(unit, { text: Math.max(0, Math.floor(budget / 2)), tool: toolLimit }, budget, 'recent', relevance.get(unit.index))) placedOlder.add(unit.index);
    else break;
  }
  const byRelevance = older.filter((unit) => relevance.has(unit.index) && !placedOlder.has(unit.index)).sort((a, b) => relevance.get(b.index)! - relevance.get(a.index)! || b.index - a.index);
  for (const unit of byRelevance) {
    const budget = remaining() - retrievedReserve - memoryMessages * overhead;
    if (budget <= overhead) break;
    if (await placeUnit(unit, { text: textLimit, tool: toolLimit }, budget, 'relevant', relevance.get(unit.index))) placedOlder.add(unit.index);
  }

  // 5. Memory: the relevant items, most relevant first, in one system message.
  const keptMemory: Array<{ index: number; item: PromptMemoryItem; cost: number; before: number }> = [];
  if (memory.length > 0) {
    const header = counter(MEMORY_HEADER);
    let memoryCost = overhead + header;
    const order = [...memoryRelevance.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    for (const [index, score] of order) {
      const item = memory[index]!;
      const budget = remaining() - retrievedReserve - memoryCost - (parts.retrieved && parts.retrieved.length > 0 ? overhead : 0);
      const limit = Math.min(textLimit, budget - 2);
      const before = counter(item.text);
      const text = before <= limit ? item.text : limit > 0 ? truncateAtWordBoundary(item.text, limit, counter) : '';
      const cost = text.length > 0 ? counter(`- ${text}`) + 1 : 0;
      if (text.length === 0 || cost > budget) {
        decisions.push({ memory: index, role: 'memory', kind: 'memory', action: 'dropped', reason: 'no-room', before, after: 0, relevance: score });
        continue;
      }
      memoryCost += cost;
      keptMemory.push({ index, item: { ...item, text }, cost, before });
      decisions.push({ memory: index, role: 'memory', kind: 'memory', action: text === item.text ? 'kept' : 'shortened', reason: 'relevant', before, after: cost, relevance: score });
    }
    memory.forEach((item, index) => {
      if (!memoryRelevance.has(index)) decisions.push({ memory: index, role: 'memory', kind: 'memory', action: 'dropped', reason: 'not-relevant', after: 0 });
    });
  }
  keptMemory.sort((a, b) => a.index - b.index);
  const renderMemory = () => (keptMemory.length > 0 ? `${MEMORY_HEADER}\n${keptMemory.map(({ item }) => `- ${item.text}`).join('\n')}` : '');
  let memoryText = renderMemory();
  // The items were measured one by one; the message is measured whole, and the least relevant items leave until it fits.
  while (memoryText && overhead + counter(memoryText) > remaining() - retrievedReserve) {
    let least = 0;
    keptMemory.forEach((entry, at) => {
      if ((memoryRelevance.get(entry.index) ?? 0) < (memoryRelevance.get(keptMemory[least]!.index) ?? 0)) least = at;
    });
    const [removed] = keptMemory.splice(least, 1);
    const decision = decisions.find((entry) => entry.memory === removed!.index)!;
    Object.assign(decision, { action: 'dropped', reason: 'no-room', after: 0 });
    memoryText = renderMemory();
  }
  if (memoryText) used += overhead + counter(memoryText);

  // 6. Retrieved passages, composed into what remains (the remaining older turns get what is left after them).
  let context = '';
  if (parts.retrieved && parts.retrieved.length > 0) {
    const budget = remaining() - overhead;
    if (budget > 0) {
      const composed = new SmartContextComposer().compose(parts.retrieved, { budget, counter });
      context = composed.context;
    }
    if (context.length > 0) {
      const cost = counter(context);
      if (cost > remaining() - overhead) context = '';
      else {
        used += overhead + cost;
        decisions.push({ role: 'context', kind: 'context', action: 'kept', reason: 'retrieved', after: cost });
      }
    }
    if (context.length === 0) decisions.push({ role: 'context', kind: 'context', action: 'dropped', reason: 'no-room', after: 0 });
  }

  // 7. The other older turns, newest first, shortened into what is left.
  for (let position = older.length - 1; position >= 0; position--) {
    const unit = older[position]!;
    if (placedOlder.has(unit.index)) continue;
    const budget = remaining();
    const placed = budget > overhead && (await placeUnit(unit, { text: Math.min(textLimit, budget), tool: Math.min(Math.floor(toolLimit / 2), budget) }, budget, 'room-left', relevance.get(unit.index)));
    if (!placed) dropUnit(unit, relevance.has(unit.index) ? 'no-room' : 'not-relevant', relevance.get(unit.index));
  }

  // 8. Room left over grows the shortened parts back, in the order they were placed (the question,
  // the current steps newest first, the recent turns, the relevant ones by relevance, the rest).
  for (const decision of decisions) {
    if (remaining() <= 0) break;
    if (decision.action !== 'shortened' || decision.message === undefined) continue;
    const part = planned.get(decision.message)?.[decision.part ?? 0];
    if (!part) continue;
    const limit = part.cost + remaining();
    const whole = wholeCost(part.source, limit);
    const grown = whole !== undefined ? { part: undefined, cost: whole } : await shorten(part.source, limit);
    if (!grown || grown.cost <= part.cost || grown.cost > limit) continue;
    used += grown.cost - part.cost;
    part.cost = grown.cost;
    if (grown.part === undefined) delete part.replaced;
    else part.replaced = grown.part;
    decision.after = grown.cost;
    if (grown.part === undefined) decision.action = 'kept';
  }

  // The prompt, in order: leading system messages, memory and context, then the rest.
  const output: PromptMessage[] = [];
  const sources: Array<number | undefined> = [];
  let leading = 0;
  while (leading < messages.length && messages[leading]!.role === 'system') leading++;
  const emit = (index: number) => {
    const plannedParts = planned.get(index);
    if (!plannedParts) return;
    const message = messages[index]!;
    if (typeof message.content === 'string') {
      const replaced = plannedParts[0]!.replaced;
      output.push(replaced ? { ...message, content: replaced.text ?? '' } : message);
    } else {
      output.push(plannedParts.some((part) => part.replaced) ? { ...message, content: plannedParts.map((part) => part.replaced ?? part.source) } : message);
    }
    sources.push(index);
  };
  for (let index = 0; index < leading; index++) emit(index);
  if (memoryText) {
    output.push({ role: 'system', content: memoryText });
    sources.push(undefined);
  }
  if (context) {
    output.push({ role: 'system', content: context });
    sources.push(undefined);
  }
  for (let index = leading; index < messages.length; index++) emit(index);
  const length = promptLength(output, counter, { messageOverhead: overhead, filePartLength: fileLength });
  if (length > window) {
    // Cannot happen when the counter measures parts the same way every time; refuse rather than overflow.
    throw new ZerdaError('ZERDA_UNSUPPORTED', { operation: 'planPrompt', component: 'the prompt planner', reason: `the planned prompt measured ${length} > ${window} ${counter.unit ?? 'units'}: the counter does not give the same count for the same text` });
  }
  return { messages: output, sources, memory: keptMemory.map(({ item }) => item), context, question, length, window, unit: counter.unit ?? 'units', decisions };
}
