#!/usr/bin/env node
// Measures @zerda/loaders on third-party corpora (pdf.js, Readability, mammoth test material in
// ../shared/thirdparty or $ZERDA_THIRDPARTY) and on hostile documents generated here: per corpus the
// files, how many loaded, refusals by reason, fidelity against each project's own expectations, the
// time and the peak memory (VmHWM of the process that loaded them; each corpus, and each hostile
// document, is loaded in a child process of its own — hostile documents are generated beforehand by
// this process — so that one that kills its process is measured too). Time is the child's wall time,
// start-up (Node, the loaders' modules, the parse worker) included.
//
//   pnpm --filter @zerda/loaders build
//   node packages/loaders/scripts/measure-documents.mjs [--json out.json] [--timeout-s 120] [corpus …]
//
// Corpora: pdfjs, readability, mammoth, hostile (each document alone), hostile-batch (all of them
// with two ordinary files in one folder, one loadDocuments call). Prints a Markdown section.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/', import.meta.url);
const script = fileURLToPath(import.meta.url);
const args = process.argv.slice(2);

function option(name, fallback) {
  const index = args.indexOf(name);
  if (index < 0) return fallback;
  const value = args[index + 1];
  args.splice(index, 2);
  return value;
}

async function modules() {
  const loaders = await import(new URL('index.js', dist));
  const thirdparty = await import(new URL('fidelity/thirdparty.js', dist));
  const hostile = await import(new URL('fidelity/hostile-documents.js', dist));
  return { loaders, thirdparty, hostile };
}

function reasonOf(error) {
  const details = error.details ?? {};
  return `${error.code}${details.limit ? `:${details.limit}` : details.kind ? `:${details.kind}` : ''}`;
}

function refusals(report) {
  const counts = {};
  for (const failure of report.failed) counts[reasonOf(failure.error)] = (counts[reasonOf(failure.error)] ?? 0) + 1;
  return counts;
}

// The hostile documents: name, file name, bytes.
function hostileDocuments(hostile) {
  return [
    ['docx-zip-bomb-100MB', 'bomb.docx', () => hostile.zipBombDocx(100 * 1024 * 1024)],
    ['docx-zip-bomb-25MB', 'bomb25.docx', () => hostile.zipBombDocx(25 * 1024 * 1024)],
    ['docx-50k-entries', 'entries.docx', () => hostile.manyEntriesDocx(50_000)],
    ['pdf-flate-bomb-400MB', 'bomb.pdf', () => hostile.pdfWithText(['A flate bomb.'], 400 * 1024 * 1024)],
    ['pdf-flate-bomb-40MB', 'bomb40.pdf', () => hostile.pdfWithText(['A flate bomb.'], 40 * 1024 * 1024)],
    ['html-4000-nested-divs', 'deep4000.html', () => hostile.deeplyNestedHtml(4000)],
    ['html-100k-nested-divs', 'deep100k.html', () => hostile.deeplyNestedHtml(100_000)],
    ['html-200k-unclosed-b', 'bold.html', () => hostile.unclosedBoldHtml(200_000)],
    ['tar-named-md', 'archive.md', () => hostile.tarArchive('notes.md', '# Notes\n\nA tar archive named like Markdown.\n')],
    ['utf16le-no-bom-txt', 'utf16.txt', () => hostile.utf16LeWithoutBom('Plain text saved as UTF-16 little-endian without a byte-order mark. نص عربي أيضاً.\n')],
    ['yaml-alias-bomb-md', 'laughs.md', () => hostile.yamlAliasBombMarkdown(9)],
  ];
}

