import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { invalidArgument } from '@zerda/types';
import { parseQrels } from './evaluation.js';

/**
 * Node-only loaders for BEIR-layout evaluation datasets (`corpus.jsonl[.gz]`, `queries.jsonl`,
 * `qrels.tsv`), published as `@zerda/retriever/datasets` so the main entry stays browser-safe.
 */

/** One corpus document. */
export interface DatasetDocument {
  id: string;
  title: string;
  text: string;
}

/** One query. */
export interface DatasetQuery {
  id: string;
  text: string;
}

/** A loaded dataset. */
export interface BeirDataset {
  name: string;
  corpus: DatasetDocument[];
  queries: DatasetQuery[];
  qrels: Map<string, Map<string, number>>;
  /** Gold answer strings per query id, from `answers.jsonl` (QA-derived sets), when present. */
  answers?: Map<string, string[]>;
  /**
   * The split of each query id (`train`, `dev`, `test` …), from the `split` field of `answers.jsonl`
   * or from `query-split.tsv` (query-id, split), when present: tune on `train`, report the rest.
   */
  splits?: Map<string, string>;
}

/**
 * The datasets folder: `$ZERDA_DATASETS` when set, otherwise the first `shared/datasets` found next
 * to `from` or one of its ancestors (the repository sits beside `shared/`). Undefined when absent.
 */
export function locateDatasets(from: string = process.cwd()): string | undefined {
  const fromEnvironment = process.env.ZERDA_DATASETS;
  if (fromEnvironment) return existsSync(fromEnvironment) ? resolve(fromEnvironment) : undefined;
  let directory = resolve(from);
  for (;;) {
    const candidate = join(directory, 'shared', 'datasets');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
}

function readText(path: string): string {
  const bytes = readFileSync(path);
  return path.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
}

function readJsonLines(path: string): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  readText(path)
    .split('\n')
    .forEach((line, index) => {
      if (line.trim() === '') return;
      try {
        rows.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        throw invalidArgument(`${path} line ${index + 1}`, 'a JSON object', line);
      }
    });
  return rows;
}

/**
 * Loads a BEIR-layout dataset from `directory` (`corpus.jsonl` or `corpus.jsonl.gz`, `queries.jsonl`,
 * `qrels.tsv` or the file named by `options.qrels`). Accepts `id` or `_id` as the id field.
 * Only queries that have judgements are returned, in file order. When the folder has `answers.jsonl`
 * (`{ "id", "answers": [...], "split"? }` per query) and/or `query-split.tsv`, the answers and splits
 * come with it.
 */
export function loadBeirDataset(directory: string, options: { qrels?: string } = {}): BeirDataset {
  const corpusPath = existsSync(join(directory, 'corpus.jsonl')) ? join(directory, 'corpus.jsonl') : join(directory, 'corpus.jsonl.gz');
  if (!existsSync(corpusPath)) throw invalidArgument('directory', 'a folder with corpus.jsonl or corpus.jsonl.gz', directory);
  const idOf = (row: Record<string, unknown>): string => String(row.id ?? row._id);
  const corpus = readJsonLines(corpusPath).map((row) => ({ id: idOf(row), title: typeof row.title === 'string' ? row.title : '', text: typeof row.text === 'string' ? row.text : '' }));
  const qrels = parseQrels(readText(join(directory, options.qrels ?? 'qrels.tsv')));
  const queries = readJsonLines(join(directory, 'queries.jsonl'))
    .map((row) => ({ id: idOf(row), text: typeof row.text === 'string' ? row.text : '' }))
    .filter((query) => qrels.has(query.id));
  const name = directory.split(/[\\/]/).filter(Boolean).pop() ?? directory;
  const dataset: BeirDataset = { name, corpus, queries, qrels };
  const answersPath = join(directory, 'answers.jsonl');
  const splits = new Map<string, string>();
  if (existsSync(answersPath)) {
    const answers = new Map<string, string[]>();
    for (const row of readJsonLines(answersPath)) {
      const list = Array.isArray(row.answers) ? row.answers.filter((answer): answer is string => typeof answer === 'string') : [];
      answers.set(idOf(row), list);
      if (typeof row.split === 'string') splits.set(idOf(row), row.split);
    }
    dataset.answers = answers;
  }
  const splitPath = join(directory, 'query-split.tsv');
  if (existsSync(splitPath)) {
    readText(splitPath)
      .split(/\r?\n/)
      .forEach((line, index) => {
        const [id, split] = line.split('\t');
        if (index === 0 && id === 'query-id') return;
        if (id && split?.trim()) splits.set(id, split.trim());
      });
  }
  if (splits.size > 0) dataset.splits = splits;
  return dataset;
}
