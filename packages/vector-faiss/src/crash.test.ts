import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { crashSuiteProblems, runStatesCrashSuite, waitForTemporary } from '@zerda/persistence/testing';
import { crashStateFingerprint, fillCrashState } from '@zerda/vector-conformance/crash-states';
import { faissAvailability } from './faiss-loader.js';
import type { FaissVectorStore } from './faiss-vector-store.js';

// The crash suite for FAISS store files: a child saving in a loop is SIGKILLed at random moments,
// 100 times; every load afterwards is the store before the kill or one the child saved, and the
// next save leaves no temporary behind. Skipped (with the reason) where faiss-node does not load.
const availability = faissAvailability();
let directory: string;
afterAll(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
});

it.skipIf(!availability.available)(
  `FaissVectorStore.save survives 100 SIGKILLs: old or new store on load, no orphaned temporary after the next save${availability.available ? '' : ` (skipped: ${availability.reason})`}`,
  { timeout: 600_000 },
  async () => {
    const { FaissVectorStore } = await import('./faiss-vector-store.js');
    // Twice the usual chunks, 64 dimensions: writing the file is then a measurable part of a save.
    const options = { dimensions: 64, scale: 2 };
    directory = await mkdtemp(join(tmpdir(), 'zerda-faiss-crash-'));
    const stores = new Map<string, FaissVectorStore>();
    const store = async (label: string) => stores.get(label) ?? stores.set(label, await fillCrashState(new FaissVectorStore({ metric: 'cosine' }), label, options)).get(label)!;
    const report = await runStatesCrashSuite({
      directory,
      childScript: join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'crash-child.mjs'),
      target: (lane) => join(lane, 'store.zfaiss'),
      save: async (label, path) => (await store(label)).save(path),
      expected: async (label) => crashStateFingerprint(await store(label), options),
      found: async (target) => crashStateFingerprint(await FaissVectorStore.load(target), options),
      leftovers: async (target) => (await readdir(dirname(target))).filter((name) => name !== basename(target)),
      // FAISS serialises the whole store in memory and then writes the file in one burst: every other
      // kill is aimed at that burst (when the temporary file appears), the others fall at random.
      aimKill: (target, trial) => (trial % 2 === 0 ? waitForTemporary(dirname(target)) : undefined),
    });
    expect(crashSuiteProblems(report, { minimumInterrupted: 0.4 })).toEqual([]);
    expect(report.trials).toHaveLength(100);
  },
);
