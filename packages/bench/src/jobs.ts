import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluateRun, type EvaluationSummary } from '@zerda/retriever';
import { TopK, type DocumentChunk, type Embedder, type LengthCounter, type VectorStore } from '@zerda/types';
import { AnswerTally, answerDepth, answeredQueries, heldOutName, type SplitGroup } from './answer-context.js';
import { auditContext, summarizeAudits, type ContextQuality } from './context-metrics.js';
import { loadDataset, type BenchDataset, type SliceOptions } from './datasets.js';
import { chooseEmbedder, embedDocuments, embeddingText, type EmbedderChoice } from './embedding.js';
import { elapsedMs, memorySnapshot, peakRss, retainedBytes, timeEach } from './measure.js';
import { SeededRandom } from './random.js';
import { recallAgainst, summarizeLatencies, type LatencySummary } from './statistics.js';
import { chunkRecipe, composeEmbedding, poolWordCounts, sentencePool, syntheticCorpus, type PoolEmbeddings, type SentencePool } from './synthetic-corpus.js';
import { SystemUnavailableError } from './systems/search-system.js';
import { VECTOR_SYSTEMS, loadSystem, type SystemId } from './systems/registry.js';

/** A dataset folder and the slice of it to use. */
export interface DatasetReference {
  directory: string;
  slice: SliceOptions;
}

/** Retrieval quality and speed of one system on one dataset. */
export interface RetrievalJob {
  kind: 'retrieval';
  dataset: DatasetReference;
  system: SystemId;
  /** Results per query (100: Recall@100 needs them). */
  depth: number;
  warmup: number;
}

/** ContextEngine.run() on one dataset: gold-in-context per budget, latency, build cost. */
export interface EngineJob {
  kind: 'engine';
  dataset: DatasetReference;
  /** Character budgets. */
  budgets: number[];
  /** cl100k token budgets (an engine with a token counter). */
  tokenBudgets: number[];
  /** Queries used for the token rows (counting tokens is slower than counting characters). */
  tokenQueries: number;
  warmup: number;
  /** `default`: `index(chunks, { embedder })` when the language has a model (keyword + vector hybrid), else keyword; `keyword`: `index(chunks)`. */
  variant: EngineVariant;
  /** Character and cl100k token budgets of answer-in-context (datasets with `answers.jsonl`; every answered query, per split). */
  answerBudgets?: number[];
  answerTokenBudgets?: number[];
}

/** How the engine under test is indexed. */
export type EngineVariant = 'default' | 'keyword';

/** The retrievers whose cost is measured as the corpus grows. */
export type ScaleConfiguration = 'keyword' | 'memory-vector' | 'hnsw' | 'hybrid-hnsw';

/** One size × retriever configuration of the synthetic scale corpus. */
export interface ScaleJob {
  kind: 'scale';
  /** The dataset whose sentences and queries build the corpus (SciFact). */
  source: string;
  seed: number;
  size: number;
  configuration: ScaleConfiguration;
  queries: number;
  budget: number;
  warmup: number;
}

/** Every vector backend the bench can measure (in report order). */
export const VECTOR_BACKENDS = ['memory', 'hnswlib', 'pgvector-exact', 'pgvector-hnsw', 'pgvector-server', 'faiss-flat', 'faiss-hnsw', 'chroma', 'lancedb-exact', 'lancedb-ivf'] as const;

export type VectorBackend = (typeof VECTOR_BACKENDS)[number];

/** One vector store at one size: build, top-10 latency and the ids it returns. */
export interface VectorJob {
  kind: 'vectors';
  source: string;
  seed: number;
  size: number;
  backend: VectorBackend;
  queries: number;
  k: number;
  warmup: number;
}

export type Job = RetrievalJob | EngineJob | ScaleJob | VectorJob;

/** How a job ended: `unavailable` when it cannot run in this setting, `failed` when it threw. */
export interface JobStatus {
  status: 'ok' | 'unavailable' | 'failed';
  reason?: string;
}

/** Cost of building an index. */
export interface BuildCost {
  ms: number;
  /** Heap + external memory retained by the index (after garbage collection). */
  retainedBytes: number;
  /** The measuring process's peak resident set. */
  peakRssBytes: number;
  /** Growth of the resident set over the build: catches native memory (hnswlib's graph) that the V8 figures miss. */
  rssGrowthBytes: number;
}

export interface RetrievalResult extends JobStatus {
  kind: 'retrieval';
  dataset: string;
  system: SystemId;
  settings?: string;
  build?: BuildCost;
  latency?: LatencySummary;
  quality?: EvaluationSummary;
  /** The same queries from several concurrent clients, for systems on a server. */
  throughput?: Throughput;
  /** Top `depth` document ids per query id. */
  run?: Record<string, string[]>;
  embeddingModel: string;
}

export interface EngineBudgetResult {
  budget: number;
  unit: 'chars' | 'tokens';
  quality: ContextQuality;
  latency: LatencySummary;
}

/** answer-in-context of one engine at one budget on one split group. */
export interface AnswerRate {
  /** `train` (where parameters are chosen) or `held-out`; `splitName` says which (`dev`, `test`). */
  split: SplitGroup;
  splitName: string;
  unit: 'chars' | 'tokens';
  budget: number;
  queries: number;
  /** Share of questions whose context holds a gold answer (0–1). */
  rate: number;
}

