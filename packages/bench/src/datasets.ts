import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadBeirDataset, locateDatasets, type BeirDataset, type DatasetDocument, type DatasetQuery } from '@zerda/retriever/datasets';
import { detectLanguage, fnv1a } from '@zerda/text';
import { SeededRandom } from './random.js';

/** A dataset ready for benchmarking: its documents, judged queries, judgements and language. */
export interface BenchDataset {
  name: string;
  /** `'ar'`, `'en'` or `'mixed'`, detected from the corpus text. */
  language: string;
  documents: DatasetDocument[];
  queries: DatasetQuery[];
  qrels: Map<string, Map<string, number>>;
  /** Size of the full dataset before slicing. */
  full: { documents: number; queries: number };
  /** Gold answer strings per kept query, when the folder has `answers.jsonl`. */
  answers?: Map<string, string[]>;
  /** Split per kept query (`train`, `dev`, `test`), when the folder records one. */
  splits?: Map<string, string>;
}

/** How much of a dataset to use (the quick variant and the smoke test take slices). */
export interface SliceOptions {
  /** At most this many documents (every judged document of the kept queries is kept first). */
  maxDocuments?: number;
  /** At most this many queries, chosen by a seeded shuffle. */
  maxQueries?: number;
  seed?: number;
}

/** The datasets folder: `$ZERDA_DATASETS`, else `shared/datasets` beside the repository. */
export function datasetsDirectory(from: string = process.cwd()): string | undefined {
  return locateDatasets(from);
}

/** Folders under `directory` in the BEIR layout (corpus.jsonl[.gz], queries.jsonl, qrels.tsv), sorted by name. */
export function listDatasets(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((name) => {
      const folder = join(directory, name);
      if (!statSync(folder).isDirectory()) return false;
      const corpus = existsSync(join(folder, 'corpus.jsonl')) || existsSync(join(folder, 'corpus.jsonl.gz'));
      return corpus && existsSync(join(folder, 'queries.jsonl')) && existsSync(join(folder, 'qrels.tsv'));
    })
    .sort();
}

function corpusLanguage(documents: readonly DatasetDocument[]): string {
  const sample = documents
    .slice(0, 50)
    .map((document) => `${document.title} ${document.text}`)
    .join(' ');
  return detectLanguage(sample);
}

/**
 * Loads one dataset folder and, when asked, keeps a deterministic slice: a seeded choice of
 * queries, every document judged relevant for them, then a seeded choice of the other documents.
 * Judgements are restricted to the kept queries and documents. Results are shared within a process:
 * treat them as read-only.
 */
export function loadDataset(directory: string, slice: SliceOptions = {}): BenchDataset {
  const key = JSON.stringify([resolve(directory), slice.maxDocuments, slice.maxQueries, slice.seed]);
  let dataset = loaded.get(key);
  if (!dataset) {
    dataset = sliceDataset(readDataset(directory), slice);
    loaded.set(key, dataset);
  }
  return dataset;
}

/**
 * `name` is a dataset folder under `directory`, or several joined by `+` (`arcd+tydiqa-goldp-en`): the
 * union of those datasets as one corpus ({@link mergeDatasets}).
 */
export function loadNamedDataset(directory: string, name: string, slice: SliceOptions = {}): BenchDataset {
  const parts = name.split('+');
  if (parts.length === 1) return loadDataset(join(directory, name), slice);
  const key = JSON.stringify([resolve(directory), name, slice.maxDocuments, slice.maxQueries, slice.seed]);
  let dataset = loaded.get(key);
  if (!dataset) {
    dataset = mergeDatasets(parts.map((part) => loadDataset(join(directory, part), slice)));
    loaded.set(key, dataset);
  }
  return dataset;
}

/** Whether {@link loadNamedDataset} can load `name`: every `+`-joined part is a dataset folder of `directory`. */
export function isDatasetName(directory: string, name: string): boolean {
  const known = new Set(listDatasets(directory));
  const parts = name.split('+');
  return parts.every((part) => known.has(part)) && new Set(parts).size === parts.length;
}

/**
 * Several datasets as one corpus: every document, question, judgement, answer and split of each,
 * ids prefixed with the dataset's name (`arcd:…`) so that none collide. Named after its parts
 * (`arcd+tydiqa-goldp-en`); its language is `mixed` when the parts' languages differ. A mixed-language
 * corpus is what a user serving Arabic and English documents from one index has: each question
 * competes with passages of both languages.
 */
