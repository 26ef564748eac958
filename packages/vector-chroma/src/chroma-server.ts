import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { createError, invalidArgument } from '@zerda/types';

/** Options of {@link startChromaServer}. */
export interface ChromaServerOptions {
  /** Directory the server persists to (created when missing). */
  path: string;
  /** Interface to listen on. Default `127.0.0.1` (never exposed beyond the machine by default). */
  host?: string;
  /** Port; default a free one chosen by the operating system. */
  port?: number;
  /** How long to wait for `/api/v2/heartbeat`. Default 30,000 ms. */
  startTimeoutMs?: number;
}

/** A running local Chroma server. */
export interface ChromaServer {
  host: string;
  port: number;
  /** `http://host:port`. */
  url: string;
  /** The data directory. */
  path: string;
  /** The server's process id. */
  pid: number;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and waits for it to exit. */
  stop(): Promise<void>;
}

/** A free TCP port on `host`, chosen by the operating system. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** True when nothing listens on `host:port` (so that a heartbeat can only come from our server). */
async function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** The `chroma` command-line entry point shipped by the `chromadb` package. */
export function chromaCliPath(): string {
  // chromadb exports only its library entry; its CLI sits beside it in dist/.
  const entry = createRequire(import.meta.url).resolve('chromadb');
  const dist = entry.includes(`${join('dist', 'cjs')}`) ? dirname(dirname(entry)) : dirname(entry);
  return join(dist, 'cli.mjs');
}

async function heartbeat(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/api/v2/heartbeat`, { signal: AbortSignal.timeout(1000) });
    return response.ok;
  } catch {
    return false;
  }
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Starts the Chroma server that the `chromadb` package ships (its native bindings run the same
 * server as `chroma run`) as a child process, persisting to `path`, and resolves once it answers
 * `/api/v2/heartbeat`. For development and tests; production deployments run Chroma as a service.
 * On Linux with glibc older than 2.38 the bindings must be pinned (see the README).
 */
export async function startChromaServer(options: ChromaServerOptions): Promise<ChromaServer> {
  if (options === null || typeof options !== 'object' || typeof options.path !== 'string' || options.path.length === 0) {
    throw invalidArgument('options.path', 'a directory for the server data', options?.path);
  }
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? (await freePort(host));
  const timeout = options.startTimeoutMs ?? 30_000;
  const url = `http://${host}:${port}`;
  if (!(await portIsFree(host, port))) {
    throw createError('ZERDA_BACKEND_ERROR', { component: 'Chroma server', operation: `start on ${url}`, reason: `port ${port} is already in use` });
  }
  const child = spawn(process.execPath, [chromaCliPath(), 'run', '--path', options.path, '--host', host, '--port', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, CHROMA_TELEMETRY: 'false', ANONYMIZED_TELEMETRY: 'false' },
  });
  let stderr = '';
  child.stderr?.on('data', (data: Buffer) => {
    stderr = (stderr + data.toString('utf8')).slice(-4000);
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    if (!(await waitForExit(child, 5000))) {
      child.kill('SIGKILL');
      await waitForExit(child, 5000);
    }
  };
  const deadline = Date.now() + timeout;
  while (!(await heartbeat(url))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw createError('ZERDA_BACKEND_ERROR', {
        component: 'Chroma server',
        operation: `start on ${url}`,
        reason: child.exitCode !== null ? `it exited with code ${child.exitCode}: ${stderr.trim() || 'no output'}` : `no heartbeat within ${timeout} ms`,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { host, port, url, path: options.path, pid: child.pid!, stop };
}
