// Child of the HNSW store's crash suite: saves forever into argv[2], alternating two stores that the
// parent saved under argv[3].
import { join } from 'node:path';
import { HnswVectorStore } from '@zerda/vector-hnswlib';
import { saveForever } from '@zerda/persistence/testing';

const [target, states] = process.argv.slice(2);
const stores = { b: await HnswVectorStore.load(join(states, 'b')), c: await HnswVectorStore.load(join(states, 'c')) };
await saveForever(['b', 'c'], (label) => stores[label].save(target));
