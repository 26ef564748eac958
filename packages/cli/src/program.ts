import { resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { templateNameSchema, ZerdaError, type TemplateName } from '@zerda/types';
import { evalCommand, formatEvalReport } from './commands/eval-command.js';
import { formatIndexSummary, indexCommand } from './commands/index-command.js';
import { inspectCommand } from './commands/inspect-command.js';
import { mcpCommand } from './commands/mcp-command.js';
import { formatResult, openIndex, parseFilterOption, runQuery, type QueryOptions } from './commands/query-command.js';
import { serveCommand } from './commands/serve-command.js';
import { CliError, EXIT, exitCodeOf } from './errors.js';
import type { CliIo } from './io.js';
import type { IndexSettings, StoreSpec } from './workspace.js';

const VERSION = '0.1.0';

function positiveInteger(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed < 1) throw new InvalidArgumentError(`${name} must be a positive integer, got "${value}"`);
    return parsed;
  };
}

function positiveIntegerUpTo(name: string, most: number) {
  const parse = positiveInteger(name);
  return (value: string): number => {
    const parsed = parse(value);
    if (parsed > most) throw new InvalidArgumentError(`${name} must be at most ${most}, got "${value}"`);
    return parsed;
  };
}

function nonNegativeInteger(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed)) throw new InvalidArgumentError(`${name} must be an integer >= 0, got "${value}"`);
    return parsed;
  };
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function parseTemplate(value: string): TemplateName {
  if (!templateNameSchema.safeParse(value).success) throw new InvalidArgumentError(`--template must be one of ${templateNameSchema.options.join(', ')}, got "${value}"`);
  return value as TemplateName;
}

function parseBudgets(value: string): number[] {
  const budgets = value.split(',').map((part) => Number(part.trim()));
  if (budgets.length === 0 || budgets.some((budget) => !Number.isInteger(budget) || budget < 1)) throw new InvalidArgumentError(`--budgets must be positive integers separated by commas, got "${value}"`);
  return budgets;
}

