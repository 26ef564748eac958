import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../program.js';
import { createProgress } from '../progress.js';
import { memoryIo } from '../test-utils/io.js';
import type { CliIo } from '../io.js';

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'zerda-cli-index-'));
  mkdirSync(join(directory, 'docs'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

interface Summary {
  mode: string;
  unchanged: number;
  failed: Array<{ source: string; code: string; message: string }>;
}

async function index(): Promise<Summary> {
  const io = memoryIo(directory);
  const code = await runCli(['index', 'docs', '--json'], io);
  expect(code, io.err()).toBe(0);
  return JSON.parse(io.out()) as Summary;
}

// A tar header: binary content however the file is named.
function tarNamedMarkdown(): Uint8Array {
  const bytes = new Uint8Array(1536);
  bytes.set(new TextEncoder().encode('notes.md'), 0);
  bytes.set(new TextEncoder().encode('ustar'), 257);
  return bytes;
}

describe('zerda index remembers the files that failed', () => {
  it('does not read a failed file again until it changes, and keeps reporting it', async () => {
    writeFileSync(join(directory, 'docs', 'hours.md'), '# ساعات العمل\n\nتفتح المكتبة أبوابها في التاسعة صباحًا.\n');
    writeFileSync(join(directory, 'docs', 'archive.md'), tarNamedMarkdown());
    const first = await index();
    expect(first.mode).toBe('full');
    expect(first.failed).toEqual([expect.objectContaining({ source: 'docs/archive.md', code: 'ZERDA_DOCUMENT_UNREADABLE' })]);
    const manifest = JSON.parse(readFileSync(join(directory, '.zerda', 'zerda-index.json'), 'utf8')) as { failed: Record<string, { contentHash: string }> };
    expect(Object.keys(manifest.failed)).toEqual(['docs/archive.md']);
    expect(manifest.failed['docs/archive.md']!.contentHash).toMatch(/^[0-9a-f]{64}$/);

    const second = await index();
    expect(second.mode).toBe('unchanged');
    expect(second.unchanged).toBe(1);
    expect(second.failed).toEqual([expect.objectContaining({ source: 'docs/archive.md', message: expect.stringMatching(/not read again/) })]);

    // Fixed: it is read again and indexed, and forgotten as a failure.
    writeFileSync(join(directory, 'docs', 'archive.md'), '# Archive\n\nNow a real note.\n');
    const third = await index();
    expect(third.mode).toBe('incremental');
    expect(third.failed).toEqual([]);
    const after = JSON.parse(readFileSync(join(directory, '.zerda', 'zerda-index.json'), 'utf8')) as { failed: Record<string, unknown>; documents: Record<string, unknown> };
    expect(after.failed).toEqual({});
    expect(Object.keys(after.documents).sort()).toEqual(['docs/archive.md', 'docs/hours.md']);
  }, 60_000);
});

describe('progress on a terminal', () => {
  it('shows a count without a total as a counter, never "n/0 … ETA 0s"', () => {
    let written = '';
    const stderr = {
      isTTY: true,
      columns: 120,
      write: (text: string) => {
        written += text;
        return true;
      },
      cursorTo: () => true,
      moveCursor: () => true,
      clearLine: () => true,
      clearScreenDown: () => true,
      on: () => stderr,
      removeListener: () => stderr,
    };
    const io = { ...memoryIo(directory), stderr } as unknown as CliIo;
    const progress = createProgress(io, false);
    const chunks = progress.bar('chunks', 'chunks');
    const files = progress.bar('files', 'files', 40);
    chunks.update(940);
    files.update(12);
    chunks.stop();
    files.stop();
    progress.stop();
    expect(written).toMatch(/chunks\s+940 chunks/);
    expect(written).not.toMatch(/940\/0/);
    expect(written).toMatch(/files\s+\|[^|]*\| 12\/40 files/);
  });
});
