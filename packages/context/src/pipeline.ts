import {
  ComplexityBasedAllocation,
  ContextCache,
  EqualBudgetAllocation,
  rerankCandidates,
  rerankerName,
  queryLengthProblem,
  warningToString,
  type AdaptiveLearningSystem,
  type ConversationHistory,
} from '@zerda/context-core';
import { SmartContextComposer } from '@zerda/composer';
import {
  invalidArgument,
  matchesFilter,
  parseMetadataFilter,
  parseOrThrow,
  type BudgetAllocator,
  type ChunkFilter,
  type ChunkRanker,
  type ComposeResult,
  type ContextEngineConfig,
  type ContextGuard,
  type ContextResult,
  type ContextTemplate,
  type DocumentChunk,
  type LengthCounter,
  type MetadataFilter,
  type QueryAnalysis,
  type QueryAnalyzer,
  type Reranker,
  type Retriever,
  type ScoredChunk,
  type SourceQualityMap,
  type StageTimings,
  type TemplateName,
} from '@zerda/types';
import { truncateWithinBudget, type CompleteComposer } from './composer-fallbacks.js';
import { queryHeader } from './headers.js';
import { runMultiOptionsSchema, runOptionsSchema, type RunMultiOptions, type RunOptions } from './options.js';
import { conversationKey, scopedRunOptions, type ScopeState } from './scope.js';
import { traced, type Attributes, type EngineTelemetry, type Trace } from './tracing.js';
import { composeWithinBudget, type BudgetedStages } from './within-budget.js';

/**
 * The engine as `run()` sees it: its wired stages and the state a run reads. The retriever, the
 * source-quality map and the corpus generation are read at each use (`index()` may swap them while
 * a run awaits), everything else is fixed once the engine is constructed.
 */
export interface PipelineStages {
  readonly config: ContextEngineConfig;
  readonly analyzer: QueryAnalyzer;
  readonly chunkFilter: ChunkFilter;
  readonly ranker: ChunkRanker;
  readonly reranker: Reranker | undefined;
  readonly composer: CompleteComposer;
  readonly guard: ContextGuard;
  readonly counter: LengthCounter;
  readonly template: TemplateName | ContextTemplate;
  readonly cache: ContextCache<ContextResult> | undefined;
  readonly adaptive: AdaptiveLearningSystem | undefined;
  /** The injected allocator of `runMulti` (undefined: complexity-weighted or equal shares). */
  readonly budgetAllocator: BudgetAllocator | undefined;
  readonly retriever: Retriever | undefined;
  readonly sourceQuality: SourceQualityMap;
  readonly generation: number;
  /** A query string within `analyzer.maxQueryLength` (throws naming `field` otherwise). */
  checkedQuery(query: unknown, field: string): string;
  /** The conversation's history (created on first use), or the engine-level one for `undefined`. */
  historyFor(registryKey: string | undefined): ConversationHistory | undefined;
  log(level: 'debug' | 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string): void;
}

type TimedStage = Exclude<keyof StageTimings, 'cache' | 'total' | 'guard'>;

const now = (): number => performance.now();
const round = (ms: number): number => Math.round(ms * 1000) / 1000;

/**
 * One pipeline stage, timed into `timings[name]` and traced as the child span `zerda.<name>`:
 * `attributes` when it starts, `finish(value)` when it ends (an exception ends the span through the
 * run's trace, with the error recorded on it).
 */
async function timedStage<T>(timings: StageTimings, trace: Trace | undefined, name: TimedStage, attributes: Attributes | undefined, task: () => T | Promise<T>, finish: (value: T) => Attributes): Promise<T> {
  const started = now();
  trace?.stage(name, attributes);
  const value = await task();
  timings[name] = now() - started;
  trace?.endStage(finish(value));
  return value;
}

/**
 * Runs the whole pipeline for one query inside the span `retrieval` (with a child per stage, from
 * `zerda.analyze` to `zerda.guard`), confined to `scope` when one is given.
 */
export function runTraced(stages: PipelineStages, telemetry: EngineTelemetry, scope: ScopeState | undefined, query: unknown, options: RunOptions): Promise<ContextResult> {
  const telemetryOptions = telemetry.options;
  return traced(
    telemetry,
    'retrieval',
    { 'gen_ai.operation.name': 'retrieval', 'gen_ai.data_source.id': telemetryOptions.dataSourceId, ...(scope?.path ? { 'zerda.scope.id': scope.path.join('/') } : {}) },
    (trace) => runPipeline(stages, query, options, trace, scope),
    (result) => runAttributes(result, telemetryOptions.recordQueryText === true, telemetryOptions.recordDocuments === true),
  );
}

