import { resolve } from 'node:path';
import { explainResult, parseMetadataFilter, type ContextEngine, type Scope, type ContextResult, type MetadataFilter, type TemplateName } from '@zerda/context';
import { openEngine, createCounter, type EngineChoice } from '../engine-setup.js';
import { CliError, EXIT } from '../errors.js';
import { requireManifest } from '../workspace.js';

/** Options shared by `query`, `inspect` and `serve`. */
export interface QueryOptions {
  index: string;
  budget?: number;
  tokens?: string;
  filter?: string;
  template?: TemplateName;
  maxChunks?: number;
}

/** A parsed `--filter` (JSON in zerda's metadata-filter language). */
export function parseFilterOption(filter: string | undefined): MetadataFilter | undefined {
  if (filter === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(filter);
  } catch (error) {
    throw new CliError(`--filter must be JSON (e.g. '{"lang":"ar"}' or '{"year":{"$gte":2020}}'), got ${JSON.stringify(filter)}: ${(error as Error).message}`, EXIT.usage, { cause: error });
  }
  return parseMetadataFilter(value, '--filter');
}

/** The engine choice (template, length counter) of query options. */
export function choiceOf(options: QueryOptions): EngineChoice {
  const lengthCounter = createCounter(options.tokens);
  return {
    ...(options.template ? { template: options.template } : {}),
    ...(lengthCounter ? { lengthCounter } : {}),
  };
}

/** Opens the index of `options.index` (relative to `cwd`). */
export async function openIndex(options: QueryOptions, cwd: string): Promise<ContextEngine> {
  const directory = resolve(cwd, options.index);
  const manifest = await requireManifest(directory);
  return openEngine(directory, manifest, choiceOf(options));
}

/**
 * Runs one query with the options' filter, budget and chunk limit — on the engine, or in a scope
 * (a request of `zerda serve`: its own history, if any, and no other request's).
 */
export async function runQuery(engine: ContextEngine | Scope, query: string, options: QueryOptions & { signal?: AbortSignal }): Promise<ContextResult> {
  if (query.trim() === '') throw new CliError('the question is empty', EXIT.usage);
  const filter = parseFilterOption(options.filter);
  return engine.run(query, {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(filter ? { metadataFilters: filter } : {}),
    ...(options.budget ? { overrideBudget: options.budget } : {}),
    ...(options.maxChunks ? { maxChunks: options.maxChunks } : {}),
  });
}

function sourceLine(chunk: ContextResult['chunks'][number]): string {
  const pages = chunk.chunk.metadata?.pages;
  const pageText = Array.isArray(pages) && pages.length > 0 ? (pages.length === 1 ? ` (p. ${pages[0]})` : ` (pp. ${pages[0]}–${pages[pages.length - 1]})`) : '';
  return `${chunk.citation !== undefined ? `[${chunk.citation}] ` : ''}${chunk.chunk.source || chunk.chunk.docId}${pageText}`;
}

/** A result as `text` (the context), `markdown` (context + sources table) or `json` (the whole result). */
export function formatResult(result: ContextResult, format: 'text' | 'json' | 'markdown', explain: boolean): string {
  if (format === 'json') return `${JSON.stringify(explain ? { ...result, explanation: explainResult(result) } : result, null, 2)}\n`;
  if (format === 'markdown') {
    const rows = result.chunks.map((chunk) => `| ${chunk.citation ?? chunk.rank} | ${sourceLine(chunk).replace(/^\[\d+\] /, '').replace(/\|/g, '\\|')} | ${chunk.scores.composite?.toFixed(3) ?? '–'} | ${chunk.fit} |`);
    const parts = [`## Context\n\n${result.context || '_(empty)_'}`, `## Sources\n\n| # | source | score | fit |\n|---|---|---|---|\n${rows.join('\n')}`, `_${result.budget.used} / ${result.budget.limit} ${result.budget.unit}; guard ${result.guardPassed ? 'passed' : 'failed'}_`];
    if (explain) parts.push(`## Explanation\n\n\`\`\`\n${explainResult(result)}\n\`\`\``);
    return `${parts.join('\n\n')}\n`;
  }
  let out = result.context.endsWith('\n') || result.context === '' ? result.context : `${result.context}\n`;
  if (explain) out += `\n${explainResult(result)}\n`;
  return out;
}
