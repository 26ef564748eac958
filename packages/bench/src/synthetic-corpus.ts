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

/** Which pool sentences (in order) and which title make up chunk `index`. */
export interface ChunkRecipe {
  sentences: number[];
  /** Index into the pool's titles, or -1 when the pool has none. */
  title: number;
}

/**
 * The recipe of chunk `index`: 2–5 sentences and a title, from a PRNG seeded by (`seed`, `index`)
 * alone — so chunk i is the same whatever the corpus size, and the 10k corpus is the first tenth
 * of the 100k one.
 */
export function chunkRecipe(pool: SentencePool, seed: number, index: number): ChunkRecipe {
  const random = new SeededRandom((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  const count = random.integer(2, 5);
  const sentences: number[] = [];
  for (let sentence = 0; sentence < count; sentence++) sentences.push(Math.floor(random.next() * pool.sentences.length));
  const title = pool.titles.length > 0 ? Math.floor(random.next() * pool.titles.length) : -1;
  return { sentences, title };
}

/** Chunk `index` of the synthetic corpus (see {@link chunkRecipe}); four chunks per synthetic document. */
export function syntheticChunk(pool: SentencePool, seed: number, index: number): DocumentChunk {
  const recipe = chunkRecipe(pool, seed, index);
  const documentIndex = Math.floor(index / CHUNKS_PER_DOCUMENT);
  const chunk: DocumentChunk = {
    id: `syn-${index}`,
    docId: `syn-doc-${documentIndex}`,
    text: recipe.sentences.map((sentence) => pool.sentences[sentence] as string).join(' '),
    source: `synthetic/${documentIndex}`,
    metadata: {},
    position: { index: index % CHUNKS_PER_DOCUMENT },
  };
  if (recipe.title >= 0) chunk.title = pool.titles[recipe.title] as string;
  return chunk;
}

/** The first `size` chunks of the synthetic corpus. */
export function syntheticCorpus(pool: SentencePool, seed: number, size: number): DocumentChunk[] {
  const chunks: DocumentChunk[] = new Array<DocumentChunk>(size);
  for (let index = 0; index < size; index++) chunks[index] = syntheticChunk(pool, seed, index);
  return chunks;
}

/** Unit-length embeddings of every pool sentence and title, with their word counts (the weights). */
export interface PoolEmbeddings {
  sentences: readonly Float32Array[];
  titles: readonly Float32Array[];
  sentenceWords: Uint16Array;
  titleWords: Uint16Array;
}

function wordCount(text: string): number {
  return Math.max(1, text.split(/\s+/u).filter(Boolean).length);
}

/** Word counts of the pool's sentences and titles (the weights {@link composeEmbedding} uses). */
export function poolWordCounts(pool: SentencePool): { sentenceWords: Uint16Array; titleWords: Uint16Array } {
  return { sentenceWords: Uint16Array.from(pool.sentences, wordCount), titleWords: Uint16Array.from(pool.titles, wordCount) };
}

/**
 * A chunk's embedding composed from its parts' embeddings: the unit-length, word-count-weighted sum
 * of its title's and sentences' unit embeddings, written into `target`. For a static model (a
 * weighted mean of word vectors) this approximates embedding the whole chunk text, at a tiny
 * fraction of the cost, which is what makes a million-chunk corpus feasible; the scale section
 * reports how close the two are.
 */
export function composeEmbedding(recipe: ChunkRecipe, embeddings: PoolEmbeddings, target: Float32Array): Float32Array {
  target.fill(0);
  const add = (vector: Float32Array | undefined, weight: number): void => {
    if (!vector) return;
    for (let dimension = 0; dimension < target.length; dimension++) target[dimension] = (target[dimension] as number) + weight * (vector[dimension] as number);
  };
  if (recipe.title >= 0) add(embeddings.titles[recipe.title], embeddings.titleWords[recipe.title] ?? 1);
  for (const sentence of recipe.sentences) add(embeddings.sentences[sentence], embeddings.sentenceWords[sentence] ?? 1);
  let norm = 0;
  for (const value of target) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let dimension = 0; dimension < target.length; dimension++) target[dimension] = (target[dimension] as number) / norm;
  return target;
}
