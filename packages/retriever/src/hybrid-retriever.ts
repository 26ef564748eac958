import {
  createError,
  invalidArgument,
  matchesFilter,
  mergeScores,
  resolveConfigSection,
  toDocumentChunks,
  ZerdaError,
  type DocumentChunk,
  type MetadataFilter,
  type RetrievalConfig,
  type RetrieveOptions,
  type Retriever,
  type ScoreBreakdown,
  type ScoredChunk,
  type TermMatches,
  type SnapshotReader,
  type SnapshotWriter,
  readSnapshotJson,
  writeSnapshotJson,
} from '@zerda/types';
import { maximalMarginalRelevance } from './mmr.js';
import { ReadWriteGate } from './read-write-gate.js';
import { WriteQueue } from './write-queue.js';
import { optionsObject, parseDocIds, parseName, parseRetrieveOptions, rejectUnknownOptions, renameErrorField } from './retrieve-options.js';

/** How sub-retriever lists are fused. */
export type FusionMethod = 'rrf' | 'weighted';

/** Options of {@link HybridRetriever}. Defaults come from the engine's `retrieval` config section. */
export interface HybridRetrieverOptions {
  /** The retrievers to combine (names must be distinct: they key the weights and `ScoredChunk.retrievers`). */
  retrievers: Retriever[];
  /** Name of the hybrid itself. Default `'hybrid'`. */
  name?: string;
  /** `'rrf'` (weighted reciprocal rank fusion) or `'weighted'` (min-max normalised scores × weight). Default `retrieval.fusion` (`'weighted'`). */
  fusion?: FusionMethod;
  /** RRF constant k: a chunk at rank r adds weight / (k + r). Default `retrieval.rrfK` (60). */
  rrfK?: number;
  /** Weight per retriever name; a retriever not listed weighs 1; weight 0 leaves it out. Default `retrieval.weights` ({ vector: 0.15, keyword: 1 }). */
  weights?: Record<string, number>;
  /** Each sub-retriever returns topK × this many candidates before fusion. Default `retrieval.candidateMultiplier` (2). */
  candidateMultiplier?: number;
  /** Default `topK` of `retrieve`. Default `retrieval.topK` (30). */
  topK?: number;
  /**
   * Maximal marginal relevance over the fused candidates, using chunk embeddings (those without one
   * count as dissimilar): `lambda` 1 = relevance only (default 0.5), `fetchK` candidates considered
   * (default topK × candidateMultiplier). Off by default.
   */
  mmr?: { lambda?: number; fetchK?: number };
  /** A (partial) `retrieval` config section supplying the defaults above. */
  config?: Partial<RetrievalConfig> | Record<string, unknown>;
}

const OPTION_KEYS = ['retrievers', 'name', 'fusion', 'rrfK', 'weights', 'candidateMultiplier', 'topK', 'mmr', 'config'] as const;
/** Codes that describe the caller's input: kept (with the retriever named) rather than turned into a backend failure. */
const INPUT_ERROR_CODES = new Set(['ZERDA_INVALID_ARGUMENT', 'ZERDA_INVALID_FILTER', 'ZERDA_INVALID_EMBEDDING', 'ZERDA_DIMENSION_MISMATCH']);