export interface EngineResult extends JobStatus {
  kind: 'engine';
  /** answer-in-context per split and budget, for datasets with answers. */
  answers?: AnswerRate[];
  dataset: string;
  variant: EngineVariant;
  retrievers: string;
  build?: BuildCost;
  budgets: EngineBudgetResult[];
  /** Mean per-stage milliseconds of run() at the middle character budget. */
  stages?: Record<string, number>;
  embeddingModel: string;
}

export interface ScaleResult extends JobStatus {
  kind: 'scale';
  size: number;
  configuration: ScaleConfiguration;
  build?: BuildCost;
  /** Whole run() latency. */
  run?: LatencySummary;
  /** The retrieve stage alone (from run()'s own timings). */
  retrieve?: LatencySummary;
  /** Mean milliseconds per run() stage (from its own timings). */
  stages?: Record<string, number>;
  averageChunkCharacters?: number;
  /** Seconds spent embedding the sentence pool (0 when cached). */
  embeddingSeconds?: number;
  embeddingFidelity?: EmbeddingFidelity;
  /** `engine.save` / `ContextEngine.open` of this engine (keyword and hybrid-hnsw configurations). */
  snapshot?: SnapshotCost | { status: 'failed'; reason: string };
  /** hnsw and hybrid-hnsw: recall@10 of the built HNSW store against exact search over every chunk's vector. */
  graphRecall?: { queries: number; recallAt10: number };
}

/** What saving and reopening an engine costs (the open runs in a fresh process). */
export interface SnapshotCost {
  status: 'ok';
  saveMs: number;
  /** Bytes on disk of the snapshot's files. */
  bytes: number;
  files: number;
  openMs: number;
  /** From the start of the open to the first query's answer. */
  firstAnswerMs?: number;
  /** The opening process's resident set before `open` and its peak once `open` returned. */
  openBaselineRssBytes: number;
  openPeakRssBytes: number;
  /** Whether the opened engine gave exactly the saved engine's contexts and chunk ids for the checked queries. */
  identical: boolean;
  checkedQueries: number;
}

export interface VectorResult extends JobStatus {
  kind: 'vectors';
  size: number;
  backend: VectorBackend;
  settings?: string;
  /** Creating the empty store (PGlite starting its database, the Chroma server starting), not part of `build`. */
  startupMs?: number;
  build?: BuildCost;
  /** Growth of a separate server process's resident set over the build (Chroma), which the client's figures cannot see. */
  serverRssGrowthBytes?: number;
  latency?: LatencySummary;
  /** The same queries from several concurrent clients (a connection pool's worth), for server backends. */
  throughput?: Throughput;
  /** Top-k chunk ids per query (in query order). */
  ids?: string[][];
}

/** Queries answered per second with `clients` callers each sending its next query as soon as the last returns. */
export interface Throughput {
  clients: number;
  queries: number;
  seconds: number;
  qps: number;
}

export type JobResult = RetrievalResult | EngineResult | ScaleResult | VectorResult;

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]?.slice(0, 300) ?? 'unknown error';
}

function statusOf(error: unknown): JobStatus {
  if (error instanceof SystemUnavailableError) return { status: 'unavailable', reason: error.message };
  if (process.env.ZERDA_BENCH_DEBUG) console.error(error);
  return { status: 'failed', reason: reasonOf(error) };
}

async function datasetVectors(dataset: BenchDataset, choice: EmbedderChoice): Promise<Float32Array[] | undefined> {
  if (!choice.embedder) return undefined;
  const { vectors } = await embedDocuments(
    choice,
    dataset.documents.map((document) => embeddingText(document.title, document.text)),
  );
  // Load the query side too (model files, ONNX session), so that it is in every system's baseline.
  await choice.embedder.embed(['warm up'], { kind: 'query' });
  return vectors;
}

async function buildCost<T>(build: () => Promise<T>): Promise<{ value: T; cost: BuildCost }> {
  const before = memorySnapshot();
  const started = performance.now();
  const value = await build();
  const ms = elapsedMs(started);
  const after = memorySnapshot();
  return { value, cost: { ms, retainedBytes: retainedBytes(before, after), peakRssBytes: peakRss(), rssGrowthBytes: Math.max(0, after.rss - before.rss) } };
}

