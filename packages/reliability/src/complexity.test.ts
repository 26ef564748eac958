import { describe, expect, it } from 'vitest';
import { MAX_RATIO, measureGrowth } from './complexity/measure.js';
import { TEXT_PATHS } from './complexity/paths.js';

// Every public text path must be linear: 10× the input (100 KB → 1 MB of its worst known pattern)
// may cost at most 15× the time, measured in this process. A ratio, never a wall-clock limit.
describe('complexity: every text path grows linearly (issue 15, defect 6)', () => {
  it.each(TEXT_PATHS.map((path) => [path.name, path] as const))('%s', async (_name, path) => {
    const growth = await measureGrowth(path);
    console.log(`${path.name}: 100 KB ${growth.smallMs.toFixed(1)} ms, 1 MB ${growth.largeMs.toFixed(1)} ms, ratio ${growth.ratio.toFixed(1)} (${growth.rounds} round${growth.rounds > 1 ? 's' : ''})`);
    expect(growth.ratio, `${path.name} grew ${growth.ratio.toFixed(1)}× from 100 KB to 1 MB`).toBeLessThanOrEqual(MAX_RATIO);
  }, 180_000);
});