async function runPipeline(stages: PipelineStages, query: unknown, options: RunOptions, trace: Trace | undefined, scope: ScopeState | undefined): Promise<ContextResult> {
  const started = now();
  parseOrThrow(runOptionsSchema, options, 'options');
  const literal = stages.checkedQuery(query, 'query');
  const { config, counter } = stages;
  if (counter.load) await counter.load();
  const signal = options.signal;
  signal?.throwIfAborted();
  const callFilter = options.metadataFilters === undefined ? undefined : parseMetadataFilter(options.metadataFilters, 'options.metadataFilters');
  let filter = callFilter;
  let useHistory = options.useHistory ?? true;
  let recordTurn = options.recordTurn ?? true;
  let conversation = options.conversation;
  if (scope) ({ filter, conversation, useHistory, recordTurn } = scopedRunOptions(scope, options, callFilter));
  const registryKey = conversation === undefined ? undefined : conversationKey(scope, conversation);
  const history = scope && registryKey === undefined ? undefined : stages.historyFor(registryKey);
  // An anonymous scope shares nothing, not even a cache entry with itself on the next request.
  const cacheable = scope === undefined || scope.path !== undefined;
  const generation = stages.generation;
  const timings: StageTimings = { cache: 0, analyze: 0, retrieve: 0, filter: 0, rank: 0, rerank: 0, compose: 0, guard: 0, total: 0 };
  const after = (result: ContextResult, fromCache: boolean): void => afterRun(stages, result, literal, recordTurn ? history : undefined, fromCache, conversation, scope);

  let effectiveQuery = literal;
  if (useHistory && history && history.size > 0 && config.multiTurn.enrichTurns > 0) {
    effectiveQuery = history.getEnrichedQuery(literal, config.multiTurn.enrichTurns);
    // Enrichment never makes an acceptable query unacceptable: past the limit, the literal query is used.
    if (queryLengthProblem(effectiveQuery, config.analyzer.maxQueryLength) !== undefined) effectiveQuery = literal;
  }

  const cacheStarted = now();
  const cache = stages.cache;
  const cacheKey = cache && cacheable
    ? ContextCache.key({
        effectiveQuery,
        filter,
        maxChunks: options.maxChunks,
        budget: options.overrideBudget,
        generation,
        extra: {
          counter: counter.counterName ?? counter.name ?? 'counter',
          unit: counter.unit ?? null,
          // A conversation's entries are its own: another conversation never hits them (not even
          // learns from `fromCache` that the same question was asked), and the literal query is
          // part of the key so a hit's analysis is always the caller's.
          conversation: registryKey ?? null,
          scope: scope === undefined ? null : scope.path ? [...scope.path] : null,
          literal,
        },
      })
    : undefined;
  const cached = cacheKey !== undefined ? cache?.get(cacheKey) : undefined;
  timings.cache = now() - cacheStarted;
  if (cached) {
    timings.total = now() - started;
    // Defect 3 of the spec: a hit returns the full original result, flagged, never zeroed counts.
    const hit: ContextResult = { ...cached, query: literal, fromCache: true, timings: { ...cached.timings, cache: round(timings.cache), total: round(timings.total) } };
    after(hit, true);
    return hit;
  }

  const analysis = await timedStage(timings, trace, 'analyze', undefined, () => stages.analyzer.analyze(effectiveQuery, { literalQuery: literal }), (found) => ({
    'zerda.query.length': [...literal].length,
    'zerda.query.language': found.language,
    'zerda.query.intent': found.intent,
    'zerda.query.complexity': found.complexity,
  }));
  const budget = Math.min(options.overrideBudget ?? Math.min(analysis.suggestedBudget, config.composer.maxContextLength), Number.MAX_SAFE_INTEGER);
  const maxChunks = options.maxChunks ?? analysis.suggestedChunks;

  const topK = Math.max(stages.adaptive ? stages.adaptive.recommendedTopK(config.retrieval.topK) : config.retrieval.topK, maxChunks);
  const retriever = stages.retriever;
  const candidates = await timedStage(
    timings,
    trace,
    'retrieve',
    { 'gen_ai.retrieval.top_k': topK, 'zerda.retriever': retriever?.name, 'zerda.filtered': filter !== undefined },
    async () => {
      const found: ScoredChunk[] = retriever ? await retriever.retrieve(effectiveQuery, { topK, filter, analysis, ...(signal ? { signal } : {}) }) : [];
      // Defence in depth: a custom retriever that ignores the filter still cannot leak another tenant's chunk.
      return filter ? found.filter((candidate) => matchesFilter(candidate.chunk, filter)) : found;
    },
    (found) => ({ 'zerda.candidates.out': found.length }),
  );
  const retrieved = candidates.length;

  const filtered = await timedStage(timings, trace, 'filter', { 'zerda.candidates.in': retrieved }, () => stages.chunkFilter.filter(candidates, { analysis }), (result) => ({
    'zerda.candidates.out': result.kept.length,
    'zerda.candidates.dropped': result.dropped.length,
  }));

  // With a reranker, the ranker hands it a longer list to choose the best maxChunks from.
  const reranker = stages.reranker;
  const rankLimit = reranker ? Math.max(maxChunks, config.rerank.candidates) : maxChunks;
  const ranked = await timedStage(timings, trace, 'rank', { 'zerda.candidates.in': filtered.kept.length }, () => stages.ranker.rank(filtered.kept, { analysis, maxChunks: rankLimit, sourceQuality: stages.sourceQuality }), (list) => ({
    'zerda.candidates.out': list.length,
  }));

  const reranked = !reranker
    ? ranked
    : await timedStage(
        timings,
        trace,
        'rerank',
        { 'zerda.candidates.in': ranked.length, 'zerda.reranker': rerankerName(reranker), 'zerda.rerank.top_n': maxChunks },
        () => rerankCandidates(reranker, effectiveQuery, ranked, { topN: maxChunks, analysis, ...(signal ? { signal } : {}) }),
        (list) => ({ 'zerda.candidates.out': list.length }),
      );

  const composer = stages.composer;
  const fitted = await timedStage(
    timings,
    trace,
    'compose',
    { 'zerda.candidates.in': reranked.length, 'zerda.budget.limit': budget, 'zerda.budget.unit': counter.unit ?? 'chars' },
    async () => {
      // Small-to-big: a first composition tells which chunks are used, their neighbours join the list.
      let toCompose = reranked;
      if (config.composer.neighbors > 0) {
        const first = await composer.compose(reranked, { budget, counter, analysis, template: stages.template });
        toCompose = (await withNeighbors(stages.retriever, config.composer.neighbors, reranked, first, budget, filter)) ?? reranked;
      }
      // Composition and guard together hold the budget: when redaction (or a custom strategy) makes the
      // guarded context longer than the budget, composition runs again with less room.
      return composeWithinBudget(budgetedStages(stages, config.guard.enabled), toCompose, analysis, budget);
    },
    (result) => ({
      'zerda.candidates.out': result.composed.chunks.length,
      'zerda.budget.used': result.used,
      'zerda.context.truncated': result.composed.truncated || result.cutAfterGuard,
      'zerda.compose.attempts': result.attempts,
    }),
  );
  const { composed, guard, used } = fitted;
  timings.compose -= fitted.guardMs;
  timings.guard = fitted.guardMs;
  timings.total = now() - started;
  // The guard runs inside the fit (once per attempt): its span, after compose's, carries the verdict and its time.
  trace?.stage('guard');
  trace?.endStage({ 'zerda.guard.enabled': config.guard.enabled, 'zerda.guard.passed': guard.passed, 'zerda.guard.warnings': guard.warnings.map((warning) => warning.code), 'zerda.guard.ms': round(fitted.guardMs) });
  if (fitted.attempts > 1 || fitted.cutAfterGuard) {
    stages.log('debug', { event: 'refit', attempts: fitted.attempts, cut: fitted.cutAfterGuard }, 'ContextEngine.run: the guarded context was over budget and was fitted again');
  }

  const result: ContextResult = {
    context: guard.context,
    query: literal,
    effectiveQuery,
    analysis,
    chunks: composed.chunks,
    dropped: [...filtered.dropped, ...composed.skipped],
    counts: { retrieved, afterFilter: filtered.kept.length, afterRank: ranked.length, afterRerank: reranked.length, used: composed.chunks.length },
    timings: Object.fromEntries(Object.entries(timings).map(([key, value]) => [key, round(value)])) as unknown as StageTimings,
    budget: { limit: budget, used, unit: counter.unit ?? 'chars', utilization: budget > 0 ? Math.min(1, used / budget) : 0 },
    template: composed.template,
    truncated: composed.truncated || fitted.cutAfterGuard,
    guardPassed: guard.passed,
    guardWarnings: guard.warnings.map(warningToString),
    warnings: guard.warnings,
    fromCache: false,
    ...(reranker ? { reranker: rerankerName(reranker) } : {}),
  };
  // Synchronous from here on: cache, history and statistics stay consistent under concurrency.
  if (cacheKey !== undefined && cache && generation === stages.generation) cache.set(cacheKey, result);
  after(result, false);
  return result;
}

