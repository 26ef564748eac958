/** One text path and its worst known input. */
export interface TextPath {
  /** `package: entry point — pattern`. */
  name: string;
  /**
   * Builds the input of about `size` UTF-16 units, deterministic for a given `variant`. Paths whose
   * implementation memoizes (a token counter's merge cache) give a different variant per sample,
   * so that a repeated small input is not measured from a warm cache.
   */
  input(size: number, variant?: number): string;
  /** Runs the path on the input once (awaited when it returns a promise). */
  run(input: string): unknown;
}

/** The growth of one path: the best time at the small and the large size (100 KB and 1 MB, or 300 KB and 3 MB), and their ratio. */
export interface Growth {
  name: string;
  smallMs: number;
  largeMs: number;
  /** largeMs / smallMs: about 10 for a linear path, about 100 for a quadratic one. */
  ratio: number;
  /** Measurement rounds it took (a suspicious ratio is measured again before it counts). */
  rounds: number;
  /** The decade that counted, when not 100 KB → 1 MB. */
  decade?: string;
}

/** Sizes compared, in UTF-16 units: 100 KB and 1 MB (the adversarial range). */
export const SMALL = 100_000;
export const LARGE = 1_000_000;
/** The limit: 10× the input may cost at most 15× the time. */
export const MAX_RATIO = 15;

/** Collects garbage first when the process allows it (`--expose-gc`), so a sample does not pay for an earlier one's garbage. */
function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function timeOnce(path: TextPath, input: string): Promise<number> {
  collect();
  const started = performance.now();
  await path.run(input);
  return performance.now() - started;
}

/** A small input is timed several times per sample so that a sample lasts long enough to measure. */
async function sample(path: TextPath, input: string, minimumMs: number): Promise<number> {
  collect();
  let runs = 0;
  const started = performance.now();
  do {
    await path.run(input);
    runs++;
  } while (performance.now() - started < minimumMs && runs < 50);
  return (performance.now() - started) / runs;
}

/**
 * Measures how a path's time grows over ten times its input, in this process: a warm up, then
 * samples of both sizes interleaved (so that load from other processes hits both alike), the best
 * of each kept. A ratio above {@link MAX_RATIO} is measured again (up to `rounds` times) before it is
 * reported, because one noisy sample must not fail a linear path — while a quadratic path (ratio
 * near 100) fails every round. No absolute time is ever compared with a limit.
 *
 * The decade measured is 100 KB → 1 MB; when that ratio is over the limit, the next decade
 * (300 KB → 3 MB) is measured too and the better one counts. A linear path can cross a processor's
 * cache size inside the first decade (seen on one machine kind: 9 ns per character at 100 KB, a flat
 * 37–43 ns from 300 KB to 3 MB — a 5× step that is the cache, not the algorithm), so it gets one
 * decade beyond its cache; a superlinear path grows too fast over every decade and still fails.
 */
export async function measureGrowth(path: TextPath, options: { samples?: number; rounds?: number } = {}): Promise<Growth> {
  const first = await measureDecade(path, SMALL, LARGE, options);
  if (first.ratio <= MAX_RATIO) return first;
  const next = await measureDecade(path, 3 * SMALL, 3 * LARGE, options);
  return next.ratio < first.ratio ? { ...next, decade: '300 KB → 3 MB' } : first;
}

async function measureDecade(path: TextPath, small: number, large: number, { samples = 2, rounds = 5 }: { samples?: number; rounds?: number }): Promise<Growth> {
  await path.run(path.input(10_000, 99));
  await path.run(path.input(small, 98));
  let best: Growth | undefined;
  for (let round = 1; round <= rounds; round++) {
    let smallMs = Number.POSITIVE_INFINITY;
    let largeMs = Number.POSITIVE_INFINITY;
    for (let i = 0; i < samples; i++) {
      const variant = round * samples + i;
      smallMs = Math.min(smallMs, await sample(path, path.input(small, variant), 20));
      largeMs = Math.min(largeMs, await timeOnce(path, path.input(large, variant)));
      // A slow path's first sample is stable enough; a suspicious ratio gets another round anyway.
      if (largeMs > 1500 && largeMs / Math.max(smallMs, 1) <= MAX_RATIO) break;
    }
    // Below a millisecond at the small size a path costs nothing that matters (a capped input, one
    // flattening of the string); its ratio is taken against 1 ms, so noise in microseconds cannot fail it.
    const ratio = largeMs / Math.max(smallMs, 1);
    if (!best || ratio < best.ratio) best = { name: path.name, smallMs, largeMs, ratio, rounds: round };
    if (best.ratio <= MAX_RATIO) break;
  }
  return best!;
}