/** Runs one retrieval job: build the system, answer every query with `depth` ids, score the run. */
export async function runRetrievalJob(job: RetrievalJob): Promise<RetrievalResult> {
  const dataset = loadDataset(job.dataset.directory, job.dataset.slice);
  const base = { kind: 'retrieval' as const, dataset: dataset.name, system: job.system, embeddingModel: 'none' };
  try {
    const needsVectors = VECTOR_SYSTEMS.has(job.system);
    const choice = needsVectors ? await chooseEmbedder(dataset.language) : undefined;
    if (needsVectors && !choice?.embedder) throw new SystemUnavailableError(choice?.reason ?? 'no embedding model');
    const vectors = choice ? await datasetVectors(dataset, choice) : undefined;
    const factory = await loadSystem(job.system);
    const { value: system, cost } = await buildCost(async () => {
      const created = factory({ language: dataset.language, embedder: choice?.embedder });
      await created.build({ documents: dataset.documents, ...(vectors ? { vectors } : {}) });
      return created;
    });
    const run: Record<string, string[]> = {};
    const { summary } = await timeEach(dataset.queries, (query) => system.search(query.text, job.depth), {
      warmup: job.warmup,
      collect: (query, ids) => {
        run[query.id] = ids;
      },
    });
    const throughput = system.concurrentClients ? await concurrentThroughput(system.concurrentClients, dataset.queries, (query) => system.search(query.text, job.depth)) : undefined;
    cost.peakRssBytes = peakRss();
    await system.close?.();
    // A retriever that answers most queries with nothing has failed on this corpus (typically: its
    // analysis drops the script); reporting its near-zero scores as a result would hide that, and
    // its empty answers would make it the "fastest" system.
    const unanswered = Object.values(run).filter((ids) => ids.length === 0).length;
    if (unanswered * 2 > dataset.queries.length) {
      const diagnosis = system.diagnose?.();
      const partialQuality = evaluateRun(new Map(Object.entries(run)), dataset.qrels);
      return {
        ...base,
        status: 'failed',
        reason: `returned no result for ${unanswered} of ${dataset.queries.length} queries (nDCG@10 ${partialQuality.ndcgAt10.toFixed(3)})${diagnosis ? `: ${diagnosis}` : ''}`,
        settings: system.settings,
      };
    }
    const quality = evaluateRun(new Map(Object.entries(run)), dataset.qrels);
    return { ...base, status: 'ok', settings: system.settings, build: cost, latency: summary, ...(throughput ? { throughput } : {}), quality, run, embeddingModel: choice?.modelId ?? 'none' };
  } catch (error) {
    return { ...base, ...statusOf(error) };
  }
}

function relevantTexts(dataset: BenchDataset): Map<string, string[]> {
  const byId = new Map(dataset.documents.map((document) => [document.id, document.text]));
  const texts = new Map<string, string[]>();
  for (const [queryId, judgements] of dataset.qrels) {
    texts.set(
      queryId,
      [...judgements].filter(([, grade]) => grade > 0).map(([id]) => byId.get(id) ?? '').filter((text) => text.length > 0),
    );
  }
  return texts;
}

/** The engine configuration of every benchmark: defaults, minus state that would carry over between unrelated queries. */
export const ENGINE_BENCH_CONFIG = { cache: { enabled: false }, multiTurn: { enabled: false }, adaptive: { enabled: false } } as const;

/** Runs ContextEngine.index() and run() on a dataset at every budget and audits each context. */
export async function runEngineJob(job: EngineJob): Promise<EngineResult> {
  const dataset = loadDataset(job.dataset.directory, job.dataset.slice);
  const choice: EmbedderChoice = job.variant === 'keyword' ? { embedder: undefined, modelId: 'none', fingerprint: 'none', reason: 'keyword-only variant' } : await chooseEmbedder(dataset.language);
  const base = { kind: 'engine' as const, dataset: dataset.name, variant: job.variant, budgets: [] as EngineBudgetResult[], embeddingModel: choice.embedder ? choice.modelId : 'none' };
  const retrievers = choice.embedder
    ? `index(chunks, { embedder }): keyword + vector (${choice.modelId}, exact MemoryVectorStore) fused by the default HybridRetriever`
    : job.variant === 'keyword'
      ? 'index(chunks): keyword (BM25) only'
      : `index(chunks): keyword (BM25) only — ${choice.reason}`;
  try {
    const vectors = await datasetVectors(dataset, choice);
    const { documentsToChunks } = await import('./systems/zerda-systems.js');
    const chunks = documentsToChunks(dataset.documents, vectors);
    const { ContextEngine } = await import('@zerda/context');
    const indexOptions = choice.embedder ? { embedder: choice.embedder } : {};
    const { value: engine, cost } = await buildCost(async () => {
      const created = new ContextEngine({ config: ENGINE_BENCH_CONFIG });
      await created.index(chunks, indexOptions);
      return created;
    });
    const texts = relevantTexts(dataset);
    const budgets: EngineBudgetResult[] = [];
    const middle = job.budgets[Math.floor(job.budgets.length / 2)];
    let stages: Record<string, number> | undefined;
    const measure = async (runEngine: typeof engine, budget: number, unit: 'chars' | 'tokens', queries: typeof dataset.queries, counter: LengthCounter): Promise<void> => {
      const entries: Array<{ audit: ReturnType<typeof auditContext>; used: number; budget: number }> = [];
      const stageTotals: Record<string, number> = {};
      const { summary } = await timeEach(queries, (query) => runEngine.run(query.text, { overrideBudget: budget, useHistory: false, recordTurn: false }), {
        warmup: job.warmup,
        collect: (query, result) => {
          entries.push({ audit: auditContext(result.context, texts.get(query.id) ?? []), used: counter(result.context), budget });
          for (const [stage, ms] of Object.entries(result.timings)) stageTotals[stage] = (stageTotals[stage] ?? 0) + ms;
        },
      });
      budgets.push({ budget, unit, quality: summarizeAudits(entries), latency: summary });
      if (unit === 'chars' && budget === middle) stages = Object.fromEntries(Object.entries(stageTotals).map(([stage, total]) => [stage, total / queries.length]));
    };
    const { charCounter } = await import('@zerda/text');
    for (const budget of job.budgets) await measure(engine, budget, 'chars', dataset.queries, charCounter);
    cost.peakRssBytes = peakRss();
    if (job.tokenBudgets.length > 0) {
      const { tokenCounter } = await import('@zerda/context-core');
      const counter = tokenCounter('cl100k_base');
      const tokenEngine = new ContextEngine({ config: ENGINE_BENCH_CONFIG, lengthCounter: counter });
      await tokenEngine.index(chunks, indexOptions);
      const queries = dataset.queries.slice(0, job.tokenQueries);
      for (const budget of job.tokenBudgets) await measure(tokenEngine, budget, 'tokens', queries, counter);
    }
    const answers = dataset.answers ? await measureAnswers(dataset, job, engine, async (counter) => {
      const tokenEngine = new ContextEngine({ config: ENGINE_BENCH_CONFIG, lengthCounter: counter });
      await tokenEngine.index(chunks, indexOptions);
      return tokenEngine;
    }) : undefined;
    return { ...base, status: 'ok', retrievers, build: cost, budgets, ...(stages ? { stages } : {}), ...(answers ? { answers } : {}) };
  } catch (error) {
    return { ...base, retrievers, ...statusOf(error) };
  }
}

