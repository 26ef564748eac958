import { describe, expect, it } from 'vitest';
import { soak } from './soak/soak.js';

// The short form of `pnpm soak` (which runs 50,000 runs and checks the heap): many users on one
// engine, concurrent runs with writes interleaved.
describe('soak and concurrency (issue 15)', () => {
  it('3,000 concurrent runs of 200 users with writes: budgets, tenant filters and conversation isolation hold', async () => {
    const report = await soak({ runs: 3000, concurrency: 24, documents: 400, users: 200, writeEvery: 25, samples: 6, seed: 7 });
    expect(report.violations).toEqual([]);
    expect(report.runs).toBe(3000);
    expect(report.writes).toBe(120);
    expect(report.liveConversations).toBeLessThanOrEqual(100);
  }, 240_000);
});
