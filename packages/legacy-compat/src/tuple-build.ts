import { invalidArgument, toDocumentChunk, type ChunkFilter, type ChunkRanker, type LengthCounter, type QueryAnalysis, type ScoredChunk, type SourceQualityMap } from '@zerda/types';

/** Options of the legacy `build()`. */
export interface BuildOptions {
  /** At most this many chunks (default: the analysis' suggestion). */
  maxChunks?: number;
  /** Budget in the counter's unit (default: the analysis' suggestion, capped by `composer.maxContextLength`). */
  maxLength?: number;
}

/** Options of the legacy `buildMultiQueryContext()`. */
export interface BuildMultiQueryOptions {
  /** Budget shared by all queries (default `composer.maxContextLength`). */
  globalBudget?: number;
  /** Complexity-weighted allocation (default) or equal shares. */
  useWeighted?: boolean;
}

/**
 * What the legacy tuple build needs of an engine: its wired stages and its checks. `ContextEngine`
 * (of `@zerda/context`) provides them, so this package does not depend on the engine's.
 */
export interface TupleBuildStages {
  /** The options of `build`, validated (a ZerdaError naming `options` otherwise). */
  buildOptions(options: unknown): BuildOptions;
  /** The options of `buildMultiQueryContext`, validated. */
  multiQueryOptions(options: unknown): BuildMultiQueryOptions;
  /** A query string within the analyzer's limit (a ZerdaError naming `field` otherwise). */
  checkedQuery(query: unknown, field: string): string;
  readonly counter: LengthCounter;
  analyze(query: string): QueryAnalysis | Promise<QueryAnalysis>;
  readonly chunkFilter: ChunkFilter;
  readonly ranker: ChunkRanker;
  readonly sourceQuality: SourceQualityMap;
  /** `composer.maxContextLength`: the default budget. */
  readonly maxContextLength: number;
  /** The context of `ranked` within `budget` (composed, without the guard). */
  compose(ranked: ScoredChunk[], analysis: QueryAnalysis, budget: number): Promise<string>;
  /** One budget share per query (whole numbers). */
  allocate(analyses: QueryAnalysis[], budget: number, useWeighted: boolean): number[];
  /** The header of query `index`'s section (`--- Query 2: text ---`). */
  header(index: number, query: string, analysis: QueryAnalysis): string;
  /** `text` cut to `budget` at a word boundary. */
  truncate(text: string, budget: number): string;
}

/** An engine the tuple build runs on (`ContextEngine` is one). */
export interface TupleBuildEngine {
  tupleBuildStages(): TupleBuildStages;
}

/** Converts a legacy `[chunk, score]` tuple (chunk with `docId`/`doc_id` and `text`) to a ScoredChunk. */
export function tupleToScored(tuple: unknown, index: number): ScoredChunk {
  if (!Array.isArray(tuple) || tuple.length !== 2) throw invalidArgument(`chunks[${index}]`, 'a [chunk, score] tuple', tuple);
  const [raw, score] = tuple as [Record<string, unknown>, unknown];
  if (typeof score !== 'number' || !Number.isFinite(score)) throw invalidArgument(`chunks[${index}][1]`, 'a finite number (the score)', score);
  if (raw === null || typeof raw !== 'object') throw invalidArgument(`chunks[${index}][0]`, 'a chunk object', raw);
  const input: Record<string, unknown> = { docId: raw.docId ?? raw.doc_id, text: raw.text };
  for (const key of ['id', 'source', 'title', 'metadata', 'position', 'timestamp', 'embedding'] as const) {
    if (raw[key] !== undefined) input[key] = raw[key];
  }
  const chunk = toDocumentChunk(input, index, `chunks[${index}][0]`);
  return { chunk, score, scores: { vector: score, composite: score } };
}

/**
 * Legacy `build`: a context from `[chunk, score]` tuples retrieved by the caller (no retrieval, no
 * guard) — analyse → filter → rank → compose on `engine`'s stages. The budget promise holds as in
 * `run()`: a custom composer is held to it.
 */
export async function buildFromTuples(engine: TupleBuildEngine, query: unknown, chunks: unknown, options: BuildOptions = {}): Promise<string> {
  const stages = engine.tupleBuildStages();
  const parsed = stages.buildOptions(options);
  const literal = stages.checkedQuery(query, 'query');
  if (!Array.isArray(chunks)) throw invalidArgument('chunks', 'an array of [chunk, score] tuples', chunks);
  const scored: ScoredChunk[] = chunks.map((tuple, i) => tupleToScored(tuple, i));
  if (stages.counter.load) await stages.counter.load();
  const analysis = await stages.analyze(literal);
  const budget = parsed.maxLength ?? Math.min(analysis.suggestedBudget, stages.maxContextLength);
  const filtered = await stages.chunkFilter.filter(scored, { analysis });
  const ranked = await stages.ranker.rank(filtered.kept, { analysis, maxChunks: parsed.maxChunks ?? analysis.suggestedChunks, sourceQuality: stages.sourceQuality });
  return stages.compose(ranked, analysis, budget);
}

/**
 * Legacy `buildMultiQueryContext`: {@link buildFromTuples} per (query, tuples) pair under
 * `--- Query N: text ---` headers. Unlike the spec's version, `globalBudget` is honoured (defect 5):
 * shares are allocated and the result is clamped to it.
 */
export async function buildMultiQueryFromTuples(engine: TupleBuildEngine, queries: unknown, allChunks: unknown, options: BuildMultiQueryOptions = {}): Promise<string> {
  const stages = engine.tupleBuildStages();
  const parsed = stages.multiQueryOptions(options);
  if (!Array.isArray(queries)) throw invalidArgument('queries', 'an array of strings', queries);
  if (!Array.isArray(allChunks) || allChunks.length !== queries.length) {
    throw invalidArgument('allChunks', `an array with one tuple list per query (${queries.length})`, allChunks);
  }
  const list = queries.map((query, i) => stages.checkedQuery(query, `queries[${i}]`));
  if (list.length === 0) return '';
  const counter = stages.counter;
  if (counter.load) await counter.load();
  const global = parsed.globalBudget ?? stages.maxContextLength;
  const analyses = await Promise.all(list.map((query) => stages.analyze(query)));
  const allocations = stages.allocate(analyses, global, parsed.useWeighted ?? true);
  const separator = '\n\n';
  const sections: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const header = stages.header(i, list[i]!, analyses[i]!);
    const overhead = counter(header + '\n') + (i > 0 ? counter(separator) : 0);
    const context = await buildFromTuples(engine, list[i], allChunks[i], { maxLength: Math.max(0, allocations[i]! - overhead) });
    sections.push(`${header}\n${context}`);
  }
  return stages.truncate(sections.join(separator), global);
}
