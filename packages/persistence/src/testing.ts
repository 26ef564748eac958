import { spawn } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { invalidArgument, seededRandom } from '@zerda/types';

/**
 * The crash suite's harness: kills a process that saves in a loop at random moments (SIGKILL, so
 * nothing is flushed or cleaned up) and checks what every later open finds. Used by every package
 * that persists (memory and HNSW stores, FAISS, engine snapshots); a test states what the states
 * are and how to recognise them, and the harness does the killing and the bookkeeping.
 *
 * The child script receives the target path and `childArguments`, saves forever alternating between
 * its states, and prints one line `saving <label>` before each save and `saved <label> <ms>` after.
 */
export interface CrashSuiteOptions {
  /** Children killed in total (≥ 100 in the crash suites). */
  trials: number;
  /** Children running at once, each on its own target (default 2). */
  concurrency?: number;
  /** A directory for the lanes' targets (one subdirectory per lane is created). */
  directory: string;
  /** The node script the child runs. */
  childScript: string;
  /** Extra arguments after the target path. */
  childArguments?: string[];
  /** Extra `node` flags for the child. */
  nodeArguments?: string[];
  /** The target (a file or a directory) inside a lane's directory. */
  target(laneDirectory: string): string;
  /** Saves the starting state at `target` (in this process); returns its label. */
  initialize(target: string): Promise<string>;
  /** Opens `target` and returns the label of the state it holds; throws when it cannot be opened. */
  identify(target: string): Promise<string>;
  /** Labels the child may have committed, given what it printed. */
  childStates: readonly string[];
  /** The next ordinary save after a kill (in this process); returns the label saved. */
  resave(target: string, trial: number): Promise<string>;
  /**
   * Paths under `target` that a completed save does not leave there (temporaries, partial
   * generations, locks, superseded files), relative to the lane directory.
   */
  leftovers(target: string): Promise<string[]>;
  /** Upper bound of the kill delay after the child's first `saving` line before any save was timed (ms, default 200). */
  initialDelayMs?: number;
  /** Seed of the delays (default 1). */
  seed?: number;
  /**
   * For stores that build their file in memory and write it in one burst (few random kills would
   * land inside the write): resolves when the kill should be aimed, e.g. when a temporary file
   * appears (see {@link waitForTemporary}); the kill then follows within `aimedDelayMs`. Called
   * with the trial number; return undefined to use the random delay for that trial.
   */
  aimKill?(target: string, trial: number): Promise<void> | undefined;
  /** Upper bound of the delay after an aimed moment (ms, default 4). */
  aimedDelayMs?: number;
  /**
   * Every `afterSaveEvery`-th trial (default 10) waits for the child's first completed save before
   * the random delay starts, so some kills come after a committed save on any machine: on a loaded
   * one a save can take longer than every random delay, and then the new state would never be found
   * and no save would be timed to adapt the delays. 0 turns it off.
   */
  afterSaveEvery?: number;
}

export interface CrashTrial {
  lane: number;
  delayMs: number;
  /** Saves the child completed before it was killed. */
  completedSaves: number;
  /** The kill waited for the child's first completed save (see {@link CrashSuiteOptions.afterSaveEvery}). */
  afterSave: boolean;
  /** Whether the kill left partial state behind (it landed inside a save). */
  interrupted: boolean;
  /** The state found after the kill (undefined when opening failed). */
  found?: string;
  /** Why the trial failed: the open threw, found an unknown state, or orphans survived the next save. */
  failure?: string;
  /** Milliseconds from spawning the child to its first `saving` line, checking after the kill, and the whole trial. */
  startupMs?: number;
  checkMs?: number;
  totalMs?: number;
}

export interface CrashSuiteReport {
  trials: CrashTrial[];
  /** How often each state was found after a kill. */
  found: Record<string, number>;
  /** Trials whose kill landed inside a save (partial state left behind). */
  interrupted: number;
  /** Failed trials (must be none). */
  failures: CrashTrial[];
  /** Median duration of one save in the child (ms). */
  medianSaveMs: number;
}

