import { summarizeLatencies, type LatencySummary } from './statistics.js';

/** Memory figures in bytes. */
export interface MemorySnapshot {
  heapUsed: number;
  /** Memory outside the V8 heap (ArrayBuffers, native addons' allocations reported to V8). */
  external: number;
  rss: number;
}

/** Runs the garbage collector when the process was started with `--expose-gc` (twice: weak references and finalizers). */
export function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return false;
  gc();
  gc();
  return true;
}

/** Current memory use (after a garbage collection when one can be forced). */
export function memorySnapshot(): MemorySnapshot {
  collectGarbage();
  const usage = process.memoryUsage();
  return { heapUsed: usage.heapUsed, external: usage.external, rss: usage.rss };
}

/** The process's peak resident set so far, in bytes. */
export function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

/**
 * Memory retained by what was built between two snapshots: the growth of the V8 heap plus
 * external memory (typed arrays, native indexes that report it). Not negative.
 */
export function retainedBytes(before: MemorySnapshot, after: MemorySnapshot): number {
  return Math.max(0, after.heapUsed + after.external - (before.heapUsed + before.external));
}

/** Milliseconds since `start` (a `performance.now()` value). */
export function elapsedMs(start: number): number {
  return performance.now() - start;
}

/**
 * Times `operation` once per input, back to back, after warming up on the first `warmup` inputs
 * (not timed: the JIT and caches settle first). Returns the per-call latencies and their summary.
 */
export async function timeEach<T, R>(inputs: readonly T[], operation: (input: T) => Promise<R>, options: { warmup?: number; collect?: (input: T, result: R) => void } = {}): Promise<{ latencies: number[]; summary: LatencySummary }> {
  const warmup = Math.min(options.warmup ?? 10, inputs.length);
  for (let index = 0; index < warmup; index++) await operation(inputs[index] as T);
  const latencies: number[] = [];
  for (const input of inputs) {
    const start = performance.now();
    const result = await operation(input);
    latencies.push(performance.now() - start);
    options.collect?.(input, result);
  }
  return { latencies, summary: summarizeLatencies(latencies) };
}
