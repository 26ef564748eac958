import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ZerdaError } from '@zerda/types';
import { loadDocuments, pagesOfRange, streamDocuments, type LoadProgress, type LoadedDocument } from './index.js';

const fixtures = join(import.meta.dirname, '__fixtures__');
const ARABIC_VOCALIZED = 'تَفْتَحُ الْمَكْتَبَةُ أَبْوَابَهَا فِي السَّاعَةِ التَّاسِعَةِ صَبَاحًا، وَتُغْلِقُ فِي الْمَسَاءِ.';
const ARABIC_MIXED = 'يستخدم نظام الإعارة تقنية RFID لتتبع الكتب منذ عام 2019.';
// Two lines in the PDF, one sentence: the line break inside it is read as a space.
const ENGLISH = 'The reading rooms are open from nine in the morning until eight in the evening, every day except Friday.';

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'zerda-loaders-'));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

function write(relativePath: string, content: string | Uint8Array): string {
  const path = join(directory, relativePath);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  return path;
}

function byId(documents: LoadedDocument[], docId: string): LoadedDocument {
  const document = documents.find((candidate) => candidate.docId === docId);
  if (!document) throw new Error(`no document ${docId} in ${documents.map((d) => d.docId).join(', ')}`);
  return document;
}

function failureOf(report: Awaited<ReturnType<typeof loadDocuments>>['report'], source: string): ZerdaError {
  const entry = report.failed.find((failure) => failure.source === source);
  if (!entry) throw new Error(`no failure for ${source}: ${report.failed.map((failure) => failure.source).join(', ')}`);
  expect(ZerdaError.isInstance(entry.error)).toBe(true);
  return entry.error;
}

describe('PDF (LibreOffice export with an embedded DejaVu Sans subset)', () => {
  it('extracts Arabic in logical order with every diacritic, English, and mixed lines', async () => {
    const { documents, report } = await loadDocuments(join(fixtures, 'library.pdf'), { root: fixtures });
    expect(report.failed).toEqual([]);
    const [document] = documents;
    expect(document!.docId).toBe('library.pdf');
    expect(document!.title).toBe('دليل المكتبة العامة');
    const lines = document!.text.split('\n');
    expect(lines).toContain(ARABIC_VOCALIZED);
    expect(lines).toContain(ARABIC_MIXED);
    expect(lines).toContain(ENGLISH);
    expect(lines).toContain('تقع قاعة المخطوطات في الطابق الثالث، ويحتاج دخولها إلى تصريح مسبق.');
    expect(document!.metadata.format).toBe('pdf');
  });

  it('records the character range of every page, so a chunk can cite its page', async () => {
    const { documents } = await loadDocuments(join(fixtures, 'library.pdf'));
    const document = documents[0]!;
    const pages = document.metadata.pages as Array<{ page: number; start: number; end: number }>;
    expect(document.metadata.pageCount).toBe(3);
    expect(pages.map((range) => range.page)).toEqual([1, 2, 3]);
    expect(document.text.slice(pages[0]!.start, pages[0]!.end)).toContain(ARABIC_VOCALIZED);
    expect(document.text.slice(pages[1]!.start, pages[1]!.end)).toMatch(/^Opening hours/);
    expect(document.text.slice(pages[2]!.start, pages[2]!.end)).toMatch(/^تقع قاعة المخطوطات/);
    const englishAt = document.text.indexOf('Opening hours');
    expect(pagesOfRange(pages, englishAt, englishAt + 10)).toEqual([2]);
    expect(pagesOfRange(pages, 0, document.text.length)).toEqual([1, 2, 3]);
    expect(pagesOfRange(undefined, 0, 10)).toEqual([]);
  });

  it('reports an encrypted PDF, a damaged one and one without a text layer, and loads the rest', async () => {
    write('good.md', '# Good\n\nStill loads.');
    writeFileSync(join(directory, 'locked.pdf'), readFileSync(join(fixtures, 'library-encrypted.pdf')));
    write('damaged.pdf', '%PDF-1.7\nthis is not a PDF body at all');
    // A one-page PDF whose page draws nothing: what a scan without OCR looks like to a text extractor.
    write('scan.pdf', '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');
    const { documents, report } = await loadDocuments(directory, { root: directory });
    expect(documents.map((document) => document.docId)).toEqual(['good.md']);
    expect(failureOf(report, 'locked.pdf').details).toMatchObject({ file: 'locked.pdf', kind: 'encrypted', format: 'pdf' });
    expect(failureOf(report, 'locked.pdf').code).toBe('ZERDA_DOCUMENT_UNREADABLE');
    expect(failureOf(report, 'damaged.pdf').details.kind).toBe('corrupt');
    expect(failureOf(report, 'scan.pdf').details).toMatchObject({ kind: 'empty' });
    expect(failureOf(report, 'scan.pdf').message).toMatch(/text layer/);
  });
});

