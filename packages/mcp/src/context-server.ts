import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  andFilters,
  assertContextRunner,
  citationsOf,
  emptyContextMessage,
  parseOrThrow,
  runForRequest,
  summarizeResult,
  type ContextRunner,
  type MetadataFilter,
  type RunOptions,
  type ScopeOptions,
} from '@zerda/context';

/** What an MCP request tells about who asks: its session and the transport's authentication. */
export interface McpRequestContext {
  /** The MCP session id (streamable HTTP), when the transport has sessions. */
  sessionId?: string;
  /** What the transport's authentication established (a bearer token's client, scopes, `extra` claims). */
  authInfo?: AuthInfo;
}

export interface ContextServerOptions {
  /** Server name announced to clients. Default `zerda`. */
  name?: string;
  /** Server version announced to clients. Default `0.1.0`. */
  version?: string;
  /**
   * Options of every `run()`. Their `metadataFilters` always applies: a client's filter is combined
   * with it by `$and` (it can narrow, never widen, what this server shows). `useHistory` and
   * `recordTurn` default to false: the client owns the conversation.
   */
  runOptions?: Omit<RunOptions, 'signal'>;
  /** Let clients pass a metadata filter (default true). */
  allowFilter?: boolean;
  /** Most results `search` returns (default 10; a client may ask for fewer). */
  maxSearchResults?: number;
  /** Tool descriptions, in any language. */
  descriptions?: { search?: string; buildContext?: string };
  /**
   * The scope of one request, from its session and authentication: the tenant's filter (ANDed with
   * `runOptions.metadataFilters` and the client's), the identity that keys the cache and history,
   * the conversation. Default: the session id as the scope's id (cache entries shared within one
   * session only), no tenant filter beyond `runOptions`. A server that serves several tenants over
   * HTTP must authenticate and resolve the tenant here, e.g. from `authInfo.extra.tenant`.
   */
  scope?: (request: McpRequestContext) => ScopeOptions | undefined | Promise<ScopeOptions | undefined>;
}

/** The scope of a request by default: the session, when there is one; otherwise anonymous. */
function sessionScope({ sessionId }: McpRequestContext): ScopeOptions | undefined {
  return sessionId ? { id: `session:${sessionId}` } : undefined;
}

const optionsSchema = z.strictObject({
  name: z.string().min(1).optional(),
  version: z.string().min(1).optional(),
  runOptions: z.record(z.string(), z.unknown()).optional(),
  allowFilter: z.boolean().optional(),
  maxSearchResults: z.number().int().min(1).max(100).optional(),
  descriptions: z.strictObject({ search: z.string().min(1).optional(), buildContext: z.string().min(1).optional() }).optional(),
  scope: z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', { message: 'a function' }).optional(),
});

// Kept as sent (a record schema would rebuild the object and silently drop a "__proto__" key, so the
// search would run unfiltered): the engine validates it and refuses what is not in the filter language.
const filterField = z
  .unknown()
  .refine((value) => value !== null && typeof value === 'object' && !Array.isArray(value), { message: 'a metadata filter object' })
  .meta({ type: 'object', additionalProperties: {} })
  .optional()
  .describe('Optional metadata filter, e.g. {"lang": "ar"} or {"year": {"$gte": 2020}}; operators: $eq $ne $gt $gte $lt $lte $in $nin $exists $and $or $not.');
const queryField = z.string().min(1).max(10_000).describe('The question or search terms.');

const scoresShape = z.record(z.string(), z.number());
const searchResult = z.object({
  rank: z.number().int(),
  chunkId: z.string(),
  docId: z.string(),
  source: z.string(),
  title: z.string().optional(),
  score: z.number(),
  scores: scoresShape,
  text: z.string(),
});
const citation = z.object({
  number: z.number().int().optional(),
  chunkId: z.string(),
  docId: z.string(),
  source: z.string(),
  title: z.string().optional(),
  rank: z.number().int(),
  score: z.number(),
  scores: scoresShape,
  fit: z.enum(['whole', 'compressed', 'truncated']),
  text: z.string(),
});

/** The budget of `search`: large enough that every ranked chunk is returned whole. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/**
 * An MCP server (`McpServer` of `@modelcontextprotocol/sdk`) over a zerda engine, with two tools
 * that have input schemas and structured output:
 * - `search` — `{ query, filter?, limit? }` → the ranked (and reranked) chunks, whole, best first;
 * - `build_context` — `{ query, filter?, budget?, maxChunks? }` → the context composed within the
 *   budget, its citations, the budget used and the guard's verdict.
 * Connect it to any transport (`StdioServerTransport`, streamable HTTP, `InMemoryTransport`).
 * Bad arguments (schema violations, a filter outside the filter language) come back as tool errors
 * (`isError: true` with the reason), never as a crash of the server.
 */
