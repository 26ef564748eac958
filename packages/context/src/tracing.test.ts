import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { ScoredChunk } from '@zerda/types';
import { ContextEngine } from './engine.js';
import { corpus } from './__fixtures__/corpus.js';

const STAGES = ['zerda.analyze', 'zerda.retrieve', 'zerda.filter', 'zerda.rank', 'zerda.rerank', 'zerda.compose', 'zerda.guard'];

function recorder() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, provider, spans: () => exporter.getFinishedSpans() };
}

const byName = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const allValues = (spans: ReadableSpan[]) => spans.flatMap((span) => Object.values(span.attributes)).map(String).join('\n');
const reranker = (_query: string, candidates: ScoredChunk[]) => candidates.map((_, i) => 1 / (1 + i));

afterEach(() => {
  api.trace.disable();
  api.context.disable();
});

describe('OpenTelemetry spans (InMemorySpanExporter of @opentelemetry/sdk-trace-base)', () => {
  it('one retrieval span per run with a child per stage, following the GenAI retrieval conventions', async () => {
    const { provider, spans } = recorder();
    const engine = new ContextEngine({ reranker, telemetry: { tracerProvider: provider, dataSourceId: 'handbook' } });
    await engine.index(corpus);
    const result = await engine.run('How does vector search find neighbours?', { maxChunks: 2 });

    const [root, ...others] = byName(spans(), 'retrieval');
    expect(others).toHaveLength(0);
    expect(root!.kind).toBe(api.SpanKind.INTERNAL);
    expect(root!.attributes).toMatchObject({
      'gen_ai.operation.name': 'retrieval',
      'gen_ai.data_source.id': 'handbook',
      'zerda.cache.hit': false,
      'zerda.query.language': 'en',
      'zerda.query.length': [...'How does vector search find neighbours?'].length,
      'zerda.count.retrieved': result.counts.retrieved,
      'zerda.count.after_filter': result.counts.afterFilter,
      'zerda.count.after_rank': result.counts.afterRank,
      'zerda.count.after_rerank': result.counts.afterRerank,
      'zerda.count.used': result.counts.used,
      'zerda.budget.limit': result.budget.limit,
      'zerda.budget.used': result.budget.used,
      'zerda.budget.unit': 'chars',
      'zerda.guard.passed': result.guardPassed,
    });
    const children = spans().filter((span) => parentOf(span) === root!.spanContext().spanId);
    expect(children.map((span) => span.name)).toEqual(STAGES);
    for (const child of children) expect(child.spanContext().traceId).toBe(root!.spanContext().traceId);
    const stage = (name: string) => children.find((span) => span.name === name)!.attributes;
    expect(stage('zerda.retrieve')).toMatchObject({ 'gen_ai.retrieval.top_k': 30, 'zerda.candidates.out': result.counts.retrieved, 'zerda.filtered': false });
    expect(stage('zerda.filter')).toMatchObject({ 'zerda.candidates.in': result.counts.retrieved, 'zerda.candidates.out': result.counts.afterFilter });
    expect(stage('zerda.rerank')).toMatchObject({ 'zerda.candidates.in': result.counts.afterRank, 'zerda.candidates.out': result.counts.afterRerank, 'zerda.rerank.top_n': 2 });
    expect(stage('zerda.compose')).toMatchObject({ 'zerda.budget.limit': result.budget.limit, 'zerda.candidates.out': result.counts.used });
    expect(stage('zerda.guard')).toMatchObject({ 'zerda.guard.passed': result.guardPassed });
    expect(Array.isArray(stage('zerda.guard')['zerda.guard.warnings'])).toBe(true);
  });

  it('never records the query text unless asked to (Arabic like English), and records it when asked', async () => {
    const query = 'ما هو التوليد المعزز بالاسترجاع؟';
    const hidden = recorder();
    const engine = new ContextEngine({ telemetry: { tracerProvider: hidden.provider } });
    await engine.index(corpus);
    const result = await engine.run(query);
    expect(hidden.spans().length).toBeGreaterThan(0);
    expect(allValues(hidden.spans())).not.toContain('التوليد');
    expect(allValues(hidden.spans())).not.toContain(result.chunks[0]!.chunk.id);

    const shown = recorder();
    const open = new ContextEngine({ telemetry: { tracerProvider: shown.provider, recordQueryText: true, recordDocuments: true } });
    await open.index(corpus);
    const openResult = await open.run(query);
    const [root] = byName(shown.spans(), 'retrieval');
    expect(root!.attributes['gen_ai.retrieval.query.text']).toBe(query);
    const documents = JSON.parse(String(root!.attributes['gen_ai.retrieval.documents']));
    expect(documents).toEqual(openResult.chunks.map((used) => ({ id: used.chunk.id, score: used.score })));
  });

  it('a cache hit is one span flagged zerda.cache.hit, without stage children', async () => {
    const { provider, spans, exporter } = recorder();
    const engine = new ContextEngine({ telemetry: { tracerProvider: provider } });
    await engine.index(corpus);
    await engine.run('BM25 keyword search');
    exporter.reset();
    await engine.run('BM25 keyword search');
    expect(spans().map((span) => span.name)).toEqual(['retrieval']);
    expect(spans()[0]!.attributes['zerda.cache.hit']).toBe(true);
  });

  it('a failing stage ends its span and the run span with the error recorded', async () => {
    const { provider, spans } = recorder();
    const engine = new ContextEngine({
      telemetry: { tracerProvider: provider },
      reranker: {
        rerank() {
          throw new Error('reranking service unavailable');
        },
      },
    });
    await engine.index(corpus);
    await expect(engine.run('vector search')).rejects.toThrow('reranking service unavailable');
    const [root] = byName(spans(), 'retrieval');
    const [rerank] = byName(spans(), 'zerda.rerank');
    for (const span of [root!, rerank!]) {
      expect(span.ended).toBe(true);
      expect(span.status.code).toBe(api.SpanStatusCode.ERROR);
      // Redacted by default (issue 27): an error text can quote a filter's values or a query's words.
      expect(span.status.message).toMatch(/internal error \(details withheld\)/);
      expect(JSON.stringify(span.events)).not.toContain('reranking service unavailable');
      expect(span.attributes['error.type']).toBe('Error');
      expect(span.events.some((event) => event.name === 'exception')).toBe(true);
    }
    expect(byName(spans(), 'zerda.compose')).toHaveLength(0);
  });

  it('a failed run\'s span names the error\'s code and field path, never the filter\'s value (unless recordErrorDetails)', async () => {
    for (const recordErrorDetails of [false, true]) {
      const { provider, spans } = recorder();
      const engine = new ContextEngine({ telemetry: { tracerProvider: provider, recordErrorDetails } });
      await engine.index(corpus);
      await expect(engine.run('vector search', { metadataFilters: { owner: { $regex: 'alice@example.com' } } as never })).rejects.toMatchObject({ code: 'ZERDA_INVALID_FILTER' });
      const [root] = byName(spans(), 'retrieval');
      expect(root!.status.message).toMatch(/options\.metadataFilters/);
      expect(JSON.stringify([root!.status, root!.events, root!.attributes]).includes('alice@example.com')).toBe(recordErrorDetails);
    }
  });

  it('index, add and remove each get a span with the corpus size and generation after the change', async () => {
    const { provider, spans } = recorder();
    const engine = new ContextEngine({ telemetry: { tracerProvider: provider } });
    await engine.index(corpus);
    await engine.add([{ docId: 'extra', text: 'A new chunk about hybrid retrieval with fusion.', source: 'extra.md' }]);
    await engine.remove(['extra']);
    expect(spans().map((span) => span.name)).toEqual(['zerda.index', 'zerda.add', 'zerda.remove']);
    expect(spans()[0]!.attributes).toMatchObject({ 'zerda.operation': 'index', 'zerda.chunks.count': corpus.length, 'zerda.corpus.size': corpus.length, 'zerda.corpus.generation': 1, 'zerda.retriever': 'keyword' });
    expect(spans()[1]!.attributes).toMatchObject({ 'zerda.chunks.count': 1, 'zerda.corpus.size': corpus.length + 1, 'zerda.corpus.generation': 2 });
    expect(spans()[2]!.attributes).toMatchObject({ 'zerda.documents.count': 1, 'zerda.corpus.size': corpus.length, 'zerda.corpus.generation': 3 });
    await expect(engine.index('not an array')).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT' });
    expect(spans()[3]!.status.code).toBe(api.SpanStatusCode.ERROR);
  });

  it('uses the globally registered provider by default and nests under the caller\'s active span', async () => {
    const { provider, spans } = recorder();
    api.trace.setGlobalTracerProvider(provider);
    api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const engine = new ContextEngine();
    await engine.index(corpus);
    const answer = await api.trace.getTracer('app').startActiveSpan('answer question', async (outer) => {
      const result = await engine.run('vector search');
      outer.end();
      return { result, outer };
    });
    const [root] = byName(spans(), 'retrieval');
    expect(root!.instrumentationScope.name).toBe('@zerda/context');
    expect(parentOf(root!)).toBe(answer.outer.spanContext().spanId);
    expect(root!.spanContext().traceId).toBe(answer.outer.spanContext().traceId);
    const stages = spans().filter((span) => parentOf(span) === root!.spanContext().spanId).map((span) => span.name);
    expect(stages).toEqual(STAGES.filter((stage) => stage !== 'zerda.rerank'));
  });

  it('does nothing when off, or when the API has no recording provider', async () => {
    const { provider, spans } = recorder();
    const off = new ContextEngine({ telemetry: { enabled: false, tracerProvider: provider } });
    await off.index(corpus);
    await off.run('vector search');
    expect(spans()).toHaveLength(0);
    // Installed API, nothing registered: the run goes through the no-op tracer and records nothing.
    const unregistered = new ContextEngine();
    await unregistered.index(corpus);
    const result = await unregistered.run('vector search');
    expect(result.context.length).toBeGreaterThan(0);
  });

  it('rejects a telemetry option it does not understand, naming the field', () => {
    expect(() => new ContextEngine({ telemetry: { recordQuery: true } as never })).toThrow(/options\.telemetry\.recordQuery must be a known option/);
    expect(() => new ContextEngine({ telemetry: { tracerProvider: {} } as never })).toThrow(/options\.telemetry\.tracerProvider must be an OpenTelemetry TracerProvider/);
    expect(() => new ContextEngine({ telemetry: { api: { trace: {} } } as never })).toThrow(/options\.telemetry\.api must be the @opentelemetry\/api module/);
  });
});

