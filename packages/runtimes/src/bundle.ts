import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';

// The built files (also when this module runs from src/ under vitest): the bundle takes dist/.
const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

/** One file of the bundle, with what it holds. */
export interface BundleFile {
  file: string;
  bytes: number;
  /** gzip level 9 of the minified file. */
  gzipBytes: number;
  /** Whether the entry loads it at start (static imports) rather than through a dynamic `import()`. */
  initial: boolean;
  /** Which lazily loaded part it is, when it is one. */
  holds?: 'cl100k_base ranks' | 'o200k_base ranks' | 'snowball stemmer';
}

export interface BrowserBundle {
  /** Directory holding `zerda.js` (the entry), its chunks and `smoke.js`. */
  dir: string;
  /** Every JavaScript file of the bundle except `smoke.js`. */
  files: BundleFile[];
  sizes: BundleSizes;
}

/** Minified + gzipped sizes, in bytes. */
export interface BundleSizes {
  /** What a page downloads for `import * as zerda from '@zerda/context'` (entry and its static chunks). */
  core: { bytes: number; gzipBytes: number };
  /** The core plus the cl100k_base rank table (the default `tokens` counter). */
  withCl100k: { bytes: number; gzipBytes: number };
  /** The core plus the o200k_base rank table. */
  withO200k: { bytes: number; gzipBytes: number };
  /** The lazily loaded Snowball Arabic stemmer chunk alone. */
  snowball: { bytes: number; gzipBytes: number };
}

const LAZY_PARTS: Array<[RegExp, NonNullable<BundleFile['holds']>]> = [
  [/js-tiktoken\/dist\/ranks\/cl100k_base\.js$/, 'cl100k_base ranks'],
  [/js-tiktoken\/dist\/ranks\/o200k_base\.js$/, 'o200k_base ranks'],
  [/@nlpjs\/lang-ar\/src\/index\.js$/, 'snowball stemmer'],
];

/**
 * Builds the ESM bundle of `@zerda/context` a browser or a worker loads: minified, code-split (the
 * token rank tables and the Snowball stemmer become chunks of their own, loaded on demand), resolved
 * with the `worker` and `browser` conditions, so it holds no Node built-in. The smoke script is
 * copied beside it as `smoke.js`.
 */
export async function buildBrowserBundle(dir: string): Promise<BrowserBundle> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const result = await build({
    entryPoints: { zerda: join(dist, 'zerda-entry.js') },
    absWorkingDir: dist,
    outdir: dir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['worker', 'browser'],
    target: 'es2022',
    minify: true,
    metafile: true,
    chunkNames: 'chunk-[hash]',
    legalComments: 'none',
    logLevel: 'silent',
  });
  writeFileSync(join(dir, 'smoke.js'), readFileSync(join(dist, 'smoke.js')));
  const files = describeOutputs(result.metafile, dir);
  return { dir, files, sizes: sizesOf(files) };
}

function describeOutputs(metafile: Metafile, dir: string): BundleFile[] {
  const outputs = Object.entries(metafile.outputs).filter(([path]) => path.endsWith('.js'));
  const byName = new Map(outputs.map(([path, output]) => [basename(path), output]));
  const entryName = 'zerda.js';
  // Initial files: the entry and everything it reaches through static imports.
  const initial = new Set<string>([entryName]);
  const queue = [entryName];
  while (queue.length > 0) {
    for (const edge of byName.get(queue.shift()!)?.imports ?? []) {
      const name = basename(edge.path);
      if (edge.kind === 'import-statement' && !initial.has(name)) {
        initial.add(name);
        queue.push(name);
      }
    }
  }
  return outputs.map(([path, output]) => {
    const file = basename(path);
    const code = readFileSync(join(dir, file));
    const holds = LAZY_PARTS.find(([pattern]) => Object.keys(output.inputs).some((input) => pattern.test(input)))?.[1];
    return { file, bytes: code.byteLength, gzipBytes: gzipSync(code, { level: 9 }).byteLength, initial: initial.has(file), ...(holds ? { holds } : {}) };
  });
}

function sizesOf(files: BundleFile[]): BundleSizes {
  const sum = (list: BundleFile[]) => ({ bytes: list.reduce((total, file) => total + file.bytes, 0), gzipBytes: list.reduce((total, file) => total + file.gzipBytes, 0) });
  const core = files.filter((file) => file.initial);
  const part = (holds: BundleFile['holds']) => files.filter((file) => file.holds === holds);
  return {
    core: sum(core),
    withCl100k: sum([...core, ...part('cl100k_base ranks')]),
    withO200k: sum([...core, ...part('o200k_base ranks')]),
    snowball: sum(part('snowball stemmer')),
  };
}
