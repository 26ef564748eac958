import { tool, type Tool, type ToolExecutionOptions } from 'ai';
import { z } from 'zod';
import {
  BRIDGE_RUN_DEFAULTS,
  andFilters,
  assertContextRunner,
  summarizeResult,
  emptyContextMessage,
  invalidArgument,
  parseOrThrow,
  type ContextSummary,
  type ContextRunner,
  type MetadataFilter,
  type RunOptions,
} from '@zerda/context';

/**
 * What the tool returns to the application: the context (numbered for citation with the `citations`
 * template), its citations in context order, the budget and the guard's verdict. The model reads
 * only `context` (see `toModelOutput`).
 */
export type ContextToolOutput = ContextSummary;

/** Input the model sends: the query and, when allowed, a metadata filter. */
export interface ContextToolInput {
  query: string;
  filter?: Record<string, unknown>;
}

/** Run options for one call: fixed, or computed from the call (tenant, conversation …). */
export type ToolRunOptions = Omit<RunOptions, 'signal'>;

export interface ContextToolOptions {
  /** What the model is told the tool does (any language). Default: an English description. */
  description?: string;
  /** Description of the `query` field. */
  queryDescription?: string;
  /** Description of the `filter` field. */
  filterDescription?: string;
  /** Let the model pass a metadata filter (default true). */
  allowFilter?: boolean;
  /**
   * Options of every `run()` (maxChunks, overrideBudget …; `useHistory` and `recordTurn` default to
   * false: the AI SDK owns the conversation), or a function of the call that returns them. Their `metadataFilters` is always applied: a filter from the model is combined with
   * it by `$and`, so the model can narrow but never widen what a tenant sees.
   */
  runOptions?: ToolRunOptions | ((input: ContextToolInput, execution: ToolExecutionOptions<Record<string, unknown>>) => ToolRunOptions | Promise<ToolRunOptions>);
  /** What the model reads when no passage matched. Default: a sentence in the query's language. */
  emptyContextMessage?: string;
}

const optionsSchema = z.strictObject({
  description: z.string().min(1).optional(),
  queryDescription: z.string().min(1).optional(),
  filterDescription: z.string().min(1).optional(),
  allowFilter: z.boolean().optional(),
  runOptions: z.union([z.record(z.string(), z.unknown()), z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', { message: 'a function' })]).optional(),
  emptyContextMessage: z.string().optional(),
});

const DEFAULT_DESCRIPTION =
  'Search the knowledge base for passages relevant to a question and return them as a numbered context with their sources. Call it before answering questions about the documents, and cite the passage numbers you use.';

/** What the model reads: the context, or (when nothing matched) a short sentence in the query's language. */
export function contextForModel(context: string, query: string, whenEmpty?: string): string {
  if (context.trim().length > 0) return context;
  return whenEmpty ?? emptyContextMessage(query);
}

/**
 * An AI SDK tool that builds a zerda context: the model calls it with `{ query, filter? }`, the
 * engine runs, and the tool returns the context with its citations ({@link ContextToolOutput}); the
 * model reads the context text itself (`toModelOutput`), the application gets the citations.
 * Errors (a filter outside the filter language, an aborted call) become the AI SDK's tool errors,
 * which the model sees as the failed call's result. Descriptions may be in any language.
 */
export function contextTool(engine: ContextRunner, options: ContextToolOptions = {}): Tool<ContextToolInput, ContextToolOutput, Record<string, unknown>> {
  assertContextRunner(engine);
  const parsed = parseOrThrow(optionsSchema, options, 'options') ?? {};
  const allowFilter = parsed.allowFilter ?? true;
  const query = z.string().min(1).describe(parsed.queryDescription ?? 'The question or search terms, in the language of the documents when you know it.');
  const inputSchema = allowFilter
    ? z.object({
        query,
        filter: z
          .record(z.string(), z.unknown())
          .optional()
          .describe(parsed.filterDescription ?? 'Optional metadata filter, e.g. {"lang": "ar"} or {"year": {"$gte": 2020}}; operators: $eq $ne $gt $gte $lt $lte $in $nin $exists $and $or $not.'),
      })
    : z.object({ query });
  const runOptions = options.runOptions;
  if (runOptions !== undefined && typeof runOptions !== 'function' && (runOptions === null || typeof runOptions !== 'object')) {
    throw invalidArgument('options.runOptions', 'run options or a function returning them', runOptions);
  }

  return tool<ContextToolInput, ContextToolOutput, Record<string, unknown>>({
    description: parsed.description ?? DEFAULT_DESCRIPTION,
    inputSchema: inputSchema as unknown as z.ZodType<ContextToolInput>,
    async execute(input, execution) {
      const base = typeof runOptions === 'function' ? await runOptions(input, execution) : (runOptions ?? {});
      const metadataFilters = andFilters(base.metadataFilters, allowFilter ? (input.filter as MetadataFilter | undefined) : undefined);
      const result = await engine.run(input.query, {
        ...BRIDGE_RUN_DEFAULTS,
        ...base,
        ...(metadataFilters ? { metadataFilters } : {}),
        ...(execution.abortSignal ? { signal: execution.abortSignal } : {}),
      });
      return summarizeResult(result);
    },
    // Runs where the output may have been stored and read back (convertToModelMessages), so it only
    // uses the output and the input.
    toModelOutput({ input, output }) {
      return { type: 'text', value: contextForModel(output.context, input?.query ?? '', parsed.emptyContextMessage) };
    },
  });
}
