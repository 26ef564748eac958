#!/usr/bin/env node
// Compiles the parallel-build addon (native/parallel-build.cc, binding.gyp) with node-gyp into
// build/Release/zerda_hnsw_parallel.node. The addon includes hnswlib's headers from the installed
// hnswlib-node package, so it needs what hnswlib-node's own install needed: a C++ compiler, make,
// Python and Node's headers.
//
//   node scripts/build-native.mjs                build; fail loudly if it cannot (the package's `build`)
//   node scripts/build-native.mjs --if-possible  never fail (the package's `install`): without the
//                                               addon the store inserts on one thread, as before
//
// node-gyp is taken from npm (`npm_config_node_gyp`), PATH, or npm's bundled copy. When
// `npm_config_nodedir` is unset and the running Node install ships its headers
// (<prefix>/include/node/node.h), node-gyp is pointed there instead of downloading them (offline).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ifPossible = process.argv.includes('--if-possible');
const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const HINT = 'install a C++ compiler, make and Python 3, then run `npm run build:native` in @zerda/vector-hnswlib (set npm_config_nodedir to your Node prefix, e.g. /usr, when node-gyp cannot download headers)';

function giveUp(reason) {
  if (ifPossible) {
    console.log(`[vector-hnswlib] parallel HNSW build not compiled: ${reason}. Inserts stay single-threaded; to enable it, ${HINT}.`);
    process.exit(0);
  }
  console.error(`[vector-hnswlib] cannot compile the parallel-build addon: ${reason}. To build it, ${HINT}.`);
  process.exit(1);
}

/** How to run node-gyp: [command, leading arguments], or undefined. */
function findNodeGyp() {
  const fromNpm = process.env.npm_config_node_gyp;
  if (fromNpm && existsSync(fromNpm)) return [process.execPath, [fromNpm]];
  const probe = spawnSync('node-gyp', ['--version'], { encoding: 'utf8', shell: process.platform === 'win32' });
  if (probe.status === 0) return ['node-gyp', []];
  const prefix = dirname(dirname(process.execPath));
  for (const candidate of [
    join(prefix, 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
    join(prefix, 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ]) {
    if (existsSync(candidate)) return [process.execPath, [candidate]];
  }
  return undefined;
}

const nodeGyp = findNodeGyp();
if (!nodeGyp) giveUp('node-gyp was not found (not run by npm, not on PATH, no npm install beside node)');

const env = { ...process.env };
const nodePrefix = dirname(dirname(process.execPath));
if (!env.npm_config_nodedir && existsSync(join(nodePrefix, 'include', 'node', 'node.h'))) env.npm_config_nodedir = nodePrefix;

const [command, leading] = nodeGyp;
const result = spawnSync(command, [...leading, 'rebuild'], { cwd: packageDir, env, stdio: ifPossible ? 'pipe' : 'inherit', encoding: 'utf8', shell: command === 'node-gyp' && process.platform === 'win32' });
if (result.error || result.status !== 0) {
  if (ifPossible && result.stderr) console.log(result.stderr.split('\n').slice(-15).join('\n'));
  giveUp(`node-gyp rebuild ${result.error ? `failed to start (${result.error.message})` : `exited with ${result.status}`}`);
}
console.log('[vector-hnswlib] compiled build/Release/zerda_hnsw_parallel.node (parallel HNSW build)');
