import * as z from 'zod';
import { ZerdaError, andFilters, invalidArgument, parseMetadataFilter, parseOrThrow, type ContextResult, type MetadataFilter } from '@zerda/types';
import type { ConversationHistory } from '@zerda/context-core';
import { MAX_CONVERSATION_ID_LENGTH, type RunMultiOptions, type RunOptions } from './options.js';

/** Longest scope id accepted (one segment; a scope of a scope appends its id to its parent's). */
export const MAX_SCOPE_ID_LENGTH = 256;

/**
 * Who asks, as the engine sees it: the options of `engine.scope(options)` and `scope.scope(options)`.
 *
 * A scope is how many users share one engine. Its `filter` is ANDed with its parent's and with the
 * filter of every call made through it (a call can narrow what the scope sees, never widen or
 * replace it); its history and its cache entries are its own; logs and spans name it by `id` only.
 */
export interface ScopeOptions {
  /**
   * The identity of this scope, appended to its parent's (`tenant`, then `tenant/user`): cache
   * entries are shared by exactly the runs of the same identity and conversation, so a cache hit
   * (`fromCache`) tells one run that the same question was asked before *in its own identity*.
   * Without an id the scope is anonymous: it neither reads nor writes the cache, and nothing of it
   * is shared with any other scope — the safe default for a scope made per request.
   */
  id?: string;
  /** The metadata filter this scope is confined to (a tenant's `{ tenant: 'acme' }` …), ANDed with its parent's. */
  filter?: MetadataFilter;
  /**
   * The conversation this scope's runs belong to: its history enriches follow-up questions and
   * records each turn. Conversations are keyed by the scope's identity, so the same conversation id
   * in two scopes is two conversations. Without one, a scoped run uses no history at all (the
   * engine-level history of single-user use is never reachable from a scope).
   */
  conversation?: string;
}

/** The resolved identity of a scope, as the engine keys its cache, history and logs. */
export interface ScopeState {
  /** The chain of ids (`['acme', 'alice']`); undefined when any level is anonymous. */
  readonly path: readonly string[] | undefined;
  /** Every level's filter, ANDed. */
  readonly filter: MetadataFilter | undefined;
  readonly conversation: string | undefined;
}

/** What a scope needs of its engine (implemented by `ContextEngine`). */
export interface ScopeHost {
  runInScope(scope: ScopeState, query: unknown, options: RunOptions): Promise<ContextResult>;
  runMultiInScope(scope: ScopeState, queries: unknown, options: RunMultiOptions): Promise<{ context: string; results: ContextResult[]; allocations: number[] }>;
  scopeHistory(scope: ScopeState): ConversationHistory | undefined;
}

const scopeOptionsSchema = z.strictObject({
  id: z.string().min(1).max(MAX_SCOPE_ID_LENGTH).optional(),
  filter: z.unknown().optional(),
  conversation: z.string().min(1).max(MAX_CONVERSATION_ID_LENGTH).refine((id) => !id.includes('\u0000'), { message: 'a conversation id without NUL characters' }).optional(),
});

/**
 * A view of an engine for one tenant, user or conversation (see {@link ScopeOptions}): `run`,
 * `runMulti` and `runMultiDetailed` behave as the engine's, confined to the scope. A scope of a scope
 * narrows further. Scopes are cheap: make one per request.
 */
export class Scope {
  /** @internal */
  readonly state: ScopeState;

  /** @internal Use `engine.scope(options)`. */
  constructor(
    private readonly host: ScopeHost,
    options: unknown,
    parent?: ScopeState,
  ) {
    this.state = resolveScope(options, parent);
  }

  /** The scope's identity (`acme/alice`), or undefined for an anonymous scope. Never holds filter values. */
  get id(): string | undefined {
    return this.state.path?.join('/');
  }

  /** The scope's conversation id, when it has one. */
  get conversation(): string | undefined {
    return this.state.conversation;
  }

  /** The scope's filter (every level's, ANDed). */
  get filter(): MetadataFilter | undefined {
    return this.state.filter;
  }

  /** The history of this scope's conversation (undefined without a conversation, or when `multiTurn.enabled` is false). */
  getHistory(): ConversationHistory | undefined {
    return this.host.scopeHistory(this.state);
  }

