import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readSnapshotDirectory, readSnapshotFile, writeSnapshotDirectory, writeSnapshotFile } from './index.js';
import { crashSuiteProblems, runCrashSuite, snapshotDirectoryLeftovers, type CrashSuiteReport } from './testing.js';
// @ts-expect-error a plain ES module fixture shared with the child process
import { FORMAT, identifyState, writeState } from './__fixtures__/crash-states.mjs';

// The crash suite of the persistence primitives: a child saving in a loop is SIGKILLed at random
// moments; every open afterwards must find the old state or one the child committed (never a mix,
// never an error), and the next save must leave nothing else behind. The child runs the built
// package (dist), like a user's program.
const fixtures = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__');
const directories: string[] = [];
afterAll(async () => {
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});

function expectSound(report: CrashSuiteReport, trials: number): void {
  // No failed trial, most kills inside a save, and some after a completed one.
  expect(crashSuiteProblems(report).join('\n')).toBe('');
  expect(report.trials).toHaveLength(trials);
  // Every tenth kill waited for a completed save, whatever the machine's load.
  const afterSave = report.trials.filter((trial) => trial.afterSave);
  expect(afterSave).toHaveLength(Math.floor(trials / 10));
  for (const trial of afterSave) expect(trial.completedSaves).toBeGreaterThanOrEqual(1);
}

const kinds = [
  {
    name: 'snapshot directories: 100 kills, always the old or a new state, nothing left after the next save',
    childArguments: [] as string[],
    target: (lane: string) => join(lane, 'snapshot'),
    write: writeSnapshotDirectory,
    read: readSnapshotDirectory,
    leftovers: snapshotDirectoryLeftovers,
  },
  {
    name: 'single-file snapshots: 100 kills, always the old or a new file, no temporary after the next save',
    childArguments: ['file'],
    target: (lane: string) => join(lane, 'store.bin'),
    write: writeSnapshotFile,
    read: readSnapshotFile,
    leftovers: async (target: string) => (await readdir(dirname(target))).filter((name) => name !== basename(target)),
  },
];

describe('crash suite (SIGKILL during saves)', () => {
  for (const kind of kinds) {
    it(kind.name, { timeout: 240_000 }, async () => {
      const directory = await mkdtemp(join(tmpdir(), 'zerda-crash-'));
      directories.push(directory);
      let round = 0;
      const save = async (target: string, label: string): Promise<string> => {
        await kind.write(target, FORMAT, (writer) => writeState(writer, label));
        return label;
      };
      const report = await runCrashSuite({
        trials: 100,
        directory,
        childScript: join(fixtures, 'crash-child.mjs'),
        childArguments: kind.childArguments,
        target: kind.target,
        childStates: ['b', 'c'],
        initialize: (target) => save(target, 'a'),
        identify: (target) => kind.read(target, FORMAT, identifyState),
        resave: (target) => save(target, `r${round++ % 2}`),
        leftovers: kind.leftovers,
      });
      expectSound(report, 100);
    });
  }
});

it('rejects an afterSaveEvery that is not a whole number ≥ 0, naming the field, before starting a child', async () => {
  for (const afterSaveEvery of [-1, 2.5, Number.NaN, '10' as unknown as number]) {
    await expect(
      runCrashSuite({ trials: 1, directory: '/nonexistent', childScript: '/nonexistent.mjs', target: (lane) => lane, childStates: [], initialize: async () => 'a', identify: async () => 'a', resave: async () => 'a', leftovers: async () => [], afterSaveEvery }),
    ).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', details: { field: 'options.afterSaveEvery' } });
  }
});
