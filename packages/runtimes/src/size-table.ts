import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BundleSizes } from './bundle.js';

/** The budget the bundle-size test enforces (bundle-budget.json), in bytes. */
export interface BundleBudget {
  core: { bytes: number; gzipBytes: number };
  withCl100k: { gzipBytes: number };
}

export function readBudget(): BundleBudget {
  const path = join(dirname(fileURLToPath(import.meta.url)), '..', 'bundle-budget.json');
  return JSON.parse(readFileSync(path, 'utf8')) as BundleBudget;
}

/** Bytes as the README writes them: kilobytes of 1000 bytes, one decimal (`93.9 kB`). */
export function kilobytes(bytes: number): string {
  return `${(bytes / 1000).toFixed(1)} kB`;
}

/** The README's bundle-size rows: what, minified, minified + gzipped, budget. */
export function sizeTableRows(sizes: BundleSizes, budget: BundleBudget): string[] {
  return [
    `| \`@zerda/context\` without tokenizer ranks (what \`import\` loads) | ${kilobytes(sizes.core.bytes)} | ${kilobytes(sizes.core.gzipBytes)} | ${kilobytes(budget.core.gzipBytes)} gzipped, ${kilobytes(budget.core.bytes)} minified |`,
    `| with the cl100k_base ranks (loaded on the first token count) | ${kilobytes(sizes.withCl100k.bytes)} | ${kilobytes(sizes.withCl100k.gzipBytes)} | ${kilobytes(budget.withCl100k.gzipBytes)} gzipped |`,
    `| with the o200k_base ranks instead | ${kilobytes(sizes.withO200k.bytes)} | ${kilobytes(sizes.withO200k.gzipBytes)} | — |`,
    `| the Snowball Arabic stemmer chunk (only with \`stemmer: 'snowball'\`) | ${kilobytes(sizes.snowball.bytes)} | ${kilobytes(sizes.snowball.gzipBytes)} | — |`,
  ];
}
