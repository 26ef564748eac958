// The newcomer path from a clone: the README's `npm run zerda -- …` commands run the `zerda` CLI of
// the built workspace in the folder npm was started from (scripts/zerda.mjs, command `zerda`).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let folder = '';

/** `npm run zerda -- …args` started in `folder`, as a user would type it there (npm --prefix points at the clone). */
function npmRunZerda(args: string[], extra: string[] = []) {
  const result = spawnSync(npm, ['--prefix', root, 'run', ...extra, 'zerda', '--', ...args], { cwd: folder, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'zerda-newcomer-'));
  mkdirSync(join(folder, 'docs'));
  writeFileSync(join(folder, 'docs', 'hours-ar.md'), '# مكتبة الحي\n\nتَفتَح المكتبـــة أبوابها من الساعة التاسعة صباحًا حتى الخامسة مساءً، من الأحد إلى الخميس؛ وتغلق يوم الجمعة.\n');
  writeFileSync(join(folder, 'docs', 'hours-en.md'), '# The neighbourhood library\n\nThe library opens at 9 am and closes at 5 pm, Sunday to Thursday; it is closed on Fridays.\n');
  writeFileSync(join(folder, 'docs', 'parking.md'), '# Parking\n\nBicycle racks are by the east door. لا توجد مواقف للسيارات.\n');
});

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('npm run zerda (the CLI from a clone)', () => {
  it('is in the README next to the npx line, with the same arguments', () => {
    expect(readme).toContain('npx @zerda/cli index ./docs && npx @zerda/cli query "ما هي ساعات عمل المكتبة؟"');
    expect(readme).toContain('npm run zerda -- index ./docs && npm run zerda -- query "ما هي ساعات عمل المكتبة؟"');
  });

  it('indexes ./docs of the folder it is run from and answers an Arabic and an English question', () => {
    const index = npmRunZerda(['index', './docs']);
    expect(index.stderr + index.stdout).toMatch(/indexed 3 files/);
    expect(index.status).toBe(0);
    expect(existsSync(join(folder, '.zerda')), 'the index lands beside ./docs, not in the clone').toBe(true);

    const arabic = npmRunZerda(['query', 'ما هي ساعات عمل المكتبة؟', '--format', 'json'], ['--silent']);
    expect(arabic.status, arabic.stderr).toBe(0);
    const result = JSON.parse(arabic.stdout) as { context: string };
    expect(result.context).toContain('التاسعة صباحًا');

    const english = npmRunZerda(['query', 'When does the library open?']);
    expect(english.status, english.stderr).toBe(0);
    expect(english.stdout).toContain('opens at 9 am');
  }, 120_000);

  it('passes the CLI its exit code (a query without an index is 3)', () => {
    rmSync(join(folder, '.zerda'), { recursive: true, force: true });
    const query = npmRunZerda(['query', 'anything'], ['--silent']);
    expect(query.status).toBe(3);
  }, 60_000);
});