export function createContextServer(engine: ContextRunner, options: ContextServerOptions = {}): McpServer {
  assertContextRunner(engine);
  const parsed = parseOrThrow(optionsSchema, options, 'options') ?? {};
  const base = (parsed.runOptions ?? {}) as Omit<RunOptions, 'signal'>;
  const allowFilter = parsed.allowFilter ?? true;
  const maxResults = parsed.maxSearchResults ?? 10;
  const server = new McpServer({ name: parsed.name ?? 'zerda', version: parsed.version ?? '0.1.0' });
  const resolveScope = options.scope ?? sessionScope;
  const run = async (query: string, filter: Record<string, unknown> | undefined, extra: Partial<RunOptions>, request: McpRequestContext & { signal?: AbortSignal }) => {
    const metadataFilters = andFilters(base.metadataFilters, allowFilter ? (filter as MetadataFilter | undefined) : undefined);
    const scope = await resolveScope({ ...(request.sessionId ? { sessionId: request.sessionId } : {}), ...(request.authInfo ? { authInfo: request.authInfo } : {}) });
    return runForRequest(engine, query, scope, {
      useHistory: false,
      recordTurn: false,
      ...base,
      ...extra,
      ...(metadataFilters ? { metadataFilters } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    });
  };

  server.registerTool(
    'search',
    {
      title: 'Search the knowledge base',
      description: parsed.descriptions?.search ?? 'Find the passages most relevant to a query, ranked best first, each with its source, scores and full text.',
      inputSchema: {
        query: queryField,
        ...(allowFilter ? { filter: filterField } : {}),
        limit: z.number().int().min(1).max(maxResults).optional().describe(`How many passages (at most ${maxResults}).`),
      },
      outputSchema: { results: z.array(searchResult) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => {
      const { query, filter, limit } = args as { query: string; filter?: Record<string, unknown>; limit?: number };
      const result = await run(query, filter, { maxChunks: limit ?? maxResults, overrideBudget: UNBOUNDED }, extra);
      const results = citationsOf(result).map(({ rank, chunkId, docId, source, title, score, scores, text }) => ({
        rank,
        chunkId,
        docId,
        source,
        ...(title !== undefined ? { title } : {}),
        score,
        scores,
        text,
      }));
      const listing = results.map((hit) => `${hit.rank}. [${hit.source}]${hit.title ? ` ${hit.title}` : ''}\n${hit.text}`).join('\n\n');
      return { content: [{ type: 'text' as const, text: listing || emptyContextMessage(query) }], structuredContent: { results } };
    },
  );

  server.registerTool(
    'build_context',
    {
      title: 'Build a context for a question',
      description:
        parsed.descriptions?.buildContext ??
        'Build the best context for answering a question within a budget: relevant passages, de-duplicated, ranked, fitted to the budget and checked, numbered for citation, with their sources.',
      inputSchema: {
        query: queryField,
        ...(allowFilter ? { filter: filterField } : {}),
        budget: z.number().int().min(1).max(1_000_000).optional().describe('Maximum context length in the engine\'s unit (characters unless it counts tokens).'),
        maxChunks: z.number().int().min(1).max(100).optional().describe('Maximum number of passages.'),
      },
      outputSchema: {
        query: z.string(),
        context: z.string(),
        citations: z.array(citation),
        budget: z.object({ limit: z.number(), used: z.number(), unit: z.string(), utilization: z.number() }),
        guardPassed: z.boolean(),
        warnings: z.array(z.string()),
        fromCache: z.boolean(),
        matched: z.number().int(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => {
      const { query, filter, budget, maxChunks } = args as { query: string; filter?: Record<string, unknown>; budget?: number; maxChunks?: number };
      const result = await run(query, filter, { ...(budget !== undefined ? { overrideBudget: budget } : {}), ...(maxChunks !== undefined ? { maxChunks } : {}) }, extra);
      const structuredContent = { ...summarizeResult(result) };
      return { content: [{ type: 'text' as const, text: result.context.trim() ? result.context : emptyContextMessage(query, structuredContent) }], structuredContent };
    },
  );

  return server;
}
