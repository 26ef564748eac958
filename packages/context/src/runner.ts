import type { ContextResult } from '@zerda/types';
import { invalidArgument } from '@zerda/types';
import type { RunOptions } from './options.js';

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
