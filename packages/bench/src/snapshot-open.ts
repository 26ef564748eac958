/**
 * `node dist/snapshot-open.js --size 1000000 --configuration keyword --directory /tmp/zerda-1m --runs 3`:
 * the scale section's snapshot rows for one size, repeatably. The engine is built over the synthetic
 * corpus and saved once into `--directory` (reused when it already holds one: building a million
 * hybrid chunks takes minutes), then opened `--runs` times, each in a fresh process
 * (`snapshot-open-worker.js`), printing per run the open time, the time to the first answer, the
 * peak resident set, whether the answers equal the saved engine's, and the load average; then the
 * medians. `--from OTHER` (a directory this command filled before) opens OTHER's snapshot with this
 * code and saves it again into `--directory` instead of building: after a format change, the same
 * engine in the new format in a minute (the answers are still compared with the built engine's).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { datasetsDirectory } from './datasets.js';
import { chooseEmbedder } from './embedding.js';
import { ENGINE_BENCH_CONFIG, syntheticInputs, type ScaleConfiguration } from './jobs.js';
import { answersDigest, type OpenReport, type OpenRequest } from './snapshot-digest.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string' },
    configuration: { type: 'string', default: 'keyword' },
    directory: { type: 'string' },
    runs: { type: 'string', default: '3' },
    seed: { type: 'string', default: '20250101' },
    from: { type: 'string' },
  },
});
const size = Number(values.size);
const runs = Number(values.runs);
const configuration = values.configuration as ScaleConfiguration;
if (!Number.isInteger(size) || size < 1 || !values.directory || !Number.isInteger(runs) || runs < 1 || (configuration !== 'keyword' && configuration !== 'hybrid-hnsw')) {
  console.error('usage: snapshot-open.js --size N --configuration keyword|hybrid-hnsw --directory DIR [--runs 3] [--seed 20250101] [--from DIR]');
  process.exit(2);
}
const directory = values.directory;
const requestFile = join(directory, 'request.json');
const expectedFile = join(directory, 'expected.json');

if (!existsSync(requestFile) && values.from) {
  const fromRequest = JSON.parse(readFileSync(join(values.from, 'request.json'), 'utf8')) as OpenRequest;
  if (fromRequest.configuration !== configuration) throw new Error(`--from holds a ${fromRequest.configuration} snapshot, not ${configuration}`);
  const { ContextEngine } = await import('@zerda/context');
  const options: Record<string, unknown> = {};
  if (configuration === 'hybrid-hnsw') {
    const { HnswVectorStore } = await import('@zerda/vector-hnswlib');
    const choice = await chooseEmbedder(fromRequest.language);
    if (!choice.embedder) throw new Error(choice.reason ?? 'no embedder');
    Object.assign(options, { embedder: choice.embedder, vectorDb: new HnswVectorStore() });
  }
  const engine = await ContextEngine.open(fromRequest.directory, options);
  mkdirSync(directory, { recursive: true });
  const saveStarted = performance.now();
  const saved = await engine.save(join(directory, 'snapshot'));
  const saveMs = performance.now() - saveStarted;
  const built = JSON.parse(readFileSync(join(values.from, 'expected.json'), 'utf8')) as { answers: string; buildMs: number };
  writeFileSync(requestFile, JSON.stringify({ ...fromRequest, directory: saved.directory }));
  writeFileSync(expectedFile, JSON.stringify({ answers: built.answers, buildMs: built.buildMs, saveMs, bytes: saved.bytes }));
  console.log(`saved ${values.from}'s engine again in ${(saveMs / 1000).toFixed(2)} s (${(saved.bytes / 2 ** 20).toFixed(0)} MiB)`);
} else if (!existsSync(requestFile)) {
  const source = join(datasetsDirectory() ?? '', 'beir-scifact');
  const { chunks, queries, choice } = await syntheticInputs(source, Number(values.seed), size, configuration !== 'keyword');
  const { ContextEngine } = await import('@zerda/context');
  const started = performance.now();
  const engine = new ContextEngine({ config: ENGINE_BENCH_CONFIG });
  if (configuration === 'keyword') await engine.index(chunks);
  else {
    const { HnswVectorStore } = await import('@zerda/vector-hnswlib');
    await engine.index(chunks, { embedder: choice.embedder!, vectorDb: new HnswVectorStore({ maxElements: size }) });
  }
  const buildMs = performance.now() - started;
  mkdirSync(directory, { recursive: true });
  const saveStarted = performance.now();
  const saved = await engine.save(join(directory, 'snapshot'));
  const saveMs = performance.now() - saveStarted;
  const checked = queries.slice(0, 20);
  const results = [];
  for (const query of checked) results.push(await engine.run(query, { overrideBudget: 2000, useHistory: false, recordTurn: false }));
  const request: OpenRequest = { directory: saved.directory, configuration, language: 'en', queries: checked, budget: 2000 };
  writeFileSync(requestFile, JSON.stringify(request));
  writeFileSync(expectedFile, JSON.stringify({ answers: answersDigest(results), buildMs, saveMs, bytes: saved.bytes }));
  console.log(`built ${size.toLocaleString('en')} ${configuration} in ${(buildMs / 1000).toFixed(1)} s, saved in ${(saveMs / 1000).toFixed(2)} s (${(saved.bytes / 2 ** 20).toFixed(0)} MiB)`);
}

const expected = JSON.parse(readFileSync(expectedFile, 'utf8')) as { answers: string };
const worker = fileURLToPath(new URL('./snapshot-open-worker.js', import.meta.url));
const resultFile = join(directory, 'result.json');
const reports: OpenReport[] = [];
for (let run = 0; run < runs; run++) {
  const load = loadavg().map((value) => value.toFixed(2)).join(' ');
  const outcome = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=16384', worker, requestFile, resultFile], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (outcome.status !== 0) throw new Error(`the opening process failed (${outcome.signal ?? outcome.status})`);
  const report = JSON.parse(readFileSync(resultFile, 'utf8')) as OpenReport;
  reports.push(report);
  console.log(
    `run ${run + 1}: open ${(report.openMs / 1000).toFixed(2)} s · first answer ${(report.firstAnswerMs / 1000).toFixed(2)} s · peak RSS ${(report.peakRssBytes / 2 ** 20).toFixed(0)} MiB (${(report.baselineRssBytes / 2 ** 20).toFixed(0)} before open) · same answers ${report.answers === expected.answers ? 'yes' : 'NO'} · load ${load}`,
  );
}
const median = (numbers: number[]) => numbers.slice().sort((a, b) => a - b)[Math.floor(numbers.length / 2)]!;
console.log(
  `median of ${runs}: open ${(median(reports.map((report) => report.openMs)) / 1000).toFixed(2)} s · first answer ${(median(reports.map((report) => report.firstAnswerMs)) / 1000).toFixed(2)} s · peak RSS ${(median(reports.map((report) => report.peakRssBytes)) / 2 ** 20).toFixed(0)} MiB`,
);
process.exit(0);
