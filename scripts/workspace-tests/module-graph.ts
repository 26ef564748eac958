// Reads the module graph of a built entry point with esbuild's resolver (package `exports`
// conditions, `browser` fields, CommonJS `require`) and reports every path that reaches a Node
// built-in. Used by runtime-neutral.test.ts; esbuild only resolves and reads, nothing is written.
import { builtinModules } from 'node:module';
import { relative } from 'node:path';
import { build, type ImportKind, type Metafile } from 'esbuild';

/** Node built-in module names, with and without the `node:` scheme. */
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

export function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || NODE_BUILTINS.has(specifier) || NODE_BUILTINS.has(specifier.split('/')[0]!);
}

/** The resolution a runtime does: `browser` also covers workers (workerd and bundlers add `worker`). */
export type Platform = 'browser' | 'node';

/** Imports that run when the importing module loads (a `require` is counted as one too). */
const LOAD_TIME: ReadonlySet<ImportKind> = new Set<ImportKind>(['import-statement', 'require-call', 'require-resolve']);

export interface BuiltinReach {
  /** The built-in, as written (`node:fs`, `crypto`). */
  builtin: string;
  /** From the entry to the module that imports the built-in, repository-relative. */
  chain: string[];
  /** Whether every step of the chain runs at module load (no dynamic `import()` on the way). */
  atLoad: boolean;
}

/**
 * Every Node built-in reachable from `entryFile`, under `platform`'s resolution conditions, with
 * one shortest chain each. Built-ins reachable through static imports only are `atLoad`.
 */
export async function nodeBuiltinsReached(entryFile: string, platform: Platform, root: string): Promise<BuiltinReach[]> {
  const result = await build({
    entryPoints: [entryFile],
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform,
    conditions: platform === 'browser' ? ['worker', 'browser', 'module'] : ['module'],
    // Built-ins stay unresolved so they show up in the metafile as external imports.
    external: ['node:*', ...builtinModules],
    logLevel: 'silent',
  });
  return reachable(result.metafile, relative(root, entryFile));
}

function reachable(metafile: Metafile, entry: string): BuiltinReach[] {
  const found = new Map<string, BuiltinReach>();
  // Two passes: load-time edges first, so that a built-in reachable both ways reports its load-time chain.
  for (const loadTimeOnly of [true, false]) {
    const parent = new Map<string, string | undefined>([[entry, undefined]]);
    const queue = [entry];
    const chainTo = (module: string): string[] => {
      const chain: string[] = [];
      for (let at: string | undefined = module; at !== undefined; at = parent.get(at)) chain.unshift(at);
      return chain;
    };
    while (queue.length > 0) {
      const module = queue.shift()!;
      for (const edge of metafile.inputs[module]?.imports ?? []) {
        if (loadTimeOnly && !LOAD_TIME.has(edge.kind)) continue;
        const specifier = edge.original ?? edge.path;
        if (edge.external) {
          if (isNodeBuiltin(specifier) && !found.has(specifier)) found.set(specifier, { builtin: specifier, chain: chainTo(module), atLoad: loadTimeOnly });
          continue;
        }
        if (!parent.has(edge.path)) {
          parent.set(edge.path, module);
          queue.push(edge.path);
        }
      }
    }
  }
  return [...found.values()];
}

/** One line per reach: `node:fs ← a.js ← b.js (at module load)`. */
export function describeReaches(reaches: BuiltinReach[]): string[] {
  return reaches.map((reach) => `${reach.builtin} ← ${[...reach.chain].reverse().join(' ← ')}${reach.atLoad ? ' (at module load)' : ' (through a dynamic import)'}`);
}

type ExportTarget = string | null | { [condition: string]: ExportTarget } | ExportTarget[];

/**
 * Resolves a package.json `exports` target for a set of conditions (first matching key wins, as in
 * Node); `undefined` when no condition matches (the subpath does not exist for that runtime).
 */
export function resolveExportTarget(target: ExportTarget, conditions: readonly string[]): string | undefined {
  if (target === null) return undefined;
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) {
    for (const item of target) {
      const resolved = resolveExportTarget(item, conditions);
      if (resolved !== undefined) return resolved;
    }
    return undefined;
  }
  for (const [condition, value] of Object.entries(target)) {
    if (condition === 'types') continue;
    if (condition === 'default' || conditions.includes(condition)) {
      const resolved = resolveExportTarget(value, conditions);
      if (resolved !== undefined) return resolved;
    }
  }
  return undefined;
}

export const CONDITIONS: Record<Platform, readonly string[]> = {
  browser: ['worker', 'browser', 'import', 'module'],
  node: ['node', 'import', 'module'],
};
