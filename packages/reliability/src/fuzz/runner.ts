import { ZerdaError } from '@zerda/types';
import { Generator, isProbeError } from './generator.js';
import { Violation, type FuzzTarget } from './target.js';

/**
 * How a case ended. `ok`, `rejected` (a ZerdaError: bad input refused clearly) and `caller-error`
 * (the input's own getter or Proxy threw, and the error reached the caller unchanged) are fine;
 * everything else is a defect: `foreign-error` (anything but a ZerdaError escaped), `budget`,
 * `filter`, `offsets`, `invariant` (a promise broken on a normal return), `strict-options` (an
 * unknown option key was accepted) and `slow` (a single call took longer than the slow limit).
 */
export type Outcome = 'ok' | 'rejected' | 'caller-error' | 'foreign-error' | 'budget' | 'filter' | 'offsets' | 'invariant' | 'strict-options' | 'slow';

/** Outcomes that are defects. */
export const DEFECT_OUTCOMES: readonly Outcome[] = ['foreign-error', 'budget', 'filter', 'offsets', 'invariant', 'strict-options', 'slow'];

/** One case that ended in a defect, with what it takes to replay it. */
export interface Finding {
  outcome: Outcome;
  target: string;
  /** `--seed` and `--case` of the run reproduce it. */
  caseIndex: number;
  message: string;
  ms: number;
}

export interface FuzzOptions {
  /** Called once before the first case (load lazily loaded resources). */
  warmUp?: () => void | Promise<void>;
  /** Cases to run. */
  cases: number;
  /** Base seed; case `i` uses seed `seed + i`, so any case can be replayed alone. Default 1. */
  seed?: number;
  /** Stop early after this many seconds (the counts say how many cases ran). */
  timeBoxSeconds?: number;
  /** A single call slower than this (ms) is a `slow` finding. Default 1,000 (the issue's limit). */
  slowMs?: number;
  /** Only targets whose name contains this string. */
  only?: string;
  /** Run just this case index (replay). */
  caseIndex?: number;
  /** Called every `progressEvery` cases. */
  onProgress?: (report: FuzzReport) => void;
  progressEvery?: number;
  /** Keep at most this many findings in the report (counts are always complete). Default 200. */
  maxFindings?: number;
}

export interface FuzzReport {
  seed: number;
  casesRun: number;
  /** Cases by outcome. */
  outcomes: Record<Outcome, number>;
  /** ZerdaError codes of the `rejected` cases. */
  rejectedByCode: Record<string, number>;
  /** Cases per target. */
  byTarget: Record<string, number>;
  /** Milliseconds spent in each target's cases (generation included). */
  timeByTarget: Record<string, number>;
  findings: Finding[];
  /** The time box ended the run before all cases ran. */
  timedOut: boolean;
  elapsedMs: number;
  /** Cases slow once but not when run again at once (a pause of the collector or the machine): counted by their second outcome. */
  slowNotRepeated: number;
  /** The slowest call seen, with its target and case. */
  slowest: { ms: number; target: string; caseIndex: number };
}

function emptyOutcomes(): Record<Outcome, number> {
  return { ok: 0, rejected: 0, 'caller-error': 0, 'foreign-error': 0, budget: 0, filter: 0, offsets: 0, invariant: 0, 'strict-options': 0, slow: 0 };
}

