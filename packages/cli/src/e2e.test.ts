import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextEngine, type ContextResult } from '@zerda/context';
import { EXIT } from './errors.js';
import { ARABIC_QUESTION, writeLibrary } from './test-utils/corpus.js';

// The built command, run as a user runs it: `node dist/bin.js …` in a folder of documents.
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const LOADER_FIXTURES = fileURLToPath(new URL('../../loaders/src/__fixtures__/', import.meta.url));
const SNAPSHOTS = typeof (ContextEngine as unknown as { open?: unknown }).open === 'function' && typeof (ContextEngine.prototype as unknown as { save?: unknown }).save === 'function';
const SKIP = !existsSync(BIN) ? 'the CLI is not built (pnpm --filter @zerda/cli build)' : !SNAPSHOTS ? '@zerda/context has no engine snapshots yet (engine.save / ContextEngine.open)' : undefined;
if (SKIP) console.warn(`skipping the zerda end-to-end tests: ${SKIP}`);

function zerda(cwd: string, ...argv: string[]): { code: number; out: string; err: string } {
  const result = spawnSync(process.execPath, [BIN, ...argv], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 });
  return { code: result.status ?? -1, out: result.stdout, err: result.stderr };
}

function json<T>(run: { code: number; out: string; err: string }): T {
  expect(run.code, run.err).toBe(EXIT.ok);
  return JSON.parse(run.out) as T;
}

interface Summary {
  mode: string;
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: number;
  failed: Array<{ source: string; code: string }>;
  documents: number;
  chunks: number;
}

