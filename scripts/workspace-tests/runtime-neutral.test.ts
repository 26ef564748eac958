// The core packages run wherever TypeScript runs (browsers, Cloudflare Workers, Bun, Deno, Node):
// their built dist/ reaches no Node built-in, neither when a browser or worker resolves it (the
// whole graph, dynamic imports included, since a bundler follows those too) nor at module load
// when Node resolves it (Node-only code waits behind a dynamic import or a `node` condition).
// Subpaths exported only under the `node` condition (dataset loaders) are Node-only by declaration.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONDITIONS, describeReaches, nodeBuiltinsReached, resolveExportTarget, type Platform } from './module-graph.js';

const root = resolve(import.meta.dirname, '../..');
const fixtures = join(import.meta.dirname, '__fixtures__', 'node-graph');

/** The packages that must load in every runtime (issue 20); the others may need Node. */
const CORE_PACKAGES = ['types', 'text', 'retriever', 'context-core', 'composer', 'chunks', 'legacy-compat', 'vector-kit', 'vector-memory', 'context'];
/** Subpaths exported under the `node` condition only, listed in the README's runtimes table. */
const NODE_ONLY_SUBPATHS = ['@zerda/retriever/datasets'];

describe('the module-graph check itself', () => {
  it('finds a built-in imported at load time, with its chain', async () => {
    const reaches = await nodeBuiltinsReached(join(fixtures, 'entry.js'), 'node', root);
    const atLoad = reaches.filter((reach) => reach.atLoad);
    expect(atLoad.map((reach) => reach.builtin)).toEqual(['node:path']);
    expect(atLoad[0]!.chain.map((path) => path.split('/').pop())).toEqual(['entry.js', 'helper.js']);
    expect(describeReaches(atLoad)[0]).toMatch(/^node:path ← .*helper\.js ← .*entry\.js \(at module load\)$/);
  });

  it('tells a built-in behind a dynamic import apart, and still reports it', async () => {
    const reaches = await nodeBuiltinsReached(join(fixtures, 'entry.js'), 'browser', root);
    expect(reaches.map((reach) => [reach.builtin, reach.atLoad])).toEqual([['node:path', true], ['crypto', false]]);
  });

  it('reports nothing for a module that imports no built-in', async () => {
    expect(await nodeBuiltinsReached(join(fixtures, 'clean.js'), 'browser', root)).toEqual([]);
  });

  it('resolves export conditions in key order, skipping types', () => {
    const target = { types: './a.d.ts', node: './node.js', default: './any.js' };
    expect(resolveExportTarget(target, CONDITIONS.node)).toBe('./node.js');
    expect(resolveExportTarget(target, CONDITIONS.browser)).toBe('./any.js');
    expect(resolveExportTarget({ types: './a.d.ts', node: './node.js' }, CONDITIONS.browser)).toBeUndefined();
  });
});

describe('core packages reach no Node built-in', () => {
  for (const name of CORE_PACKAGES) {
    const dir = join(root, 'packages', name);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
    describe(pkg.name, () => {
      it('exports its main entry to browsers and workers', () => {
        expect(resolveExportTarget(pkg.exports['.'] as never, CONDITIONS.browser), `${pkg.name} "." has no browser/worker/default target`).toBeDefined();
      });

      for (const [subpath, target] of Object.entries(pkg.exports)) {
        const specifier = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
        // A subpath with no browser/worker target is Node-only by declaration (its `node` condition).
        const nodeOnly = resolveExportTarget(target as never, CONDITIONS.browser) === undefined;
        if (nodeOnly) {
          it(`${specifier} is Node-only by declaration (exported under the node condition only)`, () => {
            expect(NODE_ONLY_SUBPATHS, `${specifier} has no browser/worker target: give it one, or list it as Node-only here and in the README`).toContain(specifier);
          });
          continue;
        }
        for (const platform of ['browser', 'node'] as Platform[]) {
          it(`${specifier} under ${platform} conditions`, async () => {
            const entry = join(dir, resolveExportTarget(target as never, CONDITIONS[platform])!);
            expect(existsSync(entry), `${entry} is missing: build the package first (pnpm build)`).toBe(true);
            const reaches = await nodeBuiltinsReached(entry, platform, root);
            // Browsers and workers: nothing, however lazily. Node: nothing at module load.
            const offending = platform === 'browser' ? reaches : reaches.filter((reach) => reach.atLoad);
            expect(describeReaches(offending), `${specifier} reaches Node built-ins under ${platform} resolution`).toEqual([]);
          });
        }
      }
    });
  }
});
