import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testSaveSurvivesKills } from '@zerda/vector-conformance/crash';
import { HnswVectorStore } from './hnswlib-vector-store.js';

// The crash suite for HNSW store directories (issue 15, defect 7): a child saving in a loop is
// SIGKILLed at random moments, 100 times. Every load afterwards must be exactly the store before
// the kill or one the child saved (chunks, vectors, labels and graph answers), and the next save must
// leave only CURRENT and the generation it names. The child runs the built package.
testSaveSurvivesKills({
  name: 'HnswVectorStore.save survives 100 SIGKILLs: old or new store on load, nothing left after the next save',
  prefix: 'zerda-hnsw-crash-',
  childScript: join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'crash-child.mjs'),
  create: () => new HnswVectorStore({ M: 8, efConstruction: 40 }),
  save: (store, directory) => store.save(directory),
  load: (directory) => HnswVectorStore.load(directory),
  target: { directory: 'store' },
});
