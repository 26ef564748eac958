/**
 * The page's script: indexes pasted documents with a ContextEngine (BM25 and metadata, in memory,
 * in this page) and shows the context of a query with its citations and the engine's explanation.
 * Bundled for the browser by scripts/build-site.mjs; token rank tables load only when chosen.
 */
import { ArabicTextChunker } from '@zerda/chunks';
import { ContextEngine, ZerdaError, charCounter, explainResult, tokenCounter, type DocumentChunk, type LengthCounter } from '@zerda/context';
import { SAMPLE_TEXT, splitDocuments } from './documents.js';

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as T;
}

const documentsInput = element<HTMLTextAreaElement>('documents');
const budgetInput = element<HTMLInputElement>('budget');
const counterSelect = element<HTMLSelectElement>('counter');
const status = element<HTMLParagraphElement>('status');
const queryForm = element<HTMLFormElement>('query-form');
const queryInput = element<HTMLInputElement>('query');
const languageSelect = element<HTMLSelectElement>('language');
const runButton = element<HTMLButtonElement>('run');
const contextOutput = element<HTMLPreElement>('context');
const chunksOutput = element<HTMLOListElement>('chunks');
const explainOutput = element<HTMLPreElement>('explain');
const budgetUsed = element<HTMLSpanElement>('budget-used');

let engine: ContextEngine | undefined;

function report(message: string, isError = false): void {
  status.textContent = message;
  status.classList.toggle('error', isError);
  status.setAttribute('role', isError ? 'alert' : 'status');
}

function describe(error: unknown): string {
  return ZerdaError.isInstance(error) || error instanceof Error ? error.message : String(error);
}

function counterFor(name: string): LengthCounter {
  return name === 'cl100k_base' || name === 'o200k_base' ? tokenCounter(name) : charCounter;
}

async function indexPasted(): Promise<void> {
  const documents = splitDocuments(documentsInput.value);
  if (documents.length === 0) {
    report('Paste some text first.', true);
    return;
  }
  const budget = Number(budgetInput.value);
  const chunker = new ArabicTextChunker({ size: 500, overlap: 50 });
  const chunks: DocumentChunk[] = documents.flatMap((document) =>
    chunker.chunk(document.text, { docId: document.docId, source: document.source, metadata: document.metadata, ...(document.title ? { title: document.title } : {}) }),
  );
  const next = new ContextEngine({ lengthCounter: counterFor(counterSelect.value), config: { composer: { maxContextLength: budget, template: 'citations' } } });
  await next.index(chunks);
  engine = next;
  for (const control of [queryInput, languageSelect, runButton]) control.disabled = false;
  report(`Indexed ${documents.length} document${documents.length === 1 ? '' : 's'} as ${chunks.length} chunk${chunks.length === 1 ? '' : 's'}.`);
}

async function buildContext(): Promise<void> {
  if (!engine) return;
  const query = queryInput.value.trim() || queryInput.placeholder;
  const language = languageSelect.value;
  const result = await engine.run(query, language ? { metadataFilters: { lang: language } } : {});
  contextOutput.textContent = result.context || '(no passage matched)';
  budgetUsed.textContent = `${result.budget.used} / ${result.budget.limit} ${result.budget.unit}`;
  chunksOutput.replaceChildren(
    ...result.chunks.map((used) => {
      const item = document.createElement('li');
      item.dir = 'auto';
      item.textContent = `${used.chunk.source}${used.chunk.title ? ` — ${used.chunk.title}` : ''} (score ${used.score.toFixed(3)}, ${used.fit})`;
      return item;
    }),
  );
  explainOutput.textContent = explainResult(result);
}

function guarded(action: () => Promise<void>): () => void {
  return () => {
    action().catch((error: unknown) => report(describe(error), true));
  };
}

element<HTMLButtonElement>('sample').addEventListener('click', () => {
  documentsInput.value = SAMPLE_TEXT;
});
element<HTMLButtonElement>('index').addEventListener('click', guarded(indexPasted));
queryForm.addEventListener('submit', (event) => {
  event.preventDefault();
  guarded(buildContext)();
});
document.documentElement.dataset.ready = 'true';