describe('DOCX (LibreOffice export) through mammoth', () => {
  it('keeps headings as Markdown and Arabic text with its diacritics', async () => {
    const { documents, report } = await loadDocuments(join(fixtures, 'library.docx'), { root: fixtures });
    expect(report.failed).toEqual([]);
    const document = documents[0]!;
    expect(document.title).toBe('دليل المكتبة العامة');
    expect(document.text).toContain('# دليل المكتبة العامة');
    expect(document.text).toContain('# Opening hours');
    expect(document.text.split('\n\n')).toContain(ARABIC_VOCALIZED);
    expect(document.text.split('\n\n')).toContain(ARABIC_MIXED);
    expect(document.metadata.format).toBe('docx');
  });

  it('reports a damaged DOCX and a password-protected one (OLE container)', async () => {
    write('broken.docx', 'PK\u0003\u0004 not really a zip');
    write('locked.docx', new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]));
    const { documents, report } = await loadDocuments(directory, { root: directory });
    expect(documents).toEqual([]);
    expect(failureOf(report, 'broken.docx').details.kind).toBe('corrupt');
    expect(failureOf(report, 'locked.docx').details.kind).toBe('encrypted');
  });
});

describe('Markdown and plain text', () => {
  it('puts front matter into metadata, keeps headings, and takes the title from front matter', async () => {
    write('guide/ar.md', `---\ntitle: دليل الاستخدام\nlang: ar\ntags: [مكتبة, إعارة]\nyear: 2024\nupdated: 2024-03-01\n---\n# المقدمة\n\n${ARABIC_VOCALIZED}\n\n## English part\n\nMixed ${ARABIC_MIXED}\n`);
    write('guide/en.md', '# Getting started\n\nInstall the package.\n');
    const { documents } = await loadDocuments(join(directory, 'guide'), { root: directory });
    const arabic = byId(documents, 'guide/ar.md');
    expect(arabic.title).toBe('دليل الاستخدام');
    expect(arabic.metadata).toEqual({ lang: 'ar', tags: ['مكتبة', 'إعارة'], year: 2024, updated: '2024-03-01', format: 'markdown' });
    expect(arabic.text.startsWith('# المقدمة')).toBe(true);
    expect(arabic.text).toContain(ARABIC_VOCALIZED);
    expect(arabic.text).toContain('## English part');
    expect(arabic.text).not.toContain('---');
    expect(byId(documents, 'guide/en.md').title).toBe('Getting started');
  });

  it('never evaluates front matter and reports invalid YAML with its line', async () => {
    write('code.md', '---js\n{ title: process.exit(1) }\n---\nbody\n');
    write('bad.md', '---\ntitle: ok\nlist: [unclosed\n---\nbody\n');
    const { documents, report } = await loadDocuments(directory, { root: directory });
    // "---js" is not a YAML front matter fence: the text stays as it is, nothing runs.
    expect(byId(documents, 'code.md').text).toContain('process.exit(1)');
    const error = failureOf(report, 'bad.md');
    expect(error.details.kind).toBe('corrupt');
    expect(error.message).toMatch(/front matter is not valid YAML \(line \d+/);
  });

  it('reads text with a byte-order mark, in UTF-16, and in a legacy Arabic code page when told', async () => {
    write('bom.txt', new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('سلام with BOM')]));
    const utf16 = new Uint8Array(2 + 'سلام'.length * 2);
    utf16.set([0xff, 0xfe]);
    [...'سلام'].forEach((character, index) => {
      const code = character.charCodeAt(0);
      utf16[2 + index * 2] = code & 0xff;
      utf16[3 + index * 2] = code >> 8;
    });
    write('utf16.txt', utf16);
    // "سلام" in windows-1256.
    write('legacy/cp1256.txt', new Uint8Array([0xd3, 0xe1, 0xc7, 0xe3]));
    const { documents, report } = await loadDocuments(directory, { root: directory, exclude: 'legacy/**' });
    expect(report.failed).toEqual([]);
    expect(byId(documents, 'bom.txt').text).toBe('سلام with BOM');
    expect(byId(documents, 'utf16.txt').text).toBe('سلام');
    const strict = await loadDocuments(join(directory, 'legacy'), { root: directory });
    expect(failureOf(strict.report, 'legacy/cp1256.txt').details.kind).toBe('encoding');
    expect(failureOf(strict.report, 'legacy/cp1256.txt').message).toMatch(/windows-1256/);
    const legacy = await loadDocuments(join(directory, 'legacy'), { root: directory, encoding: 'windows-1256' });
    expect(legacy.documents[0]!.text).toBe('سلام');
  });
});

