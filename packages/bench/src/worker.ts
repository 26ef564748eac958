/**
 * Child-process entry: `node --expose-gc worker.js <job.json> <result.json>`. Each measured system
 * runs alone in a fresh process so that its memory figures and its peak resident set are its own
 * and no other system's garbage or JIT state skews its timings.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { runJob, type Job } from './jobs.js';

const [jobFile, resultFile] = process.argv.slice(2);
if (!jobFile || !resultFile) {
  console.error('usage: worker.js <job.json> <result.json>');
  process.exit(2);
}
const job = JSON.parse(readFileSync(jobFile, 'utf8')) as Job;
const result = await runJob(job);
writeFileSync(resultFile, JSON.stringify(result));
// Native handles (ONNX sessions, PGlite) may keep the event loop alive; the result is written.
process.exit(0);
