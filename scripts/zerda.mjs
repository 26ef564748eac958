#!/usr/bin/env node
// One entry point for a fresh machine that has only Node.js 20 and npm:
//   node scripts/zerda.mjs setup   install pinned pnpm + dependencies, build every package
//   node scripts/zerda.mjs test    setup, then run every test (workspace checks + each package's suite)
//   node scripts/zerda.mjs demo    setup, then run examples/quickstart (offline, embedded default store)
//   node scripts/zerda.mjs zerda …  the `zerda` CLI from the built workspace (setup first when it is not built),
//                                   in the folder npm was started from: `npm run zerda -- index ./docs`
// It uses only Node built-ins so that it can run before anything is installed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withTestPostgres } from './postgres-fixture.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PNPM_VERSION = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split('@')[1];
const toolingDir = join(root, '.tooling');
const env = { ...process.env };

// node-gyp under pnpm ignores .npmrc's nodedir and tries to download headers (no network here);
// point it at the local Node install when that install ships its headers.
const nodePrefix = dirname(dirname(process.execPath));
if (!env.npm_config_nodedir && existsSync(join(nodePrefix, 'include', 'node', 'node.h'))) {
  env.npm_config_nodedir = nodePrefix;
}
env.TURBO_TELEMETRY_DISABLED = '1';
env.DO_NOT_TRACK = '1';

