// Builds the static site into dist/site: the page, its style, and src/app.ts bundled by esbuild
// (ESM, minified, code-split so that token rank tables load only when chosen).
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'site');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(root, 'src', 'app.ts')],
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  conditions: ['worker', 'browser'],
  target: 'es2022',
  minify: true,
  chunkNames: 'chunk-[hash]',
  legalComments: 'none',
  logLevel: 'warning',
});
for (const file of ['index.html', 'style.css']) copyFileSync(join(root, 'site', file), join(out, file));
console.log(`built ${out}`);
