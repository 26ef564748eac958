import { describe, expect, it } from 'vitest';
import { ALL_TARGETS, warmUp } from './fuzz/targets/index.js';
import { DEFECT_OUTCOMES, YIELD_EVERY, fuzz } from './fuzz/runner.js';
import { target } from './fuzz/target.js';
import { formatReport } from './fuzz/report.js';

/** CI's seed; set ZERDA_FUZZ_SEED to explore others (every finding prints how to replay it). */
const SEED = Number(process.env.ZERDA_FUZZ_SEED ?? 20_261_201);
const CASES = Number(process.env.ZERDA_FUZZ_CASES ?? 20_000);

describe('fuzz: every public entry point of every package (issue 15)', () => {
  it(`${CASES} seeded cases: only ZerdaErrors escape, budgets, filters and offsets hold, unknown options are refused`, async () => {
    // Slow calls are reported, not asserted (no test asserts wall-clock time): the complexity suite
    // holds every text path to linear growth, and `pnpm fuzz` treats a call over 1 s as a defect.
    const report = await fuzz(ALL_TARGETS, { cases: CASES, seed: SEED, warmUp, timeBoxSeconds: 280, slowMs: Number.POSITIVE_INFINITY });
    console.log(formatReport(report));
    const defects = report.findings.filter((finding) => DEFECT_OUTCOMES.includes(finding.outcome));
    expect(defects.map((finding) => `[${finding.outcome}] ${finding.target} case ${finding.caseIndex}: ${finding.message.split('\n')[0]}`)).toEqual([]);
    expect(report.timedOut, `the time box ended the run after ${report.casesRun} cases`).toBe(false);
    expect(report.casesRun).toBe(CASES);
    // Every target ran, and each kind of outcome that proves the inputs were hostile enough occurred.
    expect(Object.keys(report.byTarget).sort()).toEqual(ALL_TARGETS.map((entry) => entry.name).sort());
    expect(report.outcomes.ok).toBeGreaterThan(CASES / 5);
    expect(report.outcomes.rejected).toBeGreaterThan(CASES / 5);
    expect(report.outcomes['caller-error']).toBeGreaterThan(0);
    expect(Object.keys(report.rejectedByCode)).toEqual(expect.arrayContaining(['ZERDA_INVALID_ARGUMENT', 'ZERDA_INVALID_FILTER', 'ZERDA_INVALID_CONFIG']));
  }, 300_000);
});

describe('fuzz runner: yields to the event loop (issue 15: a million cases grew to 13 GB resident)', () => {
  it('lets callbacks queued for a later turn run during a long run (native finalizers run there)', async () => {
    let ran = 0;
    let seenByLastCase = 0;
    const probe = target('probe.later-turn', async () => {
      seenByLastCase = ran;
      setImmediate(() => {
        ran += 1;
      });
    });
    const report = await fuzz([probe], { cases: 1_000, seed: 1 });
    expect(report.casesRun).toBe(1_000);
    // Every case but those after the last yield saw the turns before it: with no yield, none would.
    expect(seenByLastCase).toBeGreaterThanOrEqual(1_000 - YIELD_EVERY);
  });
});
