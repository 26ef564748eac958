// States of the memory store's crash suite: stores that differ in every chunk and every vector,
// and a fingerprint that a mix of two states cannot match.
import { createHash } from 'node:crypto';
import { MemoryVectorStore } from '@zerda/vector-memory';

const SIZES = { a: 2500, b: 3000, c: 2000, r0: 2600, r1: 2700 };

export function chunksOf(label) {
  const count = SIZES[label];
  let state = [...label].reduce((hash, character) => Math.imul(hash ^ character.charCodeAt(0), 0x01000193), 0x811c9dc5) >>> 0;
  const next = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296) - 0.5;
  return Array.from({ length: count }, (_, index) => ({
    id: `${label}-${index}`,
    docId: `doc-${index % 97}`,
    text: `${label} chunk ${index}: ${index % 2 ? 'نص عربي قصير' : 'a short English text'} ${'x'.repeat(index % 50)}`,
    source: `source-${index % 13}`,
    metadata: { label, bucket: index % 7 },
    position: { index: Math.floor(index / 97) },
    embedding: Float32Array.from({ length: 64 }, next),
  }));
}

export async function storeOf(label) {
  const store = new MemoryVectorStore({ metric: 'cosine' });
  await store.add(chunksOf(label));
  return store;
}

/** A fingerprint of everything a store holds (chunks in id order with their vectors). */
export async function fingerprint(store) {
  const hash = createHash('sha256');
  const entries = [...store.entries()].sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const chunk of entries) {
    const { embedding, ...rest } = chunk;
    hash.update(JSON.stringify(rest));
    hash.update(new Uint8Array(embedding.buffer, embedding.byteOffset, embedding.byteLength));
  }
  return `${entries.length}:${hash.digest('hex')}`;
}
