#!/usr/bin/env node
// A private PostgreSQL server with pgvector for the project's tests and benchmarks, using only
// Node built-ins (it runs before anything is installed):
//   node scripts/postgres-fixture.mjs check                 what is installed, what is missing
//   node scripts/postgres-fixture.mjs install-pgvector      build pgvector from ../shared/vendor and install it
//   node scripts/postgres-fixture.mjs run -- CMD [ARGS…]    start a server, run CMD with ZERDA_PG_URL set, stop it
// As a module: postgresAvailability(), ensurePgvector(), startPostgres(), withTestPostgres().
//
// The server listens on a free 127.0.0.1 port only, keeps its data in a fresh temporary directory,
// runs as the `postgres` user when this process is root (initdb refuses root), and is always
// stopped and removed: on return, on failure, on SIGINT/SIGTERM/SIGHUP, and — through a small
// watchdog process — even when the process that started it is killed outright.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, openSync, closeSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The pgvector source the project builds when the server has no pgvector (see ../shared/vendor/README.md). */
export const PGVECTOR_TARBALL = 'pgvector-0.8.6.tar.gz';
const HINT_PACKAGES = 'apt-get install postgresql-15 postgresql-server-dev-15';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.error) return { ok: false, output: result.error.message };
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() };
}

function versionOf(directory) {
  const match = /(\d+)(?:\.(\d+))?/.exec(directory.split('/').at(-2) ?? '');
  return match ? Number(match[1]) : 0;
}

/** Directories that may hold initdb/pg_ctl/postgres, best first. */
function candidateBinDirectories() {
  const found = [];
  if (process.env.ZERDA_PG_BINDIR) found.push(process.env.ZERDA_PG_BINDIR);
  const onPath = run('pg_config', ['--bindir']);
  if (onPath.ok) found.push(onPath.output.split('\n')[0]);
  for (const base of ['/usr/lib/postgresql', '/usr/local/pgsql']) {
    if (!existsSync(base)) continue;
    if (existsSync(join(base, 'bin'))) found.push(join(base, 'bin'));
    for (const entry of readdirSync(base)) if (existsSync(join(base, entry, 'bin'))) found.push(join(base, entry, 'bin'));
  }
  // Newest major version first among the distribution's directories; explicit choices stay first.
  const explicit = found.slice(0, process.env.ZERDA_PG_BINDIR ? 1 : 0);
  const rest = [...new Set(found.slice(explicit.length))].sort((a, b) => versionOf(b) - versionOf(a));
  return [...new Set([...explicit, ...rest])];
}

function pgConfigValue(binDirectory, flag) {
  const result = run(join(binDirectory, 'pg_config'), [flag]);
  return result.ok ? result.output.split('\n')[0] : undefined;
}

/** The postgres user's uid/gid when this process runs as root (initdb and the server refuse root). */
function serverUser() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((entry) => entry.startsWith('postgres:'));
  if (!line) return { error: 'this process runs as root and there is no postgres user to run the server as (create one, or run as an ordinary user)' };
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/**
 * What this machine has: the server binaries (initdb, pg_ctl, postgres, pg_config) and whether
 * pgvector is installed into that server (its control file and library). Never throws.
 */
export function postgresAvailability() {
  for (const binDirectory of candidateBinDirectories()) {
    if (!['initdb', 'postgres', 'pg_config'].every((name) => existsSync(join(binDirectory, name)))) continue;
    const version = run(join(binDirectory, 'postgres'), ['--version']).output.replace(/^postgres \(PostgreSQL\) /, '');
    const sharedir = pgConfigValue(binDirectory, '--sharedir');
    const pkglibdir = pgConfigValue(binDirectory, '--pkglibdir');
    const pgxs = pgConfigValue(binDirectory, '--pgxs');
    const control = sharedir ? join(sharedir, 'extension', 'vector.control') : undefined;
    let pgvector;
    if (control && existsSync(control) && pkglibdir && existsSync(join(pkglibdir, 'vector.so'))) {
      pgvector = /default_version\s*=\s*'([^']+)'/.exec(readFileSync(control, 'utf8'))?.[1] ?? 'unknown';
    }
    return { available: true, binDirectory, version, pgvector, canBuildExtensions: pgxs !== undefined && existsSync(pgxs) };
  }
  return { available: false, reason: `no PostgreSQL server binaries found (initdb, postgres, pg_config; looked in $ZERDA_PG_BINDIR, pg_config on PATH, /usr/lib/postgresql/*/bin): ${HINT_PACKAGES}` };
}

