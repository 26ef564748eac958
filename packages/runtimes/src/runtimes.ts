import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SmokeReport } from './smoke.js';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** The five runtimes the smoke script runs under. */
export type RuntimeName = 'node' | 'bun' | 'deno' | 'workerd' | 'chromium';
export const RUNTIMES: readonly RuntimeName[] = ['node', 'bun', 'deno', 'workerd', 'chromium'];

/** Where a runtime's executable is, or why it is missing and how to get it. */
export type RuntimeLocation = { name: RuntimeName; executable: string } | { name: RuntimeName; missing: string };

/** Debian's Chromium, the one browser the tests drive (playwright-core never downloads one). */
export const CHROMIUM_PATH = process.env.ZERDA_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Flags for a headless Chromium that reaches no network service of its own (no component updates,
 * sync, QUIC or first-run pages); Playwright adds `--headless` and a fresh `--user-data-dir`.
 */
export const CHROMIUM_FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function packageDir(name: string, from = packageRoot): string | undefined {
  try {
    return dirname(createRequire(join(from, 'package.json')).resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

/** The platform packages npm's `bun` takes its binary from (its postinstall only copies it). */
function bunPlatformPackages(): string[] {
  const arch = process.arch === 'arm64' ? 'aarch64' : 'x64';
  const base = `@oven/bun-${process.platform === 'win32' ? 'windows' : process.platform}-${arch}`;
  return [base, `${base}-musl`];
}

function denoPlatformPackages(): string[] {
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  if (process.platform === 'win32') return [`@deno/win32-${arch}`];
  if (process.platform === 'darwin') return [`@deno/darwin-${arch}`];
  return [`@deno/linux-${arch}-glibc`];
}

/** Finds each runtime as this package's devDependencies (bun, deno, workerd) and Debian (chromium) install it. */
export function locateRuntime(name: RuntimeName): RuntimeLocation {
  const npmHint = `it installs with this package's devDependencies (pnpm install from the repository root)`;
  switch (name) {
    case 'node':
      return { name, executable: process.execPath };
    case 'bun': {
      const bun = packageDir('bun');
      for (const platformPackage of bun ? bunPlatformPackages() : []) {
        const platform = packageDir(platformPackage, bun);
        const executable = platform && join(platform, 'bin', process.platform === 'win32' ? 'bun.exe' : 'bun');
        if (executable && existsSync(executable)) return { name, executable };
      }
      return { name, missing: `Bun is not installed (npm package bun with ${bunPlatformPackages()[0]}): ${npmHint}` };
    }
    case 'deno': {
      // The binary is in the platform package (@deno/linux-x64-glibc, …); deno's own postinstall,
      // which copies it into the deno package, does not run here (pnpm-workspace.yaml allowBuilds).
      const deno = packageDir('deno');
      const file = process.platform === 'win32' ? 'deno.exe' : 'deno';
      const candidates = deno ? [join(deno, file), ...denoPlatformPackages().map((platformPackage) => packageDir(platformPackage, deno)).filter((dir): dir is string => dir !== undefined).map((dir) => join(dir, file))] : [];
      const executable = candidates.find((candidate) => existsSync(candidate));
      return executable ? { name, executable } : { name, missing: `Deno is not installed (npm package deno with ${denoPlatformPackages()[0]}): ${npmHint}` };
    }
    case 'workerd': {
      try {
        const executable = (require('workerd') as { default: string }).default;
        if (existsSync(executable)) return { name, executable };
      } catch {
        // fall through
      }
      return { name, missing: `workerd is not installed (npm package workerd): ${npmHint}` };
    }
    case 'chromium':
      return existsSync(CHROMIUM_PATH)
        ? { name, executable: CHROMIUM_PATH }
        : { name, missing: `Chromium is not installed at ${CHROMIUM_PATH}: apt-get install -y --no-install-recommends chromium (.ci/run does it), or set ZERDA_CHROMIUM` };
  }
}

interface Output {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(executable: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Output> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 180_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The report line a smoke run prints (`ZERDA_SMOKE {json}`), or an Error with everything it printed. */
function reportFrom(runtime: string, output: Output): SmokeReport {
  const line = output.stdout.split('\n').find((text) => text.startsWith('ZERDA_SMOKE '));
  if (output.code !== 0 || !line) {
    throw new Error(`the smoke script failed under ${runtime} (exit ${output.code}):\n${output.stderr.trim()}\n${output.stdout.trim()}`.slice(0, 8000));
  }
  return JSON.parse(line.slice('ZERDA_SMOKE '.length)) as SmokeReport;
}

/** A version string for the summary (`bun 1.4.5`, `workerd 2026-11-17`, `Chromium 150.0.…`). */
export async function runtimeVersion(location: Extract<RuntimeLocation, { executable: string }>): Promise<string> {
  if (location.name === 'node') return `node ${process.versions.node}`;
  const output = await run(location.executable, ['--version'], { cwd: packageRoot, env: { DENO_NO_UPDATE_CHECK: '1' }, timeoutMs: 30_000 });
  // `1.4.5`, `deno 2.9.6 (stable, …)`, `workerd 2026-11-17`, `Chromium 150.0.7871.100 built on Debian …`
  const words = (output.stdout.trim().split('\n')[0] ?? '').split(/\s+/);
  return location.name === 'bun' ? `bun ${words[0]}` : words.slice(0, 2).join(' ');
}

/**
 * Runs `dist/smoke-cli.js` under Node, Bun or Deno, each resolving `@zerda/context` from this
 * package's node_modules as an application would.
 */
export async function runSmokeCli(location: Extract<RuntimeLocation, { executable: string }>, script = join(packageRoot, 'dist', 'smoke-cli.js')): Promise<SmokeReport> {
  const args = location.name === 'deno' ? ['run', '--allow-read', '--allow-write', '--allow-env', '--no-lock', script] : [script];
  const output = await run(location.executable, args, { cwd: packageRoot, env: { DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' } });
  return reportFrom(location.name, output);
}

/**
 * Runs the smoke script in workerd (the Cloudflare Workers runtime) with `workerd test`: a worker
 * whose `test()` handler imports the bundle and the smoke script; every file of the bundle is one
 * ES module of the worker, as `wrangler` would upload them. Nothing listens on a socket.
 */
export async function runSmokeWorkerd(executable: string, bundleDir: string, workerSource = WORKER_SOURCE): Promise<SmokeReport> {
  const workDir = mkdtempSync(join(tmpdir(), 'zerda-workerd-'));
  try {
    // Embedded files are read relative to the config: the worker and a copy of the bundle sit beside it.
    writeFileSync(join(workDir, 'worker.js'), workerSource);
    const bundleFiles = readdirSync(bundleDir).filter((file) => file.endsWith('.js') && file !== 'worker.js').sort();
    for (const file of bundleFiles) copyFileSync(join(bundleDir, file), join(workDir, file));
    // The first module is the worker's main module; the others are imported by name ('./zerda.js').
    const modules = ['worker.js', ...bundleFiles];
    const config = [
      'using Workerd = import "/workerd/workerd.capnp";',
      'const config :Workerd.Config = (',
      '  services = [ (name = "smoke", worker = .smokeWorker) ],',
      ');',
      'const smokeWorker :Workerd.Worker = (',
      '  modules = [',
      ...modules.map((file) => `    (name = "${file}", esModule = embed "${file}"),`),
      '  ],',
      `  compatibilityDate = "${(require('workerd') as { compatibilityDate: string }).compatibilityDate}",`,
      ');',
      '',
    ].join('\n');
    writeFileSync(join(workDir, 'smoke.capnp'), config);
    const output = await run(executable, ['test', join(workDir, 'smoke.capnp')], { cwd: workDir });
    if (!/\[ PASS \] smoke/.test(output.stderr + output.stdout)) output.code = output.code === 0 ? 1 : output.code;
    return reportFrom('workerd', output);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

const WORKER_SOURCE = `import * as zerda from './zerda.js';
import { smoke } from './smoke.js';
export default {
  async test() {
    const report = await smoke(zerda, 'workerd');
    console.log('ZERDA_SMOKE ' + JSON.stringify(report));
  },
};
`;

/** What the page loaded, besides the report: proof that the rank table came as its own chunk. */
export interface BrowserRun {
  report: SmokeReport;
  /** Every URL the page requested, in order. */
  requests: string[];
}

/** The private origin static sites are served at, inside the browser only. */
export const SITE_ORIGIN = 'http://zerda.localhost';

/** A Chromium page showing a static site, and what it requested. */
export interface StaticSite {
  page: import('playwright-core').Page;
  /** Every URL the page requested, in order. */
  requests: string[];
  /** Uncaught errors of the page. */
  pageErrors: string[];
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/**
 * Opens `SITE_ORIGIN/` in headless Chromium (Debian's, driven by playwright-core, never a
 * downloaded browser) with a fresh empty profile. Every request is answered from `siteDir` by the
 * test itself (no server, no socket: `pages` adds generated files, such as `index.html`); a
 * request to any other origin is aborted.
 */
export async function openStaticSite(executable: string, siteDir: string, pages: Record<string, string> = {}): Promise<StaticSite> {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'zerda-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: executable, headless: true, args: CHROMIUM_FLAGS });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    const requests: string[] = [];
    const pageErrors: string[] = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      requests.push(url.href);
      if (url.origin !== SITE_ORIGIN) return route.abort('blockedbyclient');
      const name = url.pathname === '/' ? 'index.html' : url.pathname.slice(1);
      const type = CONTENT_TYPES[/\.[a-z]+$/.exec(name)?.[0] ?? ''] ?? 'application/octet-stream';
      if (pages[name] !== undefined) return route.fulfill({ contentType: type, body: pages[name] });
      const file = join(siteDir, name);
      if (!/^[\w.-]+$/.test(name) || !existsSync(file)) return route.fulfill({ status: 404, body: 'not found' });
      return route.fulfill({ path: file, contentType: type });
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${SITE_ORIGIN}/`);
    return { page, requests, pageErrors, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Runs the smoke script in headless Chromium: a page at a private origin imports the bundle and
 * the smoke script as ES modules (see {@link openStaticSite}).
 */
export async function runSmokeChromium(executable: string, bundleDir: string, pageScript = PAGE_SCRIPT): Promise<BrowserRun> {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>zerda smoke</title></head><body><script type="module">${pageScript}</script></body></html>`;
  const site = await openStaticSite(executable, bundleDir, { 'index.html': html });
  try {
    const handle = await site.page.waitForFunction(() => (globalThis as { __zerdaSmoke?: unknown }).__zerdaSmoke, undefined, { timeout: 180_000 });
    const outcome = (await handle.jsonValue()) as { report?: SmokeReport; error?: string };
    if (!outcome.report) throw new Error(`the smoke script failed in Chromium: ${outcome.error ?? 'no report'}${site.pageErrors.length ? `\npage errors: ${site.pageErrors.join('\n')}` : ''}`);
    return { report: outcome.report, requests: site.requests };
  } finally {
    await site.close();
  }
}

const PAGE_SCRIPT = `
try {
  const zerda = await import('./zerda.js');
  const { smoke } = await import('./smoke.js');
  globalThis.__zerdaSmoke = { report: await smoke(zerda, 'chromium') };
} catch (error) {
  globalThis.__zerdaSmoke = { error: String(error && error.stack || error) };
}
`;
