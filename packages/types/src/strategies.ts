import type { QueryAnalysis } from './analysis.js';
import type { DocumentChunk, Embedding } from './chunk.js';
import type { TemplateName } from './config.js';
import type { MetadataFilter } from './filter.js';
import type { Metadata } from './json.js';
import type { DroppedChunk, GuardWarning, UsedChunk } from './result.js';
import type { ScoredChunk, SourceQualityMap } from './scored.js';
import type { SnapshotReader, SnapshotWriter } from './snapshot.js';

export type MaybePromise<T> = T | Promise<T>;

/**
 * Measures text in the budget's unit. Any `(text) => number` is a length counter; zerda's own
 * counters also say their `unit` (`chars`, `words`, `tokens`) for diagnostics.
 */
export interface LengthCounter {
  (text: string): number;
  readonly unit?: string;
  readonly counterName?: string;
  /**
   * Loads what the counter needs before its first (synchronous) call, such as a tokenizer's rank
   * table in a browser or a worker. `ContextEngine` awaits it before it composes; code that calls
   * the counter on its own awaits it first. Counters without data to load omit it.
   */
  readonly load?: () => Promise<void>;
}

/** Turns a query into a {@link QueryAnalysis}. */
export interface QueryAnalyzer {
  /**
   * @param effectiveQuery the text to analyse (possibly history-enriched)
   * @param options.literalQuery the caller's literal query, recorded as `analysis.query` (defaults to `effectiveQuery`)
   */
  analyze(effectiveQuery: string, options?: { literalQuery?: string }): MaybePromise<QueryAnalysis>;
}

export interface RetrieveOptions {
  /** Maximum number of results. */
  topK?: number;
  /** Only chunks matching this filter may be returned. */
  filter?: MetadataFilter;
  /** The query's analysis, when the caller has one (saves re-analysing). */
  analysis?: QueryAnalysis;
  signal?: AbortSignal;
}

/** Finds candidate chunks for a query. Results are best first and every `score` is a similarity. */
export interface Retriever {
  /** Short name recorded in `ScoredChunk.retrievers` and used for fusion weights (e.g. `keyword`). */
  readonly name: string;
  retrieve(query: string, options?: RetrieveOptions): Promise<ScoredChunk[]>;
  /** Replaces the whole corpus. */
  index?(chunks: DocumentChunk[]): Promise<void>;
  /** Adds (or updates, by id) chunks. */
  add?(chunks: DocumentChunk[]): Promise<void>;
  /** Removes every chunk of the given documents. */
  remove?(docIds: string[]): Promise<void>;
  /** Number of chunks indexed. */
  size?(): MaybePromise<number>;
  /**
   * Chunks next to the given ones in their documents: every indexed chunk of a given chunk's
   * document whose `position.index` is within `distance` of the given chunk's, matching
   * `options.filter`, the given chunks themselves excluded, in document then position order.
   * Lets the engine widen a chosen small chunk into its surroundings (small-to-big). Optional.
   */
  neighbors?(chunks: DocumentChunk[], distance: number, options?: { filter?: MetadataFilter }): MaybePromise<DocumentChunk[]>;
  /**
   * Writes the retriever's data into a snapshot (`ContextEngine.save`). Writes issued meanwhile
   * wait until it is done, so the snapshot holds one consistent corpus.
   */
  writeSnapshot?(writer: SnapshotWriter): Promise<void>;
  /**
   * Replaces the retriever's data with a snapshot written by `writeSnapshot` (`ContextEngine.open`).
   * Settings that shape the data (BM25 parameters, the embedder's model, the store) must match what
   * the snapshot recorded; a mismatch is refused with a ZerdaError naming it.
   */
  readSnapshot?(reader: SnapshotReader): Promise<void>;
  /**
   * Does the slow part of a write that changes nothing yet (embedding, for a vector retriever) and
   * returns the chunks to hand to `index`/`add` instead of the originals. A HybridRetriever prepares
   * every sub-retriever first and then commits the write to all of them while no read runs, so a
   * read sees one corpus generation across its sub-retrievers.
   */
  prepareChunks?(chunks: DocumentChunk[], options?: unknown): Promise<DocumentChunk[]>;
}

export interface FilterOutcome {
  kept: ScoredChunk[];
  dropped: DroppedChunk[];
}

/** Removes duplicates and noise from candidates. */
export interface ChunkFilter {
  filter(chunks: ScoredChunk[], options?: { analysis?: QueryAnalysis }): MaybePromise<FilterOutcome>;
}

export interface RankOptions {
  analysis?: QueryAnalysis;
  maxChunks?: number;
  sourceQuality?: SourceQualityMap;
  /** Reference time for recency (ms since epoch); defaults to now. */
  now?: number;
}

/** Orders candidates; returns at most `maxChunks`, best first. */
export interface ChunkRanker {
  rank(chunks: ScoredChunk[], options?: RankOptions): MaybePromise<ScoredChunk[]>;
}

export interface RerankOptions {
  /** Return at most this many candidates. */
  topN: number;
  /** Aborts the reranking (model calls check it between batches). */
  signal?: AbortSignal;
  /** The query's analysis, when the caller has one. */
  analysis?: QueryAnalysis;
}

/** One candidate a reranker kept: its position in the list it was given and its relevance score. */
export interface RerankedCandidate {
  /** Index into the `candidates` array passed to `rerank()`. */
  index: number;
  /** Relevance to the query, higher is better, on the reranker's own (documented) scale. */
  score: number;
}