type RunningEngine = { run(query: string, options: { overrideBudget: number; useHistory: boolean; recordTurn: boolean; maxChunks?: number }): Promise<{ context: string }> };

/** answer-in-context of the engine at every answer budget, per split group (every answered query). */
async function measureAnswers(dataset: BenchDataset, job: EngineJob, engine: RunningEngine, withCounter: (counter: LengthCounter) => Promise<RunningEngine>): Promise<AnswerRate[]> {
  const groups = answeredQueries(dataset);
  const rates: AnswerRate[] = [];
  const { charCounter } = await import('@zerda/text');
  const { tokenCounter } = await import('@zerda/context-core');
  const units: Array<{ unit: 'chars' | 'tokens'; budgets: readonly number[]; counter: LengthCounter }> = [
    { unit: 'chars', budgets: job.answerBudgets ?? [], counter: charCounter },
    { unit: 'tokens', budgets: job.answerTokenBudgets ?? [], counter: tokenCounter('cl100k_base') },
  ];
  for (const { unit, budgets, counter } of units) {
    if (budgets.length === 0) continue;
    const runner = unit === 'chars' ? engine : await withCounter(counter);
    for (const split of ['train', 'held-out'] as SplitGroup[]) {
      const queries = groups[split];
      if (queries.length === 0) continue;
      for (const budget of budgets) {
        const tally = new AnswerTally();
        for (const query of queries) {
          const result = await runner.run(query.text, { overrideBudget: budget, useHistory: false, recordTurn: false, maxChunks: answerDepth(unit, budget) });
          if (counter(result.context) > budget) throw new Error(`a context exceeded its budget (${budget} ${unit}) for query ${query.id}`);
          tally.add(result.context, dataset.answers?.get(query.id) ?? []);
        }
        rates.push({ split, splitName: split === 'train' ? 'train' : heldOutName(dataset), unit, budget, queries: queries.length, rate: tally.rate });
      }
    }
  }
  return rates;
}

/** Queries for the scale and vector jobs: a seeded choice of the source dataset's queries. */
function scaleQueries(dataset: BenchDataset, seed: number, count: number): string[] {
  return new SeededRandom(seed)
    .shuffle(dataset.queries.map((query) => query.text))
    .slice(0, count);
}

/** The sentence pool and queries of a source dataset, kept per process (jobs run in-process reuse them). */
const sources = new Map<string, { pool: SentencePool; dataset: BenchDataset }>();

function syntheticSource(source: string): { pool: SentencePool; dataset: BenchDataset } {
  let entry = sources.get(source);
  if (!entry) {
    const dataset = loadDataset(source);
    entry = { pool: sentencePool(dataset.documents), dataset: { ...dataset, documents: [] } };
    sources.set(source, entry);
  }
  return entry;
}

/** How closely composed chunk embeddings match embedding the chunk text itself (cosine over a sample). */
export interface EmbeddingFidelity {
  sample: number;
  meanCosine: number;
  minCosine: number;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    dot += (a[index] as number) * (b[index] as number);
    normA += (a[index] as number) ** 2;
    normB += (b[index] as number) ** 2;
  }
  return normA > 0 && normB > 0 ? dot / Math.sqrt(normA * normB) : 0;
}

/**
 * The synthetic corpus of `size` chunks and, when asked, their embeddings: every pool sentence and
 * title is embedded once (cached), and each chunk's vector is composed from its parts
 * ({@link composeEmbedding}); a sample of chunks is also embedded whole to report the fidelity.
 */
