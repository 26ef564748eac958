import { describe, expect, it } from 'vitest';
import { MAX_RATIO, measureGrowth } from './complexity/measure.js';
import { TEXT_PATHS } from './complexity/paths.js';

// Every public text path must be linear: 10× the input (100 KB → 1 MB of its worst known pattern, or
// 300 KB → 3 MB when the first decade crosses the processor's cache) may cost at most 15× the time,
// measured in this process. A ratio, never a wall-clock limit.
describe('complexity: every text path grows linearly (issue 15, defect 6)', () => {
  it.each(TEXT_PATHS.map((path) => [path.name, path] as const))('%s', async (_name, path) => {
    const growth = await measureGrowth(path);
    console.log(`${path.name}: ${growth.decade ?? '100 KB → 1 MB'}: ${growth.smallMs.toFixed(1)} ms → ${growth.largeMs.toFixed(1)} ms, ratio ${growth.ratio.toFixed(1)} (${growth.rounds} round${growth.rounds > 1 ? 's' : ''})`);
    expect(growth.ratio, `${path.name} grew ${growth.ratio.toFixed(1)}× over ${growth.decade ?? '100 KB → 1 MB'}`).toBeLessThanOrEqual(MAX_RATIO);
  }, 180_000);
});
