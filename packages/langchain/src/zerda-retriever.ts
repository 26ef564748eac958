import type { CallbackManagerForRetrieverRun } from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';
import { z } from 'zod';
import { BRIDGE_RUN_DEFAULTS, assertContextRunner, citationsOf, invalidArgument, parseOrThrow, summarizeResult, type ContextResult, type ContextRunner, type ContextSummary, type RunOptions } from '@zerda/context';

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
}

const fieldsSchema = z.strictObject({
  engine: z.unknown().optional(),
  runOptions: z.record(z.string(), z.unknown()).optional(),
  mode: z.enum(['chunks', 'context']).optional(),
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
 */
export class ZerdaRetriever extends BaseRetriever {
  static override lc_name(): string {
    return 'ZerdaRetriever';
  }

  override lc_namespace = ['zerda', 'retrievers'];

  readonly engine: ContextRunner;
  readonly runOptions: Omit<RunOptions, 'signal'>;
  readonly mode: ZerdaRetrieverMode;

  constructor(fields: ZerdaRetrieverInput) {
    if (fields === null || typeof fields !== 'object') throw invalidArgument('fields', 'an object { engine, runOptions?, mode? }', fields);
    assertContextRunner(fields.engine, 'fields.engine');
    const parsed = parseOrThrow(fieldsSchema, fields, 'fields');
    super(fields);
    this.engine = fields.engine;
    this.runOptions = (parsed.runOptions as Omit<RunOptions, 'signal'> | undefined) ?? {};
    this.mode = parsed.mode ?? 'chunks';
  }

  /** The same retriever returning the composed context as one Document (metadata: citations, budget, guard). */
  asContext(): ZerdaRetriever {
    return this.#with({ mode: 'context' });
  }

  /** The same retriever with other run options (e.g. one tenant's `metadataFilters`), merged over these. */
  withRunOptions(runOptions: Omit<RunOptions, 'signal'>): ZerdaRetriever {
    return this.#with({ runOptions: { ...this.runOptions, ...runOptions } });
  }

  override async _getRelevantDocuments(query: string, _runManager?: CallbackManagerForRetrieverRun): Promise<Document[]> {
    const result = await this.engine.run(query, { ...BRIDGE_RUN_DEFAULTS, ...this.runOptions });
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
