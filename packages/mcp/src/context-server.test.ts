import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ContextEngine } from '@zerda/context';
import { createContextServer, type ContextServerOptions } from './context-server.js';

const open: Client[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) await client.close();
});

async function engine() {
  const engine = new ContextEngine({ config: { composer: { template: 'citations', maxContextLength: 1200 } } });
  await engine.index([
    { docId: 'cache', source: 'ops/cache.md', title: 'Caching', metadata: { tenant: 'acme', lang: 'en' }, text: 'The context cache keys every entry on the effective query, the filter, the budget and the corpus generation.' },
    { docId: 'history', source: 'ops/history.md', title: 'History', metadata: { tenant: 'acme', lang: 'en' }, text: 'Conversation history enriches short follow-up questions with the keywords of recent turns.' },
    { docId: 'secret', source: 'hr/salaries.md', title: 'Salaries', metadata: { tenant: 'globex', lang: 'en' }, text: 'Employee salaries are reviewed every March by the compensation committee.' },
    { docId: 'cache-ar', source: 'ops/cache-ar.md', title: 'التخزين المؤقت', metadata: { tenant: 'acme', lang: 'ar' }, text: 'يحفظ التخزين المؤقت نتيجة كل سؤال مع المرشّح والميزانية، فيعيدها كاملة عند تكرار السؤال.' },
  ]);
  return engine;
}

async function connect(options?: ContextServerOptions) {
  const server = createContextServer(await engine(), options);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'zerda-test', version: '1.0.0' });
  await client.connect(clientTransport);
  open.push(client);
  return client;
}

type Structured = Record<string, unknown> & { results?: Array<Record<string, unknown>>; citations?: Array<Record<string, unknown>> };
const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ type: string; text: string }>)[0]!.text;

describe('createContextServer with the SDK Client over InMemoryTransport.createLinkedPair()', () => {
  it('lists search and build_context with input schemas and output schemas', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['search', 'build_context']);
    const [search, build] = tools;
    expect(Object.keys(search!.inputSchema.properties ?? {})).toEqual(['query', 'filter', 'limit']);
    expect(search!.inputSchema.required).toEqual(['query']);
    expect(Object.keys(build!.inputSchema.properties ?? {})).toEqual(['query', 'filter', 'budget', 'maxChunks']);
    expect(Object.keys(build!.outputSchema?.properties ?? {})).toEqual(['query', 'context', 'citations', 'budget', 'guardPassed', 'warnings', 'fromCache', 'matched']);
    expect(search!.annotations?.readOnlyHint).toBe(true);
  });

  it('build_context returns the budgeted context as text and, structured, its citations, budget and guard verdict', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'build_context', arguments: { query: 'How does the context cache key its entries?', budget: 600 } });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as Structured & { context: string; budget: { limit: number; used: number; unit: string } };
    expect(textOf(result)).toBe(structured.context);
    expect(structured.citations![0]).toMatchObject({ number: 1, docId: 'cache', source: 'ops/cache.md', title: 'Caching' });
    expect(structured.budget).toMatchObject({ limit: 600, unit: 'chars' });
    expect(structured.budget.used).toBeLessThanOrEqual(600);
    expect(structured.guardPassed).toBe(true);
  });

  it('search returns the ranked chunks whole, best first, at most limit', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'search', arguments: { query: 'cache query filter budget', limit: 2 } });
    const { results } = result.structuredContent as Structured;
    expect(results!.length).toBeLessThanOrEqual(2);
    expect(results![0]).toMatchObject({ rank: 1, docId: 'cache', text: 'The context cache keys every entry on the effective query, the filter, the budget and the corpus generation.' });
    expect(textOf(result)).toContain('1. [ops/cache.md] Caching');
  });

  it('answers Arabic queries with Arabic passages, and says so in Arabic when nothing matches', async () => {
    const client = await connect({ descriptions: { buildContext: 'يبني سياقاً للإجابة عن سؤال ضمن ميزانية محددة.' } });
    const { tools } = await client.listTools();
    expect(tools[1]!.description).toBe('يبني سياقاً للإجابة عن سؤال ضمن ميزانية محددة.');
    const result = await client.callTool({ name: 'build_context', arguments: { query: 'كيف يعمل التخزين المؤقت؟', filter: { lang: 'ar' } } });
    expect((result.structuredContent as Structured).citations!.map((citation) => citation.docId)).toEqual(['cache-ar']);
    const empty = await client.callTool({ name: 'build_context', arguments: { query: 'كيف يعمل التخزين المؤقت؟', filter: { lang: 'fr' } } });
    expect(empty.isError).toBeFalsy();
    expect(textOf(empty)).toBe('لم يُعثر على مقاطع ذات صلة في قاعدة المعرفة.');
  });

  it('bad arguments come back as tool errors and the server keeps serving', async () => {
    const client = await connect();
    const missing = await client.callTool({ name: 'build_context', arguments: {} });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/Input validation error/);
    const wrongType = await client.callTool({ name: 'search', arguments: { query: 42 } });
    expect(wrongType.isError).toBe(true);
    const tooMany = await client.callTool({ name: 'search', arguments: { query: 'cache', limit: 500 } });
    expect(tooMany.isError).toBe(true);
    const badFilter = await client.callTool({ name: 'build_context', arguments: { query: 'cache', filter: { year: { $near: 2020 } } } });
    expect(badFilter.isError).toBe(true);
    expect(textOf(badFilter)).toMatch(/metadataFilters/);
    const fine = await client.callTool({ name: 'build_context', arguments: { query: 'conversation history follow-up questions' } });
    expect(fine.isError).toBeFalsy();
    expect((fine.structuredContent as Structured).citations![0]).toMatchObject({ docId: 'history' });
  });

  it("keeps a tenant's server to its tenant: a client filter narrows, never widens", async () => {
    const client = await connect({ runOptions: { metadataFilters: { tenant: 'acme' } } });
    const widened = await client.callTool({ name: 'search', arguments: { query: 'employee salaries reviewed', filter: { tenant: 'globex' } } });
    expect((widened.structuredContent as Structured).results).toEqual([]);
    const plain = await client.callTool({ name: 'build_context', arguments: { query: 'employee salaries reviewed by the committee' } });
    expect(JSON.stringify(plain)).not.toContain('salaries are reviewed');
  });

  it('without allowFilter the schemas have no filter, and options are checked', async () => {
    const client = await connect({ allowFilter: false, maxSearchResults: 3 });
    const { tools } = await client.listTools();
    expect(Object.keys(tools[0]!.inputSchema.properties ?? {})).toEqual(['query', 'limit']);
    expect(() => createContextServer({} as never)).toThrow(/engine must be a ContextEngine/);
    expect(() => createContextServer({ run: async () => ({}) } as never, { maxResults: 3 } as never)).toThrow(/options\.maxResults must be a known option/);
  });
});
