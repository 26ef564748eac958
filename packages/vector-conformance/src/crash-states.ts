import { createHash } from 'node:crypto';
import type { DocumentChunk, VectorStore } from '@zerda/types';
import { seededRandom } from './structured-data.js';

/**
 * The states of the vector stores' crash suites (`@zerda/persistence/testing`): five stores — `a`
 * (the start), `b` and `c` (what the killed child saves), `r0` and `r1` (the saves after a kill) —
 * whose every chunk id, text and vector is their own, so that a mix of two states can never pass
 * for either; and a fingerprint of what a store holds and answers. Node only, no test runner needed
 * (the child processes of the suites use it too).
 */
export const CRASH_STATE_LABELS = ['a', 'b', 'c', 'r0', 'r1'] as const;
const SIZES: Record<string, number> = { a: 1500, b: 2000, c: 1200, r0: 1600, r1: 1700 };

function seedOf(label: string): number {
  let hash = 0x811c9dc5;
  for (const character of label) hash = Math.imul(hash ^ character.charCodeAt(0), 0x01000193);
  return hash >>> 0;
}

function idsOf(label: string, scale: number): string[] {
  return Array.from({ length: Math.round((SIZES[label] ?? 1000) * scale) }, (_, index) => `${label}-${index}`);
}

/** Options of the crash states: vector dimension (default 32) and a scale of the chunk counts (default 1). */
export interface CrashStateOptions {
  dimensions?: number;
  scale?: number;
}

/** Fills `store` with state `label`: its chunks (Arabic and English text, metadata), then a few deletions. */
export async function fillCrashState<S extends VectorStore>(store: S, label: string, options: CrashStateOptions = {}): Promise<S> {
  const dimensions = options.dimensions ?? 32;
  const random = seededRandom(seedOf(label));
  const ids = idsOf(label, options.scale ?? 1);
  const chunks: DocumentChunk[] = ids.map((id, index) => ({
    id,
    docId: `doc-${index % 50}`,
    text: `${label} ${index} ${index % 2 ? 'نص عربي' : 'English text'}`,
    source: `source-${index % 7}`,
    metadata: { bucket: index % 5, label },
    position: { index: Math.floor(index / 50) },
    embedding: Float32Array.from({ length: dimensions }, () => random() - 0.5),
  }));
  await store.add(chunks);
  // Deleted slots and swapped rows are part of what must survive.
  await store.delete(ids.filter((_, index) => index % 17 === 0));
  return store;
}

/**
 * A fingerprint of a store: its count, a sample of every state's chunks (ids are per state: a mix
 * shows chunks of two), with their vectors, and the answers to three queries.
 */
export async function crashStateFingerprint(store: VectorStore, options: CrashStateOptions = {}): Promise<string> {
  const dimensions = options.dimensions ?? 32;
  const hash = createHash('sha256');
  hash.update(String(await store.count()));
  const sample = CRASH_STATE_LABELS.flatMap((label) => idsOf(label, options.scale ?? 1).filter((_, index) => index % 23 === 1));
  const chunks = store.get ? await store.get(sample) : [];
  for (const chunk of chunks) {
    const { embedding, ...rest } = chunk;
    hash.update(JSON.stringify(rest));
    hash.update(Float32Array.from(embedding ?? []).join(','));
  }
  const random = seededRandom(7);
  for (let query = 0; query < 3; query++) {
    const vector = Float32Array.from({ length: dimensions }, () => random() - 0.5);
    for (const hit of await store.search(vector, { k: 5 })) hash.update(`${hit.chunk.id}:${hit.score.toFixed(6)}`);
  }
  return hash.digest('hex');
}
