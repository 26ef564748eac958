// The workspace's publishable packages (every packages/* without "private": true), in one place for
// the publishing checks (scripts/workspace-tests/publishable.test.ts) and the local-registry test
// (scripts/registry-test.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root. */
export const repositoryRoot = resolve(import.meta.dirname, '..');

/**
 * Every public workspace package, sorted by name: `{ name, version, dir, manifest }`.
 * @param {string} [root] the repository root
 */
export function publicPackages(root = repositoryRoot) {
  const dirs = readdirSync(join(root, 'packages'))
    .map((name) => join(root, 'packages', name))
    .filter((dir) => existsSync(join(dir, 'package.json')));
  return dirs
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ dir, manifest }) => ({ name: manifest.name, version: manifest.version, dir, manifest }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Packs one package with pnpm (which rewrites `workspace:` ranges as a publish would) into
 * `destination` and returns the tarball's path.
 * @param {string} dir the package folder
 * @param {string} destination the folder the tarball goes to
 * @param {NodeJS.ProcessEnv} [env]
 */
export function packWithPnpm(dir, destination, env = process.env) {
  const output = execFileSync(pnpmCommand(), ['pack', '--pack-destination', destination, '--json'], { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const parsed = JSON.parse(output.slice(output.indexOf('{')));
  return resolve(destination, parsed.filename.split('/').pop());
}

/** The pnpm to run: the pinned one that scripts/zerda.mjs installs into .tooling/, else `pnpm` on PATH. */
export function pnpmCommand(root = repositoryRoot) {
  const pinned = join(root, '.tooling', 'node_modules', '.bin', 'pnpm');
  return existsSync(pinned) ? pinned : 'pnpm';
}
