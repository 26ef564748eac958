import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { crashSuiteProblems, runStatesCrashSuite, snapshotDirectoryLeftovers } from '@zerda/persistence/testing';
import type { ContextEngine } from './engine.js';
// @ts-expect-error a plain ES module fixture shared with the child process
import { engineOf, fingerprint, openEngine } from './__fixtures__/crash-states.mjs';

// The crash suite of engine snapshots (issue 17): a child saving engines in a loop — keyword +
// in-memory vectors and keyword + HNSW, alternately — is SIGKILLed at random moments, 100 times.
// Every open afterwards must answer exactly like the engine before the kill or one the child saved
// (never a mix, never an unhandled error), and the next save must leave only CURRENT and its
// generation. The child runs the built packages.
let directory: string;
afterAll(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
});

it('engine.save survives 100 SIGKILLs: every open is the old or a new engine, nothing left after the next save', { timeout: 400_000 }, async () => {
  directory = await mkdtemp(join(tmpdir(), 'zerda-engine-crash-'));
  const engines = new Map<string, ContextEngine>();
  const engine = async (label: string) => engines.get(label) ?? engines.set(label, await engineOf(label)).get(label)!;
  const report = await runStatesCrashSuite({
    directory,
    childScript: join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'crash-child.mjs'),
    target: (lane) => join(lane, 'snapshot'),
    save: async (label, path) => {
      await (await engine(label)).save(path);
    },
    expected: async (label) => fingerprint(await engine(label)),
    found: async (target) => fingerprint(await openEngine(target)),
    leftovers: snapshotDirectoryLeftovers,
  });
  expect(crashSuiteProblems(report).join('\n')).toBe('');
  expect(report.trials).toHaveLength(100);
});
