import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { runCrashSuite } from '@zerda/persistence/testing';
import { MemoryVectorStore } from './memory-vector-store.js';
// @ts-expect-error a plain ES module fixture shared with the child process
import { fingerprint, storeOf } from './__fixtures__/crash-states.mjs';

// The crash suite for `.zvm` files (issue 15, defect 7): a child saving in a loop is SIGKILLed at
// random moments, 100 times. Every load afterwards must be exactly the store before the kill or one
// the child saved, and the next save must leave no temporary behind. The child runs the built package.
const fixtures = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__');
let directory: string;
afterAll(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
});

it('MemoryVectorStore.save survives 100 SIGKILLs: old or new store on load, no orphaned temporary after the next save', { timeout: 240_000 }, async () => {
  directory = await mkdtemp(join(tmpdir(), 'zerda-memory-crash-'));
  const labels = ['a', 'b', 'c', 'r0', 'r1'];
  const stores = Object.fromEntries(await Promise.all(labels.map(async (label) => [label, await storeOf(label)])));
  const fingerprints = new Map<string, string>();
  for (const label of labels) fingerprints.set(await fingerprint(stores[label]), label);
  const states = join(directory, 'states');
  for (const label of ['b', 'c']) await stores[label].save(join(states, `${label}.zvm`));
  let round = 0;
  const report = await runCrashSuite({
    trials: Number(process.env.CRASH_TRIALS ?? 100),
    directory: join(directory, 'lanes'),
    childScript: join(fixtures, 'crash-child.mjs'),
    childArguments: [states],
    target: (lane) => join(lane, 'index.zvm'),
    childStates: ['b', 'c'],
    initialize: async (target) => {
      await stores.a.save(target);
      return 'a';
    },
    identify: async (target) => {
      const found = await fingerprint(await MemoryVectorStore.load(target));
      return fingerprints.get(found) ?? `unknown ${found.slice(0, 20)}`;
    },
    resave: async (target) => {
      const label = `r${round++ % 2}`;
      await stores[label].save(target);
      return label;
    },
    leftovers: async (target) => (await readdir(dirname(target))).filter((name) => name !== basename(target)),
  });
  if (process.env.CRASH_DEBUG) console.log(JSON.stringify(report.trials.map((t) => [t.startupMs, t.delayMs, t.checkMs, t.totalMs])), report.medianSaveMs);
  expect(report.failures, JSON.stringify(report.failures.slice(0, 5), null, 1)).toEqual([]);
  expect(report.trials).toHaveLength(100);
  expect(report.interrupted, 'kills that left a temporary behind (landed inside a save)').toBeGreaterThan(50);
  expect((report.found.b ?? 0) + (report.found.c ?? 0)).toBeGreaterThan(0);
});
