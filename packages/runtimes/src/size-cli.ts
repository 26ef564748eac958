/**
 * Prints the bundle sizes of @zerda/context as the README's table rows
 * (`pnpm --filter @zerda/runtimes run size`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBrowserBundle } from './bundle.js';
import { readBudget, sizeTableRows } from './size-table.js';

const dir = mkdtempSync(join(tmpdir(), 'zerda-size-'));
try {
  const bundle = await buildBrowserBundle(join(dir, 'bundle'));
  console.log(sizeTableRows(bundle.sizes, readBudget()).join('\n'));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
