import { createError, type DocumentChunk, type VectorMetric } from '@zerda/types';
import type { StoreFileHeader } from './memory-file.js';

// What `#store-file` resolves to outside Node-like runtimes (the `default` condition of the
// package's `imports`): the same functions, failing clearly instead of reaching for `node:fs`.

function unsupported(operation: string): never {
  throw createError('ZERDA_UNSUPPORTED', {
    operation,
    component: '@zerda/vector-memory in this runtime',
    reason: 'files need node:fs (Node.js, Bun, Deno); use store.toJSON() and MemoryVectorStore.fromJSON() here',
  });
}

/** Unavailable here: see `memory-file.ts` for the Node implementation. */
export async function writeStoreFile(
  _path: string,
  _header: { metric: VectorMetric; dimensions: number | undefined; count: number },
  _vectorSegments: Float32Array[],
  _chunks: DocumentChunk[],
): Promise<void> {
  unsupported('MemoryVectorStore.save(path)');
}

/** Unavailable here: see `memory-file.ts` for the Node implementation. */
export async function readStoreFile(_path: string): Promise<{ header: StoreFileHeader; vectors: Float32Array; chunks: DocumentChunk[] }> {
  unsupported('MemoryVectorStore.load(path)');
}