interface ChildRun {
  completedSaves: number;
  saveDurations: number[];
}

/** Lists every path under `root` (files and directories), relative to `base`, with `/` separators. */
export async function listTree(root: string, base = root): Promise<string[]> {
  const out: string[] = [];
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries) {
    const path = join(root, entry.name);
    out.push(relative(base, path).split(sep).join('/') + (entry.isDirectory() ? '/' : ''));
    if (entry.isDirectory()) out.push(...(await listTree(path, base)));
  }
  return out.sort();
}

/**
 * What a snapshot directory holds beyond its committed state — `CURRENT`, the generation it names,
 * that generation's manifest and the files the manifest lists: partial generations, temporaries,
 * locks, stray files. Relative paths (directories end with `/`). Reads the files directly, not
 * through the library under test.
 */
export async function snapshotDirectoryLeftovers(directory: string): Promise<string[]> {
  const all = await listTree(directory);
  let generation: string;
  let files: Array<{ name: string }>;
  try {
    generation = (JSON.parse(await readFile(join(directory, 'CURRENT'), 'utf8')) as { generation: string }).generation;
    files = (JSON.parse(await readFile(join(directory, generation, 'manifest.json'), 'utf8')) as { files: Array<{ name: string }> }).files;
  } catch {
    return all;
  }
  const expected = new Set(['CURRENT', `${generation}/`, `${generation}/manifest.json`]);
  for (const { name } of files) {
    const parts = name.split('/');
    for (let depth = 1; depth < parts.length; depth++) expected.add(`${generation}/${parts.slice(0, depth).join('/')}/`);
    expected.add(`${generation}/${name}`);
  }
  return all.filter((path) => !expected.has(path));
}

/**
 * Resolves when a temporary file (`.<name>.….tmp`, as `writeFileAtomic` names them) appears in
 * `directory` (watched with the platform's file notifications), or after `timeoutMs`.
 */
export function waitForTemporary(directory: string, timeoutMs = 5000): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      watcher.close();
      clearTimeout(timer);
      resolve();
    };
    const watcher = watch(directory, (_event, name) => {
      if (typeof name === 'string' && name.startsWith('.') && name.endsWith('.tmp')) finish();
    });
    const timer = setTimeout(finish, timeoutMs);
  });
}

async function runAndKill(options: CrashSuiteOptions, target: string, delay: () => number, trial: number): Promise<ChildRun & { delayMs: number; startupMs: number; afterSave: boolean }> {
  const every = options.afterSaveEvery ?? 10;
  const afterSave = every > 0 && trial % every === every - 1;
  const aimed = afterSave ? undefined : options.aimKill?.(target, trial);
  const child = spawn(process.execPath, [...(options.nodeArguments ?? []), options.childScript, target, ...(options.childArguments ?? [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: ChildRun = { completedSaves: 0, saveDurations: [] };
  let stderr = '';
  child.stderr.on('data', (data: Buffer) => (stderr = (stderr + data.toString()).slice(-4000)));
  const spawned = performance.now();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const [event, , ms] = line.split(' ');
      if (event === 'saving' && !afterSave) resolve();
      if (event === 'saved') {
        run.completedSaves++;
        run.saveDurations.push(Number(ms));
        resolve();
      }
    });
    child.once('exit', (code, signal) => reject(new Error(`the child exited (${signal ?? code}) before ${afterSave ? 'completing' : 'starting'} its first save:\n${stderr}`)));
  });
  try {
    await started;
  } catch (error) {
    await exited;
    throw error;
  }
  const startupMs = performance.now() - spawned;
  if (aimed) await aimed;
  const delayMs = aimed ? Math.floor(Math.random() * (options.aimedDelayMs ?? 4)) : delay();
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  child.kill('SIGKILL');
  await exited;
  return { ...run, delayMs, startupMs, afterSave };
}