/** The vendored pgvector tarball (../shared/vendor beside the repository root), or undefined. */
export function vendoredPgvector() {
  const candidates = [process.env.ZERDA_VENDOR, join(root, '..', 'shared', 'vendor')].filter(Boolean);
  for (const directory of candidates) if (existsSync(join(directory, PGVECTOR_TARBALL))) return join(directory, PGVECTOR_TARBALL);
  return undefined;
}

/**
 * Makes sure the server has pgvector: nothing to do when it is installed; otherwise builds the
 * vendored source against the server's pg_config (needs postgresql-server-dev and a C compiler)
 * and installs it (needs write access to the server's directories, i.e. root on Debian).
 * Returns `{ ok: true, version, built }` or `{ ok: false, reason }`; never throws.
 */
export function ensurePgvector({ log = () => undefined } = {}) {
  const availability = postgresAvailability();
  if (!availability.available) return { ok: false, reason: availability.reason };
  if (availability.pgvector) return { ok: true, version: availability.pgvector, built: false, availability };
  if (!availability.canBuildExtensions) return { ok: false, reason: `pgvector is not installed and cannot be built (no PGXS: apt-get install postgresql-server-dev-${availability.version.split('.')[0]})` };
  const tarball = vendoredPgvector();
  if (!tarball) return { ok: false, reason: `pgvector is not installed and its source ${PGVECTOR_TARBALL} is not in ../shared/vendor (or $ZERDA_VENDOR)` };
  const work = mkdtempSync(join(tmpdir(), 'zerda-pgvector-build-'));
  try {
    const started = performance.now();
    log(`building pgvector from ${tarball} against PostgreSQL ${availability.version} …`);
    const untar = run('tar', ['-xzf', tarball, '-C', work]);
    if (!untar.ok) return { ok: false, reason: `could not unpack ${tarball}: ${untar.output}` };
    const source = join(work, PGVECTOR_TARBALL.replace(/\.tar\.gz$/, ''));
    // No LLVM bitcode: the server's JIT does not need it and it doubles the build time.
    const makeArgs = ['-C', source, `PG_CONFIG=${join(availability.binDirectory, 'pg_config')}`, 'with_llvm=no'];
    const build = run('make', [...makeArgs, '-j2']);
    if (!build.ok) return { ok: false, reason: `pgvector did not build (make): ${build.output.split('\n').slice(-3).join(' ')}` };
    const install = run('make', [...makeArgs, 'install']);
    if (!install.ok) return { ok: false, reason: `pgvector built but did not install (make install needs write access to the server's directories; run as root): ${install.output.split('\n').slice(-2).join(' ')}` };
    const after = postgresAvailability();
    if (!after.pgvector) return { ok: false, reason: 'make install finished but the server still has no vector.control' };
    log(`pgvector ${after.pgvector} built and installed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return { ok: true, version: after.pgvector, built: true, availability: after };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

const sleep = (ms) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

// Kills the postmaster and removes the directory once the parent is gone (it polls; it is
// stopped by the parent on a normal stop). Passed to `node -e`, so it must be self-contained.
const WATCHDOG = `
const [parent, directory] = process.argv.slice(1);
const fs = require('node:fs');
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const postmaster = () => { try { return Number(fs.readFileSync(directory + '/data/postmaster.pid', 'utf8').split('\\n')[0]); } catch { return 0; } };
const timer = setInterval(() => {
  if (alive(Number(parent))) return;
  clearInterval(timer);
  const pid = postmaster();
  if (pid > 0 && alive(pid)) { try { process.kill(pid, 'SIGQUIT'); } catch {} }
  let waited = 0;
  const finish = setInterval(() => {
    waited += 100;
    if (pid > 0 && alive(pid) && waited < 10000) return;
    if (pid > 0 && alive(pid)) { try { process.kill(pid, 'SIGKILL'); } catch {} }
    clearInterval(finish);
    fs.rmSync(directory, { recursive: true, force: true });
    process.exit(0);
  }, 100);
}, 500);
`;

const running = new Set();
let handlersInstalled = false;

function installSignalHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      Promise.allSettled([...running].map((server) => server.stop())).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    });
  }
  // Last resort on a synchronous exit (process.exit elsewhere): stop without waiting.
  process.once('exit', () => {
    for (const server of running) server.stopSync();
  });
}

/**
 * Starts a private PostgreSQL server: a fresh data directory under the system temporary directory
 * (initdb with trust authentication for the `postgres` user, UTF-8, C locale), listening on a free
 * 127.0.0.1 port and a Unix socket inside that directory. Resolves to a handle with `url`, `port`,
 * `dataDirectory`, `version`, `postmasterPid()`, `crash()` (SIGKILL the postmaster, as a power cut
 * would end it), `restart()` (start again on the same data: crash recovery runs) and `stop()`
 * (fast shutdown, then the directory is removed). `settings` are extra `-c name=value` options;
 * `fsync: false` makes commits cheaper for tests (a killed process still loses nothing committed:
 * only an operating-system crash would). Throws an Error with the reason when it cannot start.
 */
export async function startPostgres({ settings = {}, fsync = true, log = () => undefined } = {}) {
  const availability = postgresAvailability();
  if (!availability.available) throw new Error(availability.reason);
  const user = serverUser();
  if (user?.error) throw new Error(user.error);
  const { binDirectory } = availability;
  const directory = mkdtempSync(join(tmpdir(), 'zerda-pg-'));
  const data = join(directory, 'data');
  const asUser = user ? { uid: user.uid, gid: user.gid } : {};
  if (user) chownSync(directory, user.uid, user.gid);
  const watchdog = spawn(process.execPath, ['-e', WATCHDOG, String(process.pid), directory], { detached: true, stdio: 'ignore' });
  watchdog.unref();
  let child;
  let port;
  let stopped = false;

  const removeDirectory = () => {
    try {
      watchdog.kill('SIGKILL');
    } catch {
      // already gone
    }
    rmSync(directory, { recursive: true, force: true });
  };

  try {
    const initdb = run(join(binDirectory, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'], { ...asUser, cwd: directory });
    if (!initdb.ok) throw new Error(`initdb failed: ${initdb.output.split('\n').slice(-3).join(' ')}`);
  } catch (error) {
    removeDirectory();
    throw error;
  }

  const options = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: directory,
    fsync: fsync ? 'on' : 'off',
    max_connections: '120',
    ...settings,
  };

  async function launch(fixedPort) {
    for (let attempt = 0; attempt < (fixedPort === undefined ? 5 : 40); attempt++) {
      const candidate = fixedPort ?? (await freePort());
      const logFd = openSync(join(directory, 'server.log'), 'a');
      const args = ['-D', data, '-p', String(candidate), ...Object.entries(options).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
      // Its own process group: a terminal's Ctrl-C reaches this process, which stops the server in order.
      const started = spawn(join(binDirectory, 'postgres'), args, { ...asUser, cwd: directory, detached: true, stdio: ['ignore', logFd, logFd] });
      closeSync(logFd);
      let exited = false;
      started.once('exit', () => {
        exited = true;
      });
      started.unref();
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && !exited) {
        const pidFile = join(data, 'postmaster.pid');
        if (existsSync(pidFile)) {
          const lines = readFileSync(pidFile, 'utf8').split('\n');
          if (lines[7]?.trim() === 'ready' && Number(lines[0]) === started.pid) {
            child = started;
            port = candidate;
            return;
          }
        }
        await sleep(50);
      }
      if (!exited) started.kill('SIGKILL');
      const tail = existsSync(join(directory, 'server.log')) ? readFileSync(join(directory, 'server.log'), 'utf8').split('\n').slice(-4).join(' ') : '';
      // A port taken between choosing and binding, or shared memory of a killed server not yet released: try again.
      if (/could not bind|already in use|pre-existing shared memory/i.test(tail)) {
        await sleep(300);
        continue;
      }
      throw new Error(`the PostgreSQL server did not start: ${tail}`);
    }
    throw new Error('the PostgreSQL server did not start (port or shared memory still in use)');
  }

  async function waitForExit(pid, ms) {
    const deadline = Date.now() + ms;
    while (alive(pid) && Date.now() < deadline) await sleep(50);
    return !alive(pid);
  }

  const server = {
    version: availability.version,
    pgvector: availability.pgvector,
    binDirectory,
    dataDirectory: data,
    directory,
    get port() {
      return port;
    },
    get url() {
      return `postgres://postgres@127.0.0.1:${port}/postgres`;
    },
    postmasterPid: () => child?.pid,
    /** SIGKILL the postmaster (its backends notice and exit): what a crash leaves behind. */
    async crash() {
      const pid = child?.pid;
      if (pid === undefined) return;
      process.kill(pid, 'SIGKILL');
      await waitForExit(pid, 10_000);
      child = undefined;
    },
    /** Starts the server again on the same data directory and port (after crash() or stop({ keepData: true })). */
    async restart() {
      if (child && alive(child.pid)) return;
      await launch(port);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      running.delete(server);
      const pid = child?.pid;
      if (pid !== undefined && alive(pid)) {
        process.kill(pid, 'SIGINT'); // fast shutdown: roll back open transactions, checkpoint, exit
        if (!(await waitForExit(pid, 15_000))) {
          process.kill(pid, 'SIGKILL');
          await waitForExit(pid, 5_000);
        }
      }
      removeDirectory();
    },
    stopSync() {
      if (stopped) return;
      stopped = true;
      running.delete(server);
      const pid = child?.pid;
      if (pid !== undefined && alive(pid)) {
        try {
          process.kill(pid, 'SIGQUIT'); // immediate shutdown; the directory goes with it below
        } catch {
          // gone
        }
        const deadline = Date.now() + 5_000;
        while (alive(pid) && Date.now() < deadline) spawnSync('sleep', ['0.05']);
      }
      removeDirectory();
    },
  };

  try {
    await launch(undefined);
  } catch (error) {
    removeDirectory();
    throw error;
  }
  running.add(server);
  installSignalHandlers();
  log(`PostgreSQL ${availability.version}${availability.pgvector ? ` + pgvector ${availability.pgvector}` : ''} on ${server.url} (data in ${directory})`);
  return server;
}

