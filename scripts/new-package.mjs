#!/usr/bin/env node
// Scaffolds packages/<name> (or examples/<name> with --example) with the workspace's conventions.
// usage: node scripts/new-package.mjs <dir-name> "<description>" [--example] [--private]
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [name, description = '', ...flags] = process.argv.slice(2);
if (!name) throw new Error('usage: new-package.mjs <name> "<description>" [--example] [--private]');
const example = flags.includes('--example');
const dir = join(root, example ? 'examples' : 'packages', name);
if (existsSync(join(dir, 'package.json'))) throw new Error(`${dir} exists`);
mkdirSync(join(dir, 'src'), { recursive: true });
const pkg = {
  name: example ? `@zerda/example-${name}` : `@zerda/${name}`,
  version: '0.1.0',
  description,
  license: 'MIT',
  type: 'module',
  sideEffects: false,
  ...(example || flags.includes('--private') ? { private: true } : {}),
  exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
  main: './dist/index.js',
  types: './dist/index.d.ts',
  files: ['dist', '!dist/**/*.test.*', 'README.md'],
  scripts: {
    build: 'tsc -p tsconfig.build.json',
    typecheck: 'tsc -p tsconfig.json --noEmit',
    test: 'vitest run',
  },
  dependencies: {},
  devDependencies: {},
};
writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
writeFileSync(
  join(dir, 'tsconfig.json'),
  JSON.stringify({ extends: '../../tsconfig.base.json', compilerOptions: { rootDir: 'src', outDir: 'dist' }, include: ['src'] }, null, 2) + '\n',
);
writeFileSync(
  join(dir, 'tsconfig.build.json'),
  JSON.stringify({ extends: './tsconfig.json', exclude: ['src/**/*.test.ts', 'src/__fixtures__/**', 'src/**/*.bench.ts'] }, null, 2) + '\n',
);
if (!existsSync(join(dir, 'README.md'))) writeFileSync(join(dir, 'README.md'), `# ${pkg.name}\n\n${description}\n`);
if (!existsSync(join(dir, 'src', 'index.ts'))) writeFileSync(join(dir, 'src', 'index.ts'), 'export {};\n');
console.log(`created ${dir}`);