describe('HTML', () => {
  const page = (body: string, head = '<meta charset="utf-8"><title>دليل المكتبة</title>') =>
    `<!doctype html><html lang="ar" dir="rtl"><head>${head}<style>p{color:red}</style><script>var tracking = 1;</script></head><body>${body}</body></html>`;

  it('keeps the main content as Markdown and drops navigation, scripts and the footer', async () => {
    write(
      'ar.html',
      page(`<nav><a href="/">الرئيسية</a> | <a href="/about">من نحن</a></nav><header>شعار الموقع</header>
        <main><h1>المكتبة العامة</h1><p>${ARABIC_VOCALIZED}</p><h2>الخدمات</h2><ul><li>إعارة الكتب</li><li>قاعات القراءة</li></ul>
        <ol><li>first</li><li>second</li></ol>
        <table><tr><th>اليوم</th><th>الساعات</th></tr><tr><td>السبت</td><td>9-5</td></tr></table>
        <p>See <a href="https://example.org/rules">the rules</a> and <a href="/local">this page</a>.</p></main>
        <aside>إعلان</aside><footer>حقوق النشر ٢٠٢٤</footer><script>alert(1)</script>`),
    );
    const { documents, report } = await loadDocuments(directory, { root: directory });
    expect(report.failed).toEqual([]);
    const document = documents[0]!;
    expect(document.title).toBe('دليل المكتبة');
    // Readability chooses the content (and, as in Firefox's reader view, makes the page's h1 an h2).
    expect(document.metadata).toMatchObject({ lang: 'ar', dir: 'rtl', extraction: 'readability', format: 'html' });
    expect(document.text).toBe(
      [
        '## المكتبة العامة',
        ARABIC_VOCALIZED,
        '## الخدمات',
        '- إعارة الكتب\n- قاعات القراءة',
        '1. first\n2. second',
        '| اليوم | الساعات |\n| --- | --- |\n| السبت | 9-5 |',
        'See [the rules](https://example.org/rules) and this page.',
      ].join('\n\n'),
    );
    for (const chrome of ['الرئيسية', 'شعار', 'إعلان', 'حقوق', 'alert', 'tracking', 'color']) expect(document.text).not.toContain(chrome);
  });

  it('finds the article of a page without <main> with Readability', async () => {
    const paragraph = 'Retrieval-augmented generation gives a language model the documents it needs at question time, so that answers cite their sources. ';
    write(
      'en.html',
      `<html lang="en"><head><title>RAG explained</title></head><body>
      <div class="menu"><a href="/">Home</a> <a href="/blog">Blog</a> <a href="/contact">Contact</a></div>
      <div class="post"><h2>What it is</h2><p>${paragraph.repeat(4)}</p><p>${paragraph.repeat(3)}</p></div>
      <div class="sidebar"><a href="/a">Related one</a><a href="/b">Related two</a></div></body></html>`,
    );
    const { documents } = await loadDocuments(directory, { root: directory });
    expect(documents[0]!.metadata.extraction).toBe('readability');
    expect(documents[0]!.text).toContain('Retrieval-augmented generation gives a language model');
    expect(documents[0]!.text).not.toContain('Contact');
    expect(documents[0]!.title).toBe('RAG explained');
  });

  it('decodes the charset the page declares', async () => {
    const head = new TextEncoder().encode('<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1256"><title>t</title></head><body><main><p>');
    const tail = new TextEncoder().encode('</p></main></body></html>');
    write('legacy.html', new Uint8Array([...head, 0xd3, 0xe1, 0xc7, 0xe3, ...tail]));
    const { documents } = await loadDocuments(directory, { root: directory });
    expect(documents[0]!.text).toBe('سلام');
  });
});

