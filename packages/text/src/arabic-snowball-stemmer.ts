import { createError } from '@zerda/types';
import type { StemmerAr } from '@nlpjs/lang-ar';
import { BoundedCache } from './bounded-cache.js';
import { MAX_STEMMED_LENGTH } from './english-stemmer.js';
import { requireString } from './input-validation.js';

interface NodeProcess {
  getBuiltinModule?: (id: string) => { createRequire?: (url: string) => (id: string) => unknown } | undefined;
}

let stemmer: StemmerAr | undefined;
const cache = new BoundedCache<string, string>(50_000);

// Loaded on first use: @nlpjs/lang-ar pulls in @nlpjs/core and sentiment data (~80 ms), which
// users of the default light stemmer should not pay for. It is CommonJS, so a synchronous
// require keeps stemming synchronous.
function loadStemmer(): StemmerAr {
  if (stemmer !== undefined) return stemmer;
  const processObject = (globalThis as { process?: NodeProcess }).process;
  const moduleApi = processObject?.getBuiltinModule?.('node:module');
  const require = moduleApi?.createRequire?.(import.meta.url);
  if (require === undefined) {
    throw createError('ZERDA_UNSUPPORTED', {
      operation: 'the Snowball Arabic stemmer',
      component: '@zerda/text',
      reason: 'it loads @nlpjs/lang-ar synchronously, which needs Node.js 20.16 or later (process.getBuiltinModule)',
    });
  }
  const lang = require('@nlpjs/lang-ar') as { StemmerAr: new () => StemmerAr };
  stemmer = new lang.StemmerAr();
  return stemmer;
}

/**
 * Internal: snowballStemArabic without validation. A "word" longer than {@link MAX_STEMMED_LENGTH}
 * UTF-16 units is no Arabic word (the longest, with every clitic attached, have about 15 letters)
 * and the @nlpjs implementation is superlinear on it (a letter followed by 100 KB of combining marks
 * took seconds): it is returned unstemmed, as the Porter2 path does.
 */
export function snowballStem(word: string): string {
  if (word.length > MAX_STEMMED_LENGTH) return word;
  const cached = cache.get(word);
  if (cached !== undefined) return cached;
  const instance = loadStemmer();
  instance.setCurrent(word);
  instance.innerStem();
  const stem = instance.getCurrent();
  cache.set(word, stem);
  return stem;
}

/**
 * The Snowball Arabic stemmer (the algorithm PostgreSQL's `arabic` configuration uses), from
 * `@nlpjs/lang-ar`, loaded on first call. More aggressive than {@link stemArabic}: it also removes
 * verb prefixes and pronoun suffixes (يكتبون → يكتب, المكتبة → مكتب). Input should be normalised.
 * Words longer than `MAX_STEMMED_LENGTH` (64) UTF-16 units are returned unchanged.
 */
export function snowballStemArabic(word: string): string {
  requireString(word, 'word');
  return snowballStem(word);
}