export async function syntheticInputs(
  source: string,
  seed: number,
  size: number,
  withVectors: boolean,
): Promise<{ chunks: DocumentChunk[]; queries: string[]; choice: EmbedderChoice; embeddingSeconds: number; fidelity?: EmbeddingFidelity }> {
  const { pool, dataset } = syntheticSource(source);
  const chunks = syntheticCorpus(pool, seed, size);
  const choice = await chooseEmbedder(dataset.language);
  const queries = scaleQueries(dataset, seed, dataset.queries.length);
  if (!withVectors) return { chunks, queries, choice, embeddingSeconds: 0 };
  if (!choice.embedder) throw new SystemUnavailableError(choice.reason ?? 'no embedding model');
  // Only the sentences and titles this corpus uses are embedded (a small corpus needs a small part of the pool).
  const recipes = Array.from({ length: size }, (_, index) => chunkRecipe(pool, seed, index));
  const usedSentences = [...new Set(recipes.flatMap((recipe) => recipe.sentences))].sort((a, b) => a - b);
  const usedTitles = [...new Set(recipes.map((recipe) => recipe.title).filter((title) => title >= 0))].sort((a, b) => a - b);
  const sentences = await embedDocuments(choice, usedSentences.map((index) => pool.sentences[index] as string));
  const titles = await embedDocuments(choice, usedTitles.map((index) => pool.titles[index] as string));
  const sentenceVectors: Float32Array[] = new Array<Float32Array>(pool.sentences.length);
  usedSentences.forEach((sentence, position) => (sentenceVectors[sentence] = sentences.vectors[position] as Float32Array));
  const titleVectors: Float32Array[] = new Array<Float32Array>(pool.titles.length);
  usedTitles.forEach((title, position) => (titleVectors[title] = titles.vectors[position] as Float32Array));
  const embeddings: PoolEmbeddings = { sentences: sentenceVectors, titles: titleVectors, ...poolWordCounts(pool) };
  const dimensions = sentences.vectors[0]?.length ?? 0;
  const all = new Float32Array(size * dimensions);
  recipes.forEach((recipe, index) => {
    const chunk = chunks[index] as DocumentChunk;
    chunk.embedding = composeEmbedding(recipe, embeddings, all.subarray(index * dimensions, (index + 1) * dimensions));
  });
  const sample = chunks.slice(0, Math.min(500, size));
  const whole = await embedDocuments(
    choice,
    sample.map((chunk) => embeddingText(chunk.title ?? '', chunk.text)),
  );
  const cosines = sample.map((chunk, index) => cosine(chunk.embedding as Float32Array, whole.vectors[index] as Float32Array));
  const fidelity = { sample: sample.length, meanCosine: cosines.reduce((total, value) => total + value, 0) / Math.max(1, cosines.length), minCosine: Math.min(...cosines) };
  await choice.embedder.embed(['warm up'], { kind: 'query' });
  return { chunks, queries, choice, embeddingSeconds: sentences.seconds + titles.seconds, fidelity };
}

/** Builds a ContextEngine over `size` synthetic chunks with one retriever configuration and times run(). */
export async function runScaleJob(job: ScaleJob): Promise<ScaleResult> {
  const base = { kind: 'scale' as const, size: job.size, configuration: job.configuration };
  try {
    const needsVectors = job.configuration !== 'keyword';
    const { chunks, queries: allQueries, choice, embeddingSeconds, fidelity } = await syntheticInputs(job.source, job.seed, job.size, needsVectors);
    const queries = allQueries.slice(0, job.queries);
    const averageChunkCharacters = chunks.reduce((total, chunk) => total + chunk.text.length, 0) / Math.max(1, chunks.length);
    const embedder = choice.embedder as Embedder;
    const { ContextEngine } = await import('@zerda/context');
    // The HNSW store of the hnsw and hybrid-hnsw configurations, for its recall against exact search.
    let graphStore: VectorStore | undefined;
    const { value: engine, cost } = await buildCost(async () => {
      switch (job.configuration) {
        case 'keyword':
          return new ContextEngine({ config: ENGINE_BENCH_CONFIG }).index(chunks);
        case 'memory-vector': {
          const { VectorRetriever } = await import('@zerda/retriever');
          const { MemoryVectorStore } = await import('@zerda/vector-memory');
          const retriever = new VectorRetriever({ embedder, store: new MemoryVectorStore() });
          return new ContextEngine({ config: ENGINE_BENCH_CONFIG, retriever }).index(chunks);
        }
        case 'hnsw': {
          const { VectorRetriever } = await import('@zerda/retriever');
          const { HnswVectorStore } = await import('@zerda/vector-hnswlib');
          graphStore = new HnswVectorStore({ maxElements: job.size });
          const retriever = new VectorRetriever({ embedder, store: graphStore });
          return new ContextEngine({ config: ENGINE_BENCH_CONFIG, retriever }).index(chunks);
        }
        case 'hybrid-hnsw': {
          const { HnswVectorStore } = await import('@zerda/vector-hnswlib');
          graphStore = new HnswVectorStore({ maxElements: job.size });
          return new ContextEngine({ config: ENGINE_BENCH_CONFIG }).index(chunks, { embedder, vectorDb: graphStore });
        }
      }
    });
    const retrieve: number[] = [];
    const stageTotals: Record<string, number> = {};
    const { summary } = await timeEach(queries, (query) => engine.run(query, { overrideBudget: job.budget, useHistory: false, recordTurn: false }), {
      warmup: job.warmup,
      collect: (_query, result) => {
        retrieve.push(result.timings.retrieve);
        for (const [stage, ms] of Object.entries(result.timings)) stageTotals[stage] = (stageTotals[stage] ?? 0) + ms;
      },
    });
    cost.peakRssBytes = peakRss();
    const stages = Object.fromEntries(Object.entries(stageTotals).map(([stage, total]) => [stage, total / Math.max(1, queries.length)]));
    const graphRecall = graphStore ? await graphRecallAt10(graphStore, chunks, queries.slice(0, GRAPH_RECALL_QUERIES), embedder) : undefined;
    const snapshot = job.configuration === 'keyword' || job.configuration === 'hybrid-hnsw' ? await measureSnapshot(engine, job, queries) : undefined;
    return { ...base, status: 'ok', build: cost, run: summary, retrieve: summarizeLatencies(retrieve), stages, averageChunkCharacters, embeddingSeconds, ...(fidelity ? { embeddingFidelity: fidelity } : {}), ...(snapshot ? { snapshot } : {}), ...(graphRecall ? { graphRecall } : {}) };
  } catch (error) {
    return { ...base, ...statusOf(error) };
  }
}

