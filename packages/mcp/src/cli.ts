#!/usr/bin/env node
// zerda-mcp: serves a zerda engine as an MCP server over stdio. stdout carries the protocol only;
// every message for people goes to stderr.
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ContextEngine, ZerdaError, templateNameSchema, type TemplateName } from '@zerda/context';
import { createContextServer } from './context-server.js';
import { loadFolder } from './load-folder.js';

const USAGE = `usage: zerda-mcp --documents <folder> [options]

Serves the tools "search" and "build_context" over stdio (Model Context Protocol).

  --documents <folder>        index this folder at start: .md/.markdown (chunked by structure),
                              .txt (Arabic-aware chunking) and .jsonl (one chunk per line:
                              {"docId", "text", "source"?, "title"?, "metadata"?})
  --chunk-size <n>            characters per chunk for .md and .txt files (default 1000)
  --template <name>           default, numbered, markdown, xml or citations (default citations)
  --max-context-length <n>    default and maximum context length in characters (default 4000)
  --name <name>               server name announced to clients (default zerda)
  -h, --help                  show this help
`;

function fail(message: string, code = 2): never {
  process.stderr.write(`zerda-mcp: ${message}\n`);
  process.exit(code);
}

function positiveInteger(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) fail(`${flag} must be a positive integer, got "${value}"`);
  return parsed;
}

async function main(): Promise<void> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        documents: { type: 'string' },
        'chunk-size': { type: 'string' },
        template: { type: 'string' },
        'max-context-length': { type: 'string' },
        name: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    fail(`${(error as Error).message}\n\n${USAGE}`);
  }
  if (values.help) {
    process.stderr.write(USAGE);
    return;
  }
  const folder = values.documents as string | undefined;
  if (!folder) fail(`--documents is required\n\n${USAGE}`);
  const template = (values.template as string | undefined) ?? 'citations';
  if (!templateNameSchema.safeParse(template).success) fail(`--template must be one of ${templateNameSchema.options.join(', ')}, got "${template}"`);
  const maxContextLength = positiveInteger(values['max-context-length'] as string | undefined, '--max-context-length', 4000);
  const chunkSize = positiveInteger(values['chunk-size'] as string | undefined, '--chunk-size', 1000);

  const engine = new ContextEngine({ config: { composer: { template: template as TemplateName, maxContextLength } } });
  const { chunks, files } = await loadFolder(folder, { chunkSize });
  if (chunks.length === 0) fail(`no .md, .txt or .jsonl file with text under ${folder}`);
  await engine.index(chunks);
  const server = createContextServer(engine, { name: (values.name as string | undefined) ?? 'zerda' });
  await server.connect(new StdioServerTransport());
  process.stderr.write(`zerda-mcp: ${chunks.length} chunks from ${files.length} files in ${folder}; serving on stdio\n`);
}

main().catch((error: unknown) => {
  fail(ZerdaError.isInstance(error) ? `${error.code}: ${error.message}` : String((error as Error)?.stack ?? error), 1);
});
