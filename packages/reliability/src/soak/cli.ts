#!/usr/bin/env node
// pnpm soak [--runs N] [--concurrency C] [--documents D] [--users U] [--max-growth-mb M]
// Many users, one engine, writes interleaved: budgets, tenant filters and conversation isolation
// must hold, and the heap must stay bounded (slope of the second half, after forced GCs).
import { parseArgs } from 'node:util';
import { soak } from './soak.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '50000' },
    concurrency: { type: 'string', default: '16' },
    documents: { type: 'string', default: '2000' },
    users: { type: 'string', default: '500' },
    'max-growth-mb': { type: 'string', default: '5' },
    seed: { type: 'string', default: '42' },
  },
  strict: true,
});
const number = (value: string | undefined) => Number(value);
const report = await soak({
  runs: number(values.runs),
  concurrency: number(values.concurrency),
  documents: number(values.documents),
  users: number(values.users),
  seed: number(values.seed),
  onSample: (sample) => console.error(`… ${sample.runs} runs, heap ${sample.heapMb.toFixed(1)} MB`),
});
const maxGrowth = number(values['max-growth-mb']);
console.log(`soak: ${report.runs} runs (${report.writes} writes) in ${(report.elapsedMs / 1000).toFixed(1)} s, ${report.cacheHits} cache hits, ${report.liveConversations} live conversations`);
console.log(`heap: ${report.heap.map((sample) => sample.heapMb.toFixed(0)).join(' → ')} MB; second-half growth ${report.growthMbPer10k.toFixed(2)} MB per 10k runs${report.forcedGc ? '' : ' (no forced GC: run node with --expose-gc for a reliable reading)'}`);
console.log(`violations: ${report.violations.length}`);
for (const violation of report.violations.slice(0, 20)) console.log(`  [${violation.kind}] ${violation.message}`);
const bounded = report.growthMbPer10k <= maxGrowth;
if (!bounded) console.log(`✗ the heap grows ${report.growthMbPer10k.toFixed(2)} MB per 10k runs (limit ${maxGrowth})`);
process.exit(report.violations.length === 0 && bounded ? 0 : 1);
