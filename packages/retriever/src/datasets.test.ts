import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadBeirDataset } from './datasets.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function dataset(files: Record<string, string>): string {
  const folder = mkdtempSync(join(tmpdir(), 'zerda-beir-'));
  folders.push(folder);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(folder, name), content);
  return folder;
}

const base = {
  'corpus.jsonl': '{"id":"d1","title":"النيل","text":"يبلغ طول نهر النيل ٦٦٥٠ كم."}\n{"_id":"d2","title":"Nile","text":"The Nile is 6,650 km long."}\n',
  'queries.jsonl': '{"id":"q1","text":"ما طول نهر النيل؟"}\n{"id":"q2","text":"How long is the Nile?"}\n{"id":"q3","text":"unjudged"}\n',
  'qrels.tsv': 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n',
};

describe('loadBeirDataset', () => {
  it('loads corpus, judged queries and qrels; no answers or splits when the files are absent', () => {
    const loaded = loadBeirDataset(dataset(base));
    expect(loaded.corpus.map((document) => document.id)).toEqual(['d1', 'd2']);
    expect(loaded.queries.map((query) => query.id)).toEqual(['q1', 'q2']);
    expect(loaded.answers).toBeUndefined();
    expect(loaded.splits).toBeUndefined();
  });

  it('reads answers.jsonl with its split field (TyDi layout)', () => {
    const loaded = loadBeirDataset(dataset({ ...base, 'answers.jsonl': '{"id":"q1","answers":["٦٦٥٠ كم"],"split":"train"}\n{"id":"q2","answers":["6,650 km","6650 km"],"split":"dev"}\n' }));
    expect(loaded.answers?.get('q1')).toEqual(['٦٦٥٠ كم']);
    expect(loaded.answers?.get('q2')).toEqual(['6,650 km', '6650 km']);
    expect(Object.fromEntries(loaded.splits ?? [])).toEqual({ q1: 'train', q2: 'dev' });
  });

  it('reads query-split.tsv (ARCD layout) next to answers without a split field', () => {
    const loaded = loadBeirDataset(dataset({ ...base, 'answers.jsonl': '{"id":"q1","answers":["٦٦٥٠ كم"]}\n', 'query-split.tsv': 'query-id\tsoqal-split\nq1\ttrain\nq2\ttest\n' }));
    expect(loaded.answers?.get('q1')).toEqual(['٦٦٥٠ كم']);
    expect(Object.fromEntries(loaded.splits ?? [])).toEqual({ q1: 'train', q2: 'test' });
  });

  it('refuses a malformed answers line naming the file and line', () => {
    expect(() => loadBeirDataset(dataset({ ...base, 'answers.jsonl': '{"id":"q1","answers":[]}\nnot json\n' }))).toThrow(/answers\.jsonl line 2/);
  });
});
