// Installing one zerda package must never drag in the rest: every package declares exactly what its
// source imports. Runtime imports (non-test files under src/) must be in dependencies or
// peerDependencies; test-only imports in devDependencies; every runtime dependency must be imported.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const importPattern = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)|(?:require|createRequire\([^)]*\))\.resolve\(\s*['"]([^'"]+)['"]\s*\)/g;

function packageNameOf(specifier: string): string | undefined {
  // `#name` is the package's own conditional import (package.json `imports`), not a dependency.
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('#') || builtins.has(specifier) || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (entry !== 'node_modules' && entry !== '__fixtures__') out.push(...sourceFiles(path));
    } else if (/\.(ts|mts|tsx|js|mjs)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function importsOf(files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    for (const match of text.matchAll(importPattern)) {
      // (A package resolved for its files — `createRequire(…).resolve('pdfjs-dist/package.json')` — is used too.)
      const name = packageNameOf(match[1] ?? match[2] ?? match[3] ?? match[4] ?? match[5] ?? '');
      if (name) names.add(name);
    }
  }
  return names;
}

const workspaces = ['packages', 'examples'].flatMap((group) =>
  existsSync(join(root, group))
    ? readdirSync(join(root, group))
        .map((name) => join(root, group, name))
        .filter((dir) => existsSync(join(dir, 'package.json')))
    : [],
);

describe('workspace package dependencies', () => {
  it('finds the packages', () => {
    expect(workspaces.length).toBeGreaterThan(5);
  });

  for (const dir of workspaces) {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const files = sourceFiles(join(dir, 'src'));
    const isTest = (file: string) => /\.(test|bench)\.[mc]?[jt]s$/.test(file) || file.includes('__tests__') || file.includes('/test-utils');
    const runtimeImports = importsOf(files.filter((f) => !isTest(f)));
    const testImports = importsOf([...files.filter(isTest), ...sourceFiles(join(dir, 'scripts')), ...sourceFiles(join(dir, 'test'))]);
    const runtimeDeclared = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
    const devDeclared = new Set(Object.keys(pkg.devDependencies ?? {}));

    describe(pkg.name, () => {
      it('declares every package its source imports', () => {
        const missing = [...runtimeImports].filter((name) => name !== pkg.name && !runtimeDeclared.has(name));
        expect(missing, `${pkg.name} imports these without declaring them in dependencies/peerDependencies`).toEqual([]);
      });

      it('declares every package its tests and scripts import', () => {
        const missing = [...testImports].filter((name) => name !== pkg.name && !runtimeDeclared.has(name) && !devDeclared.has(name));
        expect(missing, `${pkg.name} tests/scripts import these without declaring them`).toEqual([]);
      });

      it('imports every runtime dependency it declares', () => {
        const unused = Object.keys(pkg.dependencies ?? {}).filter((name) => !runtimeImports.has(name) && !name.startsWith('@types/'));
        expect(unused, `${pkg.name} declares runtime dependencies its source never imports`).toEqual([]);
      });

      it('follows the package conventions', () => {
        expect(pkg.type).toBe('module');
        expect(pkg.sideEffects).toBe(false);
        expect(pkg.exports?.['.']?.types, 'exports map lists types first').toBeDefined();
        expect(Object.keys(pkg.exports['.'])[0]).toBe('types');
        expect(existsSync(join(dir, 'README.md'))).toBe(true);
      });
    });
  }
});
