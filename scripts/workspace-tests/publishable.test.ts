// Every public package installs and loads for every kind of consumer: its packed tarball (packed by
// pnpm, as a release publishes it) passes publint in strict mode and "Are the Types Wrong?" (attw),
// and its exports maps give each entry point `types` first, then `import` and a `default` that is the
// same file — one ES module implementation, which CommonJS loads with `require()` on Node ≥ 20.19
// (a condition other than `import` is what lets it; there is no second, CommonJS build to diverge).
//
// Two attw findings are expected and left out, each for a reason; every other one fails the test:
// - "CJSResolvesToESM" (node16 from CommonJS): attw bundles TypeScript 5.6, which predates
//   `require()` of ES modules; scripts/registry-test.mjs runs the real thing instead (Node's
//   `require`, and a TypeScript CommonJS consumer under `module: node20`/`moduleResolution: node16`).
// - "NoResolution" of a subpath (`@zerda/cli/inspector`, …) under node10: `moduleResolution: node`
//   ignores exports maps, so only the package root (main/types) can resolve there, and it does.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module without declarations, shared with scripts/registry-test.mjs
import { packWithPnpm, publicPackages } from '../public-packages.mjs';

const root = resolve(import.meta.dirname, '../..');
const attw = join(root, 'node_modules', '.bin', 'attw');
type PublicPackage = { name: string; version: string; dir: string; manifest: Record<string, any> };
const packages: PublicPackage[] = publicPackages(root);
const tarballs = new Map<string, string>();
let destination = '';

function run(command: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let output = '';
    child.stdout.on('data', (data) => (output += data));
    child.stderr.on('data', (data) => (output += data));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? 1, output }));
  });
}

type AttwProblem = { kind: string; entrypoint: string; resolutionKind: string };
const attwReports = new Map<string, { unexpected: AttwProblem[]; error?: string }>();

function expected(problem: AttwProblem): boolean {
  if (problem.kind === 'CJSResolvesToESM' && problem.resolutionKind === 'node16-cjs') return true;
  return problem.kind === 'NoResolution' && problem.resolutionKind === 'node10' && problem.entrypoint !== '.';
}

async function checkTypes(pkg: PublicPackage): Promise<void> {
  const { output } = await run(attw, [tarballs.get(pkg.name)!, '--format', 'json']);
  try {
    const report = JSON.parse(output.slice(output.indexOf('{'))) as { analysis?: { problems?: AttwProblem[] } };
    const problems = report.analysis?.problems;
    if (!problems) throw new Error('no analysis in the report');
    attwReports.set(pkg.name, { unexpected: problems.filter((problem) => !expected(problem)) });
  } catch (error) {
    attwReports.set(pkg.name, { unexpected: [], error: `attw gave no report (${(error as Error).message}): ${output.slice(0, 2000)}` });
  }
}

beforeAll(async () => {
  destination = mkdtempSync(join(tmpdir(), 'zerda-pack-'));
  for (const pkg of packages) tarballs.set(pkg.name, packWithPnpm(pkg.dir, destination));
  // attw is mostly TypeScript start-up: two at a time.
  const queue = [...packages];
  await Promise.all([0, 1].map(async () => {
    for (let pkg = queue.shift(); pkg; pkg = queue.shift()) await checkTypes(pkg);
  }));
}, 300_000);

afterAll(() => {
  if (destination) rmSync(destination, { recursive: true, force: true });
});

describe('publishable packages', () => {
  it('finds the public packages', () => {
    expect(packages.length).toBeGreaterThan(15);
    expect(packages.map((pkg) => pkg.name)).toContain('@zerda/context');
  });

  for (const pkg of packages) {
    describe(pkg.name, () => {
      it('gives every entry point types first, then import and the same file as default', () => {
        const exportsMap = pkg.manifest.exports as Record<string, Record<string, string>>;
        expect(pkg.manifest.type).toBe('module');
        expect(pkg.manifest.main, 'main for resolvers that ignore exports').toBe(exportsMap['.']!.import ?? exportsMap['.']!.node);
        expect(pkg.manifest.types).toBe(exportsMap['.']!.types);
        for (const [subpath, conditions] of Object.entries(exportsMap)) {
          const keys = Object.keys(conditions);
          expect(keys[0], `${subpath}: types first`).toBe('types');
          if ('import' in conditions) {
            expect(conditions.default, `${subpath}: a default condition for require() and other resolvers`).toBe(conditions.import);
            expect(keys.indexOf('default'), `${subpath}: default last`).toBe(keys.length - 1);
          } else {
            // Runtime-specific maps (a `node` condition, a browser fallback) keep their own shape.
            expect(conditions.node ?? conditions.default, `${subpath}: a Node target`).toBeDefined();
          }
        }
      });

      it('passes publint (strict)', async () => {
        const tarball = readFileSync(tarballs.get(pkg.name)!);
        const { messages, pkg: packed } = await publint({ pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) }, strict: true, level: 'suggestion' });
        const text = messages.map((message) => `${message.type}: ${formatMessage(message, packed) ?? message.code}`);
        expect(text).toEqual([]);
        expect(JSON.stringify(packed)).not.toContain('workspace:');
      });

      it('passes attw for node10, node16 (CJS and ESM) and bundler resolution', () => {
        const report = attwReports.get(pkg.name)!;
        expect(report.error, report.error).toBeUndefined();
        expect(report.unexpected).toEqual([]);
      });
    });
  }
});
