import { tool, type Tool, type ToolExecutionOptions } from 'ai';
import { z } from 'zod';
import {
  andFilters,
  assertContextRunner,
  summarizeResult,
  emptyContextMessage,
  invalidArgument,
  parseOrThrow,
  runForRequest,
  type ContextSummary,
  type ContextRunner,
  type MetadataFilter,
  type RunOptions,
  type ScopeOptions,
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

/**
 * The tool's per-request context (`generateText({ toolsContext: { [toolName]: … } })`): by default
 * the call's scope — `{ id?, filter?, conversation? }` (other keys pass through for a `scope` resolver to read).
 */
export type ContextToolContext = {
  id?: string;
  filter?: Record<string, unknown>;
  conversation?: string;
};

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
  runOptions?: ToolRunOptions | ((input: ContextToolInput, execution: ToolExecutionOptions<ContextToolContext | undefined>) => ToolRunOptions | Promise<ToolRunOptions>);
  /**
   * The scope of one call, from the AI SDK's request context: given the input and the execution
   * options (`execution.context` is what `generateText({ toolsContext: { [toolName]: … } })` passed
   * for this tool), it returns `{ id?, filter?, conversation? }` — the tenant's filter, which the
   * model's filter can only narrow, and the identity that keys the cache and the history. Default:
   * `execution.context` itself when it is an object (e.g. `toolsContext: { search: { id: 'acme',
   * filter: { tenant: 'acme' } } }`), otherwise an anonymous scope that shares nothing.
   */
  scope?: (request: { input: ContextToolInput; context: unknown; execution: ToolExecutionOptions<ContextToolContext | undefined> }) => ScopeOptions | undefined | Promise<ScopeOptions | undefined>;
  /** What the model reads when no passage matched. Default: a sentence in the query's language. */
  emptyContextMessage?: string;
}

const optionsSchema = z.strictObject({
  description: z.string().min(1).optional(),
  queryDescription: z.string().min(1).optional(),
  filterDescription: z.string().min(1).optional(),
  allowFilter: z.boolean().optional(),
  runOptions: z.union([z.record(z.string(), z.unknown()), z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', { message: 'a function' })]).optional(),
  scope: z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', { message: 'a function' }).optional(),
  emptyContextMessage: z.string().optional(),
});

/** A metadata filter kept as sent (a record schema would rebuild it and silently drop a "__proto__" key): the engine validates it. */
const filterObject = z
  .unknown()
  .refine((value) => value !== null && typeof value === 'object' && !Array.isArray(value), { message: 'a metadata filter object' })
  .meta({ type: 'object', additionalProperties: {} });

/** The tool's context schema: the scope's fields, and whatever else a `scope` resolver reads. */
const contextSchema = z
  .looseObject({ id: z.string().min(1).optional(), filter: filterObject.optional(), conversation: z.string().min(1).optional() })
  .optional() as unknown as z.ZodType<ContextToolContext>;

/** The scope of a call by default: the tool's context when it is an object, else anonymous. */
function defaultScope(context: unknown): ScopeOptions | undefined {
  return context !== null && typeof context === 'object' && !Array.isArray(context) ? (context as ScopeOptions) : undefined;
}

const DEFAULT_DESCRIPTION =
  'Search the knowledge base for passages relevant to a question and return them as a numbered context with their sources. Call it before answering questions about the documents, and cite the passage numbers you use.';

/**
 * What the model reads: the context, or (when it is empty) a short sentence in the query's language
 * — "nothing matched", or, given the output, "passages matched but none fit the budget".
 */
export function contextForModel(context: string, query: string, whenEmpty?: string, output?: Pick<ContextSummary, 'matched' | 'budget'>): string {
  if (context.trim().length > 0) return context;
  return whenEmpty ?? emptyContextMessage(query, output && typeof output.matched === 'number' ? output : undefined);
}

/**
 * An AI SDK tool that builds a zerda context: the model calls it with `{ query, filter? }`, the
 * engine runs, and the tool returns the context with its citations ({@link ContextToolOutput}); the
 * model reads the context text itself (`toModelOutput`), the application gets the citations.
 * Errors (a filter outside the filter language, an aborted call) become the AI SDK's tool errors,
 * which the model sees as the failed call's result. Descriptions may be in any language.
 */
export function contextTool(engine: ContextRunner, options: ContextToolOptions = {}): Tool<ContextToolInput, ContextToolOutput, ContextToolContext | undefined> {
  assertContextRunner(engine);
  const parsed = parseOrThrow(optionsSchema, options, 'options') ?? {};
  const allowFilter = parsed.allowFilter ?? true;
  const query = z.string().min(1).describe(parsed.queryDescription ?? 'The question or search terms, in the language of the documents when you know it.');
  const inputSchema = allowFilter
    ? z.object({
        query,
        filter: filterObject
          .optional()
          .describe(parsed.filterDescription ?? 'Optional metadata filter, e.g. {"lang": "ar"} or {"year": {"$gte": 2020}}; operators: $eq $ne $gt $gte $lt $lte $in $nin $exists $and $or $not.'),
      })
    : z.object({ query });
  const runOptions = options.runOptions;
  if (runOptions !== undefined && typeof runOptions !== 'function' && (runOptions === null || typeof runOptions !== 'object')) {
    throw invalidArgument('options.runOptions', 'run options or a function returning them', runOptions);
  }

  // The context is optional (`toolsContext` may omit this tool: an anonymous scope), which tool()'s own typing cannot say.
  return tool<ContextToolInput, ContextToolOutput, ContextToolContext>({
    description: parsed.description ?? DEFAULT_DESCRIPTION,
    inputSchema: inputSchema as unknown as z.ZodType<ContextToolInput>,
    contextSchema,
    async execute(input, execution) {
      const base = typeof runOptions === 'function' ? await runOptions(input, execution) : (runOptions ?? {});
      const scope = options.scope ? await options.scope({ input, context: execution.context, execution }) : defaultScope(execution.context);
      const metadataFilters = andFilters(base.metadataFilters, allowFilter ? (input.filter as MetadataFilter | undefined) : undefined);
      const result = await runForRequest(engine, input.query, scope, {
        ...base,
        ...(metadataFilters ? { metadataFilters } : {}),
        ...(execution.abortSignal ? { signal: execution.abortSignal } : {}),
      });
      return summarizeResult(result);
    },
    // Runs where the output may have been stored and read back (convertToModelMessages), so it only
    // uses the output and the input.
    toModelOutput({ input, output }) {
      return { type: 'text', value: contextForModel(output.context, input?.query ?? '', parsed.emptyContextMessage, output) };
    },
  }) as unknown as Tool<ContextToolInput, ContextToolOutput, ContextToolContext | undefined>;
}
