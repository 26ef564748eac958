import { Analyzer } from '@zerda/text';
import { toDocumentChunks } from '@zerda/types';
import { loadBeirDataset } from '@zerda/retriever/datasets';
import { Bm25Index } from '../dist/bm25-index.js';
const d = loadBeirDataset('/work/shared/datasets/beir-scifact');
const chunks = d.corpus.map((document) => ({ id: document.id, docId: document.id, text: document.text, title: document.title }));
let t = performance.now();
const v = toDocumentChunks(chunks);
console.log('validate', performance.now() - t);
const a = new Analyzer();
t = performance.now();
const entries = v.map(c => ({ chunk: c, textTerms: a.analyze(c.text), titleTerms: a.analyze(c.title) }));
console.log('analyze', performance.now() - t);
t = performance.now();
const idx = new Bm25Index();
idx.rebuild(entries);
console.log('rebuild', performance.now() - t, idx.stats());
t = performance.now();
const idx2 = new Bm25Index();
idx2.add(entries);
console.log('add', performance.now() - t, idx2.stats());
for (let i = 0; i < 4; i++) { t = performance.now(); new Bm25Index().rebuild(entries); console.log('rebuild again', performance.now() - t); }
const m = new Map(); t = performance.now(); let c = 0;
for (const e of entries) for (const term of e.textTerms) { const v = m.get(term); if (v === undefined) m.set(term, c++); }
console.log('plain map pass', performance.now() - t);