/**
 * Re-scores the ranked candidates against the query with a stronger, slower model (a cross-encoder,
 * a hosted reranking model, an LLM judge) and keeps the best. Returns at most `topN` entries, best
 * first, each naming a candidate by index (no index twice) with a finite score. The engine records
 * the score as the `rerank` factor of each chunk and orders the context by it.
 */
export interface Reranker {
  /** Short name for diagnostics and traces (e.g. `cross-encoder:Xenova/ms-marco-MiniLM-L-6-v2`). */
  readonly name?: string;
  rerank(query: string, candidates: ScoredChunk[], options: RerankOptions): MaybePromise<RerankedCandidate[]>;
}

/**
 * A plain scoring function, accepted wherever a {@link Reranker} is: returns one relevance score per
 * candidate, in the order given (the caller sorts and keeps the best `topN`).
 */
export type RerankFunction = (query: string, candidates: ScoredChunk[], options: RerankOptions) => MaybePromise<number[]>;

export interface ComposeOptions {
  /** Maximum length of the context in the counter's unit. */
  budget: number;
  counter?: LengthCounter;
  analysis?: QueryAnalysis;
  template?: TemplateName | ContextTemplate;
  /**
   * The query's embedding, when the caller has one: composers may use it (with chunk embeddings)
   * to judge which chunks matter most when the budget forces compression.
   */
  queryEmbedding?: Embedding;
}

/** A custom template: renders the chosen passages (the composer measures and fits what it returns). */
export type ContextTemplate = (passages: TemplatePassage[], context: { analysis?: QueryAnalysis; rtl: boolean }) => string;

export interface TemplatePassage {
  chunk: DocumentChunk;
  text: string;
  /** 1-based number in the context. */
  number: number;
}

export interface ComposeResult {
  context: string;
  chunks: UsedChunk[];
  /** Chunks that were ranked but left out (budget, too small after truncation). */
  skipped: DroppedChunk[];
  truncated: boolean;
  template: string;
  stats: ContextStats;
}

export interface ContextStats {
  /** Length in the active counter's unit. */
  length: number;
  unit: string;
  characters: number;
  chunkCount: number;
  averageChunkLength: number;
  language: { arabic: number; latin: number; other: number };
  /** length / budget when a budget is known, in [0, 1]. */
  budgetUtilization?: number;
}

/**
 * Builds the context text from ranked chunks within a budget. Only `compose` is required: for a
 * composer without `truncate` or `getStats`, `ContextEngine` uses the shared word-boundary
 * truncation and statistics measured from the context alone (the spec's fallbacks).
 */
export interface ContextComposer {
  compose(chunks: ScoredChunk[], options: ComposeOptions): MaybePromise<ComposeResult>;
  /** Cuts `text` to at most `budget` (counter units) at a word boundary. */
  truncate?(text: string, budget: number, counter?: LengthCounter): string;
  getStats?(context: string, options?: { counter?: LengthCounter; budget?: number }): ContextStats;
}

export interface GuardInput {
  context: string;
  chunks: UsedChunk[];
  analysis?: QueryAnalysis;
  budget?: number;
  counter?: LengthCounter;
}

export interface GuardResult {
  /** False only when an `error`-severity finding exists. */
  passed: boolean;
  warnings: GuardWarning[];
  /** The context, possibly with injected instructions redacted. */
  context: string;
}

/** Checks a composed context before it goes to the model. */
export interface ContextGuard {
  check(input: GuardInput): MaybePromise<GuardResult>;
}

/** Splits a global budget across several queries. Shares sum to at most `globalBudget`. */
export interface BudgetAllocator {
  allocate(analyses: QueryAnalysis[], globalBudget: number, options?: { minPerQuery?: number }): number[];
}

export interface ChunkOptions {
  docId?: string;
  source?: string;
  metadata?: Metadata;
  title?: string;
}

/** Splits a document into chunks. The legacy form `chunk(text, docId)` is accepted too. */
export interface Chunker {
  chunk(text: string, options?: ChunkOptions | string): MaybePromise<DocumentChunk[]>;
}

/** Turns texts into vectors. */
export interface Embedder {
  readonly specificationVersion: 'v1';
  readonly modelId: string;
  /** Known after the model loaded (undefined before). */
  readonly dimensions: number | undefined;
  embed(texts: string[], options?: { kind?: 'query' | 'document'; signal?: AbortSignal }): Promise<Embedding[]>;
}

/** A plain embedding function, accepted wherever an {@link Embedder} is. */
export type EmbedFunction = (texts: string[]) => Promise<Embedding[]> | Embedding[];

/** Structured logging sink (console- or pino-shaped). */
export interface Logger {
  debug?(objOrMessage: unknown, ...rest: unknown[]): void;
  info?(objOrMessage: unknown, ...rest: unknown[]): void;
  warn?(objOrMessage: unknown, ...rest: unknown[]): void;
  error?(objOrMessage: unknown, ...rest: unknown[]): void;
}

/*
 * The spec's names for the strategy contracts. Implementations in other packages share the short
 * names (`QueryAnalyzer`, `ChunkFilter`, `ContextGuard` are also classes in @zerda/context-core), so
 * the umbrella package exports the contracts under these aliases to keep every name unambiguous.
 */
export type QueryAnalyzerStrategy = QueryAnalyzer;
export type RetrieverStrategy = Retriever;
export type ChunkFilterStrategy = ChunkFilter;
export type ChunkRankingStrategy = ChunkRanker;
export type ContextComposerStrategy = ContextComposer;
export type ContextGuardStrategy = ContextGuard;
export type BudgetAllocationStrategy = BudgetAllocator;
export type ChunkerStrategy = Chunker;
