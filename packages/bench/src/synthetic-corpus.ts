import { splitSentences } from '@zerda/text';
import type { DocumentChunk } from '@zerda/types';
import type { DatasetDocument } from '@zerda/retriever/datasets';
import { SeededRandom } from './random.js';

/** Chunks of one synthetic document (`docId` groups them, as a chunker would). */
const CHUNKS_PER_DOCUMENT = 4;

/** The sentence pool a synthetic corpus is drawn from. */
export interface SentencePool {
  sentences: string[];
  titles: string[];
}

/** Every distinct sentence of 20–400 characters of the given documents, and their titles. */
export function sentencePool(documents: readonly DatasetDocument[]): SentencePool {
  const sentences = new Set<string>();
  const titles: string[] = [];
  for (const document of documents) {
    if (document.title) titles.push(document.title);
    for (const sentence of splitSentences(document.text)) if (sentence.text.length >= 20 && sentence.text.length <= 400) sentences.add(sentence.text);
  }
  return { sentences: [...sentences], titles };
}

/**
 * Chunk `index` of the synthetic corpus: 2–5 sentences drawn from the pool and a title, from a
 * PRNG seeded by (`seed`, `index`) alone — so chunk i is the same whatever the corpus size, and
 * the 10k corpus is the first tenth of the 100k one.
 */
export function syntheticChunk(pool: SentencePool, seed: number, index: number): DocumentChunk {
  const random = new SeededRandom((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  const count = random.integer(2, 5);
  const parts: string[] = [];
  for (let sentence = 0; sentence < count; sentence++) parts.push(random.pick(pool.sentences));
  const documentIndex = Math.floor(index / CHUNKS_PER_DOCUMENT);
  const chunk: DocumentChunk = {
    id: `syn-${index}`,
    docId: `syn-doc-${documentIndex}`,
    text: parts.join(' '),
    source: `synthetic/${documentIndex}`,
    metadata: {},
    position: { index: index % CHUNKS_PER_DOCUMENT },
  };
  if (pool.titles.length > 0) chunk.title = random.pick(pool.titles);
  return chunk;
}

/** The first `size` chunks of the synthetic corpus. */
export function syntheticCorpus(pool: SentencePool, seed: number, size: number): DocumentChunk[] {
  const chunks: DocumentChunk[] = new Array<DocumentChunk>(size);
  for (let index = 0; index < size; index++) chunks[index] = syntheticChunk(pool, seed, index);
  return chunks;
}