/** What `runMulti` gives: the joined context, every query's result, and the budget share of each. */
export interface MultiQueryResult {
  context: string;
  results: ContextResult[];
  allocations: number[];
}

/**
 * Runs several queries under one global budget (see `ContextEngine.runMulti`): a share per query
 * from the allocator, each run traced on its own without recording a conversation turn, the
 * contexts joined under query headers and the whole held to the global budget.
 */
export async function runMultiQuery(stages: PipelineStages, telemetry: EngineTelemetry, scope: ScopeState | undefined, queries: unknown, options: RunMultiOptions): Promise<MultiQueryResult> {
  parseOrThrow(runMultiOptionsSchema, options, 'options');
  if (!Array.isArray(queries)) throw invalidArgument('queries', 'an array of strings', queries);
  const list = queries.map((query, i) => stages.checkedQuery(query, `queries[${i}]`));
  if (list.length === 0) return { context: '', results: [], allocations: [] };
  const counter = stages.counter;
  if (counter.load) await counter.load();
  const { globalBudget, useWeighted = true, ...runOptions } = options;
  const global = globalBudget ?? stages.config.composer.maxContextLength;
  const analyses = await Promise.all(list.map((query) => stages.analyzer.analyze(query, { literalQuery: query })));
  const allocations = allocateShares(stages.budgetAllocator, analyses, global, useWeighted, stages.config.budget.minPerQuery);
  const headers = list.map((query, i) => queryHeader(i, query, analyses[i]!));
  const separator = '\n\n';
  const results = await Promise.all(
    list.map((query, i) => {
      const overhead = counter(headers[i]! + '\n') + (i > 0 ? counter(separator) : 0);
      const share = Math.max(0, allocations[i]! - overhead);
      return runTraced(stages, telemetry, scope, query, { ...runOptions, overrideBudget: share, recordTurn: false });
    }),
  );
  const sections = results.map((result, i) => `${headers[i]}\n${result.context}`);
  const joined = sections.join(separator);
  return { context: truncateWithinBudget(stages.composer, joined, global, counter), results, allocations };
}

