// The browser bundle of @zerda/context stays within its budget (bundle-budget.json), and the
// README's bundle-size table states that budget and sizes close to the measured ones.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBrowserBundle, type BrowserBundle } from './bundle.js';
import { kilobytes, readBudget, sizeTableRows } from './size-table.js';

const workDir = mkdtempSync(join(tmpdir(), 'zerda-bundle-size-'));
const budget = readBudget();
const readme = readFileSync(join(import.meta.dirname, '..', '..', '..', 'README.md'), 'utf8');
let bundle: BrowserBundle;

beforeAll(async () => {
  bundle = await buildBrowserBundle(join(workDir, 'bundle'));
}, 120_000);
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('bundle size of @zerda/context (esbuild, minified, code-split, gzip -9)', () => {
  it('stays within the budget', () => {
    const { core, withCl100k } = bundle.sizes;
    expect(core.gzipBytes, `core bundle is ${kilobytes(core.gzipBytes)} gzipped, budget ${kilobytes(budget.core.gzipBytes)}`).toBeLessThanOrEqual(budget.core.gzipBytes);
    expect(core.bytes, `core bundle is ${kilobytes(core.bytes)} minified, budget ${kilobytes(budget.core.bytes)}`).toBeLessThanOrEqual(budget.core.bytes);
    expect(withCl100k.gzipBytes, `core + cl100k ranks is ${kilobytes(withCl100k.gzipBytes)} gzipped, budget ${kilobytes(budget.withCl100k.gzipBytes)}`).toBeLessThanOrEqual(budget.withCl100k.gzipBytes);
  });

  it('splits the rank tables and the Snowball stemmer out of what the entry loads', () => {
    const lazy = bundle.files.filter((file) => file.holds !== undefined);
    expect(lazy.map((file) => file.holds).sort()).toEqual(['cl100k_base ranks', 'o200k_base ranks', 'snowball stemmer']);
    expect(lazy.every((file) => !file.initial)).toBe(true);
    // The tables dwarf the engine: without splitting, every page would pay for them.
    expect(bundle.sizes.withCl100k.gzipBytes).toBeGreaterThan(3 * bundle.sizes.core.gzipBytes);
  });

  it('is reported in the README with the enforced budget', () => {
    const rows = sizeTableRows(bundle.sizes, budget);
    for (const row of rows) {
      const label = row.split(' | ')[0]!;
      const line = readme.split('\n').find((text) => text.startsWith(label));
      expect(line, `README.md has no bundle-size row starting "${label}" (run pnpm --filter @zerda/runtimes run size)`).toBeDefined();
      const [, , , stated] = line!.split(' | ');
      expect(stated?.replace(/ \|$/, ''), 'README states the budget of bundle-budget.json').toBe(row.split(' | ')[3]!.replace(/ \|$/, ''));
      // Measured sizes in the README stay within 5% of today's build.
      const readmeGzip = Number.parseFloat(line!.split(' | ')[2]!);
      const actualGzip = Number.parseFloat(row.split(' | ')[2]!);
      expect(Math.abs(readmeGzip - actualGzip) / actualGzip, `README says ${readmeGzip} kB gzipped, the build gives ${actualGzip} kB: update the table`).toBeLessThan(0.05);
    }
  });
});
