#!/usr/bin/env node
// zerda-mcp: serves a zerda engine as an MCP server over stdio. stdout carries the protocol only;
// every message for people goes to stderr.
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ContextEngine, ZerdaError, templateNameSchema, type TemplateName } from '@zerda/context';
import { createContextServer } from './context-server.js';
import { loadFolder } from './load-folder.js';

const USAGE = `usage: zerda-mcp --documents <folder> [options]
       zerda-mcp --snapshot <dir> [options]

Serves the tools "search" and "build_context" over stdio (Model Context Protocol).
Give exactly one of --documents and --snapshot.

  --documents <folder>        index this folder at start: .md/.markdown (chunked by structure),
                              .txt (Arabic-aware chunking) and .jsonl (one chunk per line:
                              {"docId", "text", "source"?, "title"?, "metadata"?})
  --snapshot <dir>            open an engine snapshot written by engine.save(dir) instead of
                              indexing: it answers as the saved engine did
  --chunk-size <n>            characters per chunk for .md and .txt files (default 1000;
                              --documents only)
  --template <name>           default, numbered, markdown, xml or citations (default citations;
                              with --snapshot, the snapshot's)
  --max-context-length <n>    default and maximum context length in characters (default 4000;
                              with --snapshot, the snapshot's)
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
        snapshot: { type: 'string' },
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
  const snapshot = values.snapshot as string | undefined;
  if (folder !== undefined && snapshot !== undefined) fail(`--documents and --snapshot exclude each other: give exactly one\n\n${USAGE}`);
  if (!folder && !snapshot) fail(`--documents <folder> or --snapshot <dir> is required\n\n${USAGE}`);
  if (snapshot !== undefined && values['chunk-size'] !== undefined) fail('--chunk-size applies to --documents only: a snapshot holds its chunks');
  const template = values.template as string | undefined;
  if (template !== undefined && !templateNameSchema.safeParse(template).success) fail(`--template must be one of ${templateNameSchema.options.join(', ')}, got "${template}"`);
  const maxContextLength = values['max-context-length'] === undefined ? undefined : positiveInteger(values['max-context-length'] as string, '--max-context-length', 4000);
  const name = (values.name as string | undefined) ?? 'zerda';

  let engine: ContextEngine;
  let origin: string;
  if (snapshot) {
    // The snapshot holds the configuration it was saved with; a flag given here overrides it.
    engine = await ContextEngine.open(snapshot, {
      ...(template !== undefined ? { template: template as TemplateName } : {}),
      ...(maxContextLength !== undefined ? { config: { composer: { maxContextLength } } } : {}),
    });
    origin = `${engine.size} chunks from the snapshot ${snapshot}`;
  } else {
    const chunkSize = positiveInteger(values['chunk-size'] as string | undefined, '--chunk-size', 1000);
    engine = new ContextEngine({ config: { composer: { template: (template as TemplateName | undefined) ?? 'citations', maxContextLength: maxContextLength ?? 4000 } } });
    const { chunks, files } = await loadFolder(folder!, { chunkSize });
    if (chunks.length === 0) fail(`no .md, .txt or .jsonl file with text under ${folder}`);
    await engine.index(chunks);
    origin = `${chunks.length} chunks from ${files.length} files in ${folder}`;
  }
  const server = createContextServer(engine, { name });
  await server.connect(new StdioServerTransport());
  process.stderr.write(`zerda-mcp: ${origin}; serving on stdio\n`);
}

main().catch((error: unknown) => {
  fail(ZerdaError.isInstance(error) ? `${error.code}: ${error.message}` : String((error as Error)?.stack ?? error), 1);
});