describe.skipIf(SKIP !== undefined)('zerda end to end: index → query → inspect → eval on mixed Arabic/English documents', () => {
  let folder: string;
  beforeAll(() => {
    folder = writeLibrary();
    copyFileSync(join(LOADER_FIXTURES, 'library.pdf'), join(folder, 'docs', 'library.pdf'));
    copyFileSync(join(LOADER_FIXTURES, 'library.docx'), join(folder, 'docs', 'guide.docx'));
    copyFileSync(join(LOADER_FIXTURES, 'library-encrypted.pdf'), join(folder, 'docs', 'locked.pdf'));
    writeFileSync(join(folder, 'docs', 'logo.png'), new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('indexes the folder, reporting the files it could not load, and saves a snapshot', () => {
    const run = zerda(folder, 'index', 'docs');
    expect(run.code, run.err).toBe(EXIT.ok);
    expect(run.out).toMatch(/^zerda: indexed 8 files → 9 documents, \d+ chunks in \.zerda$/m);
    expect(run.out).toContain('docs/locked.pdf cannot be loaded: it is encrypted with a password [ZERDA_DOCUMENT_UNREADABLE]');
    expect(run.out).toContain('docs/logo.png cannot be loaded: ".png" is not a supported format');
    // Progress goes to stderr (plain lines when it is not a terminal), never into the output.
    expect(run.err).toMatch(/^files: 10\/10 files in/m);
    expect(existsSync(join(folder, '.zerda', 'zerda-index.json'))).toBe(true);
    expect(existsSync(join(folder, '.zerda', 'snapshot'))).toBe(true);
    expect(zerda(folder, 'index', 'docs', '--strict', '--quiet').code).toBe(EXIT.partial);
  });

  it('answers an Arabic question from the snapshot, with the text and its diacritics intact', () => {
    const result = json<ContextResult>(zerda(folder, 'query', ARABIC_QUESTION, '--format', 'json', '--budget', '1500'));
    expect(result.chunks.map((chunk) => chunk.chunk.source)).toContain('docs/hours-ar.md');
    expect(result.context).toContain('تفتح الْمَكْتَبَةُ العامة أبوابها');
    expect(result.dropped.some((dropped) => dropped.reason === 'near_duplicate')).toBe(true);
    const text = zerda(folder, 'query', ARABIC_QUESTION, '--explain');
    expect(text.code).toBe(EXIT.ok);
    expect(text.out).toContain('تفتح الْمَكْتَبَةُ العامة');
    expect(text.out).toMatch(/stages: retrieved \d+ → after filter/);
  });

  it('cites PDF pages, filters by metadata, counts tokens and prints Markdown', () => {
    const pdf = json<ContextResult>(zerda(folder, 'query', 'أين تقع قاعة المخطوطات؟', '--format', 'json'));
    const chunk = pdf.chunks.find((candidate) => candidate.chunk.source === 'docs/library.pdf');
    expect(chunk?.chunk.metadata.pages).toContain(3);
    const english = json<ContextResult>(zerda(folder, 'query', 'opening hours library', '--format', 'json', '--filter', '{"lang":"en"}'));
    expect(english.chunks.length).toBeGreaterThan(0);
    for (const used of english.chunks) expect(used.chunk.metadata.lang).toBe('en');
    const tokens = json<ContextResult>(zerda(folder, 'query', ARABIC_QUESTION, '--format', 'json', '--tokens', 'cl100k', '--budget', '120'));
    expect(tokens.budget).toMatchObject({ limit: 120, unit: 'tokens' });
    expect(tokens.budget.used).toBeLessThanOrEqual(120);
    const markdown = zerda(folder, 'query', ARABIC_QUESTION, '--format', 'markdown', '--template', 'citations');
    expect(markdown.out).toMatch(/^## Context\n\n/);
    expect(markdown.out).toMatch(/\| 1 \| docs\/hours-ar\.md \|/);
    const badFilter = zerda(folder, 'query', 'x', '--filter', '{"year":{"$near":1}}');
    expect(badFilter.code).toBe(EXIT.usage);
    expect(badFilter.err).toMatch(/--filter/);
  });

  it('writes the inspector page', () => {
    const run = zerda(folder, 'inspect', ARABIC_QUESTION, '--html', 'out/report.html', '--budget', '1500');
    expect(run.code, run.err).toBe(EXIT.ok);
    expect(run.out).toMatch(/^zerda: wrote out\/report\.html \(\d+ chunks, \d+\/1500 chars\)$/m);
    const html = readFileSync(join(folder, 'out', 'report.html'), 'utf8');
    expect(html).toContain('<h1 dir="rtl">ما هي ساعات عمل المكتبة؟</h1>');
    expect(html).toContain('data-reason="near_duplicate"');
    expect(html).toContain('data-code="prompt_injection"');
    expect(zerda(folder, 'inspect', 'hours', '--html', '-').out).toMatch(/^<!doctype html>/);
  });

  it('re-indexes only what changed: adds, updates and removes', () => {
    const unchanged = zerda(folder, 'index', 'docs');
    expect(unchanged.out).toMatch(/is up to date \(9 documents/);
    writeFileSync(join(folder, 'docs', 'hours-en.html'), '<html lang="en"><body><main><h1>Opening hours</h1><p>From January the library opens at seven in the morning.</p></main></body></html>');
    rmSync(join(folder, 'docs', 'rfid.md'));
    writeFileSync(join(folder, 'docs', 'parking.md'), '# موقف السيارات\n\nيقع موقف السيارات خلف مبنى المكتبة ويتسع لمئتي سيارة.\n');
    const summary = json<Summary>(zerda(folder, 'index', 'docs', '--json'));
    expect(summary).toMatchObject({ mode: 'incremental', added: ['docs/parking.md'], updated: ['docs/hours-en.html'], removed: ['docs/rfid.md'], documents: 9 });
    expect(summary.unchanged).toBe(6);
    const parking = json<ContextResult>(zerda(folder, 'query', 'أين يقع موقف السيارات؟', '--format', 'json'));
    expect(parking.chunks[0]?.chunk.source).toBe('docs/parking.md');
    const seven = json<ContextResult>(zerda(folder, 'query', 'opens at seven in the morning', '--format', 'json', '--filter', '{"lang":"en"}'));
    expect(seven.context).toContain('seven in the morning');
    expect(seven.context).not.toContain('nine in the morning');
    const rfid = json<ContextResult>(zerda(folder, 'query', 'RFID', '--format', 'json'));
    expect(rfid.chunks.map((chunk) => chunk.chunk.source)).not.toContain('docs/rfid.md');
    // A new chunker setting rebuilds everything.
    const rebuilt = json<Summary>(zerda(folder, 'index', 'docs', '--json', '--size', '300'));
    expect(rebuilt.mode).toBe('full');
    expect(rebuilt.chunks).toBeGreaterThan(summary.chunks);
  });

  it('indexes with an embedder into an HNSW store, and queries it hybrid from the snapshot', () => {
    const models = fileURLToPath(new URL('../../embeddings/src/__fixtures__/', import.meta.url));
    const run = zerda(folder, 'index', 'docs', '--out', '.zerda-hnsw', '--embedder', 'tiny-bert', '--models', models, '--store', 'hnsw');
    expect(run.code, run.err).toBe(EXIT.ok);
    expect(run.err).toMatch(/^embeddings: (\d+)\/\1 chunks in/m);
    const result = json<ContextResult>(zerda(folder, 'query', ARABIC_QUESTION, '--index', '.zerda-hnsw', '--format', 'json'));
    expect(result.chunks.some((chunk) => chunk.retrievers?.includes('vector'))).toBe(true);
    expect(result.chunks.some((chunk) => chunk.retrievers?.includes('keyword'))).toBe(true);
  });

  it('serves the inspector until SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (data: Buffer) => {
          out += data.toString();
          const match = /on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
          if (match) resolve(match[1]!);
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
      });
      const page = await fetch(`${url}?q=${encodeURIComponent(ARABIC_QUESTION)}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<article class="chunk');
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(EXIT.ok);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('refuses a damaged snapshot with exit code 3 and a message naming it', () => {
    const snapshot = join(folder, '.zerda', 'snapshot');
    const files: string[] = [];
    const walk = (directory: string): void => {
      for (const entry of readdirSync(directory)) {
        const path = join(directory, entry);
        if (statSync(path).isDirectory()) walk(path);
        else files.push(path);
      }
    };
    walk(snapshot);
    const largest = files.sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
    const bytes = readFileSync(largest);
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] = bytes[middle]! ^ 0xff;
    writeFileSync(largest, bytes);
    const run = zerda(folder, 'query', ARABIC_QUESTION);
    expect(run.code).toBe(EXIT.noIndex);
    expect(run.err).toMatch(/cannot be opened: .* \(run zerda index --rebuild\)/);
    mkdirSync(join(folder, 'empty'));
    expect(zerda(join(folder, 'empty'), 'query', 'x').code).toBe(EXIT.noIndex);
  });

  it('evaluates a BEIR-layout folder', () => {
    const dataset = join(folder, 'dataset');
    mkdirSync(dataset);
    writeFileSync(join(dataset, 'corpus.jsonl'), [{ _id: 'a', title: 'مصر', text: 'القاهرة عاصمة جمهورية مصر العربية وأكبر مدنها، وتقع على ضفتي نهر النيل.' }, { _id: 'b', title: 'France', text: 'Paris is the capital and largest city of France, on the river Seine.' }].map((row) => JSON.stringify(row)).join('\n'));
    writeFileSync(join(dataset, 'queries.jsonl'), [{ _id: '1', text: 'ما عاصمة مصر؟' }, { _id: '2', text: 'capital of France' }].map((row) => JSON.stringify(row)).join('\n'));
    writeFileSync(join(dataset, 'qrels.tsv'), 'query-id\tcorpus-id\tscore\n1\ta\t1\n2\tb\t1\n');
    writeFileSync(join(dataset, 'answers.jsonl'), '{"id":"1","answers":["القاهرة"]}\n{"id":"2","answers":["Paris"]}\n');
    const run = zerda(folder, 'eval', 'dataset');
    expect(run.code, run.err).toBe(EXIT.ok);
    expect(run.out).toMatch(/nDCG@10\s+1\.0000/);
    expect(run.out).toMatch(/answer-in-context@2000 chars\s+100\.0% of 2/);
  });
});
