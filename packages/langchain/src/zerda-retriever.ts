import type { CallbackManagerForRetrieverRun } from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';
import type { RunnableConfig } from '@langchain/core/runnables';
import { z } from 'zod';
import {
  andFilters,
  assertContextRunner,
  citationsOf,
  invalidArgument,
  parseOrThrow,
  runForRequest,
  summarizeResult,
  type ContextResult,
  type ContextRunner,
  type ContextSummary,
  type RunOptions,
  type ScopeOptions,
} from '@zerda/context';

/** What `ZerdaRetriever` returns: one Document per chunk of the context, or the whole context as one. */
export type ZerdaRetrieverMode = 'chunks' | 'context';

export interface ZerdaRetrieverInput extends BaseRetrieverInput {
  /** The engine (or anything with its `run()`). */
  engine: ContextRunner;
  /**
   * Options of every `run()` (`metadataFilters` for a tenant, `maxChunks`, `overrideBudget` …).
   * `useHistory` and `recordTurn` default to false: LangChain owns the conversation.
   */
  runOptions?: Omit<RunOptions, 'signal'>;
  /** `chunks` (default): a Document per chunk in the context; `context`: the composed context as one Document. */
  mode?: ZerdaRetrieverMode;
  /**
   * The scope of one call, from LangChain's per-call config (`configurable`, `metadata`): the
   * tenant's filter (ANDed with the retriever's), the identity that keys the cache and history, the
   * conversation. Default: `config.configurable.scope` when it is an object, plus
   * `configurable.thread_id` as the conversation (used only when `runOptions` turn history on).
   */
  scope?: (config: RunnableConfig) => ScopeOptions | undefined;
}

/** The scope of a call by default: `configurable.scope`, with `configurable.thread_id` as its conversation. */
function defaultScope(config: RunnableConfig): ScopeOptions | undefined {
  const configurable = (config.configurable ?? {}) as Record<string, unknown>;
  const given = configurable.scope;
  const scope: ScopeOptions = given !== null && typeof given === 'object' && !Array.isArray(given) ? { ...(given as ScopeOptions) } : {};
  if (scope.conversation === undefined && typeof configurable.thread_id === 'string' && configurable.thread_id.length > 0) scope.conversation = configurable.thread_id;
  return scope;
}