/** Picks the target of case `index` by weight, deterministically from the case's seed. */
function targetFor(targets: readonly FuzzTarget[], generator: Generator): FuzzTarget {
  return generator.weighted(targets.map((entry) => [entry.weight ?? 1, () => entry] as const));
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message.slice(0, 300)}${error.stack ? `\n${error.stack.split('\n').slice(1, 6).join('\n')}` : ''}`;
  return `thrown non-error ${String(error)}`;
}

/** Runs one case and classifies it. */
export async function runCase(targets: readonly FuzzTarget[], seed: number, caseIndex: number, slowMs: number): Promise<{ target: string; outcome: Outcome; code?: string; message?: string; ms: number }> {
  const generator = new Generator((seed + caseIndex) >>> 0);
  const chosen = targetFor(targets, generator);
  // ZERDA_FUZZ_TRACE=1 names each case before it runs: the way to find one that never returns.
  if (typeof process !== 'undefined' && process.env.ZERDA_FUZZ_TRACE) process.stderr.write(`case ${caseIndex} ${chosen.name}\n`);
  let slowest = 0;
  const context = {
    async call<T>(entry: () => T | Promise<T>): Promise<T> {
      const started = performance.now();
      try {
        return await entry();
      } finally {
        slowest = Math.max(slowest, performance.now() - started);
      }
    },
  };
  let outcome: Outcome;
  let code: string | undefined;
  let message: string | undefined;
  try {
    await chosen.run(generator, context);
    if (generator.unknownKey !== undefined) {
      outcome = 'strict-options';
      message = `an options object with the unknown key "${generator.unknownKey}" was accepted`;
    } else outcome = 'ok';
  } catch (error) {
    if (error instanceof Violation) {
      outcome = error.kind;
      message = error.message;
    } else if (ZerdaError.isInstance(error)) {
      outcome = 'rejected';
      code = error.code;
    } else if (isProbeError(error)) {
      outcome = 'caller-error';
    } else {
      outcome = 'foreign-error';
      message = describeError(error);
    }
  }
  if (slowest > slowMs && (outcome === 'ok' || outcome === 'rejected' || outcome === 'caller-error')) {
    outcome = 'slow';
    message = `a call took ${Math.round(slowest)} ms`;
  }
  return { target: chosen.name, outcome, ...(code ? { code } : {}), ...(message ? { message } : {}), ms: slowest };
}

/** Cases between two turns of the event loop (see `fuzz`). */
export const YIELD_EVERY = 256;

/** Resolves on the next turn of the event loop, after the callbacks already queued for it. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The seeded fuzz runner: runs `cases` cases over `targets` (each case picks a target by weight
 * and generates its input from its own seed), classifies every case and returns the counts by
 * outcome, by ZerdaError code and by target, plus the defect findings with how to replay them.
 */
export async function fuzz(targets: readonly FuzzTarget[], options: FuzzOptions): Promise<FuzzReport> {
  const seed = options.seed ?? 1;
  const slowMs = options.slowMs ?? 1000;
  const maxFindings = options.maxFindings ?? 200;
  const selected = options.only ? targets.filter((entry) => entry.name.includes(options.only!)) : targets;
  if (selected.length === 0) throw new Error(`no fuzz target matches "${options.only}"`);
  const report: FuzzReport = { seed, casesRun: 0, outcomes: emptyOutcomes(), rejectedByCode: {}, byTarget: {}, timeByTarget: {}, findings: [], timedOut: false, elapsedMs: 0, slowest: { ms: 0, target: '', caseIndex: -1 }, slowNotRepeated: 0 };
  await options.warmUp?.();
  const started = performance.now();
  const deadline = options.timeBoxSeconds === undefined ? Number.POSITIVE_INFINITY : started + options.timeBoxSeconds * 1000;
  const indices = options.caseIndex === undefined ? undefined : [options.caseIndex];
  const total = indices ? 1 : options.cases;
  for (let n = 0; n < total; n++) {
    if (performance.now() > deadline) {
      report.timedOut = true;
      break;
    }
    // Yield a whole turn of the event loop now and then, as any real program does: awaiting only
    // settled promises never lets Node run the finalizers of native objects (an hnswlib graph frees
    // its memory there) or anything set for a later turn, so a million cases grew to 13 GB resident.
    if (n > 0 && n % YIELD_EVERY === 0) await nextTurn();
    const caseIndex = indices ? indices[0]! : n;
    const caseStarted = performance.now();
    let result = await runCase(selected, seed, caseIndex, slowMs);
    if (result.outcome === 'slow') {
      // A garbage-collector pause or a busy machine can stall any call: a slow case counts only when
      // it is slow again at once, after a collection (cases are deterministic: the same input again).
      (globalThis as { gc?: () => void }).gc?.();
      await nextTurn();
      const again = await runCase(selected, seed, caseIndex, slowMs);
      if (again.outcome !== 'slow') {
        report.slowNotRepeated++;
        result = again;
      }
    }
    report.timeByTarget[result.target] = (report.timeByTarget[result.target] ?? 0) + (performance.now() - caseStarted);
    report.casesRun++;
    report.outcomes[result.outcome]++;
    report.byTarget[result.target] = (report.byTarget[result.target] ?? 0) + 1;
    if (result.code) report.rejectedByCode[result.code] = (report.rejectedByCode[result.code] ?? 0) + 1;
    if (result.ms > report.slowest.ms) report.slowest = { ms: Math.round(result.ms), target: result.target, caseIndex };
    if (DEFECT_OUTCOMES.includes(result.outcome) && report.findings.length < maxFindings) {
      report.findings.push({ outcome: result.outcome, target: result.target, caseIndex, message: result.message ?? '', ms: Math.round(result.ms) });
    }
    if (options.onProgress && options.progressEvery && report.casesRun % options.progressEvery === 0) {
      report.elapsedMs = performance.now() - started;
      options.onProgress(report);
    }
  }
  report.elapsedMs = Math.round(performance.now() - started);
  for (const name of Object.keys(report.timeByTarget)) report.timeByTarget[name] = Math.round(report.timeByTarget[name]!);
  return report;
}

/** Number of defect cases in a report. */
export function defectCount(report: FuzzReport): number {
  return DEFECT_OUTCOMES.reduce((sum, outcome) => sum + report.outcomes[outcome], 0);
}
