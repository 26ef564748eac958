import { describe, expect, it } from 'vitest';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { DocumentInterface } from '@langchain/core/documents';
import type { BaseMessage } from '@langchain/core/messages';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { RunnablePassthrough, RunnableSequence } from '@langchain/core/runnables';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { ContextEngine, type ContextResult } from '@zerda/context';
import { ZerdaRetriever, type ZerdaChunkMetadata, type ZerdaContextMetadata } from './zerda-retriever.js';

async function engine() {
  const engine = new ContextEngine({ config: { composer: { template: 'citations', maxContextLength: 1500 } } });
  await engine.index([
    { docId: 'mmr', source: 'guide/mmr.md', title: 'MMR', metadata: { lang: 'en', team: 'search' }, text: 'Maximal marginal relevance trades relevance for novelty when it picks the next passage.' },
    { docId: 'fusion', source: 'guide/fusion.md', title: 'Fusion', metadata: { lang: 'en', team: 'search' }, text: 'Reciprocal rank fusion adds one over k plus rank for every list a passage appears in.' },
    { docId: 'guard-ar', source: 'guide/guard-ar.md', title: 'الحارس', metadata: { lang: 'ar', team: 'safety' }, text: 'يفحص الحارس السياق قبل أن يراه النموذج، فيحذّر من حقن التعليمات ومن السياق الفارغ.' },
  ]);
  return engine;
}

/** A LangChain callback handler that records the retriever events it receives. */
function recorder() {
  const events: Array<{ event: string; value: unknown }> = [];
  const handler = BaseCallbackHandler.fromMethods({
    handleRetrieverStart: (_retriever, query) => void events.push({ event: 'start', value: query }),
    handleRetrieverEnd: (documents) => void events.push({ event: 'end', value: documents.length }),
    handleRetrieverError: (error) => void events.push({ event: 'error', value: (error as Error).message }),
    handleChatModelStart: (_llm, messages) => void events.push({ event: 'chat', value: messages }),
  });
  return { events, handler };
}

