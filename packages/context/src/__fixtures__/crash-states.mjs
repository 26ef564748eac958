// States of the engine snapshot's crash suite: engines over different corpora — keyword + in-memory
// vectors, and keyword + HNSW — and a fingerprint of their answers that no mix of two states matches.
import { createHash } from 'node:crypto';
import { ContextEngine } from '@zerda/context';
import { HnswVectorStore } from '@zerda/vector-hnswlib';

const WORDS = ['retrieval', 'generation', 'vector', 'search', 'model', 'document', 'garden', 'roses', 'المكتبة', 'الكتب', 'الاسترجاع', 'التوليد', 'البحث', 'النموذج', 'مياه', 'نهر'];
export const QUERIES = ['retrieval generation', 'المكتبة والكتب', 'vector البحث', 'garden roses model', 'مياه نهر document'];
/** Labels whose vectors live in an HNSW store. */
const HNSW = new Set(['c', 'r1']);
const SIZES = { a: 400, b: 500, c: 450, r0: 420, r1: 480 };

/** A deterministic embedder: words hashed into buckets. */
export class HashEmbedder {
  specificationVersion = 'v1';
  modelId = 'hash-test';
  dimensions = 24;
  async embed(texts) {
    return texts.map((text) => {
      const vector = new Float32Array(this.dimensions);
      for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)) {
        let hash = 0x811c9dc5;
        for (let index = 0; index < word.length; index++) hash = Math.imul(hash ^ word.charCodeAt(index), 0x01000193);
        vector[(hash >>> 0) % this.dimensions] += 1;
      }
      vector[0] += 0.01;
      return vector;
    });
  }
}

function chunksOf(label) {
  let state = [...label].reduce((hash, character) => Math.imul(hash ^ character.charCodeAt(0), 0x01000193), 0x811c9dc5) >>> 0;
  const next = (n) => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) % n;
  return Array.from({ length: SIZES[label] }, (_, index) => {
    const words = Array.from({ length: 8 + next(30) }, () => WORDS[next(WORDS.length)]);
    return { id: `${label}-${index}`, docId: `${label}-doc${index % 40}`, text: `${label} ${words.join(' ')}`, metadata: { lang: /[\u0600-\u06ff]/.test(words[0]) ? 'ar' : 'en' } };
  });
}

export async function engineOf(label) {
  const engine = new ContextEngine({ embedder: new HashEmbedder() });
  await engine.index(chunksOf(label), HNSW.has(label) ? { vectorDb: new HnswVectorStore({ M: 8, efConstruction: 50 }) } : {});
  return engine;
}

/** Opens an engine snapshot whichever vector store it holds (the error names the store it needs). */
export async function openEngine(directory) {
  try {
    return await ContextEngine.open(directory, { embedder: new HashEmbedder() });
  } catch (error) {
    if (error?.details?.field !== 'options.vectorDb') throw error;
    return ContextEngine.open(directory, { embedder: new HashEmbedder(), vectorDb: new HnswVectorStore() });
  }
}

export async function fingerprint(engine) {
  const hash = createHash('sha256');
  hash.update(`${engine.size}`);
  for (const query of QUERIES) {
    const result = await engine.run(query, { useHistory: false, recordTurn: false, overrideBudget: 1500 });
    hash.update(result.context);
    hash.update(result.chunks.map((used) => used.chunk.id).join(','));
  }
  return hash.digest('hex');
}
