import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { BenchmarkReport } from './benchmark.js';
import { renderMarkdown } from './report.js';
import { renderScaleChart } from './scale-chart.js';
import { insertLongConversationsSection } from './long-conversations-report.js';

/** Where a run's files went. */
export interface WrittenFiles {
  markdown: string;
  results: string;
  chart?: string;
}

function writeAtomically(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, content);
  renameSync(`${path}.tmp`, path);
}

/**
 * Writes `results.json` (and `scale.svg` when the scale section ran) into `resultsDirectory`, and
 * the Markdown report to `markdownPath`, linking to them relatively.
 */
export function writeResults(report: BenchmarkReport, options: { markdownPath: string; resultsDirectory: string }): WrittenFiles {
  const results = join(options.resultsDirectory, 'results.json');
  writeAtomically(results, `${JSON.stringify(report, null, 2)}\n`);
  const base = dirname(options.markdownPath);
  const written: WrittenFiles = { markdown: options.markdownPath, results };
  const svg = renderScaleChart(report.scale);
  if (svg) {
    written.chart = join(options.resultsDirectory, 'scale.svg');
    writeAtomically(written.chart, svg);
  }
  let markdown = renderMarkdown(report, { resultsFile: relative(base, results), ...(written.chart ? { chart: relative(base, written.chart) } : {}) });
  // The long-conversations benchmark runs on its own (long-conversations-cli); its saved section stays in the report.
  const longConversations = join(options.resultsDirectory, 'long-conversations.md');
  if (existsSync(longConversations)) markdown = insertLongConversationsSection(markdown, readFileSync(longConversations, 'utf8'));
  writeAtomically(options.markdownPath, markdown);
  return written;
}
