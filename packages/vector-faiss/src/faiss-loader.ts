import { createRequire } from 'node:module';
import type * as FaissNode from 'faiss-node';
import { createError } from '@zerda/types';

/** The faiss-node module. */
export type Faiss = typeof FaissNode;

/** How to get a working faiss-node, for error messages, test skips and the README. */
export const FAISS_INSTALL_HINT =
  'faiss-node could not load its native addon. With network access, `npm install faiss-node` downloads a prebuilt binary. ' +
  'Offline on Debian/Ubuntu: apt-get install -y --no-install-recommends libfaiss-dev libopenblas-dev cmake g++ make, ' +
  'then `node node_modules/@zerda/vector-faiss/scripts/build-faiss-node.mjs` (in this repository: `node packages/vector-faiss/scripts/build-faiss-node.mjs`)';

let loaded: { faiss: Faiss } | { error: unknown } | undefined;

function load(): { faiss: Faiss } | { error: unknown } {
  if (!loaded) {
    try {
      loaded = { faiss: createRequire(import.meta.url)('faiss-node') as Faiss };
    } catch (error) {
      loaded = { error };
    }
  }
  return loaded;
}

/** Whether faiss-node and its native addon load here, and why not. */
export function faissAvailability(): { available: true } | { available: false; reason: string } {
  const result = load();
  if ('faiss' in result) return { available: true };
  const message = result.error instanceof Error ? result.error.message.split('\n')[0]! : String(result.error);
  return { available: false, reason: `${message}. ${FAISS_INSTALL_HINT}` };
}

/** faiss-node, or a ZERDA_NOT_READY error that says how to install it. */
export function loadFaiss(): Faiss {
  const result = load();
  if ('faiss' in result) return result.faiss;
  throw createError('ZERDA_NOT_READY', { component: 'FaissVectorStore', reason: faissAvailability().available ? 'unknown' : (faissAvailability() as { reason: string }).reason }, result.error);
}
