// Child of the engine snapshot's crash suite: saves forever into argv[2], alternating two engines
// (keyword + memory vectors, keyword + HNSW) that the parent saved under argv[3].
import { join } from 'node:path';
import { saveForever } from '@zerda/persistence/testing';
import { openEngine } from './crash-states.mjs';

const [target, states] = process.argv.slice(2);
const engines = { b: await openEngine(join(states, 'b')), c: await openEngine(join(states, 'c')) };
await saveForever(['b', 'c'], async (label) => {
  await engines[label].save(target);
});
