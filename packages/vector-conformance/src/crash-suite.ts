import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { VectorStore } from '@zerda/types';
import { crashSuiteProblems, runStatesCrashSuite, snapshotDirectoryLeftovers } from '@zerda/persistence/testing';
import { afterAll, expect, it } from 'vitest';
import { crashStateFingerprint, fillCrashState, type CrashStateOptions } from './crash-states.js';
import { invalidArgument } from '@zerda/types';
import { checkFunction, checkPrefix, skipAndTitle, temporaryDirectory, type TemporaryDirectory } from './test-directories.js';

/** Options of {@link testSaveSurvivesKills}. */
export interface SaveCrashTestOptions<S extends VectorStore> {
  /** The test's name. */
  name: string;
  /** Skips the test; a string says why (appended to the name). */
  skip?: boolean | string;
  /** Prefix of the suite's temporary directory. */
  prefix: string;
  /**
   * The child script (argv: the target, then the directory holding the saved states `b` and `c`):
   * loads both and saves them alternately for ever (`saveForever` of `@zerda/persistence/testing`).
   */
  childScript: string;
  /** A fresh, empty store (filled with each crash state in turn). */
  create(): S | Promise<S>;
  /** Saves `store` at `path`. */
  save(store: S, path: string): Promise<void>;
  /** Opens what `save` wrote at `path`. */
  load(path: string): Promise<S>;
  /**
   * Where the store is saved: a file of this name in the lane (only it may remain after a save), or,
   * with `directory`, a snapshot directory of this name (only `CURRENT` and the generation it
   * names may remain).
   */
  target: { file: string } | { directory: string };
  /** Sizes of the crash states (dimensions, scale). */
  states?: CrashStateOptions;
  /** See `aimKill` of `runStatesCrashSuite`. */
  aimKill?(target: string, trial: number): Promise<void> | undefined;
  /** Share of the kills that must land inside a save (default: half). */
  minimumInterrupted?: number;
  /** The test's timeout in milliseconds (default 300,000). */
  timeout?: number;
}

async function filesBeside(target: string): Promise<string[]> {
  return (await readdir(dirname(target))).filter((name) => name !== basename(target));
}

/**
 * Registers the crash test of a store that saves to files: a child process saving in a loop is
 * SIGKILLed at random moments, 100 times; every load afterwards must be exactly the store before the
 * kill or one the child saved (by the fingerprint of the crash states: chunks, vectors and answers),
 * and the next save must leave nothing else behind. The child runs the built package.
 */
export function testSaveSurvivesKills<S extends VectorStore>(options: SaveCrashTestOptions<S>): void {
  let directory: TemporaryDirectory | undefined;
  afterAll(async () => {
    await directory?.remove();
  });
  if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an options object', options);
  if (typeof options.name !== 'string' || options.name.length === 0) throw invalidArgument('options.name', 'a non-empty string', options.name);
  checkPrefix(options.prefix, 'options.prefix');
  if (typeof options.childScript !== 'string' || options.childScript.length === 0) throw invalidArgument('options.childScript', 'the path of the child script', options.childScript);
  for (const field of ['create', 'save', 'load'] as const) checkFunction(options[field], `options.${field}`);
  const { skipped, title: name } = skipAndTitle(options.name, options.skip);
  it.skipIf(skipped)(name, { timeout: options.timeout ?? 300_000 }, async () => {
    directory = await temporaryDirectory(options.prefix);
    const states = options.states ?? {};
    const stores = new Map<string, S>();
    const store = async (label: string): Promise<S> => {
      const known = stores.get(label);
      if (known) return known;
      const filled = await fillCrashState(await options.create(), label, states);
      stores.set(label, filled);
      return filled;
    };
    const target = options.target;
    const report = await runStatesCrashSuite({
      directory: directory.path,
      childScript: options.childScript,
      target: (lane) => join(lane, 'file' in target ? target.file : target.directory),
      save: async (label, path) => options.save(await store(label), path),
      expected: async (label) => crashStateFingerprint(await store(label), states),
      found: async (path) => crashStateFingerprint(await options.load(path), states),
      leftovers: 'file' in target ? filesBeside : snapshotDirectoryLeftovers,
      ...(options.aimKill ? { aimKill: options.aimKill } : {}),
    });
    expect(crashSuiteProblems(report, options.minimumInterrupted === undefined ? {} : { minimumInterrupted: options.minimumInterrupted }).join('\n')).toBe('');
    expect(report.trials).toHaveLength(100);
  });
}
