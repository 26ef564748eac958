import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ZerdaError, charCounter, tokenCounter, wordCounter, type LengthCounter, type ScoredChunk } from '@zerda/context';
import { estimatedTokenCounter, explainPromptPlan, planPrompt, promptLength, type PlannedPrompt, type PromptMessage } from './index.js';

const ENGLISH = ['the', 'library', 'opens', 'at', 'nine', 'report', 'server', 'failed', 'because', 'disk', 'quota', 'users', 'asked', 'about', 'weather', 'trains', 'Paris', 'C++', 'world,', 'JSON'];
// Arabic with diacritics, tatweel, alef variants and Arabic punctuation.
const ARABIC = ['المكتبة', 'تُفتح', 'في', 'التاسعة', 'إعارة', 'الكُتُب', 'أحمد', 'آمنة', 'مـــكتبة', 'الخادم', 'تعطّل', 'بسبب', 'القرص', '،', '؛', '؟', 'مرحباً', 'قرأتُ'];

const word = fc.oneof(fc.constantFrom(...ENGLISH), fc.constantFrom(...ARABIC));
const sentence = fc.array(word, { minLength: 1, maxLength: 30 }).map((words) => words.join(' '));

/** A tool output of about `size` characters built from a seed sentence (cheap to generate at a megabyte). */
function bigOutput(seedText: string, size: number, asJson: boolean): { type: 'text'; value: string } | { type: 'json'; value: unknown } {
  if (asJson) {
    const items = Math.max(1, Math.floor(size / (seedText.length + 40)));
    return { type: 'json', value: { items: Array.from({ length: items }, (_, index) => ({ id: index, text: `${seedText} ${index}` })) } };
  }
  const lines: string[] = [];
  let length = 0;
  for (let index = 0; length < size; index++) {
    const line = `${index}: ${seedText}`;
    lines.push(line);
    length += line.length + 1;
  }
  return { type: 'text', value: lines.join('\n') };
}

interface TurnSpec {
  kind: 'user' | 'assistant' | 'tool';
  text: string;
  size: number;
  json: boolean;
}

const turnSpec = (maxOutput: number): fc.Arbitrary<TurnSpec> =>
  fc.record({
    kind: fc.constantFrom('user', 'assistant', 'tool') as fc.Arbitrary<TurnSpec['kind']>,
    text: sentence,
    size: fc.integer({ min: 0, max: maxOutput }),
    json: fc.boolean(),
  });

function conversation(system: string, turns: TurnSpec[], question: string): PromptMessage[] {
  const messages: PromptMessage[] = [{ role: 'system', content: system }];
  turns.forEach((turn, index) => {
    if (turn.kind === 'tool') {
      messages.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${index}`, toolName: 'lookup', input: { query: turn.text.slice(0, 40) } }] });
      messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${index}`, toolName: 'lookup', output: bigOutput(turn.text, turn.size, turn.json) }] });
    } else {
      messages.push({ role: turn.kind, content: turn.kind === 'user' ? turn.text : [{ type: 'text', text: turn.text }] });
    }
  });
  messages.push({ role: 'user', content: [{ type: 'text', text: question }] });
  return messages;
}

const COUNTERS: Array<[string, LengthCounter | ((text: string) => number)]> = [
  ['chars', charCounter],
  ['words', wordCounter],
  ['cl100k_base', tokenCounter('cl100k_base')],
  ['o200k_base', tokenCounter('o200k_base')],
  ['estimate', estimatedTokenCounter()],
  ['a custom function', (text: string) => Math.ceil(text.length / 3)],
];

/** The invariants every plan keeps. */
function checkPlan(plan: PlannedPrompt, messages: PromptMessage[], counter: LengthCounter | ((text: string) => number)): void {
  expect(plan.length).toBeLessThanOrEqual(plan.window);
  expect(promptLength(plan.messages, counter)).toBe(plan.length);
  // System messages and the question are there.
  expect(plan.messages[0]).toEqual(messages[0]);
  expect(plan.sources).toContain(messages.length - 1);
  // Tool calls and results travel together.
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const message of plan.messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') calls.add(part.toolCallId!);
      if (part.type === 'tool-result') {
        results.add(part.toolCallId!);
        // JSON stays JSON: a json output's value serialises, and parses back to itself.
        if (part.output!.type === 'json') expect(JSON.parse(JSON.stringify(part.output!.value))).toEqual(part.output!.value);
      }
    }
  }
  expect([...calls].sort()).toEqual([...results].sort());
  // The messages keep their order.
  const sources = plan.sources.filter((source): source is number => source !== undefined);
  expect(sources).toEqual([...sources].sort((a, b) => a - b));
  // Every part of the input has one decision, and the kept ones are the ones in the prompt.
  const decided = new Set(plan.decisions.filter((decision) => decision.message !== undefined).map((decision) => `${decision.message}:${decision.part ?? 0}`));
  const expected = messages.flatMap((message, index) => (typeof message.content === 'string' ? [`${index}:0`] : message.content.map((_part, at) => `${index}:${at}`)));
  expect([...decided].sort()).toEqual([...expected].sort());
  for (const decision of plan.decisions) {
    if (decision.message === undefined) continue;
    expect(plan.sources.includes(decision.message)).toBe(decision.action !== 'dropped');
  }
}