describe('ZerdaRetriever through @langchain/core runnables', () => {
  it('invoke() returns the chunks of the context as Documents with ids, sources, citation numbers and factor scores', async () => {
    const zerda = await engine();
    const retriever = new ZerdaRetriever({ engine: zerda });
    const documents = (await retriever.invoke('How does reciprocal rank fusion score passages?')) as DocumentInterface<ZerdaChunkMetadata>[];
    expect(zerda.getHistory()?.size, 'no engine-level history by default').toBe(0);
    expect(documents[0]?.pageContent).toBe('Reciprocal rank fusion adds one over k plus rank for every list a passage appears in.');
    expect(documents[0]?.id).toBe(documents[0]?.metadata.chunkId);
    expect(documents[0]?.metadata).toMatchObject({ docId: 'fusion', source: 'guide/fusion.md', title: 'Fusion', citation: 1, rank: 1, fit: 'whole', lang: 'en', team: 'search' });
    expect(Object.keys(documents[0]!.metadata.scores)).toEqual(expect.arrayContaining(['retrieval', 'keywordBoost', 'composite']));
  });

  it('answers Arabic queries and honours run options (a tenant filter), also through withRunOptions', async () => {
    const zerda = await engine();
    const retriever = new ZerdaRetriever({ engine: zerda, runOptions: { metadataFilters: { team: 'safety' } } });
    const arabic = await retriever.invoke('ما الذي يفحصه الحارس؟');
    expect(arabic.map((document) => document.metadata.docId)).toEqual(['guard-ar']);
    expect(await retriever.invoke('reciprocal rank fusion')).toEqual([]);
    // Issue 27: withRunOptions narrows, never replaces — a retriever bound to one team cannot be re-scoped to another.
    const rescoped = retriever.withRunOptions({ metadataFilters: { team: 'search' }, maxChunks: 1 });
    expect(await rescoped.invoke('reciprocal rank fusion')).toEqual([]);
    const narrowed = new ZerdaRetriever({ engine: zerda, runOptions: { metadataFilters: { lang: 'en' } } }).withRunOptions({ metadataFilters: { team: 'search' }, maxChunks: 1 });
    expect((await narrowed.invoke('reciprocal rank fusion')).map((document) => document.metadata.docId)).toEqual(['fusion']);
  });

  it('issue 27 regression: withRunOptions({ tenant: acme }).withRunOptions({ tenant: globex }) returns nothing of globex', async () => {
    const zerda = new ContextEngine();
    await zerda.index([
      { docId: 'a', source: 'acme/plan.md', metadata: { tenant: 'acme' }, text: 'The acme roadmap ships the tachyon engine in spring.' },
      { docId: 'g', source: 'globex/plan.md', metadata: { tenant: 'globex' }, text: 'The globex roadmap ships the quasar engine in autumn.' },
    ]);
    const retriever = new ZerdaRetriever({ engine: zerda }).withRunOptions({ metadataFilters: { tenant: 'acme' } }).withRunOptions({ metadataFilters: { tenant: 'globex' } });
    expect(JSON.stringify(await retriever.invoke('roadmap engine'))).not.toContain('quasar');
  });

  it('per-call config reaches the engine: config.signal aborts, configurable.thread_id is the conversation, configurable.scope the tenant', async () => {
    const zerda = await engine();
    const retriever = new ZerdaRetriever({ engine: zerda, runOptions: { useHistory: true, recordTurn: true } });
    const aborted = new AbortController();
    aborted.abort();
    await expect(retriever.invoke('reciprocal rank fusion', { signal: aborted.signal })).rejects.toThrow();
    // History without a conversation is refused, never mixed across users.
    await expect(retriever.invoke('reciprocal rank fusion')).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', details: { field: 'options.useHistory' } });
    const config = { configurable: { thread_id: 'thread-1', scope: { id: 'search-team', filter: { team: 'search' } } } };
    expect((await retriever.invoke('reciprocal rank fusion', config)).map((document) => document.metadata.docId)).toEqual(['fusion']);
    const followUp = await retriever.invoke('and how does it score?', config);
    expect(followUp.map((document) => document.metadata.docId)).toContain('fusion');
    expect(zerda.scope({ id: 'search-team', filter: { team: 'search' }, conversation: 'thread-1' }).getHistory()?.size).toBe(2);
    expect(zerda.getHistory()?.size).toBe(0);
    // The tenant's filter holds for the follow-up too: nothing of the safety team.
    expect(JSON.stringify(await retriever.invoke('ما الذي يفحصه الحارس؟', config))).not.toContain('guard-ar');
  });

  it('in a RunnableSequence with a prompt template and FakeListChatModel, the model receives the composed context', async () => {
    const retriever = new ZerdaRetriever({ engine: await engine() });
    const prompt = ChatPromptTemplate.fromMessages([
      ['system', 'Answer from the context and cite passage numbers.\n\n{context}'],
      ['human', '{question}'],
    ]);
    const model = new FakeListChatModel({ responses: ['It adds 1/(k + rank) per list [1].'] });
    const chain = RunnableSequence.from([
      { context: retriever.asContext().pipe((documents: DocumentInterface[]) => documents[0]?.pageContent ?? ''), question: new RunnablePassthrough() },
      prompt,
      model,
      new StringOutputParser(),
    ]);
    const { events, handler } = recorder();
    const answer = await chain.invoke('How does reciprocal rank fusion score passages?', { callbacks: [handler] });
    expect(answer).toBe('It adds 1/(k + rank) per list [1].');

    const [context] = (await retriever.asContext().invoke('How does reciprocal rank fusion score passages?')) as DocumentInterface<ZerdaContextMetadata>[];
    expect(context!.metadata.citations[0]).toMatchObject({ number: 1, docId: 'fusion' });
    expect(context!.metadata.guardPassed).toBe(true);
    const chat = events.find((event) => event.event === 'chat')!.value as BaseMessage[][];
    const system = chat[0]![0]!;
    expect(system.content).toBe(`Answer from the context and cite passage numbers.\n\n${context!.pageContent}`);
    expect(chat[0]![1]!.content).toBe('How does reciprocal rank fusion score passages?');
    expect(events.filter((event) => event.event === 'start')).toEqual([{ event: 'start', value: 'How does reciprocal rank fusion score passages?' }]);
    expect(events.filter((event) => event.event === 'end')).toEqual([{ event: 'end', value: 1 }]);
  });

  it('fires handleRetrieverStart/End, and handleRetrieverError when the engine fails (the error still reaches the caller)', async () => {
    const { events, handler } = recorder();
    const retriever = new ZerdaRetriever({ engine: await engine(), callbacks: [handler] });
    await retriever.invoke('maximal marginal relevance');
    expect(events).toEqual([
      { event: 'start', value: 'maximal marginal relevance' },
      { event: 'end', value: 1 },
    ]);

    const failing = new ZerdaRetriever({
      engine: { run: async (): Promise<ContextResult> => { throw new Error('index not loaded'); } },
      callbacks: [handler],
    });
    // What reaches the chain is redacted (it may be shown to a model or a client); the original is its cause.
    const failure = (await failing.invoke('anything').then(() => new Error('resolved'), (error: unknown) => error)) as Error & { cause?: Error };
    expect(failure.message).toMatch(/internal error/);
    expect(failure.cause?.message).toBe('index not loaded');
    expect(events.slice(2)).toEqual([
      { event: 'start', value: 'anything' },
      { event: 'error', value: failure.message },
    ]);
  });

  it('a bad filter fails like any retriever error: handleRetrieverError with the ZerdaError naming the field', async () => {
    const { events, handler } = recorder();
    const retriever = new ZerdaRetriever({ engine: await engine(), runOptions: { metadataFilters: { year: { $near: 1 } } as never }, callbacks: [handler] });
    await expect(retriever.invoke('fusion')).rejects.toMatchObject({ code: 'ZERDA_INVALID_FILTER' });
    expect(events.at(-1)?.event).toBe('error');
  });

  it('rejects a missing engine and unknown fields, naming them', () => {
    expect(() => new ZerdaRetriever({} as never)).toThrow(/fields\.engine must be a ContextEngine/);
    expect(() => new ZerdaRetriever({ engine: { run: async () => ({}) }, k: 4 } as never)).toThrow(/fields\.k must be a known option/);
    expect(() => new ZerdaRetriever({ engine: { run: async () => ({}) }, mode: 'all' } as never)).toThrow(/fields\.mode must be one of "chunks", "context"/);
  });
});
