import { describe, expect, it } from 'vitest';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { ContextEngine } from '@zerda/context';
import { contextTool, type ContextToolOutput } from './context-tool.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A mock model that calls `toolName` with `input` first, then answers with `answer`. */
function toolCallingModel(toolName: string, input: unknown, answer = 'Done.') {
  return new MockLanguageModelV4({
    doGenerate: [
      {
        content: [{ type: 'tool-call', toolCallId: 'call-1', toolName, input: JSON.stringify(input) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
      { content: [{ type: 'text', text: answer }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
    ],
  });
}

async function engine() {
  const engine = new ContextEngine({ config: { composer: { template: 'citations', maxContextLength: 1500 } } });
  await engine.index([
    { docId: 'bm25', source: 'docs/bm25.md', title: 'BM25', metadata: { lang: 'en', tenant: 'acme' }, text: 'BM25 ranks documents by term frequency, inverse document frequency and document length normalisation.' },
    { docId: 'hnsw', source: 'docs/hnsw.md', title: 'HNSW', metadata: { lang: 'en', tenant: 'globex' }, text: 'HNSW builds a navigable small-world graph for approximate nearest neighbour search over vectors.' },
    { docId: 'rag-ar', source: 'docs/rag-ar.md', title: 'التوليد المعزز', metadata: { lang: 'ar', tenant: 'acme' }, text: 'التوليد المعزز بالاسترجاع يمنح النموذج اللغوي الوثائق ذات الصلة وقت السؤال فيجيب منها.' },
  ]);
  return engine;
}

/** The tool message the model received in its second step. */
function toolResultSeen(model: MockLanguageModelV4) {
  const prompt = model.doGenerateCalls[1]!.prompt;
  const message = prompt.find((entry) => entry.role === 'tool');
  const part = message?.role === 'tool' ? message.content[0] : undefined;
  return part?.type === 'tool-result' ? part : undefined;
}

describe('contextTool with generateText (MockLanguageModelV4 of ai/test)', () => {
  it('round trip: the model calls the tool, reads the context, and answers; the app gets the citations', async () => {
    const model = toolCallingModel('search_docs', { query: 'How does BM25 rank documents?' }, 'BM25 ranks by term frequency [1].');
    const zerda = await engine();
    const result = await generateText({ model, tools: { search_docs: contextTool(zerda) }, prompt: 'How does BM25 rank documents?', stopWhen: stepCountIs(2) });
    // The AI SDK owns the conversation: nothing goes into the engine's (shared) history by default.
    expect(zerda.getHistory()?.size).toBe(0);

    expect(result.text).toBe('BM25 ranks by term frequency [1].');
    const [toolResult] = result.steps[0]!.toolResults;
    const output = toolResult!.output as ContextToolOutput;
    expect(output.citations[0]).toMatchObject({ number: 1, docId: 'bm25', source: 'docs/bm25.md', title: 'BM25' });
    expect(output.context).toContain('BM25 ranks documents by term frequency');
    expect(output.budget).toMatchObject({ limit: expect.any(Number), unit: 'chars' });
    expect(output.guardPassed).toBe(true);

    // What the model read in its second step: the context text itself (toModelOutput), not the JSON.
    const seen = toolResultSeen(model);
    expect(seen?.output).toEqual({ type: 'text', value: output.context });
    // The first step announced the tool with its input schema.
    const [announced] = model.doGenerateCalls[0]!.tools ?? [];
    expect(announced).toMatchObject({ type: 'function', name: 'search_docs' });
    const schema = (announced as { inputSchema: { properties: Record<string, unknown>; required: string[] } }).inputSchema;
    expect(Object.keys(schema.properties).sort()).toEqual(['filter', 'query']);
    expect(schema.required).toEqual(['query']);
  });

  it('takes Arabic descriptions and answers Arabic queries, saying so in Arabic when nothing matches', async () => {
    const description = 'ابحث في قاعدة المعرفة عن المقاطع المتعلقة بالسؤال وأعدها مرقّمة مع مصادرها.';
    const tool = contextTool(await engine(), { description, queryDescription: 'السؤال بالعربية' });
    const model = toolCallingModel('بحث', { query: 'ما هو التوليد المعزز بالاسترجاع؟' });
    const result = await generateText({ model, tools: { بحث: tool }, prompt: 'ما هو التوليد المعزز بالاسترجاع؟', stopWhen: stepCountIs(2) });
    expect(model.doGenerateCalls[0]!.tools?.[0]).toMatchObject({ name: 'بحث', description });
    const output = result.steps[0]!.toolResults[0]!.output as ContextToolOutput;
    expect(output.citations.map((citation) => citation.docId)).toEqual(['rag-ar']);

    const empty = toolCallingModel('بحث', { query: 'ما هي عاصمة المريخ؟', filter: { lang: 'fr' } });
    await generateText({ model: empty, tools: { بحث: tool }, prompt: 'ما هي عاصمة المريخ؟', stopWhen: stepCountIs(2) });
    expect(toolResultSeen(empty)?.output).toEqual({ type: 'text', value: 'لم يُعثر على مقاطع ذات صلة في قاعدة المعرفة.' });
  });

  it("applies the model's filter inside the application's: the model can narrow a tenant's view, never widen it", async () => {
    const tool = contextTool(await engine(), { runOptions: { metadataFilters: { tenant: 'acme' } } });
    const widened = toolCallingModel('search', { query: 'HNSW graph nearest neighbour search', filter: { tenant: 'globex' } });
    const result = await generateText({ model: widened, tools: { search: tool }, prompt: 'HNSW?', stopWhen: stepCountIs(2) });
    expect((result.steps[0]!.toolResults[0]!.output as ContextToolOutput).citations).toEqual([]);

    const narrowed = toolCallingModel('search', { query: 'ranking documents and the language model', filter: { lang: 'en' } });
    const second = await generateText({ model: narrowed, tools: { search: tool }, prompt: 'ranking?', stopWhen: stepCountIs(2) });
    expect((second.steps[0]!.toolResults[0]!.output as ContextToolOutput).citations.map((citation) => citation.docId)).toEqual(['bm25']);
  });

  it('computes run options per call (e.g. the tenant from the tool context)', async () => {
    const seen: unknown[] = [];
    const tool = contextTool(await engine(), {
      allowFilter: false,
      runOptions: (input, execution) => {
        seen.push({ query: input.query, toolCallId: execution.toolCallId });
        return { metadataFilters: { tenant: 'globex' }, maxChunks: 1 };
      },
    });
    const model = toolCallingModel('search', { query: 'nearest neighbour graph' });
    const result = await generateText({ model, tools: { search: tool }, prompt: 'graph?', stopWhen: stepCountIs(2) });
    expect(seen).toEqual([{ query: 'nearest neighbour graph', toolCallId: 'call-1' }]);
    expect((result.steps[0]!.toolResults[0]!.output as ContextToolOutput).citations.map((citation) => citation.docId)).toEqual(['hnsw']);
    const schema = (model.doGenerateCalls[0]!.tools?.[0] as { inputSchema: { properties: Record<string, unknown> } }).inputSchema;
    expect(Object.keys(schema.properties)).toEqual(['query']);
  });

  it('a filter outside the filter language becomes a tool error the model reads, not a crash', async () => {
    const model = toolCallingModel('search', { query: 'BM25', filter: { year: { $near: 2020 } } });
    const result = await generateText({ model, tools: { search: contextTool(await engine()) }, prompt: 'BM25?', stopWhen: stepCountIs(2) });
    expect(result.text).toBe('Done.');
    const seen = toolResultSeen(model);
    expect(seen?.output.type).toBe('error-text');
    expect(String((seen?.output as { value: string }).value)).toMatch(/metadataFilters/);
  });

  it('rejects a missing engine and unknown options, naming the field', () => {
    expect(() => contextTool({} as never)).toThrow(/engine must be a ContextEngine/);
    expect(() => contextTool({ run: async () => ({}) } as never, { descripton: 'typo' } as never)).toThrow(/options\.descripton must be a known option/);
  });
});
