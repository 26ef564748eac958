import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { generateText, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { ContextEngine, type ContextResult } from '@zerda/context';
import { contextMiddleware, renderContext, type ContextMetadata } from './context-middleware.js';
import { answer, streamed, usage } from './__fixtures__/mock-responses.js';

async function engine(options: ConstructorParameters<typeof ContextEngine>[0] = {}) {
  const engine = new ContextEngine({ ...options, config: { composer: { template: 'citations', maxContextLength: 1200 } } });
  await engine.index([
    { docId: 'bm25', source: 'docs/bm25.md', title: 'BM25', metadata: { tenant: 'acme' }, text: 'BM25 ranks documents by term frequency, inverse document frequency and document length normalisation.' },
    { docId: 'chunking', source: 'docs/chunking.md', title: 'Chunking', metadata: { tenant: 'globex' }, text: 'Chunkers split documents into passages that keep sections, paragraphs and code blocks whole.' },
    { docId: 'arabic', source: 'docs/arabic.md', title: 'العربية', metadata: { tenant: 'acme' }, text: 'تطبيع النص العربي يحذف الحركات والتطويل ويوحّد أشكال الألف قبل الفهرسة.' },
  ]);
  return engine;
}

describe('contextMiddleware with wrapLanguageModel and generateText (MockLanguageModelV4)', () => {
  it('places the context as a system message after the leading system messages: the exact prompt the model received', async () => {
    const zerda = await engine();
    const contexts: ContextResult[] = [];
    const mock = new MockLanguageModelV4({ doGenerate: answer('It uses term frequency [1].') });
    const model = wrapLanguageModel({ model: mock, middleware: contextMiddleware(zerda, { onContext: (result) => void contexts.push(result) }) });
    const result = await generateText({ model, system: 'You are a helpful assistant.', prompt: 'How does BM25 rank documents?' });

    expect(contexts).toHaveLength(1);
    const [built] = contexts;
    expect(built!.chunks[0]?.chunk.docId).toBe('bm25');
    expect(mock.doGenerateCalls[0]!.prompt).toEqual([
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'system', content: `Answer using the context below, and cite the numbers of the passages you rely on.\n\n<context>\n${built!.context}\n</context>` },
      { role: 'user', content: [{ type: 'text', text: 'How does BM25 rank documents?' }] },
    ]);
    const metadata = result.providerMetadata?.zerda as unknown as ContextMetadata;
    expect(metadata.query).toBe('How does BM25 rank documents?');
    expect(metadata.citations[0]).toMatchObject({ number: 1, docId: 'bm25', source: 'docs/bm25.md' });
    expect(metadata.budget.used).toBe(built!.budget.used);
  });

  it('placement user: the context goes before the text of the last user message; Arabic gets an Arabic instruction', async () => {
    const zerda = await engine();
    const mock = new MockLanguageModelV4({ doGenerate: answer('تُحذف الحركات.') });
    const model = wrapLanguageModel({ model: mock, middleware: contextMiddleware(zerda, { placement: 'user' }) });
    await generateText({
      model,
      messages: [
        { role: 'user', content: 'مرحبا' },
        { role: 'assistant', content: 'أهلاً، كيف أساعدك؟' },
        { role: 'user', content: 'كيف يُطبَّع النص العربي قبل الفهرسة؟' },
      ],
    });
    const prompt = mock.doGenerateCalls[0]!.prompt;
    expect(prompt.slice(0, 2)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'مرحبا' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'أهلاً، كيف أساعدك؟' }] },
    ]);
    const last = prompt[2]!;
    expect(last.role).toBe('user');
    const parts = last.role === 'user' ? last.content : [];
    expect(parts).toHaveLength(2);
    expect(parts[1]).toEqual({ type: 'text', text: 'كيف يُطبَّع النص العربي قبل الفهرسة؟' });
    const context = parts[0]?.type === 'text' ? parts[0].text : '';
    expect(context.startsWith('أجب اعتماداً على السياق التالي')).toBe(true);
    expect(context).toContain('تطبيع النص العربي');
  });

  it('leaves the prompt alone when nothing matches (skipEmpty) or there is no user text', async () => {
    const zerda = await engine();
    const mock = new MockLanguageModelV4({ doGenerate: [answer('a'), answer('b')] });
    const model = wrapLanguageModel({ model: mock, middleware: contextMiddleware(zerda, { runOptions: { metadataFilters: { tenant: 'nobody' } } }) });
    const result = await generateText({ model, prompt: 'How does BM25 rank documents?' });
    expect(mock.doGenerateCalls[0]!.prompt).toEqual([{ role: 'user', content: [{ type: 'text', text: 'How does BM25 rank documents?' }] }]);
    expect(result.providerMetadata?.zerda).toBeUndefined();
    await generateText({ model, system: 'Only a system message.', messages: [{ role: 'assistant', content: 'Hello.' }] });
    expect(mock.doGenerateCalls[1]!.prompt).toEqual([{ role: 'system', content: 'Only a system message.' }, { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] }]);
  });

  it("computes run options per request: one tenant's chunks never reach another's prompt", async () => {
    const zerda = await engine();
    const mock = new MockLanguageModelV4({ doGenerate: [answer('a'), answer('b')] });
    const model = wrapLanguageModel({
      model: mock,
      middleware: contextMiddleware(zerda, { runOptions: ({ params }) => ({ metadataFilters: { tenant: String(params.headers?.['x-tenant']) } }) }),
    });
    await generateText({ model, prompt: 'documents passages ranking', headers: { 'x-tenant': 'globex' } });
    await generateText({ model, prompt: 'documents passages ranking', headers: { 'x-tenant': 'acme' } });
    const systemText = (call: number) => JSON.stringify(mock.doGenerateCalls[call]!.prompt);
    expect(systemText(0)).toContain('Chunkers split documents');
    expect(systemText(0)).not.toContain('BM25 ranks');
    expect(systemText(1)).toContain('BM25 ranks');
    expect(systemText(1)).not.toContain('Chunkers split');
  });

  it('a tool loop builds the context once, records one conversation turn, and places it on every step', async () => {
    const zerda = await engine();
    const contexts: ContextResult[] = [];
    const mock = new MockLanguageModelV4({
      doGenerate: [
        { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'clock', input: '{}' }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] },
        answer('BM25 uses term frequency; it is noon.'),
      ],
    });
    const model = wrapLanguageModel({ model: mock, middleware: contextMiddleware(zerda, { onContext: (result) => void contexts.push(result) }) });
    const clock = tool({ description: 'The time', inputSchema: z.object({}), execute: async () => 'noon' });
    const scope = { id: 'acme', conversation: 'conversation-1' };
    await generateText({ model, tools: { clock }, prompt: 'How does BM25 rank documents, and what time is it?', stopWhen: stepCountIs(2), providerOptions: { zerda: { scope } } });
    expect(mock.doGenerateCalls).toHaveLength(2);
    expect(contexts).toHaveLength(1);
    for (const call of mock.doGenerateCalls) expect(call.prompt[0]).toEqual({ role: 'system', content: renderContext(contexts[0]!) });
    // One turn, in the scope's conversation; the engine-level history is untouched.
    expect(zerda.scope(scope).getHistory()?.size).toBe(1);
    expect(zerda.getHistory()?.size).toBe(0);
  });

  it('issue 27 regression: tenant applied per request by a ContextRunner wrapper (AsyncLocalStorage) — the second step of A\'s tool loop never reuses B\'s context for the identical question', async () => {
    const zerda = new ContextEngine({ config: { composer: { maxContextLength: 1200 } } });
    await zerda.index([
      { docId: 'a', source: 'acme/vault.md', metadata: { tenant: 'acme' }, text: 'The launch code of the project is tachyonacme.' },
      { docId: 'b', source: 'globex/vault.md', metadata: { tenant: 'globex' }, text: 'The launch code of the project is quasarglobex.' },
    ]);
    const tenantOf = new AsyncLocalStorage<string>();
    const wrapper = { run: (query: string, options: Parameters<ContextEngine['run']>[1] = {}) => zerda.run(query, { ...options, metadataFilters: { tenant: tenantOf.getStore()! } }) };
    const middleware = contextMiddleware(wrapper);
    const ask = (tenant: string) =>
      tenantOf.run(tenant, async () => {
        const mock = new MockLanguageModelV4({
          doGenerate: [{ content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'clock', input: '{}' }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] }, answer('done')],
        });
        const clock = tool({ description: 'The time', inputSchema: z.object({}), execute: async () => 'noon' });
        await generateText({ model: wrapLanguageModel({ model: mock, middleware }), tools: { clock }, prompt: 'What is the launch code of the project?', stopWhen: stepCountIs(2) });
        return JSON.stringify(mock.doGenerateCalls.map((call) => call.prompt));
      });
    // B first, then A: before the fix, A's second step reused B's first-step context.
    const b = await ask('globex');
    const a = await ask('acme');
    expect(a).toContain('tachyonacme');
    expect(a).not.toContain('quasarglobex');
    expect(b).not.toContain('tachyonacme');
    const [a2, b2] = await Promise.all([ask('acme'), ask('globex')]);
    expect(a2).not.toContain('quasarglobex');
    expect(b2).not.toContain('tachyonacme');
  });

  it('streamText: the citations arrive on the finish part', async () => {
    const zerda = await engine();
    const mock = new MockLanguageModelV4({ doStream: streamed('By term frequency.') });
    const model = wrapLanguageModel({ model: mock, middleware: contextMiddleware(zerda) });
    const result = streamText({ model, prompt: 'How does BM25 rank documents?' });
    expect(await result.text).toBe('By term frequency.');
    const metadata = (await result.providerMetadata)?.zerda as unknown as ContextMetadata;
    expect(metadata.citations.map((citation) => citation.docId)).toContain('bm25');
    expect(JSON.stringify(mock.doStreamCalls[0]!.prompt)).toContain('<context>');
  });

  it('rejects bad options and engines, naming the field', () => {
    expect(() => contextMiddleware(null as never)).toThrow(/engine must be a ContextEngine/);
    expect(() => contextMiddleware({ run: async () => ({}) } as never, { placement: 'assistant' } as never)).toThrow(/options\.placement must be one of "system", "user"/);
    expect(() => contextMiddleware({ run: async () => ({}) } as never, { runOptions: 5 } as never)).toThrow(/options\.runOptions/);
  });
});