const fieldsSchema = z.strictObject({
  engine: z.unknown().optional(),
  runOptions: z.record(z.string(), z.unknown()).optional(),
  mode: z.enum(['chunks', 'context']).optional(),
  scope: z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', { message: 'a function (config) => scope options' }).optional(),
  // BaseRetrieverInput, checked by LangChain.
  callbacks: z.unknown().optional(),
  tags: z.array(z.string()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  verbose: z.boolean().optional(),
});

/** Metadata of a chunk Document: the chunk's own metadata, then zerda's fields (which win on a clash). */
export interface ZerdaChunkMetadata extends Record<string, unknown> {
  docId: string;
  chunkId: string;
  source: string;
  title?: string;
  /** The passage's number in the context, when the template numbers passages. */
  citation?: number;
  rank: number;
  score: number;
  /** Every factor of the chunk's score (retrieval, keywordBoost … composite, rerank). */
  scores: Record<string, number>;
  fit: 'whole' | 'compressed' | 'truncated';
}

/** Metadata of the context Document of `asContext()`: the result's summary without the context text (it is the page content). */
export type ZerdaContextMetadata = Omit<ContextSummary, 'context'> & Record<string, unknown>;

/**
 * A LangChain.js retriever over a zerda engine: `invoke(query)` runs the whole pipeline (retrieve,
 * filter, rank, rerank, compose within the budget, guard) and returns the chunks that made it into
 * the context as Documents — `pageContent` is the kept text, `metadata` the chunk's metadata plus
 * its document id, source, citation number and per-factor scores. `asContext()` gives the composed
 * context as one Document, for "stuff" chains. LangChain's callbacks fire as for any retriever
 * (`handleRetrieverStart`/`End`, failures through `handleRetrieverError`).
 *
 * Every call runs in a scope resolved from its own config (see {@link ZerdaRetrieverInput.scope}):
 * `config.signal` aborts it, `configurable`/`metadata` choose the tenant and the conversation.
 * `withRunOptions` can only narrow: its filter is ANDed with the one the retriever already has.
 */
export class ZerdaRetriever extends BaseRetriever {
  static override lc_name(): string {
    return 'ZerdaRetriever';
  }

  override lc_namespace = ['zerda', 'retrievers'];

  readonly engine: ContextRunner;
  readonly runOptions: Omit<RunOptions, 'signal'>;
  readonly mode: ZerdaRetrieverMode;
  readonly #scope: ((config: RunnableConfig) => ScopeOptions | undefined) | undefined;
  /** The call this instance serves (set on the per-call copy made by `invoke`). */
  #call: { scope: ScopeOptions | undefined; signal: AbortSignal | undefined } | undefined;

  constructor(fields: ZerdaRetrieverInput) {
    if (fields === null || typeof fields !== 'object') throw invalidArgument('fields', 'an object { engine, runOptions?, mode? }', fields);
    assertContextRunner(fields.engine, 'fields.engine');
    const parsed = parseOrThrow(fieldsSchema, fields, 'fields');
    super(fields);
    this.engine = fields.engine;
    this.runOptions = (parsed.runOptions as Omit<RunOptions, 'signal'> | undefined) ?? {};
    this.mode = parsed.mode ?? 'chunks';
    this.#scope = fields.scope;
  }

  /** The same retriever returning the composed context as one Document (metadata: citations, budget, guard). */
  asContext(): ZerdaRetriever {
    return this.#with({ mode: 'context' });
  }

  /**
   * The same retriever with more run options, merged over these — except the filter, which is
   * ANDed with the one this retriever has (a tenant-bound retriever can be narrowed by whoever holds
   * it, never re-scoped), and the conversation, which cannot be changed once set.
   */
  withRunOptions(runOptions: Omit<RunOptions, 'signal'>): ZerdaRetriever {
    if (runOptions === null || typeof runOptions !== 'object' || Array.isArray(runOptions)) throw invalidArgument('runOptions', 'run options', runOptions);
    if (this.runOptions.conversation !== undefined && runOptions.conversation !== undefined && runOptions.conversation !== this.runOptions.conversation) {
      throw invalidArgument('runOptions.conversation', 'absent or the retriever\'s own conversation (it cannot be changed)', runOptions.conversation);
    }
    const metadataFilters = andFilters(this.runOptions.metadataFilters, runOptions.metadataFilters);
    return this.#with({ runOptions: { ...this.runOptions, ...runOptions, ...(metadataFilters ? { metadataFilters } : {}) } });
  }

  /** Runs the retriever for one call, in the scope resolved from the call's config, with its signal. */
  override async invoke(input: string, options?: RunnableConfig): Promise<Document[]> {
    const config = options ?? {};
    const bound = this.#with({});
    bound.#call = { scope: (this.#scope ?? defaultScope)(config), signal: config.signal };
    return BaseRetriever.prototype.invoke.call(bound, input, options) as Promise<Document[]>;
  }

  override async _getRelevantDocuments(query: string, _runManager?: CallbackManagerForRetrieverRun): Promise<Document[]> {
    const call = this.#call;
    const signal = call?.signal;
    const result = await runForRequest(this.engine, query, call?.scope, {
      // LangChain owns the conversation: history only when the run options ask for it.
      useHistory: false,
      recordTurn: false,
      ...this.runOptions,
      ...(signal ? { signal } : {}),
    });
    return this.mode === 'context' ? [contextDocument(result)] : chunkDocuments(result);
  }

  #with(change: Partial<Pick<ZerdaRetrieverInput, 'mode' | 'runOptions'>>): ZerdaRetriever {
    return new ZerdaRetriever({
      engine: this.engine,
      runOptions: this.runOptions,
      mode: this.mode,
      callbacks: this.callbacks,
      tags: this.tags,
      metadata: this.metadata,
      verbose: this.verbose,
      ...(this.#scope ? { scope: this.#scope } : {}),
      ...change,
    });
  }
}

/** The chunks of a result as Documents, in context order. */
export function chunkDocuments(result: ContextResult): Document<ZerdaChunkMetadata>[] {
  const byId = new Map(result.chunks.map((used) => [used.chunk.id, used.chunk.metadata]));
  return citationsOf(result).map(
    (citation) =>
      new Document<ZerdaChunkMetadata>({
        id: citation.chunkId,
        pageContent: citation.text,
        metadata: {
          ...(byId.get(citation.chunkId) ?? {}),
          docId: citation.docId,
          chunkId: citation.chunkId,
          source: citation.source,
          ...(citation.title !== undefined ? { title: citation.title } : {}),
          ...(citation.number !== undefined ? { citation: citation.number } : {}),
          rank: citation.rank,
          score: citation.score,
          scores: citation.scores,
          fit: citation.fit,
        },
      }),
  );
}

/** A result's composed context as one Document. */
export function contextDocument(result: ContextResult): Document<ZerdaContextMetadata> {
  const { context, ...metadata } = summarizeResult(result);
  return new Document<ZerdaContextMetadata>({ pageContent: context, metadata });
}