describe('planPrompt never exceeds the window', () => {
  for (const [name, counter] of COUNTERS) {
    it(`random Arabic and English conversations, every window (${name})`, { timeout: 120_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(sentence, fc.array(turnSpec(20_000), { minLength: 0, maxLength: 30 }), sentence, fc.integer({ min: 1, max: 6000 }), async (system, turns, question, window) => {
          const messages = conversation(system, turns, question);
          let plan: PlannedPrompt;
          try {
            plan = await planPrompt({ messages }, { window, counter });
          } catch (error) {
            // Only when the system message and the question alone cannot fit.
            expect(ZerdaError.isInstance(error)).toBe(true);
            expect((error as ZerdaError).details.field).toBe('options.window');
            const fixed = promptLength([messages[0]!], counter);
            expect(fixed + 4 + 2 > window / 2 || fixed > window).toBe(true);
            return;
          }
          checkPlan(plan, messages, counter);
        }),
        { numRuns: name === 'chars' || name === 'a custom function' ? 40 : 15 },
      );
    });
  }

  it('tool outputs up to a megabyte (text and JSON), every counter', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnSpec(1_000_000), { minLength: 1, maxLength: 6 }),
        sentence,
        fc.integer({ min: 300, max: 20_000 }),
        fc.constantFrom(...COUNTERS),
        async (turns, question, window, [, counter]) => {
          const messages = conversation('You answer from the tool outputs.', turns, question);
          checkPlan(await planPrompt({ messages }, { window, counter }), messages, counter);
        },
      ),
      { numRuns: 8 },
    );
  });
});

describe('planPrompt chooses by value', () => {
  const filler = (index: number) => `Small talk ${index}: the weather in Paris was mild and the trains ran on time.`;

  it('keeps an old turn relevant to the question and drops unrelated ones', { timeout: 60_000 }, async () => {
    const messages: PromptMessage[] = [{ role: 'system', content: 'You are helpful.' }];
    messages.push({ role: 'user', content: 'My passport number is X1234567 and it expires in March.' });
    messages.push({ role: 'assistant', content: 'Noted: your passport expires in March.' });
    for (let index = 0; index < 60; index++) messages.push({ role: index % 2 === 0 ? 'user' : 'assistant', content: filler(index) });
    messages.push({ role: 'user', content: 'When does my passport expire?' });
    const plan = await planPrompt({ messages }, { window: 300, counter: 'cl100k_base' });
    const text = JSON.stringify(plan.messages);
    expect(text).toContain('X1234567');
    expect(plan.decisions.find((decision) => decision.message === 1)).toMatchObject({ action: 'kept', reason: 'relevant' });
    expect(plan.decisions.some((decision) => decision.action === 'dropped' && decision.reason === 'not-relevant')).toBe(true);
    expect(plan.length).toBeLessThanOrEqual(300);
  });

  it('does the same in Arabic (diacritics and alef variants do not hide the match)', { timeout: 60_000 }, async () => {
    const messages: PromptMessage[] = [{ role: 'system', content: 'أنت مساعد.' }];
    messages.push({ role: 'user', content: 'رقم جواز سفري هو ١٢٣٤٥ وينتهي في شهر آذار.' });
    messages.push({ role: 'assistant', content: 'حسناً.' });
    for (let index = 0; index < 60; index++) messages.push({ role: index % 2 === 0 ? 'user' : 'assistant', content: `حديث عابر رقم ${index} عن الطقس في القاهرة والقطارات، لا شيء مهم؛ صحيح؟` });
    messages.push({ role: 'user', content: 'متى ينتهي جَوازُ سفري؟' });
    const plan = await planPrompt({ messages }, { window: 400, counter: 'o200k_base' });
    expect(JSON.stringify(plan.messages)).toContain('١٢٣٤٥');
    expect(plan.length).toBeLessThanOrEqual(400);
  });

  it('keeps the line of a megabyte log that matters, with the head and the tail', { timeout: 60_000 }, async () => {
    const lines = Array.from({ length: 25_000 }, (_, index) => (index === 17_000 ? 'FATAL payment-service crashed: out of memory in ledger worker' : `INFO request ${index} served in ${index % 50} ms`));
    const messages: PromptMessage[] = [
      { role: 'system', content: 'You read logs.' },
      { role: 'user', content: 'Why did the payment-service crash?' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'l', toolName: 'readLog', input: { service: 'payment' } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'l', toolName: 'readLog', output: { type: 'text', value: lines.join('\n') } }] },
    ];
    const plan = await planPrompt({ messages }, { window: 1000, counter: 'o200k_base' });
    const output = (plan.messages.at(-1)!.content as Array<{ output?: { value?: unknown } }>)[0]!.output!.value as string;
    expect(output).toContain('FATAL payment-service crashed');
    expect(output).toContain('INFO request 0 ');
    expect(output).toContain('INFO request 24999 ');
    expect(output).toMatch(/\[… \d+ characters omitted …\]/u);
    expect(plan.decisions.find((decision) => decision.message === 3)).toMatchObject({ kind: 'tool-result', action: 'shortened', reason: 'current-step' });
  });

  it('keeps JSON valid and keeps the relevant member of a long array', { timeout: 60_000 }, async () => {
    const hits = Array.from({ length: 4000 }, (_, index) => ({ id: index, title: index === 3210 ? 'Zanzibar ferry timetable' : `Annual report ${index}`, tags: ['finance', 'q3'] }));
    const messages: PromptMessage[] = [
      { role: 'user', content: 'When does the Zanzibar ferry leave?' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 's', toolName: 'search', input: { q: 'ferry' } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 's', toolName: 'search', output: { type: 'text', value: JSON.stringify({ total: 4000, hits }) } }] },
    ];
    const plan = await planPrompt({ messages }, { window: 500, counter: 'cl100k_base' });
    const value = (plan.messages.at(-1)!.content as Array<{ output?: { value?: unknown } }>)[0]!.output!.value as string;
    const parsed = JSON.parse(value) as { total: number; hits: unknown[] };
    expect(parsed.total).toBe(4000);
    expect(JSON.stringify(parsed.hits)).toContain('Zanzibar ferry timetable');
    expect(parsed.hits.at(-1)).toMatch(/more items omitted/u);
  });

  it('places relevant memory and composes retrieved passages into what remains', { timeout: 60_000 }, async () => {
    const chunk = (id: string, text: string, score: number): ScoredChunk => ({ chunk: { id, docId: id, text, source: 'kb', metadata: {}, position: { index: 0 } }, score, scores: {} });
    const messages: PromptMessage[] = [
      { role: 'system', content: 'Answer briefly.' },
      { role: 'user', content: 'What is the refund window for laptops?' },
    ];
    const plan = await planPrompt(
      {
        messages,
        memory: ['The user bought a laptop in May.', 'The user likes jazz.'],
        retrieved: [chunk('a', 'Laptops can be refunded within 30 days of delivery.', 0.9), chunk('b', 'Phones can be refunded within 14 days.', 0.4)],
      },
      { window: 400, counter: 'cl100k_base' },
    );
    expect(plan.memory.map((item) => item.text)).toEqual(['The user bought a laptop in May.']);
    expect(plan.context).toContain('30 days');
    expect(plan.messages.map((message) => message.role)).toEqual(['system', 'system', 'system', 'user']);
    expect(plan.length).toBeLessThanOrEqual(400);
    const explanation = explainPromptPlan(plan);
    expect(explanation).toContain('window: ');
    expect(explanation).toMatch(/memory 1 memory: dropped \(not-relevant\)/u);
    expect(explanation).toMatch(/retrieved context context: kept \(retrieved\)/u);
  });
});