/** Queries whose HNSW top 10 is compared with the exact top 10 (a brute-force pass over every vector each). */
const GRAPH_RECALL_QUERIES = 50;

/**
 * recall@10 of `store` (as built by the scale job) against exact cosine search over every chunk's
 * vector, for `queries` embedded as queries; exact ties go to the earlier chunk. Measured after the
 * timed queries and the peak-RSS reading, so it changes neither.
 */
async function graphRecallAt10(store: VectorStore, chunks: readonly DocumentChunk[], queries: readonly string[], embedder: Embedder): Promise<{ queries: number; recallAt10: number }> {
  const vectors = chunks.map((chunk) => chunk.embedding as Float32Array);
  const dimensions = vectors[0]?.length ?? 0;
  const inverseNorms = new Float64Array(vectors.length);
  vectors.forEach((vector, index) => {
    let sum = 0;
    for (let d = 0; d < dimensions; d++) sum += vector[d]! * vector[d]!;
    inverseNorms[index] = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  });
  const exact: string[][] = [];
  const found: string[][] = [];
  const queryVectors = await embedder.embed([...queries], { kind: 'query' });
  for (const raw of queryVectors) {
    const query = raw instanceof Float32Array ? raw : Float32Array.from(raw);
    const heap = new TopK(10, (a, b) => a < b);
    for (let index = 0; index < vectors.length; index++) {
      const vector = vectors[index]!;
      let dot = 0;
      for (let d = 0; d < dimensions; d++) dot += query[d]! * vector[d]!;
      const score = dot * inverseNorms[index]!;
      if (heap.admits(score, index)) heap.push(score, index);
    }
    exact.push(Array.from(heap.sortedArrays().items, (index) => chunks[index]!.id));
    found.push((await store.search(query, { k: 10 })).map((hit) => hit.chunk.id));
  }
  return { queries: queries.length, recallAt10: recallAgainst(exact, found) };
}

/** Queries the opened engine answers to check it against the saved one. */
const SNAPSHOT_CHECK_QUERIES = 20;

/**
 * Saves `engine` to a temporary directory (timed, sized on disk), then opens it in a fresh process
 * (`snapshot-open-worker.js`: open time and peak RSS of the open alone) and compares the answers of
 * the first queries with the saved engine's.
 */
async function measureSnapshot(engine: import('@zerda/context').ContextEngine, job: ScaleJob, queries: string[]): Promise<SnapshotCost | { status: 'failed'; reason: string }> {
  const directory = await temporaryDirectory('zerda-bench-snapshot-');
  try {
    const started = performance.now();
    const saved = await engine.save(join(directory.path, 'snapshot'));
    const saveMs = elapsedMs(started);
    const checked = queries.slice(0, SNAPSHOT_CHECK_QUERIES);
    const results = [];
    for (const query of checked) results.push(await engine.run(query, { overrideBudget: job.budget, useHistory: false, recordTurn: false }));
    const { answersDigest } = await import('./snapshot-digest.js');
    const request = { directory: saved.directory, configuration: job.configuration, language: syntheticSource(job.source).dataset.language, queries: checked, budget: job.budget };
    const requestFile = join(directory.path, 'request.json');
    const resultFile = join(directory.path, 'result.json');
    writeFileSync(requestFile, JSON.stringify(request));
    const worker = fileURLToPath(new URL('./snapshot-open-worker.js', import.meta.url));
    const outcome = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=16384', worker, requestFile, resultFile], { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
    if (outcome.status !== 0) return { status: 'failed', reason: `the opening process failed (${outcome.signal ?? outcome.status}): ${(outcome.stderr ?? '').split('\n').filter(Boolean).slice(-3).join(' ').slice(0, 300)}` };
    const report = JSON.parse(readFileSync(resultFile, 'utf8')) as import('./snapshot-digest.js').OpenReport;
    return {
      status: 'ok',
      saveMs,
      bytes: saved.bytes,
      files: saved.files,
      openMs: report.openMs,
      firstAnswerMs: report.firstAnswerMs,
      openBaselineRssBytes: report.baselineRssBytes,
      openPeakRssBytes: report.peakRssBytes,
      identical: report.answers === answersDigest(results),
      checkedQueries: checked.length,
    };
  } catch (error) {
    return { status: 'failed', reason: reasonOf(error) };
  } finally {
    await directory.remove();
  }
}

/** A store ready to be filled, and what the measurement needs to know about it. */
export interface VectorBackendSetup {
  store: VectorStore;
  settings: string;
  /** Runs after the bulk load, inside the measured build (an index built over the loaded rows). */
  finishBuild?: () => Promise<void>;
  /** Backend search knobs passed with every timed query. */
  searchOptions?: Record<string, unknown>;
  /** A server process whose memory the build grows (read from /proc on Linux). */
  serverPid?: number;
  /** Also measure the queries from this many concurrent clients (the store serves them in parallel: a connection pool). */
  concurrentClients?: number;
  /** Releases what the setup started: the store, a server, a temporary directory. */
  dispose: () => Promise<void>;
}

