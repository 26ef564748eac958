import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runJob, type Job, type JobResult } from './jobs.js';

/** How jobs run: each in its own child process (clean memory figures) or in this process (tests). */
export interface JobRunnerOptions {
  isolate: boolean;
  /** V8 old-space limit of a child, in MiB. */
  maxOldSpaceMb?: number;
  /** A child taking longer than this is stopped and the job reported as failed. */
  timeoutMs?: number;
}

/** Runs one job, in a child process when `isolate` (the compiled `worker.js` beside this file). */
export async function executeJob(job: Job, options: JobRunnerOptions): Promise<JobResult> {
  if (!options.isolate) return runJob(job);
  const directory = mkdtempSync(join(tmpdir(), 'zerda-bench-'));
  const jobFile = join(directory, 'job.json');
  const resultFile = join(directory, 'result.json');
  writeFileSync(jobFile, JSON.stringify(job));
  const worker = fileURLToPath(new URL('./worker.js', import.meta.url));
  try {
    const outcome = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; timedOut: boolean }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--expose-gc', `--max-old-space-size=${options.maxOldSpaceMb ?? 8192}`, worker, jobFile, resultFile], {
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      let timedOut = false;
      const timer = options.timeoutMs
        ? setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, options.timeoutMs)
        : undefined;
      child.on('error', reject);
      child.on('exit', (code, signal) => {
        if (timer) clearTimeout(timer);
        resolve({ code, signal, timedOut });
      });
    });
    try {
      return JSON.parse(readFileSync(resultFile, 'utf8')) as JobResult;
    } catch {
      const reason = outcome.timedOut
        ? `stopped after ${Math.round((options.timeoutMs ?? 0) / 1000)} s (time limit)`
        : `the child process ended without a result (exit code ${outcome.code}, signal ${outcome.signal ?? 'none'}${outcome.signal === 'SIGKILL' ? ', likely out of memory' : ''})`;
      return failedResult(job, reason);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The result of a job that produced none. */
export function failedResult(job: Job, reason: string): JobResult {
  switch (job.kind) {
    case 'retrieval':
      return { kind: 'retrieval', dataset: job.dataset.directory.split(/[\\/]/).pop() ?? '', system: job.system, status: 'failed', reason, embeddingModel: 'none' };
    case 'engine':
      return { kind: 'engine', dataset: job.dataset.directory.split(/[\\/]/).pop() ?? '', variant: job.variant, retrievers: '', status: 'failed', reason, budgets: [], embeddingModel: 'none' };
    case 'scale':
      return { kind: 'scale', size: job.size, configuration: job.configuration, status: 'failed', reason };
    case 'vectors':
      return { kind: 'vectors', size: job.size, backend: job.backend, status: 'failed', reason };
  }
}