/** One whole share per query from `allocator` (default: complexity-weighted, or equal shares), checked. */
export function allocateShares(allocator: BudgetAllocator | undefined, analyses: QueryAnalysis[], budget: number, useWeighted: boolean, minPerQuery: number): number[] {
  const chosen = allocator ?? (useWeighted ? new ComplexityBasedAllocation() : new EqualBudgetAllocation());
  const shares: unknown = chosen.allocate(analyses, budget, { minPerQuery });
  if (!Array.isArray(shares) || shares.length !== analyses.length || shares.some((share) => typeof share !== 'number' || !(share >= 0) || share === Number.POSITIVE_INFINITY)) {
    throw invalidArgument('budgetAllocator.allocate(…)', `to return ${analyses.length} finite numbers >= 0 (one share per query)`, shares);
  }
  return (shares as number[]).map((share) => Math.floor(share));
}

/** The stages {@link composeWithinBudget} needs (no guard: `guarded` false, as the legacy tuple build). */
export function budgetedStages(stages: Pick<PipelineStages, 'composer' | 'guard' | 'counter' | 'template'>, guarded: boolean): BudgetedStages {
  const composer = stages.composer;
  return { composer, guard: guarded ? stages.guard : undefined, counter: stages.counter, template: stages.template, trustComposerStats: composer instanceof SmartContextComposer };
}

