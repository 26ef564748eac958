import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const binary = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function corpusFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'zerda-mcp-'));
  folders.push(folder);
  mkdirSync(join(folder, 'guide'));
  writeFileSync(
    join(folder, 'guide', 'budget.md'),
    '# Context budgets\n\nThe composer fits whole passages while they fit, then compresses the next one to the sentences closest to the question.\n\n## Tokens\n\nBudgets count characters by default, or tokens with a tokenizer.\n',
  );
  writeFileSync(join(folder, 'arabic.txt'), 'تحتاج النصوص العربية إلى تطبيع قبل الفهرسة: حذف الحركات والتطويل وتوحيد أشكال الألف.\n');
  writeFileSync(
    join(folder, 'faq.jsonl'),
    `${JSON.stringify({ docId: 'faq-1', source: 'faq', title: 'Rerankers', text: 'A reranker re-reads the best candidates together with the query and orders them again.' })}\n\n`,
  );
  writeFileSync(join(folder, '.hidden.md'), '# Hidden\n\nNever indexed.\n');
  return folder;
}

// Each start of the binary loads the engine and the SDK (about 0.6 s of CPU); the limit leaves room for a busy machine.
describe.skipIf(!existsSync(binary))('zerda-mcp binary over stdio (spawned by the SDK StdioClientTransport)', { timeout: 120_000 }, () => {
  it('indexes a folder at start and answers listTools, build_context and search', async () => {
    const folder = corpusFolder();
    const transport = new StdioClientTransport({ command: process.execPath, args: [binary, '--documents', folder, '--max-context-length', '800'], stderr: 'pipe' });
    let log = '';
    transport.stderr?.on('data', (data: Buffer) => {
      log += data.toString();
    });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['search', 'build_context']);

      const built = await client.callTool({ name: 'build_context', arguments: { query: 'How does the composer fit passages into the budget?' } });
      const structured = built.structuredContent as { context: string; citations: Array<{ docId: string; title?: string; number?: number }>; budget: { limit: number } };
      expect(structured.budget.limit).toBeLessThanOrEqual(800);
      expect(structured.citations[0]).toMatchObject({ docId: 'guide/budget.md', title: 'Context budgets', number: 1 });
      expect(structured.context).toContain('[1]');

      const arabic = await client.callTool({ name: 'search', arguments: { query: 'تطبيع النصوص العربية' } });
      expect((arabic.structuredContent as { results: Array<{ docId: string }> }).results[0]?.docId).toBe('arabic.txt');
      const faq = await client.callTool({ name: 'search', arguments: { query: 'what does a reranker do' } });
      expect((faq.structuredContent as { results: Array<{ docId: string }> }).results[0]?.docId).toBe('faq-1');
      const hidden = await client.callTool({ name: 'search', arguments: { query: 'never indexed hidden' } });
      expect(JSON.stringify(hidden.structuredContent)).not.toContain('Never indexed');

      const bad = await client.callTool({ name: 'build_context', arguments: { query: '' } });
      expect(bad.isError).toBe(true);
    } finally {
      await client.close();
    }
    expect(log).toMatch(/zerda-mcp: \d+ chunks from 3 files in .*; serving on stdio/);
  });

  it('fails clearly, with its usage, on bad arguments and bad files', () => {
    const missing = spawnSync(process.execPath, [binary], { encoding: 'utf8' });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/--documents is required/);
    expect(missing.stderr).toMatch(/usage: zerda-mcp/);
    expect(missing.stdout).toBe('');

    const unknown = spawnSync(process.execPath, [binary, '--documnets', 'x'], { encoding: 'utf8' });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown option '--documnets'/);

    const folder = corpusFolder();
    writeFileSync(join(folder, 'broken.jsonl'), '{"docId": "ok", "text": "fine"}\n{not json}\n');
    const broken = spawnSync(process.execPath, [binary, '--documents', folder], { encoding: 'utf8' });
    expect(broken.status).toBe(1);
    expect(broken.stderr).toMatch(/ZERDA_INVALID_ARGUMENT: broken\.jsonl:2 must be one JSON chunk per line/);

    const nowhere = spawnSync(process.execPath, [binary, '--documents', join(folder, 'does-not-exist')], { encoding: 'utf8' });
    expect(nowhere.status).toBe(1);
    expect(nowhere.stderr).toMatch(/ZERDA_STORE_IO/);
  });
});
