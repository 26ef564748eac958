#!/usr/bin/env node
// pnpm fuzz [--cases N] [--seed S] [--time-box SECONDS] [--only TARGET] [--case K] [--slow-ms MS] [--json FILE]
// Runs the seeded fuzz over every public entry point and prints the counts by outcome; exits 1 on any defect.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ALL_TARGETS, warmUp } from './targets/index.js';
import { defectCount, fuzz, type FuzzReport } from './runner.js';
import { formatReport } from './report.js';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '20000' },
    seed: { type: 'string', default: '1' },
    'time-box': { type: 'string' },
    only: { type: 'string' },
    case: { type: 'string' },
    'slow-ms': { type: 'string', default: '1000' },
    json: { type: 'string' },
    'progress-every': { type: 'string', default: '10000' },
  },
  strict: true,
});

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) {
    console.error(`--${name} must be a non-negative integer, got ${JSON.stringify(value)}`);
    process.exit(2);
  }
  return parsed;
}

// An unhandled rejection is an error that escaped an entry point after it returned: a defect.
const escaped: string[] = [];
process.on('unhandledRejection', (reason) => escaped.push(String((reason as Error)?.stack ?? reason)));

const started = Date.now();
const report: FuzzReport = await fuzz(ALL_TARGETS, {
  warmUp,
  cases: integer('cases', values.cases)!,
  seed: integer('seed', values.seed)!,
  ...(values['time-box'] === undefined ? {} : { timeBoxSeconds: integer('time-box', values['time-box'])! }),
  ...(values.only === undefined ? {} : { only: values.only }),
  ...(values.case === undefined ? {} : { caseIndex: integer('case', values.case)! }),
  slowMs: integer('slow-ms', values['slow-ms'])!,
  progressEvery: integer('progress-every', values['progress-every'])!,
  onProgress: (progress) => {
    const rate = progress.casesRun / Math.max(1, (Date.now() - started) / 1000);
    console.error(`… ${progress.casesRun} cases, ${defectCount(progress)} defects, ${Math.round(rate)} cases/s, heap ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MB`);
  },
});
console.log(formatReport(report));
if (escaped.length > 0) console.log(`\n${escaped.length} unhandled rejection(s):\n${escaped.slice(0, 5).join('\n\n')}`);
if (values.json) writeFileSync(values.json, JSON.stringify({ ...report, unhandledRejections: escaped.length }, null, 2));
process.exit(defectCount(report) + escaped.length > 0 ? 1 : 0);
