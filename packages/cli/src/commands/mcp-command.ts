import { relative, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ContextEngine } from '@zerda/context';
import { createContextServer } from '@zerda/mcp';
import { CliError, EXIT } from '../errors.js';
import type { CliIo } from '../io.js';
import { parseFilterOption, type QueryOptions } from './query-command.js';

/** Options of `zerda mcp`: the query options (index, tokens, template, filter, budget, max chunks) and the server's own. */
export interface McpCommandOptions extends QueryOptions {
  /** The server name announced to clients. */
  name: string;
  /** Most results of the `search` tool. */
  maxResults?: number;
}

function isStream(value: unknown): value is Readable & Writable {
  return typeof (value as { on?: unknown } | undefined)?.on === 'function' && typeof (value as { once?: unknown }).once === 'function';
}

/**
 * `zerda mcp`: serves an opened index over MCP on stdio with `createContextServer` of `@zerda/mcp`
 * (tools `search` and `build_context`) until the client closes standard input, or Ctrl-C / SIGTERM.
 * `--filter` always applies (a client's filter can narrow it, never widen it); `--budget` and
 * `--max-chunks` are the defaults of `build_context`, which a client's `budget` / `maxChunks`
 * replace. stdout carries the protocol only; messages for people go to stderr.
 */
export async function mcpCommand(engine: ContextEngine, options: McpCommandOptions, io: CliIo): Promise<number> {
  if (!isStream(io.stdin) || !isStream(io.stdout)) throw new CliError('zerda mcp needs the standard input and output streams of a process (it speaks MCP over stdio)', EXIT.failure);
  const filter = parseFilterOption(options.filter);
  const server = createContextServer(engine, {
    name: options.name,
    ...(options.maxResults !== undefined ? { maxSearchResults: options.maxResults } : {}),
    runOptions: {
      ...(filter ? { metadataFilters: filter } : {}),
      ...(options.budget ? { overrideBudget: options.budget } : {}),
      ...(options.maxChunks ? { maxChunks: options.maxChunks } : {}),
    },
  });
  const stdin = io.stdin;
  // The client ends the session by closing our standard input (the MCP stdio transport's shutdown).
  const inputClosed = new Promise<void>((resolvePromise) => {
    stdin.once('end', () => resolvePromise());
    stdin.once('close', () => resolvePromise());
  });
  await server.connect(new StdioServerTransport(stdin, io.stdout));
  const origin = relative(io.cwd, resolve(io.cwd, options.index)) || options.index;
  io.stderr.write(`zerda: serving ${origin} (${engine.size} chunks) over MCP on stdio\n`);
  await Promise.race([inputClosed, io.untilInterrupted()]);
  await server.close();
  return EXIT.ok;
}
