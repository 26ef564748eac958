#!/usr/bin/env node
// Builds faiss-node's native addon against the system FAISS (Debian/Ubuntu: libfaiss-dev and
// libopenblas-dev), for machines where faiss-node's own install script cannot run: it downloads
// a prebuilt binary, or FAISS's sources, from github.com.
//
//   node scripts/build-faiss-node.mjs                build; fail loudly if anything is missing
//   node scripts/build-faiss-node.mjs --if-possible  skip (exit 0, with instructions) when FAISS,
//                                                   cmake or a C++ compiler is not installed
//   node scripts/build-faiss-node.mjs --force        rebuild even if a working addon exists
//
// The addon goes where faiss-node's loader (`bindings`) looks: <faiss-node>/build/Release/.
// Nothing is downloaded. FAISS 1.7.3 (Debian 12) lacks `faiss::idx_t`, which faiss-node 0.5.1
// uses; a one-line shim adds it when a test compile shows it missing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = new Set(process.argv.slice(2));
const ifPossible = args.has('--if-possible');
const force = args.has('--force');
const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(join(packageDir, 'package.json'));

const INSTALL_HINT =
  'install FAISS and BLAS (Debian/Ubuntu: apt-get install -y --no-install-recommends libfaiss-dev libopenblas-dev cmake g++ make), then run `node scripts/build-faiss-node.mjs` in packages/vector-faiss; elsewhere `npm install faiss-node` downloads a prebuilt binary';

function skipOrFail(reason) {
  if (ifPossible) {
    console.log(`[build-faiss-node] skipped: ${reason}. FAISS tests will be skipped; to enable them, ${INSTALL_HINT}.`);
    process.exit(0);
  }
  console.error(`[build-faiss-node] ${reason}. To build, ${INSTALL_HINT}.`);
  process.exit(1);
}

function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { encoding: 'utf8', ...options });
  return { ok: result.status === 0 && !result.error, output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}` };
}

/** Loads the addon in a child process: a missing symbol or library aborts that process, not this one. */
function addonLoads(faissDir) {
  const probe = `const f = require(${JSON.stringify(join(faissDir, 'lib', 'index.js'))}); const i = new f.IndexFlatL2(2); i.add([1, 0, 0, 1]); if (i.search([1, 0], 1).labels[0] !== 0) process.exit(3);`;
  return run(process.execPath, ['-e', probe], { cwd: faissDir });
}

if (process.platform !== 'linux') skipOrFail(`this script builds on Linux only (here: ${process.platform}); npm's faiss-node install provides prebuilt binaries for macOS and Windows`);

let faissDir;
try {
  faissDir = dirname(require.resolve('faiss-node/package.json'));
} catch {
  skipOrFail('faiss-node is not installed (run pnpm install)');
}
const target = join(faissDir, 'build', 'Release', 'faiss-node.node');
if (!force && existsSync(target) && addonLoads(faissDir).ok) {
  console.log(`[build-faiss-node] ${target} already builds and loads`);
  process.exit(0);
}

// Prerequisites: FAISS's CMake package and headers, cmake, a C++ compiler, Node's headers.
const faissConfig = ['/usr/lib/x86_64-linux-gnu/cmake/faiss', '/usr/lib/aarch64-linux-gnu/cmake/faiss', '/usr/local/lib/cmake/faiss', '/usr/lib/cmake/faiss', '/usr/share/faiss'].find((dir) => existsSync(join(dir, 'faiss-config.cmake')));
if (!faissConfig && !process.env.faiss_DIR) skipOrFail('FAISS is not installed (no faiss-config.cmake; set faiss_DIR if it lives elsewhere)');
if (!run('cmake', ['--version']).ok) skipOrFail('cmake is not installed');
if (!run('c++', ['--version']).ok && !run('g++', ['--version']).ok) skipOrFail('no C++ compiler (c++ or g++)');
const nodePrefix = process.env.npm_config_nodedir ?? dirname(dirname(process.execPath));
const nodeInclude = join(nodePrefix, 'include', 'node');
if (!existsSync(join(nodeInclude, 'node_api.h'))) skipOrFail(`Node's headers are not in ${nodeInclude} (set npm_config_nodedir to a Node install with include/node)`);
const addonApi = dirname(createRequire(join(faissDir, 'package.json')).resolve('node-addon-api/package.json'));