async function child(corpus) {
  const { loaders, thirdparty, hostile } = await modules();
  const directory = thirdparty.thirdpartyDirectory();
  const started = performance.now();
  const result = { corpus };
  if (corpus === 'pdfjs' || corpus === 'readability' || corpus === 'mammoth') {
    if (!directory) throw new Error(thirdparty.THIRDPARTY_HINT);
  }
  if (corpus === 'pdfjs') {
    const root = join(directory, 'pdfjs');
    const { documents, report } = await loaders.loadDocuments(root, { root, include: '*.pdf' });
    const bySource = new Map(documents.map((document) => [document.source, document]));
    const pageOne = (file) => {
      const document = bySource.get(file);
      if (!document) return undefined;
      const range = document.metadata.pages?.[0];
      return range ? document.text.slice(range.start, range.end) : document.text;
    };
    const expectations = thirdparty.pdfjsExpectations(directory);
    const missed = expectations.filter((expectation) => {
      const text = pageOne(expectation.file);
      return text === undefined || !thirdparty.meetsExpectation(text, expectation);
    });
    const cmapFiles = thirdparty.CMAP_DEPENDENT_PDFS;
    const cmapWithText = cmapFiles.filter((file) => (bySource.get(file)?.text.trim() ?? '') !== '');
    Object.assign(result, {
      files: report.files,
      loaded: new Set(documents.map((document) => document.source)).size,
      refused: refusals(report),
      expectations: { total: expectations.length, met: expectations.length - missed.length, missed: missed.map((item) => `${item.file}: ${item.test}`) },
      cmap: { total: cmapFiles.length, withText: cmapWithText.length, without: cmapFiles.filter((file) => !cmapWithText.includes(file)) },
      arabicLine3: pageOne('ArabicCIDTrueType.pdf')?.split('\n')[2],
    });
  } else if (corpus === 'readability') {
    const pages = thirdparty.readabilityPages(directory);
    const scores = [];
    let titles = 0;
    let dirs = 0;
    let dirsExpected = 0;
    const low = [];
    const report = { files: 0, failed: [] };
    let loaded = 0;
    for (const page of pages) {
      const { documents, report: one } = await loaders.loadDocuments(page.source);
      report.files += one.files;
      report.failed.push(...one.failed);
      const document = documents[0];
      if (document) loaded++;
      const f1 = document ? thirdparty.wordF1(thirdparty.readableText(document.text), page.expectedText) : 0;
      scores.push(f1);
      if (f1 < 0.9) low.push(`${page.name} ${f1.toFixed(3)}`);
      if (document && page.metadata.title && document.title === page.metadata.title) titles++;
      if (page.metadata.dir) {
        dirsExpected++;
        if (document?.metadata.dir === page.metadata.dir) dirs++;
      }
    }
    const mean = scores.reduce((sum, value) => sum + value, 0) / scores.length;
    Object.assign(result, {
      files: report.files,
      loaded,
      refused: refusals(report),
      f1: { p10: thirdparty.quantile(scores, 0.1), median: thirdparty.quantile(scores, 0.5), mean, below09: scores.filter((value) => value < 0.9).length, below05: scores.filter((value) => value < 0.5).length, low },
      titlesExact: `${titles}/${pages.filter((page) => page.metadata.title).length}`,
      dirReported: `${dirs}/${dirsExpected}`,
    });
  } else if (corpus === 'mammoth') {
    const root = join(directory, 'mammoth');
    const { documents, report } = await loaders.loadDocuments(root, { root, include: ['*.docx', '*.zip'] });
    const bySource = new Map(documents.map((document) => [document.source, document]));
    const failedBySource = new Map(report.failed.map((failure) => [failure.source, failure.error]));
    const expectations = thirdparty.mammothExpectations(directory);
    const missed = expectations.filter((expectation) => {
      const document = bySource.get(expectation.file);
      if (expectation.error) return document !== undefined || !failedBySource.has(expectation.file);
      const expectedWords = thirdparty.wordsOf(expectation.text ?? '');
      if (expectedWords.length === 0) return document !== undefined && thirdparty.wordsOf(document.text).length > 0;
      return !document || thirdparty.wordsOf(thirdparty.readableText(document.text)).join(' ') !== expectedWords.join(' ');
    });
    Object.assign(result, {
      files: report.files,
      loaded: documents.length,
      refused: refusals(report),
      expectations: { total: expectations.length, met: expectations.length - missed.length, missed: missed.map((item) => `${item.file}: ${item.test}`) },
    });
  } else if (corpus.startsWith('hostile:') || corpus === 'hostile-batch') {
    // The parent generated the documents in `folder`: this process only loads them, so its time
    // and peak memory are the loader's.
    const folder = args[2];
    const { documents: loaded, report } = await loaders.loadDocuments(folder, { root: folder });
    Object.assign(result, {
      files: report.files,
      loaded: loaded.map((document) => `${document.source} (${document.text.length} chars)`),
      refused: report.failed.map((failure) => `${failure.source}: ${reasonOf(failure.error)}`),
    });
  } else {
    throw new Error(`unknown corpus ${corpus}`);
  }
  result.seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function peakOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Writes the hostile documents of a corpus into a new folder (in this process, not the measured one). */
function generate(corpus, hostile) {
  const folder = mkdtempSync(join(tmpdir(), 'zerda-hostile-'));
  for (const [name, file, make] of hostileDocuments(hostile)) {
    if (corpus === 'hostile-batch' || `hostile:${name}` === corpus) writeFileSync(join(folder, file), make());
  }
  if (corpus === 'hostile-batch') {
    writeFileSync(join(folder, 'ordinary.md'), '# Ordinary\n\nAn ordinary note among hostile files.\n');
    writeFileSync(join(folder, 'عربي.txt'), 'نص عربي عادي بين ملفات معادية، للتأكد من أن الدفعة تكتمل؟\n');
  }
  return folder;
}

function runChild(corpus, timeoutSeconds, folder) {
  return new Promise((resolve) => {
    const started = performance.now();
    const process_ = spawn(process.execPath, [script, '--child', corpus, ...(folder ? [folder] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peak = 0;
    process_.stdout.on('data', (chunk) => (stdout += chunk));
    process_.stderr.on('data', (chunk) => (stderr += chunk));
    const poll = setInterval(() => (peak = Math.max(peak, peakOf(process_.pid))), 100);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      process_.kill('SIGKILL');
    }, timeoutSeconds * 1000);
    process_.on('exit', (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      const line = stdout.trim().split('\n').pop();
      let result;
      try {
        result = line ? JSON.parse(line) : undefined;
      } catch {
        result = undefined;
      }
      resolve({
        corpus,
        ...(result ?? { crashed: timedOut ? `killed after ${timeoutSeconds} s (timeout)` : `exit ${code ?? signal}: ${stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 300)}` }),
        wallSeconds: seconds,
        peakMiB: Math.round(peak / 1024 / 1024),
      });
    });
  });
}

function table(results) {
  const lines = [];
  const byCorpus = new Map(results.map((result) => [result.corpus, result]));
  const reasons = (refused) => Object.entries(refused ?? {}).map(([reason, count]) => `${count} ${reason}`).join(', ') || '–';
  lines.push('| corpus | files | loaded | refused (by reason) | fidelity | time | peak memory |', '|---|---:|---:|---|---|---:|---:|');
  const pdf = byCorpus.get('pdfjs');
  if (pdf) lines.push(pdf.crashed ? `| pdf.js test PDFs | – | – | ${pdf.crashed} | – | ${pdf.wallSeconds.toFixed(1)} s | ${pdf.peakMiB} MiB |` : `| pdf.js test PDFs | ${pdf.files} | ${pdf.loaded} | ${reasons(pdf.refused)} | api_spec.js getTextContent expectations ${pdf.expectations.met}/${pdf.expectations.total}; CMap-dependent files with text ${pdf.cmap.withText}/${pdf.cmap.total} | ${pdf.wallSeconds.toFixed(1)} s | ${pdf.peakMiB} MiB |`);
  const html = byCorpus.get('readability');
  if (html) lines.push(html.crashed ? `| Readability test pages | – | – | ${html.crashed} | – | ${html.wallSeconds.toFixed(1)} s | ${html.peakMiB} MiB |` : `| Readability test pages | ${html.files} | ${html.loaded} | ${reasons(html.refused)} | word F1 vs expected.html: p10 ${html.f1.p10.toFixed(3)}, median ${html.f1.median.toFixed(3)}, mean ${html.f1.mean.toFixed(3)}, ${html.f1.below09} below 0.9, ${html.f1.below05} below 0.5; titles exact ${html.titlesExact}; dir ${html.dirReported} | ${html.wallSeconds.toFixed(1)} s | ${html.peakMiB} MiB |`);
  const docx = byCorpus.get('mammoth');
  if (docx) lines.push(docx.crashed ? `| mammoth test DOCX | – | – | ${docx.crashed} | – | ${docx.wallSeconds.toFixed(1)} s | ${docx.peakMiB} MiB |` : `| mammoth test DOCX | ${docx.files} | ${docx.loaded} | ${reasons(docx.refused)} | mammoth.tests.js default-option expectations ${docx.expectations.met}/${docx.expectations.total} | ${docx.wallSeconds.toFixed(1)} s | ${docx.peakMiB} MiB |`);
  const hostile = results.filter((result) => result.corpus.startsWith('hostile'));
  if (hostile.length > 0) {
    lines.push('', '| hostile document (generated) | outcome | time | peak memory |', '|---|---|---:|---:|');
    for (const result of hostile) {
      const outcome = result.crashed ?? (result.corpus === 'hostile-batch' ? `batch completed: ${result.loaded.length} loaded, ${result.refused.length} refused (${result.refused.map((item) => item.replace(/^.*: /, '')).join(', ')})` : result.loaded.length > 0 ? `loaded (${result.loaded.join(', ')})` : `refused: ${result.refused.map((item) => item.replace(/^.*: /, '')).join(', ')}`);
      lines.push(`| ${result.corpus.replace(/^hostile:/, '')} | ${outcome} | ${result.wallSeconds.toFixed(1)} s | ${result.peakMiB} MiB |`);
    }
  }
  return lines.join('\n');
}

if (args[0] === '--child') {
  await child(args[1]);
} else {
  const jsonPath = option('--json', undefined);
  const timeoutSeconds = Number(option('--timeout-s', '120'));
  const { hostile } = await modules();
  const hostileNames = hostileDocuments(hostile).map(([name]) => `hostile:${name}`);
  const requested = args.length > 0 ? args.flatMap((name) => (name === 'hostile' ? hostileNames : [name])) : ['pdfjs', 'readability', 'mammoth', ...hostileNames, 'hostile-batch'];
  const results = [];
  for (const corpus of requested) {
    const folder = corpus.startsWith('hostile') ? generate(corpus, hostile) : undefined;
    const result = await runChild(corpus, timeoutSeconds, folder);
    if (folder) rmSync(folder, { recursive: true, force: true });
    process.stderr.write(`${corpus}: ${JSON.stringify(result).slice(0, 400)}\n`);
    results.push(result);
  }
  if (jsonPath) writeFileSync(jsonPath, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, results }, null, 2)}\n`);
  process.stdout.write(`${table(results)}\n`);
}
