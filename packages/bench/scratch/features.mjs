// Builds sentence-level feature rows from what the composer sees (scratch).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDataset } from '../dist/index.js';
import { ContextEngine, SmartContextComposer } from '@zerda/context';
import { normalizeForAnswerMatch } from '@zerda/retriever';
import { defaultAnalyzer, splitSentences, normalizeText, words } from '@zerda/text';

export function loadQa(name) {
  const dir = join('/work/shared/datasets', name);
  const dataset = loadDataset(dir);
  const answers = new Map();
  const splitOf = new Map();
  for (const line of readFileSync(join(dir, 'answers.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const row = JSON.parse(line);
    answers.set(row.id, row.answers);
    if (row.split) splitOf.set(row.id, row.split);
  }
  try {
    for (const line of readFileSync(join(dir, 'query-split.tsv'), 'utf8').split('\n').slice(1)) {
      const [id, s] = line.split('\t');
      if (id) splitOf.set(id, s.trim() === 'test' ? 'dev' : s.trim());
    }
  } catch {}
  const chunks = dataset.documents.map((d) => ({ id: d.id, docId: d.id, text: d.text, source: d.id, metadata: {}, position: { index: 0, total: 1 }, ...(d.title ? { title: d.title } : {}) }));
  return { dataset, answers, splitOf, chunks };
}

/** Runs the engine up to composition and captures what the composer receives. */
export async function captureCandidates(name, queries, chunks, config = {}) {
  const captured = new Map();
  let current;
  const inner = new SmartContextComposer();
  const composer = {
    compose(ranked, options) {
      captured.set(current, { ranked, analysis: options.analysis });
      return inner.compose(ranked, options);
    },
    truncate: (...a) => inner.truncate(...a),
    getStats: (...a) => inner.getStats(...a),
  };
  const engine = new ContextEngine({ composer, config: { cache: { enabled: false }, multiTurn: { enabled: false }, adaptive: { enabled: false }, ...config } });
  await engine.index(chunks);
  for (const q of queries) {
    current = q.id;
    await engine.run(q.text, { overrideBudget: 100000, useHistory: false, recordTurn: false });
  }
  return captured;
}
