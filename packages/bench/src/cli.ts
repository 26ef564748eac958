#!/usr/bin/env node
/** `pnpm bench` / `pnpm bench:quick`: runs the benchmarks and writes BENCHMARKS.md and bench-results/. */
import { readFileSync } from 'node:fs';
import { USAGE, parseArguments } from './arguments.js';
import { runBenchmarks, type BenchmarkReport } from './benchmark.js';
import { writeResults } from './output.js';
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
if (commandLine.render) {
  const saved = JSON.parse(readFileSync(commandLine.render, 'utf8')) as BenchmarkReport;
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
