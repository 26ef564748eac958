import { afterEach, describe, expect, it, vi } from 'vitest';
import { nodeRequire } from './node-require.js';

describe('nodeRequire', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('gives a require resolving from the given module in Node', () => {
    const require = nodeRequire(import.meta.url);
    expect(require).toBeTypeOf('function');
    expect((require!('wink-porter2-stemmer') as (word: string) => string)('running')).toBe('run');
  });

  it('is undefined where the runtime has no process.getBuiltinModule (browsers, workers)', () => {
    vi.stubGlobal('process', undefined);
    expect(nodeRequire(import.meta.url)).toBeUndefined();
    vi.stubGlobal('process', { env: {} });
    expect(nodeRequire(import.meta.url)).toBeUndefined();
  });
});

describe('the Snowball Arabic stemmer where no synchronous require exists', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('asks for loadSnowballStemmer() first, then stems as in Node', async () => {
    vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    vi.resetModules();
    const fresh = await import('./arabic-snowball-stemmer.js');
    expect(() => fresh.snowballStemArabic('المكتبة')).toThrow(expect.objectContaining({ code: 'ZERDA_NOT_READY' }));
    expect(() => fresh.snowballStemArabic('المكتبة')).toThrow(/await loadSnowballStemmer\(\)/);
    await fresh.loadSnowballStemmer();
    expect(fresh.snowballStemArabic('المكتبة')).toBe('مكتب');
    expect(fresh.snowballStemArabic('يكتبون')).toBe('يكتب');
  });
});
