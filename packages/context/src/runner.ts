import type { ContextResult } from '@zerda/types';
import { invalidArgument, redactError } from '@zerda/types';
import { detectLanguage } from '@zerda/text';
import type { RunOptions } from './options.js';
import type { ScopeOptions } from './scope.js';

/**
 * What the framework bridges (`@zerda/ai-sdk`, `@zerda/langchain`, `@zerda/mcp`) need of an engine:
 * its `run()`. A `ContextEngine` is one; so is anything that runs the pipeline the same way (a
 * wrapper that adds a tenant filter, a handle bound to one conversation).
 */
export interface ContextRunner {
  run(query: string, options?: RunOptions): Promise<ContextResult>;
}

/** Checks a bridge's engine argument: a `ZerdaError` naming `field` unless it has a `run` method. */
export function assertContextRunner(engine: unknown, field = 'engine'): asserts engine is ContextRunner {
  if (engine === null || typeof engine !== 'object' || typeof (engine as ContextRunner).run !== 'function') {
    throw invalidArgument(field, 'a ContextEngine (an object with run(query, options))', engine);
  }
}

/**
 * The run options the framework bridges start from: no engine-level conversation history. The
 * framework owns the conversation (AI SDK messages, LangChain memory, an MCP client), and one engine
 * serves many users, so a bridge neither enriches a query with nor records it into the engine's
 * single history unless the application asks for it (`useHistory` / `recordTurn` in its run options).
 */
export const BRIDGE_RUN_DEFAULTS: Readonly<Pick<RunOptions, 'useHistory' | 'recordTurn'>> = Object.freeze({ useHistory: false, recordTurn: false });

/**
 * What a bridge tells a model when the context is empty: one sentence, in Arabic for an Arabic
 * query, in English otherwise (an empty string would read as a failure to call the tool). Given the
 * run's result, it tells "nothing matched" apart from "passages matched but none fit the budget".
 */
export function emptyContextMessage(query: string, result?: { matched: number; budget: { limit: number; unit: string } }): string {
  if (typeof query !== 'string') throw invalidArgument('query', 'a string (the question)', query);
  const arabic = detectLanguage(query) === 'ar';
  if (result !== undefined && result.matched > 0) {
    return arabic
      ? `وُجدت مقاطع ذات صلة، لكن لم يتّسع لأيٍّ منها الحدّ المسموح (${result.budget.limit} ${result.budget.unit === 'tokens' ? 'رمزاً' : 'حرفاً'}).`
      : `Relevant passages were found, but none fit within the budget (${result.budget.limit} ${result.budget.unit}).`;
  }
  return arabic ? 'لم يُعثر على مقاطع ذات صلة في قاعدة المعرفة.' : 'No relevant passages were found in the knowledge base.';
}

/**
 * A runner for one request: `resolved` scope options applied to `engine` when it can make scopes
 * (`engine.scope(…)`: a `ContextEngine` or a `Scope`), so that the request's filter is ANDed and its
 * history and cache entries are keyed by the scope. A runner without `scope()` (a wrapper the
 * application wrote) is used as it is, and must isolate its requests itself.
 */
export function scopedRunner(engine: ContextRunner, resolved: ScopeOptions | undefined): ContextRunner {
  assertContextRunner(engine);
  const scoping = engine as ContextRunner & { scope?: (options: ScopeOptions) => ContextRunner };
  if (typeof scoping.scope !== 'function') {
    if (resolved !== undefined && Object.keys(resolved).length > 0) {
      throw invalidArgument('scope', 'a ContextEngine or a Scope (with scope()) when a scope is resolved per request', engine);
    }
    return engine;
  }
  return scoping.scope(resolved ?? {});
}

/**
 * Runs `query` for one request of a bridge or server: in the scope resolved for the request (see
 * {@link scopedRunner}; a scope's history is its conversation's, and without one no history is
 * used), or — for a runner that cannot make scopes — with {@link BRIDGE_RUN_DEFAULTS} first. A
 * failure is rethrown redacted (`redactError`: code and field path, no filter values or query
 * words), with the original as its `cause`, because what a bridge throws reaches a model or a client.
 */
export async function runForRequest(engine: ContextRunner, query: string, scope: ScopeOptions | undefined, options: RunOptions = {}): Promise<ContextResult> {
  assertContextRunner(engine);
  let runner: ContextRunner;
  try {
    runner = scopedRunner(engine, scope);
  } catch (error) {
    throw redactError(error);
  }
  const scoped = typeof (engine as { scope?: unknown }).scope === 'function';
  try {
    return await runner.run(query, scoped ? options : { ...BRIDGE_RUN_DEFAULTS, ...options });
  } catch (error) {
    throw redactError(error);
  }
}