/** `--store memory|hnsw|lancedb <dir>|pgvector <url>`: the kind, then the location for external stores. */
function parseStore(values: string[] | undefined, cwd: string, collection?: string): StoreSpec {
  const [kind = 'memory', location, ...rest] = values ?? [];
  if (rest.length > 0) throw new CliError(`--store takes a kind and at most one location, got "${values!.join(' ')}"`, EXIT.usage);
  switch (kind) {
    case 'memory':
    case 'hnsw':
      if (location !== undefined) throw new CliError(`--store ${kind} takes no location (it is saved in the index directory), got "${location}"`, EXIT.usage);
      return { kind };
    case 'lancedb':
      if (!location) throw new CliError('--store lancedb needs a directory: --store lancedb ./vectors', EXIT.usage);
      return { kind, uri: resolve(cwd, location) };
    case 'pgvector':
      if (!location || !/^postgres(ql)?:\/\//.test(location)) throw new CliError('--store pgvector needs a postgres:// URL: --store pgvector postgres://user@host/db', EXIT.usage);
      return { kind, url: location, collection: collection ?? 'zerda_chunks' };
    default:
      throw new CliError(`--store must be memory, hnsw, lancedb <dir> or pgvector <url>, got "${kind}"`, EXIT.usage);
  }
}

function addQueryOptions(command: Command): Command {
  return command
    .option('-i, --index <dir>', 'index directory written by zerda index', '.zerda')
    .option('-b, --budget <n>', 'context budget in the counter unit (default: what the query analysis suggests, at most 4000)', positiveInteger('--budget'))
    .option('--tokens <encoding>', 'measure the budget in tokens: cl100k or o200k (default: characters)')
    .option('--filter <json>', `metadata filter as JSON, e.g. '{"lang":"ar"}' or '{"year":{"$gte":2020}}'`)
    .addOption(new Option('--template <name>', 'context template').argParser(parseTemplate))
    .option('--max-chunks <n>', 'at most this many chunks in the context', positiveInteger('--max-chunks'));
}

function queryOptionsOf(options: Record<string, unknown>): QueryOptions {
  return {
    index: String(options.index ?? '.zerda'),
    ...(options.budget !== undefined ? { budget: options.budget as number } : {}),
    ...(options.tokens !== undefined ? { tokens: String(options.tokens) } : {}),
    ...(options.filter !== undefined ? { filter: String(options.filter) } : {}),
    ...(options.template !== undefined ? { template: options.template as TemplateName } : {}),
    ...(options.maxChunks !== undefined ? { maxChunks: options.maxChunks as number } : {}),
  };
}

/** Builds the `zerda` program; actions write through `io` and record their exit code in `state`. */
export function buildProgram(io: CliIo, state: { exitCode: number }): Command {
  const program = new Command('zerda')
    .description('Context engineering for RAG: index a folder of documents, query it, and see why the context holds what it holds.')
    .version(VERSION, '-v, --version')
    .showHelpAfterError('(run zerda --help, or zerda <command> --help)')
    .configureOutput({ writeOut: (text) => void io.stdout.write(text), writeErr: (text) => void io.stderr.write(text) })
    .exitOverride();
  program.addHelpText(
    'after',
    `
Examples:
  zerda index ./docs                      index a folder (Markdown, HTML, PDF, DOCX, text, CSV, JSON)
  zerda query "ما هي ساعات العمل؟"          the context for a question
  zerda inspect "opening hours" --html report.html
  zerda serve --port 7300                 the inspector live on http://127.0.0.1:7300/
  zerda mcp                               the index as an MCP server on stdio (tools search, build_context)
  zerda eval ../datasets/arcd --split test

Exit codes: 0 ok, 1 failure, 2 usage error, 3 no index (run zerda index), 4 index --strict with failed files.`,
  );

  program
    .command('index')
    .description('load, chunk, embed and index documents, then save a snapshot; a re-run only re-indexes files that changed')
    .argument('<paths...>', 'files and folders (searched recursively)')
    .option('-o, --out <dir>', 'index directory', '.zerda')
    .addOption(new Option('--chunker <name>', 'auto: Markdown structure for Markdown/HTML/DOCX, Arabic-aware for Arabic text, recursive otherwise').choices(['auto', 'recursive', 'structure', 'arabic']).default('auto'))
    .option('--size <n>', 'maximum chunk length in characters', positiveInteger('--size'), 800)
    .option('--overlap <n>', 'characters repeated between neighbouring chunks', nonNegativeInteger('--overlap'), 0)
    .option('--embedder <model>', 'embed with this transformers.js model id (e.g. Xenova/multilingual-e5-small); keyword search only without it')
    .option('--models <dir>', 'folder of local models for --embedder (default: @zerda/embeddings’ models folder)')
    .option('--store <kind...>', 'where vectors live: memory (default), hnsw, lancedb <dir> or pgvector <url>')
    .option('--collection <name>', 'table for --store pgvector', 'zerda_chunks')
    .option('--include <glob>', 'only files matching this glob (repeatable)', collect)
    .option('--exclude <glob>', 'leave out files matching this glob (repeatable)', collect)
    .option('--text-field <name>', 'CSV/JSON field holding the text (repeatable)', collect)
    .option('--title-field <name>', 'CSV/JSON field holding the title')
    .option('--id-field <name>', 'CSV/JSON field holding a stable record id')
    .option('--rebuild', 'rebuild from scratch instead of re-indexing what changed', false)
    .option('--strict', 'exit with code 4 when some files could not be loaded', false)
    .option('-q, --quiet', 'no progress output', false)
    .option('--json', 'print the summary as JSON', false)
    .action(async (paths: string[], options: Record<string, unknown>) => {
      const store = parseStore(options.store as string[] | undefined, io.cwd, options.collection as string);
      if (store.kind !== 'memory' && !options.embedder) throw new CliError(`--store ${store.kind} keeps vectors: it needs --embedder <model>`, EXIT.usage);
      const settings: IndexSettings = {
        chunker: options.chunker as IndexSettings['chunker'],
        size: options.size as number,
        overlap: options.overlap as number,
        ...(options.embedder ? { embedder: String(options.embedder) } : {}),
        ...(options.models ? { models: resolve(io.cwd, String(options.models)) } : {}),
        store,
      };
      if (settings.overlap >= settings.size) throw new CliError(`--overlap must be smaller than --size (${settings.size}), got ${settings.overlap}`, EXIT.usage);
      const fields = {
        ...(options.textField ? { text: options.textField as string[] } : {}),
        ...(options.titleField ? { title: String(options.titleField) } : {}),
        ...(options.idField ? { id: String(options.idField) } : {}),
      };
      const { summary, exitCode } = await indexCommand(
        {
          paths,
          out: String(options.out),
          settings,
          ...(options.include ? { include: options.include as string[] } : {}),
          ...(options.exclude ? { exclude: options.exclude as string[] } : {}),
          ...(Object.keys(fields).length ? { fields } : {}),
          rebuild: Boolean(options.rebuild),
          strict: Boolean(options.strict),
          quiet: Boolean(options.quiet),
          json: Boolean(options.json),
        },
        io,
      );
      io.stdout.write(options.json ? `${JSON.stringify(summary, null, 2)}\n` : formatIndexSummary(summary, io.cwd));
      state.exitCode = exitCode;
    });

  addQueryOptions(
    program
      .command('query')
      .description('print the context zerda builds for a question')
      .argument('<question>', 'the question (Arabic, English or mixed)'),
  )
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
    .option('--explain', 'add the explanation: every chunk with its ranking factors, stage counts, guard, timings', false)
    .action(async (question: string, options: Record<string, unknown>) => {
      const queryOptions = queryOptionsOf(options);
      const engine = await openIndex(queryOptions, io.cwd);
      const result = await runQuery(engine, question, queryOptions);
      io.stdout.write(formatResult(result, options.format as 'text' | 'json' | 'markdown', Boolean(options.explain)));
      if (result.context === '' && options.format === 'text') io.stderr.write(`zerda: the context is empty: no indexed chunk matched${queryOptions.filter ? ' the question and the filter' : ' the question'}\n`);
    });

  addQueryOptions(
    program
      .command('inspect')
      .description('write the inspector for a question: one self-contained HTML page (no network, readable without JavaScript)')
      .argument('<question>', 'the question'),
  )
    .option('--html <file>', 'where to write the page ("-" for standard output)', 'zerda-inspect.html')
    .action(async (question: string, options: Record<string, unknown>) => {
      const queryOptions = queryOptionsOf(options);
      const engine = await openIndex(queryOptions, io.cwd);
      await inspectCommand(engine, question, { ...queryOptions, html: String(options.html) }, io);
    });

  addQueryOptions(program.command('serve').description('serve the inspector with a query box on 127.0.0.1'))
    .option('-p, --port <n>', 'port (0: any free port)', nonNegativeInteger('--port'), 7300)
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--allowed-hosts <names>', 'comma-separated host names the server answers (default: 127.0.0.1, localhost, ::1 and --host); others get 421')
    .action(async (options: Record<string, unknown>) => {
      const queryOptions = queryOptionsOf(options);
      const engine = await openIndex(queryOptions, io.cwd);
      const allowedHosts = options.allowedHosts === undefined ? undefined : String(options.allowedHosts).split(',').map((name) => name.trim()).filter((name) => name.length > 0);
      state.exitCode = await serveCommand(engine, { ...queryOptions, host: String(options.host), port: options.port as number, ...(allowedHosts ? { allowedHosts } : {}) }, io);
    });

  addQueryOptions(
    program
      .command('mcp')
      .description('serve the index over MCP on stdio (tools search and build_context) until the client closes the connection')
      .addHelpText('after', `\n--filter always applies (a client's filter narrows it, never widens it); --budget and --max-chunks are build_context's defaults.\nMCP client configuration: { "mcpServers": { "docs": { "command": "npx", "args": ["@zerda/cli", "mcp", "--index", "/path/to/.zerda"] } } }`),
  )
    .option('--max-results <n>', 'most results of the search tool (1-100)', positiveIntegerUpTo('--max-results', 100))
    .option('--name <name>', 'server name announced to clients', 'zerda')
    .action(async (options: Record<string, unknown>) => {
      const queryOptions = queryOptionsOf(options);
      // Checked before the index is opened: a bad filter is a usage error, whatever the index.
      parseFilterOption(queryOptions.filter);
      const engine = await openIndex(queryOptions, io.cwd);
      state.exitCode = await mcpCommand(engine, { ...queryOptions, name: String(options.name), ...(options.maxResults !== undefined ? { maxResults: options.maxResults as number } : {}) }, io);
    });

  program
    .command('eval')
    .description('nDCG@10, recall and answer-in-context for a BEIR-layout folder (corpus.jsonl, queries.jsonl, qrels.tsv, optional answers.jsonl)')
    .argument('<dataset-dir>', 'the dataset folder')
    .option('--budgets <list>', 'context budgets for answer-in-context, comma-separated', parseBudgets, [300, 500, 1000, 2000])
    .option('--tokens <encoding>', 'budgets in tokens: cl100k or o200k (default: characters)')
    .option('--split <name>', 'only queries of this split (answers.jsonl "split" or query-split.tsv)')
    .option('--limit <n>', 'only the first n queries', positiveInteger('--limit'))
    .option('--qrels <file>', 'judgements file in the folder', 'qrels.tsv')
    .option('--embedder <model>', 'hybrid retrieval with this transformers.js model id')
    .option('--models <dir>', 'folder of local models for --embedder')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['table', 'json']).default('table'))
    .option('-q, --quiet', 'no progress output', false)
    .action(async (datasetDirectory: string, options: Record<string, unknown>) => {
      const report = await evalCommand(
        {
          dataset: datasetDirectory,
          budgets: options.budgets as number[],
          ...(options.tokens ? { tokens: String(options.tokens) } : {}),
          ...(options.split ? { split: String(options.split) } : {}),
          ...(options.limit ? { limit: options.limit as number } : {}),
          qrels: String(options.qrels),
          ...(options.embedder ? { embedder: String(options.embedder) } : {}),
          ...(options.models ? { models: resolve(io.cwd, String(options.models)) } : {}),
          quiet: Boolean(options.quiet) || options.format === 'json',
        },
        io,
      );
      io.stdout.write(options.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatEvalReport(report));
    });

  return program;
}

/**
 * Runs the `zerda` command line (`argv` without `node` and the script) and returns its exit code:
 * 0 ok, 1 failure, 2 usage error, 3 no index, 4 `index --strict` with failed files. Errors are one
 * line on stderr (`zerda: …`), never a stack trace (set `ZERDA_DEBUG=1` for one).
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const state = { exitCode: EXIT.ok as number };
  const program = buildProgram(io, state);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return state.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with code 0; usage errors were already printed by commander.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const code = exitCodeOf(error);
    const message = ZerdaError.isInstance(error) ? `${error.message} [${error.code}]` : error instanceof Error ? error.message : String(error);
    io.stderr.write(`zerda: ${message}\n`);
    if (io.env.ZERDA_DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
    return code;
  }
}