/**
 * Runs the crash suite (see {@link CrashSuiteOptions}): for every trial, start a child saving in a
 * loop, kill it after a random delay (spread over about two saves, so kills land in every phase of
 * a save — inside files, between files, around the commit), then: note whether partial state was
 * left, open and identify the state (it must be the one before the trial or one the child
 * committed), save again normally and check that nothing is left but the new state.
 */
export async function runCrashSuite(options: CrashSuiteOptions): Promise<CrashSuiteReport> {
  const every = options.afterSaveEvery;
  if (every !== undefined && !(Number.isInteger(every) && every >= 0)) throw invalidArgument('options.afterSaveEvery', 'a whole number ≥ 0 (0: no trial waits for a completed save)', every);
  const lanes = Math.max(1, Math.min(options.concurrency ?? 2, options.trials));
  const random = seededRandom(options.seed ?? 1);
  const durations: number[] = [];
  const median = (): number => {
    if (durations.length === 0) return options.initialDelayMs ?? 200;
    const sorted = durations.slice().sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  };
  // Kill within about one and a half saves after the first one started.
  const delay = (): number => Math.floor(random() * 1.6 * median());
  const trials: CrashTrial[] = [];
  let next = 0;
  const lane = async (index: number): Promise<void> => {
    const laneDirectory = join(options.directory, `lane-${index}`);
    await mkdir(laneDirectory, { recursive: true });
    const target = options.target(laneDirectory);
    let current = await options.initialize(target);
    while (next < options.trials) {
      const number = next++;
      const began = performance.now();
      const run = await runAndKill(options, target, delay, number);
      const checking = performance.now();
      durations.push(...run.saveDurations.filter((ms) => Number.isFinite(ms)));
      const trial: CrashTrial = { lane: index, delayMs: run.delayMs, completedSaves: run.completedSaves, afterSave: run.afterSave, interrupted: (await options.leftovers(target)).length > 0 };
      try {
        trial.found = await options.identify(target);
        const allowed = [current, ...options.childStates];
        if (!allowed.includes(trial.found)) trial.failure = `found state ${trial.found}, expected one of ${allowed.join(', ')}`;
      } catch (error) {
        trial.failure = `opening after the kill failed: ${error instanceof Error ? `${(error as { code?: string }).code ?? error.name}: ${error.message}` : String(error)}`;
      }
      try {
        current = await options.resave(target, number);
        const orphans = await options.leftovers(target);
        if (orphans.length > 0) trial.failure = `${trial.failure ? `${trial.failure}; ` : ''}the next save left ${orphans.join(', ')}`;
      } catch (error) {
        trial.failure = `${trial.failure ? `${trial.failure}; ` : ''}the next save failed: ${error instanceof Error ? error.message : String(error)}`;
      }
      trial.startupMs = Math.round(run.startupMs);
      trial.checkMs = Math.round(performance.now() - checking);
      trial.totalMs = Math.round(performance.now() - began);
      trials.push(trial);
    }
  };
  await Promise.all(Array.from({ length: lanes }, (_, index) => lane(index)));
  const found: Record<string, number> = {};
  for (const trial of trials) if (trial.found !== undefined) found[trial.found] = (found[trial.found] ?? 0) + 1;
  return { trials, found, interrupted: trials.filter((trial) => trial.interrupted).length, failures: trials.filter((trial) => trial.failure !== undefined), medianSaveMs: median() };
}

/**
 * The child side of the crash suite: saves forever, alternating between `states`, printing the
 * lines the harness reads. `save(label)` performs one complete save of that state.
 */
export async function saveForever(states: readonly string[], save: (label: string) => Promise<void>): Promise<never> {
  for (let round = 0; ; round++) {
    const label = states[round % states.length]!;
    process.stdout.write(`saving ${label}\n`);
    const started = performance.now();
    await save(label);
    process.stdout.write(`saved ${label} ${Math.round(performance.now() - started)}\n`);
  }
}