describe('planPrompt validates its input', () => {
  const messages: PromptMessage[] = [{ role: 'user', content: 'hi' }];
  it('names the field, what it received and what it expected', { timeout: 60_000 }, async () => {
    await expect(planPrompt({ messages }, { window: 0 })).rejects.toThrow(/options\.window must be a number >= 1, got/u);
    await expect(planPrompt({ messages }, { window: 100, counter: 'bytes' as never })).rejects.toThrow(ZerdaError);
    await expect(planPrompt({ messages: 'hi' as never }, { window: 100 })).rejects.toThrow(/parts\.messages/u);
    await expect(planPrompt({ messages: [{ role: 'robot', content: 'x' }] as never }, { window: 100 })).rejects.toThrow(/parts\.messages\[0\]\.role/u);
    await expect(planPrompt({ messages: [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 't' }] }] as never }, { window: 100 })).rejects.toThrow(/parts\.messages\[0\]\.content\[0\]\.output/u);
    await expect(planPrompt({ messages }, { window: 100, budget: 3 } as never)).rejects.toThrow(/options\.budget/u);
    await expect(planPrompt({ messages, memory: [3] as never }, { window: 100 })).rejects.toThrow(/parts\.memory\[0\]/u);
    await expect(planPrompt({ messages: [{ role: 'system', content: 'a long system prompt that cannot fit' }, ...messages] }, { window: 3, counter: 'words' })).rejects.toThrow(/options\.window/u);
    expect(() => explainPromptPlan({} as never)).toThrow(/plan/u);
    expect(() => estimatedTokenCounter({ margin: -1 })).toThrow(/options\.margin/u);
  });
});

describe('estimatedTokenCounter', () => {
  it('is never below either OpenAI encoding, in English and Arabic', { timeout: 60_000 }, () => {
    const estimate = estimatedTokenCounter();
    const cl100k = tokenCounter('cl100k_base');
    const o200k = tokenCounter('o200k_base');
    fc.assert(
      fc.property(sentence, (text) => {
        expect(estimate(text)).toBeGreaterThanOrEqual(Math.max(cl100k(text), o200k(text)));
        expect(estimate(text)).toBeLessThanOrEqual(Math.ceil(Math.max(cl100k(text), o200k(text)) * 1.15));
      }),
    );
  });
});
