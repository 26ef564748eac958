// A private npm registry for the publishing test: Verdaccio (a root devDependency) on 127.0.0.1,
// with its storage, configuration and users in a temporary folder. `@zerda/*` packages live only
// there (no uplink: a name that was not published is a 404, as it would be for a user); every
// other package is fetched from the npm registry through Verdaccio's uplink, the one way the
// consumers reach third-party packages.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** An npm user config file with the registry and a publish token for it (pass as `npm_config_userconfig`). */
  userConfig: string;
  /** What Verdaccio printed, for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The npm registry the uplink points at: npm's configured one (CI and developers reach the same), else the public one. */
export function upstreamRegistry(): string {
  const configured = process.env.npm_config_registry;
  return configured && !/127\.0\.0\.1|localhost/.test(configured) ? configured : 'https://registry.npmjs.org/';
}

/**
 * Starts Verdaccio in `folder` and waits until it answers, then adds a user and writes an npm
 * config with its token. Throws (with Verdaccio's output) when it does not come up in time.
 */
export async function startLocalRegistry(folder: string, timeoutMs = 60_000): Promise<LocalRegistry> {
  mkdirSync(join(folder, 'storage'), { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = join(folder, 'config.yaml');
  writeFileSync(
    config,
    [
      'storage: ./storage',
      'auth:',
      '  htpasswd:',
      '    file: ./htpasswd',
      '    max_users: 10',
      'uplinks:',
      '  npmjs:',
      `    url: ${upstreamRegistry()}`,
      '    timeout: 60s',
      'packages:',
      "  '@zerda/*':",
      '    access: $all',
      '    publish: $authenticated',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      '    proxy: npmjs',
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  );
  const binary = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'verdaccio.cmd' : 'verdaccio');
  const child: ChildProcess = spawn(binary, ['--config', config, '--listen', `127.0.0.1:${port}`], { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (data) => (output += data));
  child.stderr?.on('data', (data) => (output += data));
  let exited = false;
  child.on('exit', () => (exited = true));
  child.on('error', (error) => {
    exited = true;
    output += String(error);
  });
  const stop = () =>
    new Promise<void>((resolveStop) => {
      if (exited) return resolveStop();
      child.once('exit', () => resolveStop());
      child.kill('SIGTERM');
    });

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) throw new Error(`Verdaccio exited before answering:\n${output}`);
    try {
      const response = await fetch(`${url}-/ping`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Verdaccio did not answer on ${url} within ${timeoutMs / 1000} s:\n${output}`);
    }
    await new Promise((wait) => setTimeout(wait, 250));
  }

  const response = await fetch(`${url}-/user/org.couchdb.user:zerda-ci`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'zerda-ci', password: `zerda-ci-${port}` }),
  });
  const { token } = (await response.json()) as { token?: string };
  if (!response.ok || !token) {
    await stop();
    throw new Error(`Verdaccio refused the test user (${response.status}):\n${output}`);
  }
  const userConfig = join(folder, 'npmrc');
  writeFileSync(userConfig, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  return { url, userConfig, log: () => output, stop };
}
