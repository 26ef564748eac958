import { describe, expect, it } from 'vitest';
import { ZerdaError } from '@zerda/types';
import { readStoreFile, writeStoreFile } from './memory-file-unavailable.js';

// What browsers and workers get for `#store-file`: a clear error, and nothing of node:fs.
describe('memory-file-unavailable (the default condition of #store-file)', () => {
  it('fails save and load with ZERDA_UNSUPPORTED naming the alternative', async () => {
    const save = writeStoreFile('x.zvm', { metric: 'cosine', dimensions: 3, count: 0 }, [], []);
    await expect(save).rejects.toBeInstanceOf(ZerdaError);
    await expect(save).rejects.toMatchObject({ code: 'ZERDA_UNSUPPORTED' });
    await expect(save).rejects.toThrow(/MemoryVectorStore\.save\(path\).*toJSON\(\)/);
    await expect(readStoreFile('x.zvm')).rejects.toThrow(/MemoryVectorStore\.load\(path\) is not supported/);
  });
});
