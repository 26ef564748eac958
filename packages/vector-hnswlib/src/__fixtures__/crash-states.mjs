// States of the HNSW store's crash suite and a fingerprint (chunks, vectors and graph answers)
// that a mix of two states cannot match.
import { createHash } from 'node:crypto';
import { HnswVectorStore } from '@zerda/vector-hnswlib';

const SIZES = { a: 1500, b: 2000, c: 1200, r0: 1600, r1: 1700 };
const DIMENSIONS = 32;

function random(label) {
  let state = [...label].reduce((hash, character) => Math.imul(hash ^ character.charCodeAt(0), 0x01000193), 0x811c9dc5) >>> 0;
  return () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296) - 0.5;
}

export function idsOf(label) {
  return Array.from({ length: SIZES[label] }, (_, index) => `${label}-${index}`);
}

export async function storeOf(label) {
  const next = random(label);
  const store = new HnswVectorStore({ dimensions: DIMENSIONS, M: 8, efConstruction: 40 });
  await store.add(idsOf(label).map((id, index) => ({ id, docId: `doc-${index % 50}`, text: `${label} ${index} نص`, source: 's', metadata: { bucket: index % 5 }, position: { index: 0 }, embedding: Float32Array.from({ length: DIMENSIONS }, next) })));
  // Some deleted slots, so that labels and the graph's deleted marks are part of the state.
  await store.delete(idsOf(label).filter((_, index) => index % 17 === 0));
  return store;
}

const queries = [0, 1, 2].map((seed) => Float32Array.from({ length: DIMENSIONS }, random(`q${seed}`)));

export async function fingerprint(store) {
  const hash = createHash('sha256');
  hash.update(String(await store.count()));
  const ids = Object.keys(SIZES).flatMap(idsOf);
  for (const chunk of await store.get(ids)) {
    const { embedding, ...rest } = chunk;
    hash.update(JSON.stringify(rest));
    hash.update(new Uint8Array(embedding.buffer, embedding.byteOffset, embedding.byteLength));
  }
  for (const query of queries) for (const hit of await store.search(query, { k: 5 })) hash.update(`${hit.chunk.id}:${hit.score}`);
  return hash.digest('hex');
}
