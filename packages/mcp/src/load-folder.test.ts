import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadFolder, markdownTitle } from './load-folder.js';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});
function folder(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'zerda-mcp-folder-'));
  folders.push(root);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

describe('loadFolder (what zerda-mcp indexes at start)', () => {
  it('reads Markdown, text and JSONL in name order, with relative POSIX ids and the first heading as title', async () => {
    const root = folder({
      'b/notes.md': 'Intro line.\n\n## Setup ##\n\nInstall it.\n',
      'a.txt': 'النص العربي يحتاج إلى تطبيع. Mixed English too.',
      'c.jsonl': '{"docId":"x","text":"one"}\n\n{"docId":"y","text":"two","metadata":{"lang":"en"}}\n',
      'skip.pdf': 'not read',
      'node_modules/pkg/readme.md': '# Not read',
    });
    const { chunks, files } = await loadFolder(root);
    expect(files).toEqual(['a.txt', 'b/notes.md', 'c.jsonl']);
    const byDoc = (docId: string) => chunks.filter((chunk) => chunk.docId === docId);
    expect(byDoc('a.txt')[0]?.source).toBe('a.txt');
    expect(byDoc('b/notes.md')[0]?.title).toBe('Setup');
    expect(byDoc('y')[0]?.metadata).toEqual({ lang: 'en' });
    expect(chunks.map((chunk) => chunk.text).join(' ')).toContain('Install it.');
  });

  it('names the file and line of a bad JSONL chunk', async () => {
    await expect(loadFolder(folder({ 'data.jsonl': '{"docId":"a","text":"ok"}\n{"docId": 5}\n' }))).rejects.toThrow(/data\.jsonl:2/);
    await expect(loadFolder(folder({ 'data.jsonl': 'nope\n' }))).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', details: { field: 'data.jsonl:1' } });
  });

  it('takes the first ATX heading as the title, without closing hashes, on hostile lines too (no backtracking)', () => {
    expect(markdownTitle('text\n#not a heading\n### Real title ###  \n# Later')).toBe('Real title');
    expect(markdownTitle('no heading at all')).toBeUndefined();
    expect(markdownTitle('#    \n## عنوان عربي\n')).toBe('عنوان عربي');
    const hostile = `# ${'# '.repeat(500_000)}x ${'#'.repeat(500_000)}`;
    expect(markdownTitle(hostile)?.endsWith('x')).toBe(true);
  });
});
