import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testSaveSurvivesKills } from '@zerda/vector-conformance/crash';
import { MemoryVectorStore } from './memory-vector-store.js';

// The crash suite for `.zvm` files (issue 15, defect 7): a child saving in a loop is SIGKILLed at
// random moments, 100 times. Every load afterwards must be exactly the store before the kill or one
// the child saved, and the next save must leave no temporary behind. The child runs the built package.
testSaveSurvivesKills({
  name: 'MemoryVectorStore.save survives 100 SIGKILLs: old or new store on load, no orphaned temporary after the next save',
  prefix: 'zerda-memory-crash-',
  childScript: join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'crash-child.mjs'),
  create: () => new MemoryVectorStore(),
  save: (store, path) => store.save(path),
  load: (path) => MemoryVectorStore.load(path),
  target: { file: 'index.zvm' },
  states: { scale: 1.5 },
});