export function mergeDatasets(parts: readonly BenchDataset[]): BenchDataset {
  const id = (part: BenchDataset, value: string) => `${part.name}:${value}`;
  const qrels = new Map<string, Map<string, number>>();
  const answers = new Map<string, string[]>();
  const splits = new Map<string, string>();
  for (const part of parts) {
    for (const [query, judgements] of part.qrels) qrels.set(id(part, query), new Map([...judgements].map(([document, grade]) => [id(part, document), grade])));
    for (const [query, texts] of part.answers ?? []) answers.set(id(part, query), texts);
    for (const [query, split] of part.splits ?? []) splits.set(id(part, query), split);
  }
  const languages = new Set(parts.map((part) => part.language));
  const merged: BenchDataset = {
    name: parts.map((part) => part.name).join('+'),
    language: languages.size === 1 ? [...languages][0]! : 'mixed',
    documents: parts.flatMap((part) => part.documents.map((document) => ({ ...document, id: id(part, document.id) }))),
    queries: parts.flatMap((part) => part.queries.map((query) => ({ ...query, id: id(part, query.id) }))),
    qrels,
    full: { documents: parts.reduce((sum, part) => sum + part.full.documents, 0), queries: parts.reduce((sum, part) => sum + part.full.queries, 0) },
  };
  if (answers.size > 0) merged.answers = answers;
  if (splits.size > 0) merged.splits = splits;
  return merged;
}

/** The questions of each part of a merged dataset ({@link mergeDatasets}) among `queries`, by part name; empty for a single dataset. */
export function partSlices(dataset: BenchDataset, queries: BenchDataset['queries']): Map<string, BenchDataset['queries']> {
  const slices = new Map<string, BenchDataset['queries']>();
  if (!dataset.name.includes('+')) return slices;
  for (const part of dataset.name.split('+')) slices.set(part, queries.filter((query) => query.id.startsWith(`${part}:`)));
  return slices;
}

/** Parsed datasets and slices, kept per process: jobs that run in one process (tests, --no-isolate) parse each file once. */
const parsed = new Map<string, BeirDataset>();
const loaded = new Map<string, BenchDataset>();

function readDataset(directory: string): BeirDataset {
  const path = resolve(directory);
  let dataset = parsed.get(path);
  if (!dataset) {
    dataset = loadBeirDataset(path);
    parsed.set(path, dataset);
  }
  return dataset;
}

function sliceDataset(dataset: BeirDataset, slice: SliceOptions): BenchDataset {
  const full = { documents: dataset.corpus.length, queries: dataset.queries.length };
  const random = new SeededRandom(slice.seed ?? fnv1a(dataset.name));
  let queries = dataset.queries;
  if (slice.maxQueries !== undefined && slice.maxQueries < queries.length) {
    const kept = new Set(random.shuffle(queries.map((query) => query.id)).slice(0, slice.maxQueries));
    queries = queries.filter((query) => kept.has(query.id));
  }
  let documents = dataset.corpus;
  if (slice.maxDocuments !== undefined && slice.maxDocuments < documents.length) {
    const judged = new Set<string>();
    for (const query of queries) for (const [id, grade] of dataset.qrels.get(query.id) ?? []) if (grade > 0) judged.add(id);
    const others = random.shuffle(documents.filter((document) => !judged.has(document.id)).map((document) => document.id));
    const kept = new Set([...judged, ...others.slice(0, Math.max(0, slice.maxDocuments - judged.size))]);
    documents = documents.filter((document) => kept.has(document.id));
  }
  const documentIds = new Set(documents.map((document) => document.id));
  const queryIds = new Set(queries.map((query) => query.id));
  const qrels = new Map<string, Map<string, number>>();
  for (const [queryId, judgements] of dataset.qrels) {
    if (!queryIds.has(queryId)) continue;
    const kept = new Map([...judgements].filter(([id, grade]) => grade > 0 && documentIds.has(id)));
    if (kept.size > 0) qrels.set(queryId, kept);
  }
  queries = queries.filter((query) => qrels.has(query.id));
  const sliced: BenchDataset = { name: dataset.name, language: corpusLanguage(documents), documents, queries, qrels, full };
  const keptIds = new Set(queries.map((query) => query.id));
  if (dataset.answers) sliced.answers = new Map([...dataset.answers].filter(([id]) => keptIds.has(id)));
  if (dataset.splits) sliced.splits = new Map([...dataset.splits].filter(([id]) => keptIds.has(id)));
  return sliced;
}
