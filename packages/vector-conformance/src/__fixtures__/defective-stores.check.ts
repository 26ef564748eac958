// Run only by conformance.test.ts (through vitest.defects.config.ts): the suite against stores with
// one deliberate defect each. Every one of these suites must FAIL.
import { testVectorStore } from '../index.js';
import { ReferenceStore, type ReferenceStoreDefects } from './reference-store.js';

const defects: Array<keyof ReferenceStoreDefects> = ['ignoresFilter', 'writesBeforeValidating', 'returnsDistances', 'duplicatesOnReAdd'];
for (const defect of defects) {
  testVectorStore({ name: `defect ${defect}`, create: () => new ReferenceStore('cosine', { [defect]: true }) });
}
