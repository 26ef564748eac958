#!/usr/bin/env node
// Releases the public packages the changesets way: `changeset version` (consumes .changeset/*.md,
// bumps versions and dependents, writes CHANGELOG.md files), then `changeset publish` (pnpm publish
// of every version not yet in the registry, `workspace:` ranges rewritten to the real versions).
//
//   npm run release                      in this checkout: version, build, publish to the configured
//                                        registry, tag (what .github/workflows/release.yml runs, with
//                                        NPM_CONFIG_PROVENANCE=true for provenance statements)
//   npm run release -- --dry-run         the same on a temporary copy, ending with `pnpm publish
//                                        --dry-run`: the checkout is not touched, nothing is sent
//   npm run release -- --copy --registry http://127.0.0.1:4873/
//                                        a real publish from a temporary copy to another registry
//                                        (scripts/registry-tests runs this against a local Verdaccio)
//
// Only Node built-ins and the workspace's own tools (@changesets/cli, the pinned pnpm).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pnpmCommand, publicPackages, repositoryRoot } from './public-packages.mjs';

const changeset = join(repositoryRoot, 'node_modules', '.bin', 'changeset');

/** Every workspace package folder (relative to `root`) listed by pnpm-workspace.yaml's simple globs. */
function workspaceFolders(root) {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const block = /^packages:\n((?:\s+-\s+.+\n)+)/m.exec(yaml)?.[1] ?? '';
  const folders = [];
  for (const [, pattern] of block.matchAll(/-\s+["']?([^"'\n]+)["']?/g)) {
    if (pattern.endsWith('/*')) {
      const parent = pattern.slice(0, -2);
      if (!existsSync(join(root, parent))) continue;
      for (const name of readdirSync(join(root, parent))) folders.push(join(parent, name));
    } else folders.push(pattern);
  }
  return folders.filter((folder) => existsSync(join(root, folder, 'package.json')));
}

/**
 * Copies what a release needs into `destination`: the root manifest, workspace and changesets
 * configuration, every public package whole (without node_modules or native build output), and
 * the manifest alone of every private one (changesets and pnpm read their versions). Then links
 * each package's `workspace:` dependencies under its node_modules, as pnpm would, because
 * `pnpm publish` reads the linked manifests to rewrite `workspace:` ranges.
 * @param {string} destination an empty folder
 */
export function copyWorkspace(destination, root = repositoryRoot) {
  for (const file of ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml', '.changeset', '.npmrc']) {
    if (existsSync(join(root, file))) cpSync(join(root, file), join(destination, file), { recursive: true });
  }
  const folders = workspaceFolders(root);
  const byName = new Map();
  for (const folder of folders) {
    const manifest = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8'));
    byName.set(manifest.name, folder);
    mkdirSync(join(destination, folder), { recursive: true });
    if (manifest.private) cpSync(join(root, folder, 'package.json'), join(destination, folder, 'package.json'));
    else cpSync(join(root, folder), join(destination, folder), { recursive: true, filter: (source) => !/[\\/](node_modules|build|\.turbo)([\\/]|$)/.test(relative(root, source)) });
  }
  for (const folder of folders) {
    const manifest = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8'));
    const ranges = { ...manifest.devDependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies, ...manifest.dependencies };
    for (const [name, range] of Object.entries(ranges)) {
      if (!String(range).startsWith('workspace:') || !byName.has(name)) continue;
      const link = join(destination, folder, 'node_modules', ...name.split('/'));
      mkdirSync(dirname(link), { recursive: true });
      if (!existsSync(link)) symlinkSync(relative(dirname(link), join(destination, byName.get(name))), link, 'dir');
    }
  }
  return destination;
}

function run(command, args, options) {
  console.log(`$ ${[command, ...args].join(' ')}${options.cwd === repositoryRoot ? '' : `   (in ${options.cwd})`}`);
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
}

/**
 * Runs a release. `registry` (default: npm's configured one) receives the packages; `copy` works on
 * a temporary copy of the workspace instead of this checkout; `dryRun` (implies `copy`) ends with
 * `pnpm publish --dry-run` instead of publishing; `env` adds variables (e.g. an auth config file).
 * Returns the folder it released from and the version of every public package after `changeset version`.
 * @param {{ registry?: string, copy?: boolean, dryRun?: boolean, env?: NodeJS.ProcessEnv, log?: boolean }} [options]
 */
export function release({ registry, copy = false, dryRun = false, env: extraEnv = {} } = {}) {
  const onCopy = copy || dryRun;
  const cwd = onCopy ? copyWorkspace(mkdtempSync(join(tmpdir(), 'zerda-release-'))) : repositoryRoot;
  const env = { ...process.env, ...extraEnv };
  if (registry) env.npm_config_registry = registry;
  // pnpm on PATH for changesets (it runs `pnpm publish` and `pnpm info`).
  env.PATH = `${dirname(pnpmCommand())}${process.platform === 'win32' ? ';' : ':'}${env.PATH ?? ''}`;
  const pending = readdirSync(join(cwd, '.changeset')).filter((file) => file.endsWith('.md') && file !== 'README.md');
  if (pending.length > 0) run(changeset, ['version'], { cwd, env });
  else console.log('no pending changesets: publishing the current versions');
  if (!onCopy) run(pnpmCommand(), ['run', 'build'], { cwd, env });
  if (dryRun) run(pnpmCommand(), ['publish', '--recursive', '--dry-run', '--no-git-checks', '--access', 'public'], { cwd, env });
  else run(changeset, onCopy ? ['publish', '--no-git-tag'] : ['publish'], { cwd, env });
  const versions = Object.fromEntries(publicPackages(cwd).map((pkg) => [pkg.name, pkg.version]));
  return { cwd, versions };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const registryIndex = args.indexOf('--registry');
  const known = new Set(['--dry-run', '--copy', '--registry']);
  const unknown = args.filter((arg, index) => !known.has(arg) && !(registryIndex >= 0 && index === registryIndex + 1));
  if (unknown.length > 0 || (registryIndex >= 0 && !/^https?:\/\//.test(args[registryIndex + 1] ?? ''))) {
    console.error(`release: unknown or incomplete options ${JSON.stringify(unknown)} (expected --dry-run, --copy, --registry <url>)`);
    process.exit(2);
  }
  try {
    const { cwd, versions } = release({ dryRun: args.includes('--dry-run'), copy: args.includes('--copy'), registry: registryIndex >= 0 ? args[registryIndex + 1] : undefined });
    console.log(`\nreleased from ${cwd}:\n${Object.entries(versions).map(([name, version]) => `  ${name}@${version}`).join('\n')}`);
    if (cwd !== repositoryRoot) rmSync(cwd, { recursive: true, force: true });
  } catch (error) {
    console.error(`release failed: ${error.message}`);
    process.exit(1);
  }
}
