#!/usr/bin/env node
/** `pnpm bench` / `pnpm bench:quick`: runs the benchmarks and writes BENCHMARKS.md and bench-results/. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { USAGE, parseArguments } from './arguments.js';
import { runBenchmarks, type BenchmarkReport } from './benchmark.js';
import { writeResults } from './output.js';
import { compareReports, renderComparison } from './compare.js';
import { mergeReports } from './merge.js';
import { repositoryRoot } from './paths.js';
import { evaluateTargets } from './targets.js';

let commandLine;
try {
  commandLine = parseArguments(process.argv.slice(2));
} catch (error) {
  console.error(`${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (commandLine.help) {
  console.log(USAGE);
  process.exit(0);
}
const { markdownPath, resultsDirectory } = commandLine;
if (commandLine.compare) {
  const { current, baseline } = commandLine.compare;
  const root = repositoryRoot();
  // The committed results: what the repository holds at HEAD, whatever a new run wrote since.
  const baselineText = baseline ? readFileSync(baseline, 'utf8') : execFileSync('git', ['show', `HEAD:${relative(root, join(root, 'bench-results', 'results.json'))}`], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
  const figures = compareReports(JSON.parse(baselineText) as BenchmarkReport, JSON.parse(readFileSync(current, 'utf8')) as BenchmarkReport);
  console.log(renderComparison(figures, { baseline: baseline ?? 'bench-results/results.json at git HEAD', current }));
  process.exit(0);
}
if (commandLine.render) {
  const first = JSON.parse(readFileSync(commandLine.render, 'utf8')) as BenchmarkReport;
  const saved = commandLine.merge ? mergeReports(first, JSON.parse(readFileSync(commandLine.merge, 'utf8')) as BenchmarkReport, commandLine.mergeSections) : first;
  saved.targets = evaluateTargets(saved);
  const written = writeResults(saved, { markdownPath, resultsDirectory });
  console.error(`rendered ${written.markdown} from ${commandLine.render}`);
  process.exit(0);
}
const report = await runBenchmarks({
  ...commandLine.options,
  onSection: (partial) => {
    if (partial.pending.length > 0) writeResults(partial, { markdownPath, resultsDirectory });
  },
});
const written = writeResults(report, { markdownPath: commandLine.markdownPath, resultsDirectory: commandLine.resultsDirectory });
console.error(`\nwrote ${written.markdown}, ${written.results}${written.chart ? `, ${written.chart}` : ''} (${report.durationSeconds.toFixed(0)} s)`);
for (const target of report.targets) console.error(`target ${target.met === undefined ? 'not measured' : target.met ? 'MET' : 'MISSED'}: ${target.target} — ${target.evidence}`);
process.exit(0);
