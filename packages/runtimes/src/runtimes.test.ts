// One smoke script, five runtimes: Node.js (this process's), Bun, Deno, workerd and headless
// Chromium each index the same Arabic + English corpus and must build exactly the contexts that
// @zerda/context builds here in Node. A runtime that is not installed is skipped with a message
// saying how to get it, and the summary line (`zerda runtimes: …`) says which ran.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zerda from '@zerda/context';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBrowserBundle, type BrowserBundle } from './bundle.js';
import { RUNTIMES, locateRuntime, runSmokeChromium, runSmokeCli, runSmokeWorkerd, runtimeVersion, type RuntimeName } from './runtimes.js';
import { smoke, type SmokeReport } from './smoke.js';

const outcomes = new Map<RuntimeName, string>();
let bundle: BrowserBundle;
let reference: SmokeReport;
const workDir = mkdtempSync(join(tmpdir(), 'zerda-runtimes-'));

beforeAll(async () => {
  bundle = await buildBrowserBundle(join(workDir, 'bundle'));
  reference = await smoke(zerda, 'vitest (reference)');
}, 120_000);

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
  const line = RUNTIMES.map((name) => outcomes.get(name) ?? `${name} not run`).join(' | ');
  console.log(`zerda runtimes: ${line}`);
});

/** Every runtime must produce the reference's queries exactly: same contexts, chunks, citations, budgets. */
function expectSameAsReference(report: SmokeReport, runtime: string, extraChecks = 0): void {
  expect(report.runtime).toContain(runtime);
  expect(report.checks).toBe(reference.checks + extraChecks);
  expect(report.queries).toEqual(reference.queries);
}

describe('the smoke script', () => {
  it('checks Arabic, English and filtered contexts and their citations, under both counters', () => {
    expect(reference.queries.map((query) => `${query.name}/${query.counter}`)).toEqual(['arabic/chars', 'english/chars', 'filtered/chars', 'arabic/cl100k_base', 'english/cl100k_base', 'filtered/cl100k_base']);
    expect(reference.checks).toBeGreaterThan(60);
    const arabic = reference.queries[0]!;
    expect(arabic.context).toContain('المصادر:\n[1] handbook/rag-ar.md');
    expect(arabic.dropped).toContain('exact_duplicate');
  });

  it('fails loudly when a check fails (a bundle whose engine drops every chunk)', async () => {
    const broken = { ...zerda, ContextEngine: class extends zerda.ContextEngine {
      override async run(query: unknown, options?: zerda.RunOptions) {
        const result = await super.run(query, options);
        return { ...result, context: '' };
      }
    } } as typeof zerda;
    await expect(smoke(broken, 'broken')).rejects.toThrow(/smoke check failed under broken: arabic\/chars: a non-empty context/);
  });
});

describe.each(RUNTIMES.map((name) => [name, locateRuntime(name)] as const))('%s', (name, location) => {
  const missing = 'missing' in location ? location.missing : undefined;
  const title = missing ? `runs the smoke script (skipped: ${missing})` : 'runs the smoke script and builds the same contexts as Node';
  if (missing) {
    outcomes.set(name, `${name} skipped (${missing})`);
    console.warn(`zerda runtimes: ${name} skipped — ${missing}`);
  }

  it.skipIf(missing !== undefined)(title, { timeout: 240_000 }, async () => {
    if (!('executable' in location)) return;
    const version = await runtimeVersion(location);
    outcomes.set(name, `${version} failed`);
    if (name === 'chromium') {
      const run = await runSmokeChromium(location.executable, bundle.dir);
      expectSameAsReference(run.report, 'chromium');
      // The page loaded the bundle, and the cl100k ranks as their own chunk only when the token
      // counter needed them; the o200k ranks and the Snowball stemmer were never downloaded.
      const fetched = (holds: string) => bundle.files.filter((file) => file.holds === holds).map((file) => `http://zerda.localhost/${file.file}`);
      expect(run.requests).toContain('http://zerda.localhost/zerda.js');
      for (const url of fetched('cl100k_base ranks')) expect(run.requests).toContain(url);
      for (const url of [...fetched('o200k_base ranks'), ...fetched('snowball stemmer')]) expect(run.requests).not.toContain(url);
      expect(run.requests.every((url) => url.startsWith('http://zerda.localhost/')), 'the page requested nothing else').toBe(true);
    } else if (name === 'workerd') {
      expectSameAsReference(await runSmokeWorkerd(location.executable, bundle.dir), 'workerd');
    } else {
      // Node, Bun and Deno also save and load a memory store file (two more checks).
      expectSameAsReference(await runSmokeCli(location), name, 2);
    }
    outcomes.set(name, `${version} ✓`);
  });

  if (name === 'workerd' || name === 'chromium') {
    it.skipIf(missing !== undefined)(`reports a failing script as a failure${missing ? ' (skipped: see above)' : ''}`, { timeout: 120_000 }, async () => {
      if (!('executable' in location)) return;
      if (name === 'workerd') {
        await expect(runSmokeWorkerd(location.executable, bundle.dir, 'export default { async test() { throw new Error("deliberate failure"); } };')).rejects.toThrow(/failed under workerd[\s\S]*deliberate failure/);
      } else {
        await expect(runSmokeChromium(location.executable, bundle.dir, 'globalThis.__zerdaSmoke = { error: "deliberate failure" };')).rejects.toThrow(/failed in Chromium: deliberate failure/);
      }
    });
  }
});
