import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { crashSuiteProblems, runStatesCrashSuite } from '@zerda/persistence/testing';
import { MemoryVectorStore } from './memory-vector-store.js';
import { crashStateFingerprint, fillCrashState } from '@zerda/vector-conformance/crash-states';

// The crash suite for `.zvm` files (issue 15, defect 7): a child saving in a loop is SIGKILLed at
// random moments, 100 times. Every load afterwards must be exactly the store before the kill or one
// the child saved, and the next save must leave no temporary behind. The child runs the built package.
let directory: string;
afterAll(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
});

it('MemoryVectorStore.save survives 100 SIGKILLs: old or new store on load, no orphaned temporary after the next save', { timeout: 300_000 }, async () => {
  directory = await mkdtemp(join(tmpdir(), 'zerda-memory-crash-'));
  const stores = new Map<string, MemoryVectorStore>();
  const options = { scale: 1.5 };
  const store = async (label: string) => stores.get(label) ?? stores.set(label, await fillCrashState(new MemoryVectorStore(), label, options)).get(label)!;
  const report = await runStatesCrashSuite({
    directory,
    childScript: join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'crash-child.mjs'),
    target: (lane) => join(lane, 'index.zvm'),
    save: async (label, path) => (await store(label)).save(path),
    expected: async (label) => crashStateFingerprint(await store(label), options),
    found: async (target) => crashStateFingerprint(await MemoryVectorStore.load(target), options),
    leftovers: async (target) => (await readdir(dirname(target))).filter((name) => name !== basename(target)),
  });
  expect(crashSuiteProblems(report)).toEqual([]);
  expect(report.trials).toHaveLength(100);
});
