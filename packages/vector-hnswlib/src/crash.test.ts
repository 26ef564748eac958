import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { crashSuiteProblems, runStatesCrashSuite, snapshotDirectoryLeftovers } from '@zerda/persistence/testing';
import { HnswVectorStore } from './hnswlib-vector-store.js';
import { crashStateFingerprint, fillCrashState } from '@zerda/vector-conformance/crash-states';

// The crash suite for HNSW store directories (issue 15, defect 7): a child saving in a loop is
// SIGKILLed at random moments, 100 times. Every load afterwards must be exactly the store before
// the kill or one the child saved (chunks, vectors, labels and graph answers), and the next save must
// leave only CURRENT and the generation it names. The child runs the built package.
let directory: string;
afterAll(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
});

it('HnswVectorStore.save survives 100 SIGKILLs: old or new store on load, nothing left after the next save', { timeout: 300_000 }, async () => {
  directory = await mkdtemp(join(tmpdir(), 'zerda-hnsw-crash-'));
  const stores = new Map<string, HnswVectorStore>();
  const options = {};
  const store = async (label: string) => stores.get(label) ?? stores.set(label, await fillCrashState(new HnswVectorStore({ M: 8, efConstruction: 40 }), label, options)).get(label)!;
  const report = await runStatesCrashSuite({
    directory,
    childScript: join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'crash-child.mjs'),
    target: (lane) => join(lane, 'store'),
    save: async (label, path) => (await store(label)).save(path),
    expected: async (label) => crashStateFingerprint(await store(label), options),
    found: async (target) => crashStateFingerprint(await HnswVectorStore.load(target), options),
    leftovers: snapshotDirectoryLeftovers,
  });
  expect(crashSuiteProblems(report)).toEqual([]);
  expect(report.trials).toHaveLength(100);
});