describe('CSV, TSV, JSON and JSONL records', () => {
  it('makes one document per record with a field mapping, numbers in metadata and stable record ids', async () => {
    write('rows.csv', 'id,title,body,year,lang\nr1,الإعارة,"مدة الإعارة أسبوعان، ويمكن تجديدها.",2019,ar\nr2,Loans,"Loans last two weeks, renewable.",2021,en\n');
    write('rows.tsv', 'text\tlang\nسطر بعلامة\tar\n');
    write('rows.json', JSON.stringify([{ _id: 7, content: 'JSON نص', tags: ['a'] }, 'a bare string record']));
    write('rows.jsonl', '{"passage":"first line"}\n\n{"passage":"second line","source":"x"}\n');
    const { documents, report } = await loadDocuments(directory, { root: directory, fields: { text: 'body', title: 'title', id: 'id' }, include: '*.csv' });
    expect(report.failed).toEqual([]);
    expect(documents.map((document) => document.docId)).toEqual(['rows.csv#r1', 'rows.csv#r2']);
    expect(documents[0]).toMatchObject({ text: 'مدة الإعارة أسبوعان، ويمكن تجديدها.', title: 'الإعارة', source: 'rows.csv', metadata: { year: 2019, lang: 'ar', record: 1, format: 'csv' } });
    const defaults = await loadDocuments(directory, { root: directory, exclude: '*.csv' });
    expect(defaults.report.failed).toEqual([]);
    expect(byId(defaults.documents, 'rows.tsv#1').text).toBe('سطر بعلامة');
    expect(byId(defaults.documents, 'rows.json#7')).toMatchObject({ text: 'JSON نص', metadata: { tags: ['a'], format: 'json' } });
    expect(byId(defaults.documents, 'rows.json#2').text).toBe('a bare string record');
    expect(byId(defaults.documents, 'rows.jsonl#1').text).toBe('first line');
    expect(byId(defaults.documents, 'rows.jsonl#3').metadata.source).toBe('x');
  });

  it('keeps every field as text when no text field exists, and reports bad records alone', async () => {
    write('facts.csv', 'name,capital\nمصر,القاهرة\n');
    write('mixed.jsonl', '{"text":"good"}\n{broken\n{"text":""}\n[1,2]\n');
    write('broken.json', '{"text": ');
    const { documents, report } = await loadDocuments(directory, { root: directory });
    expect(byId(documents, 'facts.csv#1').text).toBe('name: مصر\ncapital: القاهرة');
    expect(byId(documents, 'mixed.jsonl#1').text).toBe('good');
    expect(failureOf(report, 'mixed.jsonl#2').message).toMatch(/line 2 is not valid JSON/);
    expect(failureOf(report, 'mixed.jsonl#3').details.kind).toBe('empty');
    expect(failureOf(report, 'mixed.jsonl#4').details.kind).toBe('corrupt');
    expect(failureOf(report, 'broken.json').details.kind).toBe('corrupt');
  });
});

