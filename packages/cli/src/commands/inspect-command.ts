import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import type { ContextEngine } from '@zerda/context';
import { renderInspector } from '../inspector/render.js';
import type { CliIo } from '../io.js';
import { runQuery, type QueryOptions } from './query-command.js';

/** Options of `zerda inspect`. */
export interface InspectOptions extends QueryOptions {
  /** Where the page goes, relative to the working directory; `-` for standard output. */
  html: string;
}

/**
 * `zerda inspect`: runs `question` on the index and writes the inspector for it — one
 * self-contained HTML page (no network, readable without JavaScript) — to `options.html` (its
 * folders created) or to standard output, then says where it went.
 */
export async function inspectCommand(engine: ContextEngine, question: string, options: InspectOptions, io: CliIo): Promise<void> {
  const result = await runQuery(engine, question, options);
  const html = renderInspector(result, { origin: relative(io.cwd, resolve(io.cwd, options.index)) || options.index });
  if (options.html === '-') {
    io.stdout.write(html);
    return;
  }
  const path = resolve(io.cwd, options.html);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, html, 'utf8');
  io.stdout.write(`zerda: wrote ${relative(io.cwd, path) || path} (${result.chunks.length} chunks, ${result.budget.used}/${result.budget.limit} ${result.budget.unit})\n`);
}