async function temporaryDirectory(prefix: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** A process's resident set in bytes (Linux /proc), or undefined where it cannot be read. */
function processRss(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Creates an empty store of the given backend (PGlite or the Chroma server start here, outside the measured build). */
export async function createVectorBackend(backend: VectorBackend, dimensions: number, size: number): Promise<VectorBackendSetup> {
  switch (backend) {
    case 'memory': {
      const { MemoryVectorStore } = await import('@zerda/vector-memory');
      const store = new MemoryVectorStore({ dimensions });
      return { store, settings: 'MemoryVectorStore: exact, cosine', dispose: async () => undefined };
    }
    case 'hnswlib': {
      const { HnswVectorStore, autoEfSearch } = await import('@zerda/vector-hnswlib');
      const store = new HnswVectorStore({ dimensions, maxElements: size });
      return {
        store,
        settings: `HnswVectorStore (hnswlib-node 3.0.0): M ${store.M}, efConstruction ${store.efConstruction}, efSearch ${store.efSearchSetting === 'auto' ? `auto (${autoEfSearch(size)} at ${size.toLocaleString('en')} vectors)` : store.efSearch}, parallel build on ${store.buildThreads} threads from ${store.parallelBuildThreshold.toLocaleString('en')} vectors per add, cosine (defaults)`,
        dispose: async () => undefined,
      };
    }
    case 'pgvector-exact':
    case 'pgvector-hnsw': {
      const { createPGliteStore, DEFAULT_EF_SEARCH } = await import('@zerda/vector-pgvector');
      const hnsw = backend === 'pgvector-hnsw';
      const store = await createPGliteStore({ dimensions, textSearch: false, includeEmbeddings: false, deferIndex: true, ...(hnsw ? {} : { hnsw: false }) });
      return {
        store,
        settings: hnsw
          ? `PgVectorStore on PGlite 0.5.14 (PostgreSQL in WASM, pgvector 0.8): HNSW m 16, efConstruction 64, ef_search ${DEFAULT_EF_SEARCH} (defaults), index built after the bulk load (deferIndex + createIndex)`
          : 'PgVectorStore on PGlite 0.5.14: no vector index (exact sequential scan)',
        ...(hnsw ? { finishBuild: () => store.createIndex({ maintenanceWorkMem: '1GB' }) } : {}),
        dispose: () => store.close(),
      };
    }
    case 'pgvector-server': {
      const [{ DEFAULT_EF_SEARCH }, { acquirePostgres, openServerStore }] = await Promise.all([import('@zerda/vector-pgvector'), import('./postgres-server.js')]);
      const server = await acquirePostgres();
      const clients = 8;
      const { store, close } = await openServerStore(server, clients, { collection: `bench_vectors_${process.pid}_${size}`, dimensions, textSearch: false, includeEmbeddings: false, deferIndex: true });
      return {
        store,
        settings: `PgVectorStore on a native PostgreSQL server over node-postgres (${server.description}, 127.0.0.1, pool of ${clients}${process.env.ZERDA_PG_URL ? ', ZERDA_PG_URL' : ', private server started for the job'}): HNSW m 16, efConstruction 64, ef_search ${DEFAULT_EF_SEARCH} (defaults; set per query), index built after the bulk load (deferIndex + createIndex, maintenance_work_mem 1GB)`,
        finishBuild: () => store.createIndex({ maintenanceWorkMem: '1GB' }),
        concurrentClients: clients,
        dispose: close,
      };
    }
    case 'faiss-flat':
    case 'faiss-hnsw': {
      const { FaissVectorStore, faissAvailability } = await import('@zerda/vector-faiss');
      const availability = faissAvailability();
      if (!availability.available) throw new SystemUnavailableError(`faiss-node cannot load here: ${availability.reason}`);
      const hnsw = backend === 'faiss-hnsw';
      const store = new FaissVectorStore({ dimensions, metric: 'cosine', index: hnsw ? 'hnsw' : 'flat' });
      return {
        store,
        // Read after the build: hnswParameters reports what the graph uses once it exists.
        get settings() {
          const graph = store.hnswParameters;
          return hnsw
            ? `FaissVectorStore (faiss-node 0.5.1 on Debian libfaiss): IndexHNSWFlat M ${graph.m}, efConstruction ${graph.efConstruction}, efSearch ${graph.efSearch} (defaults; ${graph.applied ? 'set in the serialised graph header' : 'NOT applied: faiss-node kept its own'}, faiss-node has no setter), cosine as inner product on unit vectors`
            : 'FaissVectorStore (faiss-node 0.5.1 on Debian libfaiss): IndexFlatIP, exact, cosine as inner product on unit vectors';
        },
        dispose: () => store.close(),
      };
    }
    case 'chroma': {
      const { ChromaVectorStore, startChromaServer } = await import('@zerda/vector-chroma');
      const directory = await temporaryDirectory('zerda-bench-chroma-');
      let server: Awaited<ReturnType<typeof startChromaServer>>;
      try {
        server = await startChromaServer({ path: directory.path });
      } catch (error) {
        await directory.remove();
        throw new SystemUnavailableError(`the local Chroma server did not start: ${reasonOf(error)}`);
      }
      const store = new ChromaVectorStore({ url: server.url, collection: 'bench', dimensions, metric: 'cosine', includeEmbeddings: false });
      return {
        store,
        settings: 'ChromaVectorStore (chromadb 3.5.0) on the local Chroma server its npm bindings ship, over HTTP on 127.0.0.1: HNSW ef_search 256, ef_construction 100, max_neighbors 24 (the store defaults; Chroma itself defaults to 100 / 100 / 16), cosine; adds sent in requests of 1,000',
        serverPid: server.pid,
        dispose: async () => {
          try {
            await store.close();
            await server.stop();
          } finally {
            await directory.remove();
          }
        },
      };
    }
    case 'lancedb-exact':
    case 'lancedb-ivf': {
      const { LanceDbVectorStore } = await import('@zerda/vector-lancedb');
      const directory = await temporaryDirectory('zerda-bench-lancedb-');
      const store = new LanceDbVectorStore({ uri: directory.path, table: 'bench', dimensions, metric: 'cosine', textSearch: false, includeEmbeddings: false });
      const ivf = backend === 'lancedb-ivf';
      const partitions = Math.max(1, Math.round(Math.sqrt(size)));
      return {
        store,
        settings: ivf
          ? `LanceDbVectorStore (@lancedb/lancedb 0.31.0, embedded, local directory): IVF-flat index built after the bulk load, ${partitions} partitions (about sqrt(n); LanceDB's own default makes few large partitions that its 20 probes nearly all scan), nprobes ${Math.max(20, Math.ceil(partitions * 0.15))} (the store's default: 15% of the partitions, at least LanceDB's 20), cosine`
          : 'LanceDbVectorStore (@lancedb/lancedb 0.31.0, embedded, local directory): no vector index (exact scan), cosine',
        ...(ivf ? { finishBuild: () => store.createVectorIndex({ type: 'ivfFlat', numPartitions: partitions }) } : {}),
        dispose: async () => {
          try {
            await store.close();
          } finally {
            await directory.remove();
          }
        },
      };
    }
  }
}

/** Builds one vector store over `size` synthetic-chunk embeddings and times top-k searches. */
export async function runVectorJob(job: VectorJob): Promise<VectorResult> {
  const base = { kind: 'vectors' as const, size: job.size, backend: job.backend };
  let setup: VectorBackendSetup | undefined;
  try {
    const { chunks, queries: allQueries, choice } = await syntheticInputs(job.source, job.seed, job.size, true);
    const embedder = choice.embedder as Embedder;
    const queryTexts = allQueries.slice(0, job.queries);
    const queryVectors = (await embedder.embed(queryTexts, { kind: 'query' })).map((vector) => (vector instanceof Float32Array ? vector : Float32Array.from(vector)));
    const dimensions = queryVectors[0]?.length ?? 0;
    const before = memorySnapshot();
    const startup = performance.now();
    setup = await createVectorBackend(job.backend, dimensions, job.size);
    const startupMs = elapsedMs(startup);
    const { store } = setup;
    const serverBefore = processRss(setup.serverPid);
    const started = performance.now();
    const batch = 5000;
    for (let start = 0; start < chunks.length; start += batch) await store.add(chunks.slice(start, start + batch));
    await setup.finishBuild?.();
    const buildMs = elapsedMs(started);
    const after = memorySnapshot();
    const serverAfter = processRss(setup.serverPid);
    const cost: BuildCost = { ms: buildMs, retainedBytes: retainedBytes(before, after), peakRssBytes: peakRss(), rssGrowthBytes: Math.max(0, after.rss - before.rss) };
    const order = queryVectors.map((_, index) => index);
    const ids: string[][] = new Array<string[]>(queryVectors.length);
    const searchOptions = { ...setup.searchOptions, k: job.k };
    const { summary } = await timeEach(order, (index) => store.search(queryVectors[index] as Float32Array, searchOptions), {
      warmup: job.warmup,
      collect: (index, hits) => {
        ids[index] = hits.map((hit) => hit.chunk.id);
      },
    });
    const throughput = setup.concurrentClients ? await concurrentThroughput(setup.concurrentClients, queryVectors, (vector) => store.search(vector, searchOptions)) : undefined;
    cost.peakRssBytes = peakRss();
    const serverRssGrowthBytes = serverBefore !== undefined && serverAfter !== undefined ? Math.max(0, serverAfter - serverBefore) : undefined;
    return {
      ...base,
      status: 'ok',
      settings: setup.settings,
      startupMs,
      build: cost,
      latency: summary,
      ...(throughput ? { throughput } : {}),
      ids,
      ...(serverRssGrowthBytes === undefined ? {} : { serverRssGrowthBytes }),
    };
  } catch (error) {
    return { ...base, ...statusOf(error) };
  } finally {
    await setup?.dispose().catch(() => undefined);
  }
}

/**
 * Runs every item `rounds` times from `clients` concurrent callers (each takes the next item as soon
 * as its previous call returned) and reports items per second of wall time.
 */
export async function concurrentThroughput<T>(clients: number, items: readonly T[], call: (item: T) => Promise<unknown>, rounds = 2): Promise<Throughput> {
  const total = items.length * rounds;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < total) {
        const item = items[next++ % items.length] as T;
        await call(item);
      }
    }),
  );
  const seconds = elapsedMs(started) / 1000;
  return { clients, queries: total, seconds, qps: total / seconds };
}

/** Runs any job. */
export async function runJob(job: Job): Promise<JobResult> {
  switch (job.kind) {
    case 'retrieval':
      return runRetrievalJob(job);
    case 'engine':
      return runEngineJob(job);
    case 'scale':
      return runScaleJob(job);
    case 'vectors':
      return runVectorJob(job);
  }
}