describe('folders, buffers and the report', () => {
  it('walks folders recursively with include/exclude, skips dot files and node_modules, and sorts', async () => {
    write('b.md', '# B');
    write('a/z.txt', 'z');
    write('a/y.md', '# Y');
    write('.hidden/secret.md', '# secret');
    write('.env.txt', 'secret');
    write('node_modules/pkg/readme.md', '# dependency');
    write('drafts/wip.md', '# wip');
    const all = await loadDocuments(directory, { root: directory, exclude: ['drafts/**'] });
    expect(all.documents.map((document) => document.docId)).toEqual(['a/y.md', 'a/z.txt', 'b.md']);
    const markdownOnly = await loadDocuments(directory, { root: directory, include: '**/*.md' });
    expect(markdownOnly.documents.map((document) => document.docId)).toEqual(['a/y.md', 'b.md', 'drafts/wip.md']);
    const hidden = await loadDocuments(directory, { root: directory, hidden: true, include: '**/*.md' });
    expect(hidden.documents.map((document) => document.docId)).toContain('.hidden/secret.md');
    expect(hidden.documents.map((document) => document.docId)).not.toContain('node_modules/pkg/readme.md');
  });

  it('reports unsupported, empty, missing and too large files, and loads everything else', async () => {
    write('ok.md', '# fine');
    write('image.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
    write('empty.txt', '');
    write('blank.md', '   \n\n  ');
    write('big.txt', 'x'.repeat(2000));
    const { documents, report } = await loadDocuments([directory, join(directory, 'missing.md')], { root: directory, maxFileBytes: 1000 });
    expect(documents.map((document) => document.docId)).toEqual(['ok.md']);
    const image = failureOf(report, 'image.png');
    expect(image.code).toBe('ZERDA_UNSUPPORTED_FORMAT');
    expect(image.message).toMatch(/image\.png cannot be loaded: "\.png" is not a supported format \(supported: .*\.pdf/);
    expect(failureOf(report, 'empty.txt').details.kind).toBe('empty');
    expect(failureOf(report, 'blank.md').details.kind).toBe('empty');
    expect(failureOf(report, 'big.txt').details.kind).toBe('too_large');
    expect(failureOf(report, 'missing.md').details).toMatchObject({ kind: 'io', reason: 'no such file or directory' });
    expect(report.files).toBe(5);
    expect(report.documents).toBe(1);
  });

  it('loads buffers by format name, extension or MIME type', async () => {
    const { documents, report } = await loadDocuments([
      { data: `# عنوان\n\n${ARABIC_VOCALIZED}`, type: 'markdown', source: 'inline/ar.md' },
      { data: new TextEncoder().encode('<main><h2>Title</h2><p>Body</p></main>'), type: 'text/html; charset=utf-8', source: 'inline/page' },
      { data: readFileSync(join(fixtures, 'library.pdf')), type: 'application/pdf', source: 'uploads/library.pdf' },
      { data: readFileSync(join(fixtures, 'library.docx')).buffer as ArrayBuffer, type: '.docx' },
      { data: 'x', type: 'image/png', source: 'inline/image' },
    ]);
    expect(documents.map((document) => document.docId)).toEqual(['inline/ar.md', 'inline/page', 'uploads/library.pdf', expect.stringMatching(/^buffer-[0-9a-f]{16}$/)]);
    expect(documents[0]!.text).toContain(ARABIC_VOCALIZED);
    expect(documents[1]!.text).toBe('## Title\n\nBody');
    expect(documents[2]!.text).toContain(ARABIC_MIXED);
    expect(failureOf(report, 'inline/image').code).toBe('ZERDA_UNSUPPORTED_FORMAT');
  });

  it('gives the same docIds when a changed folder is loaded again, and skips what the caller says', async () => {
    write('one.md', '# One\n\nfirst version');
    write('two.md', '# Two');
    const first = await loadDocuments(directory, { root: directory });
    write('one.md', '# One\n\nsecond version');
    const hashes = new Map(first.documents.map((document) => [document.source, document.contentHash]));
    const second = await loadDocuments(directory, { root: directory, skip: (file) => hashes.get(file.source) === file.contentHash });
    expect(second.documents.map((document) => document.docId)).toEqual(['one.md']);
    expect(second.documents[0]!.text).toContain('second version');
    expect(second.documents[0]!.contentHash).not.toBe(hashes.get('one.md'));
    expect(second.report.skipped).toEqual([{ source: 'two.md', docId: 'two.md', contentHash: hashes.get('two.md') }]);
  });

  it('streams: documents arrive before later files are read, with progress totals known up front', async () => {
    for (let index = 0; index < 30; index++) write(`notes/${String(index).padStart(2, '0')}.md`, `# Note ${index}\n\nنص ${index}`);
    const progress: LoadProgress[] = [];
    const stream = streamDocuments(directory, { root: directory, onProgress: (event) => progress.push(event) });
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value?.docId).toBe('notes/00.md');
    // Only the first file has been read when its document is handed out.
    expect(progress.at(-1)).toMatchObject({ phase: 'scan', filesDone: 0, filesTotal: 30 });
    let count = 1;
    while (!(await iterator.next()).done) count++;
    expect(count).toBe(30);
    expect(stream.report).toMatchObject({ files: 30, documents: 30, failed: [], skipped: [] });
    const loads = progress.filter((event) => event.phase === 'load');
    expect(loads.map((event) => event.filesDone)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
    expect(loads.at(-1)!.bytesDone).toBe(loads.at(-1)!.bytesTotal);
  });

  it('stops between files when aborted', async () => {
    for (let index = 0; index < 5; index++) write(`${index}.txt`, `text ${index}`);
    const controller = new AbortController();
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const document of streamDocuments(directory, { root: directory, signal: controller.signal })) {
          seen.push(document.docId);
          if (seen.length === 2) controller.abort(new Error('stopped by the user'));
        }
      })(),
    ).rejects.toThrow('stopped by the user');
    expect(seen).toEqual(['0.txt', '1.txt']);
  });

  it('rejects bad inputs and options with a ZerdaError naming the field', () => {
    const cases: Array<[() => unknown, RegExp]> = [
      [() => streamDocuments([], {}), /inputs must be a path/],
      [() => streamDocuments([42 as never]), /inputs\[0\] must be a path/],
      [() => streamDocuments({ data: 1, type: 'pdf' } as never), /inputs\.data must be a Uint8Array/],
      [() => streamDocuments({ data: 'x', type: 'md', name: 'n' } as never), /inputs\.name must be one of data, type, source/],
      [() => streamDocuments('.', { recursive: true } as never), /options\.recursive must be a known option/],
      [() => streamDocuments('.', { encoding: 'klingon' }), /options\.encoding must be an encoding TextDecoder knows/],
      [() => streamDocuments('.', { maxFileBytes: -1 }), /options\.maxFileBytes must be > 0/],
      [() => streamDocuments('.', { fields: { text: '' } }), /options\.fields\.text/],
      [() => streamDocuments('.', { skip: 'yes' } as never), /options\.skip must be/],
    ];
    for (const [action, message] of cases) {
      let thrown: unknown;
      try {
        action();
      } catch (error) {
        thrown = error;
      }
      expect(ZerdaError.isInstance(thrown), String(message)).toBe(true);
      expect((thrown as ZerdaError).message).toMatch(message);
    }
  });
});