/** Options of {@link runStatesCrashSuite}. */
export interface StatesCrashSuiteOptions {
  /** A fresh directory for the suite (states and lanes go below it). */
  directory: string;
  /** The child script: argv is the target, then the directory holding the saved states `b` and `c` (see {@link saveForever}). */
  childScript: string;
  /** Kills (default 100). */
  trials?: number;
  /** The target inside a lane directory. */
  target(laneDirectory: string): string;
  /** Saves state `label` (`a`, `b`, `c`, `r0`, `r1`) at `path`, in this process. */
  save(label: string, path: string): Promise<void>;
  /** The fingerprint of state `label` as held in this process. */
  expected(label: string): Promise<string>;
  /** Opens `target` and fingerprints what it holds. */
  found(target: string): Promise<string>;
  /** See {@link CrashSuiteOptions.leftovers}. */
  leftovers(target: string): Promise<string[]>;
  /** See {@link CrashSuiteOptions.aimKill}. */
  aimKill?(target: string, trial: number): Promise<void> | undefined;
}

/**
 * The crash suite over five states that the persisting packages share: the target starts as `a`;
 * the child alternates between `b` and `c` (saved once under `<directory>/states/`, the child loads
 * them from there, which is faster than building them); after each kill the state found must be the
 * one before the kill or `b`/`c`, recognised by fingerprint, and the next save writes `r0`/`r1`.
 */
export async function runStatesCrashSuite(options: StatesCrashSuiteOptions): Promise<CrashSuiteReport> {
  const labels = ['a', 'b', 'c', 'r0', 'r1'];
  const byFingerprint = new Map<string, string>();
  for (const label of labels) byFingerprint.set(await options.expected(label), label);
  if (byFingerprint.size !== labels.length) throw new Error('two crash-suite states have the same fingerprint: a mix could not be told apart');
  const states = join(options.directory, 'states');
  for (const label of ['b', 'c']) await options.save(label, join(states, label));
  let round = 0;
  return runCrashSuite({
    trials: options.trials ?? 100,
    directory: join(options.directory, 'lanes'),
    childScript: options.childScript,
    childArguments: [states],
    target: options.target,
    childStates: ['b', 'c'],
    initialize: async (target) => {
      await options.save('a', target);
      return 'a';
    },
    identify: async (target) => {
      const fingerprint = await options.found(target);
      return byFingerprint.get(fingerprint) ?? `unknown state ${fingerprint.slice(0, 16)}`;
    },
    resave: async (target) => {
      const label = `r${round++ % 2}`;
      await options.save(label, target);
      return label;
    },
    leftovers: options.leftovers,
    ...(options.aimKill ? { aimKill: options.aimKill } : {}),
  });
}

/**
 * What a crash suite's report shows to be wrong (empty when sound): failed trials, too few kills
 * inside a save (fewer than `minimumInterrupted`, default half: the test would prove little), or no
 * trial that found a state the child committed.
 */
export function crashSuiteProblems(report: CrashSuiteReport, options: { minimumInterrupted?: number } = {}): string[] {
  const problems = report.failures.slice(0, 5).map((trial) => `trial on lane ${trial.lane} after ${trial.delayMs} ms: ${trial.failure}`);
  if (report.failures.length > 5) problems.push(`… and ${report.failures.length - 5} more failed trials`);
  const minimum = options.minimumInterrupted ?? 0.5;
  if (report.interrupted < minimum * report.trials.length) problems.push(`only ${report.interrupted} of ${report.trials.length} kills landed inside a save (partial state left behind)`);
  const committed = Object.entries(report.found).filter(([label]) => label === 'b' || label === 'c').reduce((total, [, count]) => total + count, 0);
  if (committed === 0) problems.push("no kill came after a save the child completed: the new state was never found");
  return problems;
}
