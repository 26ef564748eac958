// The release path a maintainer runs: the workflow calls the documented `npm run release` with
// provenance, and the release script refuses options it does not know. The release itself is
// rehearsed for real against a local registry by scripts/registry-tests (npm test runs it).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const workflow = readFileSync(join(root, '.github', 'workflows', 'release.yml'), 'utf8');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

describe('the release workflow', () => {
  it('is started by hand, dry run by default, and publishes with provenance through npm run release', () => {
    expect(workflow).toMatch(/on:\s*\n\s*workflow_dispatch:/);
    expect(workflow).toMatch(/dry-run:[\s\S]*?default: true/);
    expect(workflow).toContain('npm run release -- --dry-run');
    expect(workflow).toContain('pnpm changeset version');
    expect(workflow).toMatch(/npm run release\n/);
    expect(workflow).toContain('NPM_CONFIG_PROVENANCE: "true"');
    expect(workflow).toContain('id-token: write');
    expect(manifest.scripts.release).toBe('node scripts/release.mjs');
    expect(manifest.scripts['test:registry']).toContain('scripts/registry-tests');
  });

  it('refuses an option the release script does not know, before touching anything', () => {
    const result = spawnSync(process.execPath, [join(root, 'scripts', 'release.mjs'), '--publish-everything'], { cwd: root, encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--publish-everything');
    const incomplete = spawnSync(process.execPath, [join(root, 'scripts', 'release.mjs'), '--registry', '--dry-run'], { cwd: root, encoding: 'utf8', timeout: 30_000 });
    expect(incomplete.status).toBe(2);
  });
});
