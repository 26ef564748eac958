import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder above this package holding `pnpm-workspace.yaml` (else the current directory). */
export function repositoryRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  let current = resolve(from);
  for (;;) {
    if (existsSync(join(current, 'pnpm-workspace.yaml'))) return current;
    const parent = dirname(current);
    if (parent === current) return process.cwd();
    current = parent;
  }
}

/** Where derived, re-creatable files go (embedding caches): `<repo>/.cache/bench`, git-ignored. */
export function cacheDirectory(): string {
  return join(repositoryRoot(), '.cache', 'bench');
}
