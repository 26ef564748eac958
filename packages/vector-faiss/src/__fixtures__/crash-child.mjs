// Child of the FAISS store's crash suite: saves forever to argv[2], alternating two stores that the
// parent saved under argv[3].
import { join } from 'node:path';
import { FaissVectorStore } from '@zerda/vector-faiss';
import { saveForever } from '@zerda/persistence/testing';

const [target, states] = process.argv.slice(2);
const stores = { b: await FaissVectorStore.load(join(states, 'b')), c: await FaissVectorStore.load(join(states, 'c')) };
await saveForever(['b', 'c'], (label) => stores[label].save(target));
