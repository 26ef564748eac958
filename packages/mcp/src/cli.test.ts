import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ContextEngine } from '@zerda/context';
import { createContextServer } from './context-server.js';

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

/** The built binary with `args`, spawned and connected by the SDK's StdioClientTransport; `log()` is what it wrote to stderr. */
async function connectBinary(args: string[]): Promise<{ client: Client; log: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [binary, ...args], stderr: 'pipe' });
  let log = '';
  transport.stderr?.on('data', (data: Buffer) => {
    log += data.toString();
  });
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, log: () => log };
}

// Each start of the binary loads the engine and the SDK (about 0.6 s of CPU); the limit leaves room for a busy machine.
describe.skipIf(!existsSync(binary))('zerda-mcp binary over stdio (spawned by the SDK StdioClientTransport)', { timeout: 120_000 }, () => {
  it('indexes a folder at start and answers listTools, build_context and search', async () => {
    const folder = corpusFolder();
    const { client, log } = await connectBinary(['--documents', folder, '--max-context-length', '800']);
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
    expect(log()).toMatch(/zerda-mcp: \d+ chunks from 3 files in .*; serving on stdio/);
  });

  it('fails clearly, with its usage, on bad arguments and bad files', () => {
    const missing = spawnSync(process.execPath, [binary], { encoding: 'utf8' });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/--documents <folder> or --snapshot <dir> is required/);
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

// The engine a user saves with engine.save(dir) and serves with `zerda-mcp --snapshot dir`.
async function savedEngine(): Promise<{ engine: ContextEngine; directory: string; generation: string }> {
  const engine = new ContextEngine({ config: { composer: { template: 'citations', maxContextLength: 700 } } });
  await engine.index([
    { docId: 'cache', source: 'ops/cache.md', title: 'Caching', metadata: { lang: 'en' }, text: 'The context cache keys every entry on the effective query, the filter, the budget and the corpus generation.' },
    { docId: 'budget', source: 'guide/budget.md', title: 'Budgets', metadata: { lang: 'en' }, text: 'The composer fits whole passages while they fit, then compresses the next one to the sentences closest to the question.' },
    { docId: 'normalise-ar', source: 'guide/arabic.md', title: 'التطبيع', metadata: { lang: 'ar' }, text: 'تحتاج النصوص العربية إلى تطبيع قبل الفهرسة: حذف الحركات والتطويل وتوحيد أشكال الألف.' },
    { docId: 'cache-ar', source: 'ops/cache-ar.md', title: 'التخزين المؤقت', metadata: { lang: 'ar' }, text: 'يحفظ التخزين المؤقت نتيجة كل سؤال مع المرشّح والميزانية، فيعيدها كاملة عند تكرار السؤال.' },
  ]);
  const parent = mkdtempSync(join(tmpdir(), 'zerda-mcp-snapshot-'));
  folders.push(parent);
  const directory = join(parent, 'engine');
  const { generation } = await engine.save(directory);
  return { engine, directory, generation };
}

type Call = { name: string; arguments: Record<string, unknown> };
const CALLS: Call[] = [
  { name: 'build_context', arguments: { query: 'How does the context cache key its entries?' } },
  { name: 'build_context', arguments: { query: 'كيف يعمل التخزين المؤقت؟', budget: 300 } },
  { name: 'search', arguments: { query: 'تطبيع النصوص العربية' } },
  { name: 'search', arguments: { query: 'composer budget passages', filter: { lang: 'en' }, limit: 2 } },
];

describe.skipIf(!existsSync(binary))('zerda-mcp --snapshot over stdio', { timeout: 120_000 }, () => {
  it('serves the saved engine: every answer equals the one the saved engine gives, in English and Arabic', async () => {
    const { engine, directory } = await savedEngine();
    // The saved engine behind the same server, in-process: the reference answers.
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createContextServer(engine).connect(serverSide);
    const reference = new Client({ name: 'reference', version: '1.0.0' });
    await reference.connect(clientSide);

    const { client, log } = await connectBinary(['--snapshot', directory]);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search', 'build_context']);
      const answers = [];
      for (const call of CALLS) {
        const served = await client.callTool(call);
        expect(served.isError, JSON.stringify(served.content)).toBeFalsy();
        expect(served.structuredContent).toEqual((await reference.callTool(call)).structuredContent);
        expect(served.content).toEqual((await reference.callTool(call)).content);
        answers.push(served.structuredContent as Record<string, unknown>);
      }
      const [english, arabic, arabicSearch, filtered] = answers as Array<{ context: string; budget: { limit: number; used: number }; citations: Array<{ docId: string; number?: number }>; results: Array<{ docId: string }> }>;
      // The snapshot's configuration travels with it: the citations template and the 700-character cap.
      expect(english!.citations[0]).toMatchObject({ docId: 'cache', number: 1 });
      expect(english!.context).toContain('[1]');
      expect(english!.budget.limit).toBeLessThanOrEqual(700);
      expect(arabic!.citations[0]!.docId).toBe('cache-ar');
      expect(arabic!.context).toContain('يحفظ التخزين المؤقت');
      expect(arabic!.budget).toMatchObject({ limit: 300 });
      expect(arabic!.budget.used).toBeLessThanOrEqual(300);
      expect(arabicSearch!.results[0]!.docId).toBe('normalise-ar');
      expect(filtered!.results.map((hit) => hit.docId)).toEqual(expect.not.arrayContaining(['normalise-ar', 'cache-ar']));
      expect(filtered!.results[0]!.docId).toBe('budget');
    } finally {
      await client.close();
      await reference.close();
    }
    expect(log()).toMatch(/zerda-mcp: 4 chunks from the snapshot .*engine; serving on stdio/);
  });

  it('lets --template and --max-context-length override what the snapshot holds', async () => {
    const { directory } = await savedEngine();
    const { client } = await connectBinary(['--snapshot', directory, '--template', 'xml', '--max-context-length', '250']);
    try {
      const built = await client.callTool({ name: 'build_context', arguments: { query: 'How does the context cache key its entries?' } });
      const structured = built.structuredContent as { context: string; budget: { limit: number } };
      expect(structured.budget.limit).toBeLessThanOrEqual(250);
      expect(structured.context).toMatch(/^<document source="ops\/cache\.md"/);
      expect(structured.context).not.toContain('[1]');
    } finally {
      await client.close();
    }
  });

  it('exits 1 naming the ZerdaError on a missing or damaged snapshot, 2 on conflicting flags, and writes nothing to stdout', async () => {
    const { directory, generation } = await savedEngine();
    const nowhere = spawnSync(process.execPath, [binary, '--snapshot', join(directory, 'does-not-exist')], { encoding: 'utf8' });
    expect(nowhere.status).toBe(1);
    expect(nowhere.stderr).toMatch(/^zerda-mcp: ZERDA_CORRUPT_SNAPSHOT: snapshot .*does-not-exist cannot be opened: CURRENT failed the exists check/);
    expect(nowhere.stdout).toBe('');

    const file = join(directory, generation, 'engine.json');
    const bytes = readFileSync(file);
    bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0x04;
    writeFileSync(file, bytes);
    const damaged = spawnSync(process.execPath, [binary, '--snapshot', directory], { encoding: 'utf8' });
    expect(damaged.status).toBe(1);
    expect(damaged.stderr).toMatch(/^zerda-mcp: ZERDA_CORRUPT_SNAPSHOT: .*engine\.json failed the sha256 check/);
    expect(damaged.stdout).toBe('');

    // A snapshot whose vectors were made with an embedder needs that embedder (code) to open.
    const embedder = { specificationVersion: 'v1' as const, modelId: 'letters-test', dimensions: 4, embed: async (texts: string[]) => texts.map((text) => Float32Array.from([text.length, 1, text.split(' ').length, 1])) };
    const hybrid = new ContextEngine({ embedder });
    await hybrid.index([{ docId: 'a', text: 'The composer fits whole passages.' }]);
    await hybrid.save(join(directory, '..', 'hybrid'));
    const needsEmbedder = spawnSync(process.execPath, [binary, '--snapshot', join(directory, '..', 'hybrid')], { encoding: 'utf8' });
    expect(needsEmbedder.status).toBe(1);
    expect(needsEmbedder.stderr).toMatch(/^zerda-mcp: ZERDA_INVALID_ARGUMENT: .*options\.embedder.*letters-test/);

    const both = spawnSync(process.execPath, [binary, '--snapshot', directory, '--documents', directory], { encoding: 'utf8' });
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/--documents and --snapshot exclude each other/);
    const chunkSize = spawnSync(process.execPath, [binary, '--snapshot', directory, '--chunk-size', '200'], { encoding: 'utf8' });
    expect(chunkSize.status).toBe(2);
    expect(chunkSize.stderr).toMatch(/--chunk-size applies to --documents only/);
  });
});