  /** A narrower scope: its filter is ANDed with this one's, its id appended to this one's. */
  scope(options: ScopeOptions): Scope {
    return new Scope(this.host, options, this.state);
  }

  /**
   * `engine.run(query, options)` within this scope: `options.metadataFilters` is ANDed with the
   * scope's filter; `options.conversation` is allowed only when the scope has none. `useHistory`
   * and `recordTurn` default to true with a conversation and are refused without one.
   */
  run(query: string, options: RunOptions = {}): Promise<ContextResult> {
    return this.host.runInScope(this.state, query, options);
  }

  /** `engine.runMulti` within this scope. */
  async runMulti(queries: string[], options: RunMultiOptions = {}): Promise<string> {
    return (await this.host.runMultiInScope(this.state, queries, options)).context;
  }

  /** `engine.runMultiDetailed` within this scope. */
  runMultiDetailed(queries: string[], options: RunMultiOptions = {}): Promise<{ context: string; results: ContextResult[]; allocations: number[] }> {
    return this.host.runMultiInScope(this.state, queries, options);
  }
}

/** Checks scope options and combines them with the parent's state. */
export function resolveScope(options: unknown, parent?: ScopeState): ScopeState {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('scope', 'scope options { id?, filter?, conversation? }', options);
  const parsed = parseOrThrow(scopeOptionsSchema, options, 'scope');
  const filter = parsed.filter === undefined ? undefined : parseMetadataFilter(parsed.filter, 'scope.filter');
  if (parent?.conversation !== undefined && parsed.conversation !== undefined && parsed.conversation !== parent.conversation) {
    throw new ZerdaError('ZERDA_INVALID_ARGUMENT', {
      field: 'scope.conversation',
      expected: 'absent or the parent scope\'s conversation (a scope in a conversation stays in it)',
      received: 'another conversation id',
    });
  }
  // Anonymous anywhere in the chain: anonymous (a per-request scope below a tenant shares nothing).
  let path: string[] | undefined;
  if (parsed.id !== undefined) path = parent === undefined ? [parsed.id] : parent.path === undefined ? undefined : [...parent.path, parsed.id];
  return {
    path,
    filter: andFilters(parent?.filter, filter),
    conversation: parsed.conversation ?? parent?.conversation,
  };
}

/**
 * What a scoped run does with its options: the filter ANDed with the scope's, the conversation
 * (the scope's or the call's), and history use — only ever a conversation's, never the engine-level
 * history, and refused (`ZERDA_INVALID_ARGUMENT`) when asked for without a conversation.
 */
export function scopedRunOptions(scope: ScopeState, options: RunOptions, parsedFilter: MetadataFilter | undefined): { filter: MetadataFilter | undefined; conversation: string | undefined; useHistory: boolean; recordTurn: boolean } {
  if (scope.conversation !== undefined && options.conversation !== undefined && options.conversation !== scope.conversation) {
    throw new ZerdaError('ZERDA_INVALID_ARGUMENT', {
      field: 'options.conversation',
      expected: 'absent or the scope\'s own conversation (a scope in a conversation stays in it)',
      received: 'another conversation id',
    });
  }
  const conversation = scope.conversation ?? options.conversation;
  for (const key of ['useHistory', 'recordTurn'] as const) {
    if (options[key] === true && conversation === undefined) {
      throw new ZerdaError('ZERDA_INVALID_ARGUMENT', {
        field: `options.${key}`,
        expected: 'a conversation: in a scope, history belongs to a conversation (give the scope or the call a conversation id), never to every user of the engine',
        received: 'true without a conversation',
      });
    }
  }
  return {
    filter: andFilters(scope.filter, parsedFilter),
    conversation,
    useHistory: options.useHistory ?? conversation !== undefined,
    recordTurn: options.recordTurn ?? conversation !== undefined,
  };
}

/**
 * The key of a conversation in the engine's registry: unscoped ids stay as they are; scoped ones are
 * keyed by the scope's identity — for an anonymous scope, by its filter, so that two tenants' scopes
 * using the same conversation id never share a history.
 */
export function conversationKey(scope: ScopeState | undefined, conversation: string): string {
  if (scope === undefined) return conversation;
  return `\u0000${JSON.stringify(scope.path === undefined ? [null, scope.filter ?? null, conversation] : [scope.path, conversation])}`;
}