/**
 * Runs `fn` with `env.ZERDA_PG_URL` pointing at a PostgreSQL server with pgvector: the user's own
 * when `ZERDA_PG_URL` is already set, otherwise a private one started here (pgvector built from
 * the vendored source first when missing) and stopped afterwards whatever happens. When no server
 * can be had, prints one note saying why and runs `fn` without it (the server tests then skip).
 */
export async function withTestPostgres(env, fn, { log = (line) => console.log(line) } = {}) {
  if (env.ZERDA_PG_URL) {
    log(`note: ZERDA_PG_URL is set; the PostgreSQL server tests use that server`);
    return fn();
  }
  const pgvector = ensurePgvector({ log });
  if (!pgvector.ok) {
    log(`note: no PostgreSQL server for the pgvector server tests (they will skip): ${pgvector.reason}`);
    return fn();
  }
  let server;
  try {
    server = await startPostgres({ fsync: false, log });
  } catch (error) {
    log(`note: the PostgreSQL test server did not start (the pgvector server tests will skip): ${error.message}`);
    return fn();
  }
  env.ZERDA_PG_URL = server.url;
  try {
    return await fn();
  } finally {
    delete env.ZERDA_PG_URL;
    await server.stop();
  }
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === 'check') {
    const availability = postgresAvailability();
    console.log(JSON.stringify({ ...availability, vendoredPgvector: vendoredPgvector() ?? null }, null, 2));
    return availability.available && availability.pgvector ? 0 : 1;
  }
  if (command === 'install-pgvector') {
    const result = ensurePgvector({ log: console.log });
    console.log(result.ok ? `pgvector ${result.version} ${result.built ? 'installed' : 'was already installed'}` : `✗ ${result.reason}`);
    return result.ok ? 0 : 1;
  }
  if (command === 'run') {
    const commandLine = rest[0] === '--' ? rest.slice(1) : rest;
    if (commandLine.length === 0) {
      console.error('usage: node scripts/postgres-fixture.mjs run -- COMMAND [ARGS…]');
      return 2;
    }
    const env = { ...process.env };
    let child;
    let interrupted;
    // A signal to this process (not to the whole terminal group) reaches the command too; one that
    // comes while the server is still starting cancels the command, and the server is stopped below.
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
      process.on(signal, () => {
        interrupted ??= signal;
        child?.kill(signal);
      });
    }
    const status = await withTestPostgres(env, () =>
      new Promise((resolveRun) => {
        if (interrupted) return resolveRun(1);
        child = spawn(commandLine[0], commandLine.slice(1), { env, stdio: 'inherit' });
        child.on('error', (error) => {
          console.error(error.message);
          resolveRun(1);
        });
        child.on('exit', (code, signal) => resolveRun(code ?? (signal ? 1 : 0)));
      }),
    );
    return interrupted ? 128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[interrupted] ?? 1) : status;
  }
  console.error('usage: node scripts/postgres-fixture.mjs check | install-pgvector | run -- COMMAND [ARGS…]');
  return 2;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // Exit explicitly: the signal listeners of `run` would otherwise keep nothing alive, but be explicit.
  process.exit(await main(process.argv.slice(2)));
}
