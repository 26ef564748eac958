import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ContextResult } from '@zerda/context';
import { EXIT } from './errors.js';
import { memoryIo } from './test-utils/io.js';
import { runCli } from './program.js';

// `zerda index` then `zerda mcp`, run as a user (or an MCP client's configuration) runs them: the built command in a folder.
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const SKIP = !existsSync(BIN) ? 'the CLI is not built (pnpm --filter @zerda/cli build)' : undefined;
if (SKIP) console.warn(`skipping the zerda mcp end-to-end tests: ${SKIP}`);

const ARABIC = 'تُعار الكتب لمدة أسبوعين، ويمكن تجديد الإعارة مرة واحدة عبر الموقع أو في مكتب الإعارة. أما المخطوطات النادرة فلا تُعار، وتُقرأ في قاعة المخطوطات فقط.';
const ENGLISH = 'Books are lent for two weeks and a loan can be renewed once, online or at the loans desk. Rare manuscripts are never lent: they are read in the manuscripts room.';
const DOCUMENTS: Record<string, string> = {
  'docs/loans-ar.md': `---\nlang: ar\n---\n# الإعارة\n\n${ARABIC}\n`,
  'docs/loans-en.md': `---\nlang: en\n---\n# Loans\n\n${ENGLISH}\n`,
  'docs/hours-en.md': `---\nlang: en\n---\n# Opening hours\n\nThe library is open from nine in the morning until eight in the evening, every day except Friday.\n`,
};

function zerda(cwd: string, argv: string[], input?: string): { code: number; out: string; err: string } {
  const result = spawnSync(process.execPath, [BIN, ...argv], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000, ...(input !== undefined ? { input } : {}) });
  return { code: result.status ?? -1, out: result.stdout, err: result.stderr };
}

/** `zerda mcp …` in `cwd`, spawned and connected by the SDK's StdioClientTransport. */
async function connect(cwd: string, argv: string[] = []): Promise<{ client: Client; log: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...argv], cwd, stderr: 'pipe' });
  let log = '';
  transport.stderr?.on('data', (data: Buffer) => {
    log += data.toString();
  });
  const client = new Client({ name: 'zerda-cli-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, log: () => log };
}

type Built = { context: string; budget: { limit: number; used: number; unit: string }; citations: Array<{ source: string; number?: number }> };

describe.skipIf(SKIP !== undefined)('zerda mcp: the index of zerda index over MCP stdio', { timeout: 120_000 }, () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'zerda-cli-mcp-'));
    for (const [path, text] of Object.entries(DOCUMENTS)) {
      mkdirSync(join(folder, 'docs'), { recursive: true });
      writeFileSync(join(folder, path), text);
    }
    const indexed = zerda(folder, ['index', 'docs', '--quiet']);
    expect(indexed.code, indexed.err).toBe(EXIT.ok);
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('lists the tools and builds Arabic and English contexts within the budget, equal to those of zerda query', async () => {
    const { client, log } = await connect(folder, ['--budget', '400']);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['search', 'build_context']);

      const arabic = await client.callTool({ name: 'build_context', arguments: { query: 'ما مدة إعارة الكتب؟', budget: 200 } });
      expect(arabic.isError).toBeFalsy();
      const arabicContext = arabic.structuredContent as Built;
      expect(arabicContext.budget).toMatchObject({ limit: 200, unit: 'chars' });
      expect(arabicContext.budget.used).toBeLessThanOrEqual(200);
      expect(arabicContext.citations[0]!.source).toBe('docs/loans-ar.md');
      expect(arabicContext.context).toContain('تُعار الكتب لمدة أسبوعين');
      const query = JSON.parse(zerda(folder, ['query', 'ما مدة إعارة الكتب؟', '--budget', '200', '--format', 'json']).out) as ContextResult;
      expect(arabicContext.context).toBe(query.context);

      // --budget is build_context's default budget.
      const english = (await client.callTool({ name: 'build_context', arguments: { query: 'How long can I borrow a book?' } })).structuredContent as Built;
      expect(english.budget.limit).toBe(400);
      expect(english.budget.used).toBeLessThanOrEqual(400);
      expect(english.citations[0]!.source).toBe('docs/loans-en.md');
      expect(english.context).toContain('Books are lent for two weeks');

      const search = await client.callTool({ name: 'search', arguments: { query: 'opening hours', filter: { lang: 'en' }, limit: 1 } });
      expect((search.structuredContent as { results: Array<{ source: string }> }).results.map((hit) => hit.source)).toEqual(['docs/hours-en.md']);
      const bad = await client.callTool({ name: 'build_context', arguments: { query: 'x', budget: -1 } });
      expect(bad.isError).toBe(true);
    } finally {
      await client.close();
    }
    expect(log()).toMatch(/^zerda: serving \.zerda \(\d+ chunks\) over MCP on stdio$/m);
  });

  it('applies --filter to every call: a client can narrow it, never widen it', async () => {
    const { client } = await connect(folder, ['--filter', '{"lang":"en"}', '--index', join(folder, '.zerda')]);
    try {
      const arabic = (await client.callTool({ name: 'build_context', arguments: { query: 'ما مدة إعارة الكتب؟' } })).structuredContent as Built;
      expect(arabic.citations.map((citation) => citation.source)).not.toContain('docs/loans-ar.md');
      const widened = (await client.callTool({ name: 'search', arguments: { query: 'إعارة الكتب', filter: { lang: 'ar' } } })).structuredContent as { results: unknown[] };
      expect(widened.results).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('exits 0 when the client closes standard input, and keeps stdout for the protocol', () => {
    const run = zerda(folder, ['mcp'], '');
    expect(run.code, run.err).toBe(EXIT.ok);
    expect(run.out).toBe('');
    expect(run.err).toMatch(/serving \.zerda/);
  });

  it('exits 3 without an index, 2 on a bad option, before serving anything', () => {
    mkdirSync(join(folder, 'empty'), { recursive: true });
    const none = zerda(join(folder, 'empty'), ['mcp'], '');
    expect(none.code).toBe(EXIT.noIndex);
    expect(none.err).toMatch(/^zerda: no zerda index in .*empty[/\\]\.zerda \(run: zerda index/);
    expect(none.out).toBe('');
    const filter = zerda(folder, ['mcp', '--filter', '{"lang":'], '');
    expect(filter.code).toBe(EXIT.usage);
    expect(filter.err).toMatch(/--filter must be JSON/);
    const results = zerda(folder, ['mcp', '--max-results', '500'], '');
    expect(results.code).toBe(EXIT.usage);
    expect(results.err).toMatch(/--max-results must be at most 100, got "500"/);
  });

  it('in-process without process streams, says that it needs them', async () => {
    const io = memoryIo(folder);
    expect(await runCli(['mcp'], io)).toBe(EXIT.failure);
    expect(io.err()).toMatch(/zerda mcp needs the standard input and output streams of a process/);
  });
});
