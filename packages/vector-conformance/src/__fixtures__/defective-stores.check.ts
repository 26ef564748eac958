// Run only by conformance.test.ts (through vitest.defects.config.ts): the suite against stores with
// one deliberate defect each. Every one of these suites must FAIL.
import { testVectorStore } from '../index.js';
import { ReferenceStore, type ReferenceStoreDefects } from './reference-store.js';

const defects: Array<keyof ReferenceStoreDefects> = ['ignoresFilter', 'writesBeforeValidating', 'returnsDistances', 'duplicatesOnReAdd'];
for (const defect of defects) {
  testVectorStore({ name: `defect ${defect}`, create: () => new ReferenceStore('cosine', { [defect]: true }) });
}

// A correct store whose declarations differ from what its test expects: the checks of
// `capabilities` and `initialDimensions` must fail.
testVectorStore({ name: 'defect wrongCapabilities', create: () => new ReferenceStore('cosine'), capabilities: { persistence: false, nativeFilter: true, textSearch: false, embeds: false } });
testVectorStore({ name: 'defect wrongInitialDimensions', create: () => new ReferenceStore('cosine'), initialDimensions: 8 });
