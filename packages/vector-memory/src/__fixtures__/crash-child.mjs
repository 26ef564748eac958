// Child of the memory store's crash suite: saves forever to argv[2], alternating two stores that
// the parent saved in argv[3] (loading them is much faster than building them).
import { join } from 'node:path';
import { MemoryVectorStore } from '@zerda/vector-memory';
import { saveForever } from '@zerda/persistence/testing';

const [target, states] = process.argv.slice(2);
const stores = { b: await MemoryVectorStore.load(join(states, 'b')), c: await MemoryVectorStore.load(join(states, 'c')) };
await saveForever(['b', 'c'], (label) => stores[label].save(target));