const work = mkdtempSync(join(tmpdir(), 'zerda-faiss-node-build-'));
try {
  writeFileSync(
    join(work, 'faiss-idx-shim.h'),
    '#pragma once\n#include <faiss/Index.h>\n// FAISS 1.7.3 defines idx_t inside Index only; faiss-node 0.5.1 uses faiss::idx_t.\nnamespace faiss { using idx_t = Index::idx_t; }\n',
  );
  writeFileSync(
    join(work, 'CMakeLists.txt'),
    `cmake_minimum_required(VERSION 3.17)
project(faiss_node_addon LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
find_package(OpenMP REQUIRED)
find_package(BLAS REQUIRED)
find_package(LAPACK REQUIRED)
find_package(faiss REQUIRED)
include(CheckCXXSourceCompiles)
get_target_property(FAISS_INCLUDES faiss INTERFACE_INCLUDE_DIRECTORIES)
set(CMAKE_REQUIRED_INCLUDES \${FAISS_INCLUDES})
check_cxx_source_compiles("#include <faiss/Index.h>\\nfaiss::idx_t value = 0;\\nint main() { return (int) value; }" FAISS_HAS_NAMESPACE_IDX_T)
add_library(faiss_node SHARED "${join(faissDir, 'src', 'faiss.cc').replace(/\\/g, '/')}")
set_target_properties(faiss_node PROPERTIES PREFIX "" OUTPUT_NAME "faiss-node" SUFFIX ".node")
target_compile_definitions(faiss_node PRIVATE NAPI_VERSION=8 NAPI_CPP_EXCEPTIONS)
target_include_directories(faiss_node PRIVATE "${nodeInclude}" "${addonApi}")
if(NOT FAISS_HAS_NAMESPACE_IDX_T)
  message(STATUS "faiss::idx_t missing: adding the shim")
  target_compile_options(faiss_node PRIVATE -include "\${CMAKE_SOURCE_DIR}/faiss-idx-shim.h")
endif()
target_link_libraries(faiss_node PRIVATE faiss OpenMP::OpenMP_CXX \${BLAS_LIBRARIES} \${LAPACK_LIBRARIES})
`,
  );
  const configureArgs = ['-S', work, '-B', join(work, 'build'), '-DCMAKE_BUILD_TYPE=Release'];
  if (faissConfig && !process.env.faiss_DIR) configureArgs.push(`-Dfaiss_DIR=${faissConfig}`);
  console.log('[build-faiss-node] configuring');
  let step = run('cmake', configureArgs);
  if (!step.ok) {
    console.error(step.output);
    skipOrFail('cmake could not configure the build (see above)');
  }
  console.log('[build-faiss-node] compiling faiss-node against the system FAISS (about a minute)');
  step = run('cmake', ['--build', join(work, 'build'), '--config', 'Release', '--', `-j${Math.max(1, Math.min(2, Number(process.env.ZERDA_BUILD_JOBS ?? 2)))}`]);
  if (!step.ok) {
    console.error(step.output);
    console.error('[build-faiss-node] compilation failed');
    process.exit(1);
  }
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(join(work, 'build', 'faiss-node.node'), target);
  const loaded = addonLoads(faissDir);
  if (!loaded.ok) {
    console.error(loaded.output);
    console.error('[build-faiss-node] the addon was built but does not load (runtime libraries: libopenblas0, libgomp1, libgfortran5)');
    rmSync(target, { force: true });
    process.exit(1);
  }
  console.log(`[build-faiss-node] built ${target}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
