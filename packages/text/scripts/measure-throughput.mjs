// Measures @zerda/text throughput on ~1 MB of mixed Arabic/English text (built output: run
// `pnpm --filter @zerda/text build` first). Uses paragraphs from ../shared/datasets (ARCD Arabic,
// SciFact English) when present, otherwise synthetic mixed text. Not a test: numbers vary by machine.
//   node packages/text/scripts/measure-throughput.mjs
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Analyzer, normalizeText, splitSentences, tokenize, truncateAtWordBoundary, wordCounter } from '../dist/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const datasets = process.env.ZERDA_DATASETS ?? resolve(here, '../../../../shared/datasets');
const TARGET = 1_000_000;

function paragraphs(path, gzipped) {
  if (!existsSync(path)) return [];
  const raw = gzipped ? gunzipSync(readFileSync(path)).toString('utf8') : readFileSync(path, 'utf8');
  return raw.split('\n').filter(Boolean).map((line) => JSON.parse(line).text);
}

function buildText() {
  const arabic = paragraphs(join(datasets, 'arcd/corpus.jsonl'), false);
  const english = paragraphs(join(datasets, 'beir-scifact/corpus.jsonl.gz'), true);
  const source = arabic.length > 0 && english.length > 0 ? 'datasets (ARCD + SciFact)' : 'synthetic';
  if (arabic.length === 0) arabic.push('ذهب مُحَمَّدٌ إلى المكتبة، وقرأ كتاباً عن التعلم الآلي في ٢٠٢٤. هل وجد ما يبحث عنه؟');
  if (english.length === 0) english.push('The quick brown fox jumps over 3.5 lazy dogs. Retrieval-augmented generation needs good context!');
  const parts = [];
  let length = 0;
  for (let index = 0; length < TARGET; index++) {
    const part = index % 2 === 0 ? arabic[(index / 2) % arabic.length] : english[((index - 1) / 2) % english.length];
    parts.push(part);
    length += part.length + 2;
  }
  return { text: parts.join('\n\n'), source };
}

// Reports CPU time (user + system of this process) next to wall time: on a shared machine the
// wall time mostly measures the neighbours, CPU time what this code costs.
function measure(label, run, bytes) {
  run(); // warm up the JIT (and, for a shared analyzer, its term cache)
  const rounds = 5;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let result;
  for (let round = 0; round < rounds; round++) result = run();
  const wall = (performance.now() - started) / rounds;
  const cpuUsed = process.cpuUsage(cpuBefore);
  const cpu = (cpuUsed.user + cpuUsed.system) / 1000 / rounds;
  const megabytesPerSecond = bytes / 1e6 / (cpu / 1000);
  console.log(`${label.padEnd(48)} cpu ${cpu.toFixed(1).padStart(7)} ms  wall ${wall.toFixed(1).padStart(7)} ms  ${megabytesPerSecond.toFixed(2).padStart(6)} MB/s (cpu)${result === undefined ? '' : `   ${result}`}`);
}

const { text, source } = buildText();
const bytes = Buffer.byteLength(text, 'utf8');
const tokenCount = tokenize(text).length;
console.log(`load average ${(await import('node:os')).loadavg().map((value) => value.toFixed(1)).join(' ')} on ${(await import('node:os')).availableParallelism()} cores`);
console.log(`input: ${text.length} UTF-16 units, ${bytes} UTF-8 bytes, ${tokenCount} tokens, from ${source}; Node ${process.version}`);
measure('tokenize', () => `${tokenize(text).length} tokens`, bytes);
measure('wordCounter', () => `${wordCounter(text)} words`, bytes);
measure('normalizeText (whole text)', () => { normalizeText(text); return undefined; }, bytes);
measure('splitSentences', () => `${splitSentences(text).length} sentences`, bytes);
measure('truncateAtWordBoundary (to 2000 chars)', () => `${truncateAtWordBoundary(text, 2000).length} units`, bytes);
measure('truncateAtWordBoundary (to 500k chars)', () => `${truncateAtWordBoundary(text, 500_000).length} units`, bytes);
for (const [label, options] of [
  ['default (light + porter2)', {}],
  ['snowball Arabic + porter2', { arabic: { stemmer: 'snowball' } }],
  ['no stemming', { stem: false }],
]) {
  measure(`Analyzer ${label}, cold cache`, () => `${new Analyzer(options).analyze(text).length} terms`, bytes);
  const warm = new Analyzer(options);
  measure(`Analyzer ${label}, warm cache`, () => `${warm.analyze(text).length} terms`, bytes);
}
const analyzer = new Analyzer();
measure('Analyzer default analyzeTokens, warm', () => `${analyzer.analyzeTokens(text).length} terms`, bytes);