/** Builds the error for a failed sub-retriever call, naming the retriever. */
function subRetrieverError(name: string, operation: string, error: unknown): unknown {
  if ((error as Error | undefined)?.name === 'AbortError') return error;
  if (ZerdaError.isInstance(error) && INPUT_ERROR_CODES.has(error.code)) {
    return new ZerdaError(error.code, { ...error.details, retriever: name }, { cause: error, message: `retriever "${name}" (${operation}): ${error.message}` });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return createError('ZERDA_BACKEND_ERROR', { component: `retriever "${name}"`, operation, reason, retriever: name }, error);
}

interface FusedEntry {
  chunk: DocumentChunk;
  termMatches: TermMatches | undefined;
  scores: ScoreBreakdown;
  retrievers: string[];
  fused: number;
  bestPosition: number;
  firstList: number;
}

/**
 * Combines any retrievers into one ranking. Each sub-retriever is asked for topK ×
 * `candidateMultiplier` candidates (all at once, with the caller's filter); the lists are fused by
 * weighted reciprocal rank fusion (tied scores share a rank) or by min-max normalised scores ×
 * weight; chunks are de-duplicated by id, keeping every sub-score (`scores.vector`,
 * `scores.keyword`, `scores.metadata` …) and the names of the retrievers that found them.
 * `score` = `scores.fused` (RRF in (0, Σ weights / (k + 1)], weighted in [0, Σ weights]). Ties go
 * to the chunk ranked earliest by any retriever. Optional MMR diversifies the final list.
 *
 * A failing sub-retriever fails the call with a ZerdaError naming it (`details.retriever`).
 * `index`, `add` and `remove` fan out to the sub-retrievers that support them, in call order.
 *
 * One corpus generation per read: a write first does its slow part without changing anything
 * (each sub-retriever's `prepareChunks`, e.g. embedding), then commits to every sub-retriever at
 * once while no retrieval runs; a retrieval that arrives meanwhile waits for the commit. So a
 * retrieval never fuses one sub-retriever's new corpus with another's old one.
 */
export class HybridRetriever implements Retriever {
  readonly name: string;
  readonly retrievers: readonly Retriever[];
  readonly fusion: FusionMethod;
  readonly rrfK: number;
  readonly weights: Readonly<Record<string, number>>;
  readonly candidateMultiplier: number;
  readonly topK: number;
  readonly mmr: { lambda: number; fetchK: number | undefined } | undefined;
  /** Writes fan out in call order, and a snapshot sees all sub-retrievers at the same point. */
  private readonly gate = new ReadWriteGate();
  private readonly writes = new WriteQueue();

  constructor(options: HybridRetrieverOptions) {
    const record = optionsObject(options, 'options');
    rejectUnknownOptions(record, OPTION_KEYS, 'options');
    if (!Array.isArray(record.retrievers) || record.retrievers.length === 0) throw invalidArgument('options.retrievers', 'a non-empty array of retrievers', record.retrievers);
    const names = new Set<string>();
    record.retrievers.forEach((retriever: unknown, index) => {
      const candidate = retriever as Retriever | null;
      if (typeof candidate !== 'object' || candidate === null || typeof candidate.retrieve !== 'function' || typeof candidate.name !== 'string' || candidate.name.length === 0) {
        throw invalidArgument(`options.retrievers[${index}]`, 'a Retriever (a name and retrieve(query, options))', retriever);
      }
      if (names.has(candidate.name)) throw invalidArgument(`options.retrievers[${index}].name`, 'unique among the retrievers', candidate.name);
      names.add(candidate.name);
    });
    this.retrievers = Object.freeze([...(record.retrievers as Retriever[])]);
    this.name = parseName(record.name, 'hybrid');

    let base: RetrievalConfig;
    try {
      base = resolveConfigSection('retrieval', record.config ?? {});
    } catch (error) {
      throw renameErrorField(error, 'config.retrieval', 'options.config');
    }
    const overrides: Record<string, unknown> = {};
    for (const key of ['fusion', 'rrfK', 'weights', 'candidateMultiplier', 'topK'] as const) if (record[key] !== undefined) overrides[key] = record[key];
    let resolved: RetrievalConfig;
    try {
      resolved = resolveConfigSection('retrieval', { ...base, ...overrides });
    } catch (error) {
      throw renameErrorField(error, 'config.retrieval', 'options');
    }
    this.fusion = resolved.fusion;
    this.rrfK = resolved.rrfK;
    this.weights = Object.freeze({ ...resolved.weights });
    this.candidateMultiplier = resolved.candidateMultiplier;
    this.topK = resolved.topK;

    if (record.mmr !== undefined) {
      const mmr = optionsObject(record.mmr, 'options.mmr');
      rejectUnknownOptions(mmr, ['lambda', 'fetchK'], 'options.mmr');
      const lambda = mmr.lambda ?? 0.5;
      if (typeof lambda !== 'number' || !(lambda >= 0 && lambda <= 1)) throw invalidArgument('options.mmr.lambda', 'a number in [0, 1]', mmr.lambda);
      const fetchK = mmr.fetchK;
      if (fetchK !== undefined && (typeof fetchK !== 'number' || !Number.isInteger(fetchK) || fetchK < 1)) throw invalidArgument('options.mmr.fetchK', 'a positive integer', fetchK);
      this.mmr = { lambda, fetchK: fetchK as number | undefined };
    }
  }

  /** The weight of a sub-retriever (1 when the weights do not name it). */
  weightOf(name: string): number {
    return this.weights[name] ?? 1;
  }

  /** The fused `topK` chunks for `query`, best first, each passing `options.filter`. */
  async retrieve(query: string, options?: RetrieveOptions): Promise<ScoredChunk[]> {
    const { topK, filter, analysis, signal } = parseRetrieveOptions(query, options, this.topK);
    if (topK === 0) return [];
    const depth = Math.max(Math.ceil(topK * this.candidateMultiplier), this.mmr?.fetchK ?? 0);
    const active = this.retrievers.filter((retriever) => this.weightOf(retriever.name) > 0);
    const subOptions: RetrieveOptions = { topK: depth };
    if (filter) subOptions.filter = filter;
    if (analysis) subOptions.analysis = analysis;
    if (signal) subOptions.signal = signal;
    const settled = await this.gate.read(() => Promise.allSettled(active.map((retriever) => retriever.retrieve(query, subOptions))));
    const lists: ScoredChunk[][] = [];
    settled.forEach((outcome, index) => {
      const retriever = active[index]!;
      if (outcome.status === 'rejected') throw subRetrieverError(retriever.name, 'retrieve', outcome.reason);
      lists.push(this.checkList(retriever.name, outcome.value, filter ? (chunk) => matchesFilter(chunk, filter) : undefined));
    });
    const fused = this.fuse(active, lists);
    if (!this.mmr) return fused.slice(0, topK);
    const candidates = fused.slice(0, Math.max(this.mmr.fetchK ?? depth, topK));
    if (!candidates.some((candidate) => candidate.chunk.embedding !== undefined)) return candidates.slice(0, topK);
    return maximalMarginalRelevance(candidates, { lambda: this.mmr.lambda, topK });
  }

  /** Replaces the corpus of every sub-retriever that has `index` (options such as `onProgress` are passed on). */
  async index(chunks: DocumentChunk[], options?: unknown): Promise<void> {
    toDocumentChunks(chunks, 'chunks');
    await this.writeChunks('index', chunks, options);
  }

  /** Adds (or updates) chunks in every sub-retriever that has `add`. */
  async add(chunks: DocumentChunk[], options?: unknown): Promise<void> {
    toDocumentChunks(chunks, 'chunks');
    await this.writeChunks('add', chunks, options);
  }

  /** Removes the documents from every sub-retriever that has `remove`. */
  async remove(docIds: string[]): Promise<void> {
    const ids = parseDocIds(docIds, 'docIds');
    await this.writes.run(() => this.gate.write(() => this.fanOut('remove', (retriever) => (retriever.remove ? () => retriever.remove!(ids) : undefined))));
  }

  /**
   * Writes every sub-retriever that can snapshot itself (under `retrievers/<position>/`), one after
   * the other while writes to the hybrid wait, so that they hold one corpus. `hybrid.json` records
   * the sub-retrievers' names and which ones keep their data elsewhere (a database's text search).
   */
  async writeSnapshot(writer: SnapshotWriter): Promise<void> {
    await this.writes.run(async () => {
      const retrievers = this.retrievers.map((retriever) => ({ name: retriever.name, inSnapshot: typeof retriever.writeSnapshot === 'function' }));
      await writeSnapshotJson(writer, 'hybrid.json', { format: 'zerda.hybrid-retriever', version: 1, name: this.name, retrievers });
      for (const [position, retriever] of this.retrievers.entries()) {
        if (!retriever.writeSnapshot) continue;
        await retriever.writeSnapshot(writer.scope(`retrievers/${position}`));
      }
    });
  }

  /**
   * Restores every sub-retriever from a snapshot written by {@link writeSnapshot}. The
   * sub-retrievers must be those of the snapshot (same names, same order); each checks its own
   * settings (see their `readSnapshot`).
   */
  async readSnapshot(reader: SnapshotReader): Promise<void> {
    const record = await readSnapshotJson(reader, 'hybrid.json');
    if (record.format !== 'zerda.hybrid-retriever') throw reader.corrupt('hybrid.json', 'format', `expected format "zerda.hybrid-retriever", got ${JSON.stringify(record.format)}`);
    if (record.version !== 1) throw reader.corrupt('hybrid.json', 'version', `hybrid retriever snapshot version ${JSON.stringify(record.version)} is not supported (this version reads 1)`);
    const recorded = record.retrievers as Array<{ name: string; inSnapshot: boolean }> | undefined;
    if (!Array.isArray(recorded)) throw reader.corrupt('hybrid.json', 'consistency', 'the list of retrievers is missing');
    const names = this.retrievers.map((retriever) => retriever.name);
    if (recorded.length !== names.length || recorded.some((entry, position) => entry?.name !== names[position])) {
      throw invalidArgument('retrievers', `the snapshot's retrievers ${JSON.stringify(recorded.map((entry) => entry?.name))}, in that order`, `retrievers ${JSON.stringify(names)}`);
    }
    await this.writes.run(() => this.gate.write(async () => {
      for (const [position, retriever] of this.retrievers.entries()) {
        if (!recorded[position]!.inSnapshot) continue;
        if (typeof retriever.readSnapshot !== 'function') throw invalidArgument(`retrievers[${position}]`, `a retriever that reads the snapshot of "${retriever.name}" (it has readSnapshot)`, retriever);
        await retriever.readSnapshot(reader.scope(`retrievers/${position}`));
      }
    }));
  }

  /** Neighbouring chunks (see `Retriever.neighbors`) from the first sub-retriever that can look them up; none otherwise. */
  async neighbors(chunks: DocumentChunk[], distance: number, options: { filter?: MetadataFilter } = {}): Promise<DocumentChunk[]> {
    const source = this.retrievers.find((retriever) => typeof retriever.neighbors === 'function');
    if (!source) return [];
    try {
      return await source.neighbors!(chunks, distance, options);
    } catch (error) {
      throw subRetrieverError(source.name, 'neighbors', error);
    }
  }

  /** Prepares every sub-retriever's chunks (nothing changes yet), then commits them all while no read runs. */
  private writeChunks(operation: 'index' | 'add', chunks: DocumentChunk[], options: unknown): Promise<void> {
    return this.writes.run(async () => {
      const writers = this.retrievers.map((retriever) => (retriever as unknown as Record<string, unknown>)[operation] as ((chunks: DocumentChunk[], options?: unknown) => Promise<void>) | undefined);
      const prepared = await Promise.all(
        this.retrievers.map(async (retriever, index) => {
          if (writers[index] === undefined || typeof retriever.prepareChunks !== 'function') return chunks;
          try {
            return await retriever.prepareChunks(chunks, options);
          } catch (error) {
            throw subRetrieverError(retriever.name, operation, error);
          }
        }),
      );
      await this.gate.write(() =>
        this.fanOut(operation, (retriever) => {
          const index = this.retrievers.indexOf(retriever);
          const write = writers[index];
          return write ? () => write.call(retriever, prepared[index]!, options) : undefined;
        }),
      );
    });
  }

  /** The largest size reported by a sub-retriever (0 when none reports one). */
  async size(): Promise<number> {
    let largest = 0;
    for (const retriever of this.retrievers) {
      if (typeof retriever.size !== 'function') continue;
      try {
        largest = Math.max(largest, await retriever.size());
      } catch (error) {
        throw subRetrieverError(retriever.name, 'size', error);
      }
    }
    return largest;
  }

  private async fanOut(operation: string, callOf: (retriever: Retriever) => (() => Promise<void>) | undefined): Promise<void> {
    const calls = this.retrievers.map((retriever) => ({ retriever, call: callOf(retriever) }));
    const settled = await Promise.allSettled(calls.map(({ call }) => (call ? call() : Promise.resolve())));
    settled.forEach((outcome, index) => {
      if (outcome.status === 'rejected') throw subRetrieverError(calls[index]!.retriever.name, operation, outcome.reason);
    });
  }

  /** A sub-retriever's list, checked (shape, finite scores), filtered, sorted best first. */
  private checkList(name: string, list: unknown, accept: ((chunk: DocumentChunk) => boolean) | undefined): ScoredChunk[] {
    if (!Array.isArray(list)) throw createError('ZERDA_BACKEND_ERROR', { component: `retriever "${name}"`, operation: 'retrieve', reason: `returned ${typeof list}, expected an array of ScoredChunk`, retriever: name });
    const kept: ScoredChunk[] = [];
    list.forEach((item: ScoredChunk, index) => {
      if (typeof item !== 'object' || item === null || typeof item.chunk?.id !== 'string' || typeof item.score !== 'number' || Number.isNaN(item.score)) {
        throw createError('ZERDA_BACKEND_ERROR', { component: `retriever "${name}"`, operation: 'retrieve', reason: `result ${index} is not a ScoredChunk with a chunk id and a numeric score`, retriever: name });
      }
      if (accept && !accept(item.chunk)) return;
      kept.push(item);
    });
    // Stable sort: a retriever's own order decides among equal scores.
    return kept.sort((a, b) => b.score - a.score);
  }

  private fuse(retrievers: readonly Retriever[], lists: readonly ScoredChunk[][]): ScoredChunk[] {
    const entries = new Map<string, FusedEntry>();
    lists.forEach((list, listIndex) => {
      const name = retrievers[listIndex]!.name;
      const weight = this.weightOf(name);
      let minimum = Number.POSITIVE_INFINITY;
      let maximum = Number.NEGATIVE_INFINITY;
      for (const item of list) {
        minimum = Math.min(minimum, item.score);
        maximum = Math.max(maximum, item.score);
      }
      const seen = new Set<string>();
      let rank = 0;
      list.forEach((item, position) => {
        // Competition ranking: equal scores share the rank of the first of them.
        if (position === 0 || item.score !== list[position - 1]!.score) rank = position + 1;
        if (seen.has(item.chunk.id)) return;
        seen.add(item.chunk.id);
        const contribution =
          this.fusion === 'rrf'
            ? weight / (this.rrfK + rank)
            : weight * (maximum > minimum ? (item.score - minimum) / (maximum - minimum) : 1);
        let entry = entries.get(item.chunk.id);
        if (!entry) {
          entry = { chunk: item.chunk, termMatches: undefined, scores: {}, retrievers: [], fused: 0, bestPosition: position, firstList: listIndex };
          entries.set(item.chunk.id, entry);
        } else if (entry.chunk.embedding === undefined && item.chunk.embedding !== undefined) {
          entry.chunk = item.chunk; // keep the copy that can take part in MMR
        }
        // What a keyword retriever knows of the query terms the chunk contains (the first one that knows).
        if (entry.termMatches === undefined && item.termMatches !== undefined) entry.termMatches = item.termMatches;
        entry.fused += contribution;
        entry.bestPosition = Math.min(entry.bestPosition, position);
        for (const [key, value] of Object.entries(item.scores ?? {})) {
          if (value !== undefined && entry.scores[key] === undefined) entry.scores[key] = value;
        }
        for (const retrieverName of item.retrievers ?? [name]) if (!entry.retrievers.includes(retrieverName)) entry.retrievers.push(retrieverName);
      });
    });
    const ordered = [...entries.values()].sort((a, b) => b.fused - a.fused || a.bestPosition - b.bestPosition || a.firstList - b.firstList);
    return ordered.map((entry) => {
      const fused: ScoredChunk = { chunk: entry.chunk, score: entry.fused, scores: mergeScores(entry.scores, { fused: entry.fused }), retrievers: entry.retrievers };
      if (entry.termMatches !== undefined) fused.termMatches = entry.termMatches;
      return fused;
    });
  }
}