/**
 * Small-to-big (`config.composer.neighbors`): when the context leaves budget unused, the ranked
 * list with the neighbouring chunks of every used chunk inserted right after it (same document,
 * matching the run's filter, not already a candidate); undefined when there is nothing to add.
 */
async function withNeighbors(retriever: Retriever | undefined, distance: number, ranked: ScoredChunk[], composed: ComposeResult, budget: number, filter: MetadataFilter | undefined): Promise<ScoredChunk[] | undefined> {
  if (distance === 0 || !retriever?.neighbors || composed.chunks.length === 0 || composed.stats.length >= budget) return undefined;
  const known = new Set(ranked.map((candidate) => candidate.chunk.id));
  const found = await retriever.neighbors(composed.chunks.map((used) => used.chunk), distance, filter ? { filter } : {});
  const fresh = found.filter((chunk) => !known.has(chunk.id) && (!filter || matchesFilter(chunk, filter)));
  if (fresh.length === 0) return undefined;
  const byAnchor = new Map<string, DocumentChunk[]>();
  for (const chunk of fresh) {
    const anchor = composed.chunks
      .filter((used) => used.chunk.docId === chunk.docId)
      .reduce((best, used) => (Math.abs(used.chunk.position.index - chunk.position.index) < Math.abs(best.chunk.position.index - chunk.position.index) ? used : best));
    const list = byAnchor.get(anchor.chunk.id) ?? [];
    list.push(chunk);
    byAnchor.set(anchor.chunk.id, list);
  }
  return ranked.flatMap((candidate) => [
    candidate,
    ...(byAnchor.get(candidate.chunk.id) ?? []).map((chunk): ScoredChunk => ({ chunk, score: candidate.score, scores: { neighbor: 1, composite: candidate.score }, retrievers: ['neighbors'] })),
  ]);
}

/** Records a finished run: the conversation turn, the adaptive statistics and the `run` log event. */
function afterRun(stages: PipelineStages, result: ContextResult, literal: string, history: ConversationHistory | undefined, fromCache: boolean, conversation: string | undefined, scope: ScopeState | undefined): void {
  history?.addTurn({ query: literal, context: result.context, analysis: result.analysis });
  stages.adaptive?.record({
    responseMs: result.timings.total,
    guardPassed: result.guardPassed,
    contextLength: result.budget.used,
    budget: result.budget.limit,
    cacheHit: fromCache,
    emptyContext: result.context.length === 0,
  });
  stages.log(
    'info',
    {
      event: 'run',
      // Logs name a scope by its id (never its filter's values) and its conversation.
      ...(scope === undefined ? {} : { scope: scope.path?.join('/') ?? null }),
      ...(conversation === undefined ? {} : { conversation }),
      fromCache,
      retrieved: result.counts.retrieved,
      afterFilter: result.counts.afterFilter,
      afterRank: result.counts.afterRank,
      used: result.counts.used,
      contextLength: result.budget.used,
      ms: result.timings.total,
    },
    'ContextEngine: run',
  );
}

/** The attributes of a run's span once it has its result (query text and documents only when opted in). */
function runAttributes(result: ContextResult, recordQueryText: boolean, recordDocuments: boolean): Attributes {
  return {
    'zerda.cache.hit': result.fromCache,
    'zerda.query.length': [...result.query].length,
    'zerda.query.language': result.analysis.language,
    'zerda.count.retrieved': result.counts.retrieved,
    'zerda.count.after_filter': result.counts.afterFilter,
    'zerda.count.after_rank': result.counts.afterRank,
    'zerda.count.after_rerank': result.counts.afterRerank,
    'zerda.count.used': result.counts.used,
    'zerda.budget.limit': result.budget.limit,
    'zerda.budget.used': result.budget.used,
    'zerda.budget.unit': result.budget.unit,
    'zerda.guard.passed': result.guardPassed,
    'zerda.reranker': result.reranker,
    'gen_ai.retrieval.query.text': recordQueryText ? result.query : undefined,
    'zerda.query.effective_text': recordQueryText && result.effectiveQuery !== result.query ? result.effectiveQuery : undefined,
    'gen_ai.retrieval.documents': recordDocuments ? JSON.stringify(result.chunks.map((used) => ({ id: used.chunk.id, score: used.score }))) : undefined,
  };
}