function run(command, args, options = {}) {
  console.log(`\n$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd: root, env, stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    console.error(`\n✗ ${command} ${args.join(' ')} exited with ${result.status}`);
    process.exit(result.status ?? 1);
  }
}

const NODE_GYP_VERSION = '11.5.0';

function pnpmBinary() {
  const local = join(toolingDir, 'node_modules', 'pnpm', 'bin', 'pnpm.mjs');
  const alt = join(toolingDir, 'node_modules', 'pnpm', 'bin', 'pnpm.cjs');
  for (const candidate of [local, alt]) {
    if (existsSync(candidate) && existsSync(join(toolingDir, 'node_modules', '.bin', 'node-gyp'))) {
      const version = JSON.parse(readFileSync(join(toolingDir, 'node_modules', 'pnpm', 'package.json'), 'utf8')).version;
      if (version === PNPM_VERSION) return candidate;
    }
  }
  return undefined;
}

function ensurePnpm() {
  let binary = pnpmBinary();
  if (!binary) {
    // A project-local pnpm: no global install, no corepack (the registry here serves no signatures).
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    run(npm, ['install', '--prefix', toolingDir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `pnpm@${PNPM_VERSION}`, `node-gyp@${NODE_GYP_VERSION}`]);
    binary = pnpmBinary();
    if (!binary) throw new Error(`pnpm@${PNPM_VERSION} did not install into ${toolingDir}`);
  }
  // Put `pnpm` (for turbo and package scripts) and `node-gyp` (pnpm 12 ships none; native
  // dependencies such as hnswlib-node build with it) on PATH.
  const binDir = join(toolingDir, 'node_modules', '.bin');
  env.PATH = `${binDir}${process.platform === 'win32' ? ';' : ':'}${env.PATH ?? ''}`;
  return binary;
}

function pnpm(binary, args) {
  run(process.execPath, [binary, ...args]);
}

function setup() {
  const binary = ensurePnpm();
  const frozen = existsSync(join(root, 'pnpm-lock.yaml')) ? ['--frozen-lockfile'] : [];
  pnpm(binary, ['install', ...frozen]);
  pnpm(binary, ['run', 'build']);
  return binary;
}

/**
 * Runs a test command, streaming its output, and adds up vitest's "Tests  N passed | M skipped"
 * summary lines so that the run ends with one plain total.
 */
function runTests(binary, args, totals) {
  console.log(`\n$ pnpm ${args.join(' ')}`);
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [binary, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let pending = '';
    child.stdout.on('data', (data) => {
      process.stdout.write(data);
      pending += data.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) count(line, totals);
    });
    child.on('close', (code) => {
      count(pending, totals);
      resolvePromise(code ?? 1);
    });
  });
}

function count(line, totals) {
  const plain = line.replace(/\x1b\[[0-9;]*m/g, '');
  // Keep each failure's heading and the lines after it, so the run ends with them (a CI log is often cut).
  if (totals.failureLinesLeft > 0) {
    totals.failures.push(plain);
    totals.failureLinesLeft--;
  }
  if (/\bFAIL\b|Unhandled (Error|Rejection)|Error: (Hook|Test) timed out/.test(plain) && totals.failures.length < 200) {
    totals.failures.push(plain);
    totals.failureLinesLeft = 4;
  }
  // @zerda/runtimes prints which runtimes ran the smoke script and which were skipped (and why).
  const runtimes = /zerda runtimes: (.+\|.+)$/.exec(plain);
  if (runtimes) totals.runtimes = runtimes[1].trim();
  const match = /\bTests\s+(.*)\(\d+\)\s*$/.exec(plain);
  if (!match) return;
  for (const [, number, kind] of match[1].matchAll(/(\d+) (passed|failed|skipped|todo)/g)) totals[kind] = (totals[kind] ?? 0) + Number(number);
}

/**
 * Runs the `zerda` command of the built workspace (`packages/cli/dist/bin.js`) with `args`, in the
 * folder `npm run` was started from (npm runs scripts at the root and says where it started in
 * INIT_CWD), so `npm run zerda -- index ./docs` reads ./docs and writes ./.zerda there, as `npx
 * @zerda/cli index ./docs` would. A clone that is not set up yet is set up first (the setup's
 * output goes to standard error, so `--format json` output stays clean); returns the CLI's exit code.
 */
function runCli(args) {
  const bin = join(root, 'packages', 'cli', 'dist', 'bin.js');
  if (!existsSync(bin) || !existsSync(join(root, 'node_modules', '.modules.yaml'))) {
    console.error('zerda: the workspace is not built yet; setting it up first (npm run setup)');
    const binary = ensurePnpm();
    const frozen = existsSync(join(root, 'pnpm-lock.yaml')) ? ['--frozen-lockfile'] : [];
    run(process.execPath, [binary, 'install', ...frozen], { stdio: ['ignore', process.stderr, 'inherit'] });
    run(process.execPath, [binary, 'run', 'build'], { stdio: ['ignore', process.stderr, 'inherit'] });
  }
  const result = spawnSync(process.execPath, [bin, ...args], { cwd: env.INIT_CWD ?? process.cwd(), env, stdio: 'inherit' });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

const command = process.argv[2] ?? 'test';
if (command === 'setup') {
  setup();
} else if (command === 'test') {
  const binary = setup();
  const totals = { passed: 0, failed: 0, skipped: 0, failures: [], failureLinesLeft: 0 };
  let status = await runTests(binary, ['run', 'test:workspace'], totals);
  // The package tests get a private PostgreSQL + pgvector server (ZERDA_PG_URL) when this machine has one.
  if (status === 0) status = await withTestPostgres(env, () => runTests(binary, ['run', 'test:packages'], totals));
  // Publishing for real: release into a local registry, install with npm, pnpm and yarn outside the
  // workspace, run the README examples there (scripts/registry-tests; skips without Verdaccio or the npm registry).
  if (status === 0) status = await runTests(binary, ['run', 'test:registry'], totals);
  console.log(`\nsmoke script runtimes: ${totals.runtimes ?? 'not run (see @zerda/runtimes)'}`);
  console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  if (status !== 0) {
    if (totals.failures.length > 0) console.log(`\nfailures (each with the lines after it):\n${totals.failures.join('\n')}`);
    console.error(`✗ tests failed (exit ${status})`);
    process.exit(status);
  }
} else if (command === 'demo') {
  const binary = setup();
  pnpm(binary, ['--filter', '@zerda/example-quickstart', 'run', 'start']);
} else if (command === 'zerda') {
  process.exit(runCli(process.argv.slice(3)));
} else {
  console.error(`unknown command "${command}" (expected setup, test, demo or zerda)`);
  process.exit(2);
}
