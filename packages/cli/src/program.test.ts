import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { locateDatasets } from '@zerda/retriever/datasets';
import { EXIT } from './errors.js';
import { runCli } from './program.js';
import { memoryIo } from './test-utils/io.js';

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'zerda-cli-program-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

async function cli(...argv: string[]) {
  const io = memoryIo(directory);
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
}

/** A tiny BEIR-layout dataset: Arabic and English documents, queries, judgements, answers and a split. */
function writeDataset(): string {
  const dataset = join(directory, 'mini');
  mkdirSync(dataset);
  const corpus = [
    { _id: 'd1', title: 'القاهرة', text: 'القاهرة هي عاصمة مصر وأكبر مدنها، وتقع على ضفاف نهر النيل.' },
    { _id: 'd2', title: 'الرياض', text: 'الرياض عاصمة المملكة العربية السعودية وتقع في وسط شبه الجزيرة العربية.' },
    { _id: 'd3', title: 'Paris', text: 'Paris is the capital of France, on the river Seine.' },
    { _id: 'd4', title: 'Nile', text: 'The Nile is the longest river in Africa and flows through Egypt.' },
  ];
  writeFileSync(join(dataset, 'corpus.jsonl'), corpus.map((row) => JSON.stringify(row)).join('\n'));
  const queries = [
    { _id: 'q1', text: 'ما هي عاصمة مصر؟' },
    { _id: 'q2', text: 'عاصمة السعودية' },
    { _id: 'q3', text: 'capital of France' },
    { _id: 'q4', text: 'longest river in Africa' },
  ];
  writeFileSync(join(dataset, 'queries.jsonl'), queries.map((row) => JSON.stringify(row)).join('\n'));
  writeFileSync(join(dataset, 'qrels.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq3\td3\t1\nq4\td4\t1\n');
  writeFileSync(
    join(dataset, 'answers.jsonl'),
    [
      { id: 'q1', answers: ['القاهرة'], split: 'test' },
      { id: 'q2', answers: ['الرياض'], split: 'test' },
      { id: 'q3', answers: ['Paris'], split: 'train' },
      { id: 'q4', answers: ['the Amazon'], split: 'train' },
    ]
      .map((row) => JSON.stringify(row))
      .join('\n'),
  );
  return dataset;
}

describe('zerda --help and usage errors', () => {
  it('prints help for the program and every command, with exit code 0', async () => {
    const top = await cli('--help');
    expect(top.code).toBe(EXIT.ok);
    for (const command of ['index', 'query', 'inspect', 'serve', 'eval']) expect(top.out).toContain(command);
    expect(top.out).toMatch(/Exit codes: 0 ok, 1 failure, 2 usage error, 3 no index/);
    for (const [command, option] of [['index', '--embedder'], ['query', '--filter'], ['inspect', '--html'], ['serve', '--port'], ['eval', '--budgets']]) {
      const help = await cli(command!, '--help');
      expect(help.code, command).toBe(EXIT.ok);
      expect(help.out).toContain(option);
    }
    expect((await cli('--version')).out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('exits with 2 and names the problem for bad usage', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['nonsense'], /unknown command 'nonsense'/],
      [['query'], /missing required argument 'question'/],
      [['index', 'docs', '--size', '0'], /--size must be a positive integer, got "0"/],
      [['index', 'docs', '--overlap', 'many'], /--overlap must be an integer >= 0/],
      [['index', 'docs', '--chunker', 'magic'], /Allowed choices are auto, recursive, structure, arabic/],
      [['index', '.', '--store', 'hnsw'], /--store hnsw keeps vectors: it needs --embedder/],
      [['index', '.', '--store', 'mongo', '--embedder', 'x'], /--store must be memory, hnsw, lancedb <dir> or pgvector <url>, got "mongo"/],
      [['index', '.', '--store', 'lancedb', '--embedder', 'x'], /--store lancedb needs a directory/],
      [['index', '.', '--size', '100', '--overlap', '100'], /--overlap must be smaller than --size \(100\), got 100/],
      [['index', 'missing-folder'], /missing-folder: no such file or directory/],
      [['query', 'x', '--budget', '-1'], /error: option '-b, --budget <n>' argument '-1' is invalid|--budget must be a positive integer/],
      [['query', 'x', '--template', 'poem'], /--template must be one of/],
      [['eval', 'nowhere'], /nowhere: no such directory/],
      [['eval', '.', '--budgets', '100,zero'], /--budgets must be positive integers/],
    ];
    for (const [argv, message] of cases) {
      const { code, err } = await cli(...argv);
      expect(code, argv.join(' ')).toBe(EXIT.usage);
      expect(err, argv.join(' ')).toMatch(message);
    }
  });

  it('exits with 3 and says how to make an index when there is none', async () => {
    for (const command of [['query', 'ما هي ساعات العمل؟'], ['inspect', 'hours'], ['serve', '--port', '0']]) {
      const { code, err } = await cli(...command);
      expect(code, command.join(' ')).toBe(EXIT.noIndex);
      expect(err).toMatch(/no zerda index in .*\.zerda \(run: zerda index <paths…> --out/);
    }
    mkdirSync(join(directory, '.zerda'));
    writeFileSync(join(directory, '.zerda', 'zerda-index.json'), '{ not json');
    const corrupt = await cli('query', 'x');
    expect(corrupt.code).toBe(EXIT.noIndex);
    expect(corrupt.err).toMatch(/is not a readable zerda index manifest .* run zerda index --rebuild/);
  });
});

describe('zerda eval', () => {
  it('measures nDCG@10, recall and answer-in-context on a BEIR-layout folder', async () => {
    const dataset = writeDataset();
    const table = await cli('eval', dataset, '--quiet');
    expect(table.code).toBe(EXIT.ok);
    expect(table.out).toMatch(/nDCG@10\s+1\.0000/);
    expect(table.out).toMatch(/answer-in-context@300 chars\s+75\.0% of 4/);
    const json = await cli('eval', dataset, '--format', 'json', '--budgets', '200,1000');
    const report = JSON.parse(json.out);
    expect(report).toMatchObject({ dataset: 'mini', documents: 4, queries: 4, retrieval: { queries: 4, ndcgAt10: 1, recallAt10: 1 } });
    // q4's gold answer ("the Amazon") is in no document: 3 of 4 contexts hold their answer.
    expect(report.answerInContext).toEqual({ unit: 'chars', questions: 4, byBudget: { '200': 0.75, '1000': 0.75 } });
    const split = JSON.parse((await cli('eval', dataset, '--format', 'json', '--split', 'test', '--tokens', 'cl100k')).out);
    expect(split).toMatchObject({ split: 'test', queries: 2, answerInContext: { unit: 'tokens', questions: 2, byBudget: { '300': 1 } } });
    const unknown = await cli('eval', dataset, '--split', 'dev');
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.err).toMatch(/no query of .* is in that split \(splits: test, train\)/);
  });

  it('runs hybrid retrieval with --embedder (a local transformers.js model) and names a missing model', async () => {
    const dataset = writeDataset();
    const models = fileURLToPath(new URL('../../embeddings/src/__fixtures__/', import.meta.url));
    const hybrid = await cli('eval', dataset, '--format', 'json', '--embedder', 'tiny-bert', '--models', models, '--budgets', '1000');
    expect(hybrid.code, hybrid.err).toBe(EXIT.ok);
    const report = JSON.parse(hybrid.out);
    expect(report.retrieval.queries).toBe(4);
    expect(report.retrieval.recallAt100).toBe(1);
    const missing = await cli('eval', dataset, '--embedder', 'no-such-model', '--models', models, '--quiet');
    expect(missing.code).toBe(EXIT.failure);
    expect(missing.err).toMatch(/model no-such-model could not be loaded: offline .*point localModelPath at a folder/);
  });

  const datasets = locateDatasets(import.meta.dirname);
  const arcd = datasets ? join(datasets, 'arcd') : undefined;
  it.skipIf(!arcd)('runs on ARCD (Arabic) with its answers and its test split', async () => {
    const { code, out } = await cli('eval', arcd!, '--split', 'test', '--limit', '60', '--budgets', '500,2000', '--format', 'json');
    expect(code).toBe(EXIT.ok);
    const report = JSON.parse(out);
    expect(report.queries).toBe(60);
    expect(report.retrieval.ndcgAt10).toBeGreaterThan(0.6);
    expect(report.answerInContext.questions).toBe(60);
    expect(report.answerInContext.byBudget['2000']).toBeGreaterThanOrEqual(report.answerInContext.byBudget['500']);
    expect(report.answerInContext.byBudget['2000']).toBeGreaterThan(0.6);
  });
  if (!arcd) console.warn('skipping zerda eval on ARCD: no datasets folder (../shared/datasets or $ZERDA_DATASETS)');
});