describe('without @opentelemetry/api installed (a child process that cannot resolve it)', () => {
  const built = fileURLToPath(new URL('../dist/index.js', import.meta.url));

  it.skipIf(!existsSync(built))('imports and runs, and only looks for the API on the first run, never at import', () => {
    // Resolution hooks run off the main thread: they count lookups of @opentelemetry/* in a shared
    // counter and fail them as a missing package would.
    const hooks = `
      let counter;
      export function initialize(data) { counter = new Int32Array(data.shared); }
      export async function resolve(specifier, context, next) {
        if (specifier.startsWith('@opentelemetry/')) {
          Atomics.add(counter, 0, 1);
          const error = new Error('Cannot find package ' + specifier);
          error.code = 'ERR_MODULE_NOT_FOUND';
          throw error;
        }
        return next(specifier, context);
      }`;
    const script = `
      import { register } from 'node:module';
      const shared = new SharedArrayBuffer(4);
      const counter = new Int32Array(shared);
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}), { data: { shared } });
      const { ContextEngine } = await import(${JSON.stringify(built)});
      const afterImport = Atomics.load(counter, 0);
      const engine = new ContextEngine();
      await engine.index([{ docId: 'a', text: 'Vector search returns the nearest neighbours by cosine similarity.' }, { docId: 'b', text: 'البحث المتجهي يعيد أقرب الجيران.' }]);
      const first = await engine.run('vector search neighbours', { recordTurn: false });
      const second = await engine.run('البحث المتجهي', { recordTurn: false });
      console.log(JSON.stringify({ afterImport, afterRuns: Atomics.load(counter, 0), first: first.chunks.map((c) => c.chunk.docId), second: second.chunks.map((c) => c.chunk.docId) }));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    const report = JSON.parse(child.stdout.trim().split('\n').pop()!);
    expect(report.afterImport).toBe(0);
    expect(report.afterRuns).toBe(1);
    expect(report.first).toEqual(['a']);
    expect(report.second).toEqual(['b']);
  });
});
