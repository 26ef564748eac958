import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForTemporary } from '@zerda/persistence/testing';
import { testSaveSurvivesKills } from '@zerda/vector-conformance/crash';
import { faissAvailability } from './faiss-loader.js';
import type { FaissVectorStore } from './faiss-vector-store.js';

// The crash suite for FAISS store files: a child saving in a loop is SIGKILLed at random moments,
// 100 times; every load afterwards is the store before the kill or one the child saved, and the
// next save leaves no temporary behind. Skipped (with the reason) where faiss-node does not load;
// the store module is imported only where it does.
const availability = faissAvailability();
const storeClass = async () => (await import('./faiss-vector-store.js')).FaissVectorStore;

testSaveSurvivesKills<FaissVectorStore>({
  name: 'FaissVectorStore.save survives 100 SIGKILLs: old or new store on load, no orphaned temporary after the next save',
  skip: availability.available ? false : availability.reason,
  prefix: 'zerda-faiss-crash-',
  childScript: join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'crash-child.mjs'),
  create: async () => new (await storeClass())({ metric: 'cosine' }),
  save: (store, path) => store.save(path),
  load: async (path) => (await storeClass()).load(path),
  target: { file: 'store.zfaiss' },
  // Twice the usual chunks, 64 dimensions: writing the file is then a measurable part of a save.
  states: { dimensions: 64, scale: 2 },
  // FAISS serialises the whole store in memory and then writes the file in one burst: every other
  // kill is aimed at that burst (when the temporary file appears), the others fall at random.
  aimKill: (target, trial) => (trial % 2 === 0 ? waitForTemporary(dirname(target)) : undefined),
  minimumInterrupted: 0.4,
  timeout: 600_000,
});
