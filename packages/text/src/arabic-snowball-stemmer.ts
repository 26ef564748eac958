import { createError } from '@zerda/types';
import type { StemmerAr } from '@nlpjs/lang-ar';
import { BoundedCache } from './bounded-cache.js';
import { requireString } from './input-validation.js';
import { nodeRequire } from './node-require.js';

type LangAr = { StemmerAr: new () => StemmerAr };

let stemmer: StemmerAr | undefined;
const cache = new BoundedCache<string, string>(50_000);

function fromModule(loaded: LangAr | { default: LangAr }): StemmerAr {
  const lang = 'StemmerAr' in loaded ? loaded : loaded.default;
  stemmer ??= new lang.StemmerAr();
  return stemmer;
}

/**
 * Loads the Snowball Arabic stemmer (`@nlpjs/lang-ar`, CommonJS) through an ESM dynamic import, so
 * that bundlers split it out and {@link snowballStemArabic} works in browsers and workers. In
 * Node.js, Bun and Deno calling it is optional: the stemmer loads synchronously on first use.
 */
export async function loadSnowballStemmer(): Promise<void> {
  if (stemmer !== undefined) return;
  fromModule((await import('@nlpjs/lang-ar')) as LangAr | { default: LangAr });
}

// Loaded on first use: @nlpjs/lang-ar pulls in @nlpjs/core and sentiment data (~80 ms), which
// users of the default light stemmer should not pay for. It is CommonJS, so a synchronous
// require keeps stemming synchronous where the runtime offers one.
function loadStemmer(): StemmerAr {
  if (stemmer !== undefined) return stemmer;
  const require = nodeRequire(import.meta.url);
  if (require === undefined) {
    throw createError('ZERDA_NOT_READY', {
      component: 'the Snowball Arabic stemmer (@zerda/text)',
      reason: 'this runtime cannot load @nlpjs/lang-ar synchronously: `await loadSnowballStemmer()` once before stemming',
    });
  }
  return fromModule(require('@nlpjs/lang-ar') as LangAr);
}

/** Internal: snowballStemArabic without validation. */
export function snowballStem(word: string): string {
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
 * `@nlpjs/lang-ar`, loaded on first call (in browsers and workers, after
 * {@link loadSnowballStemmer}). More aggressive than {@link stemArabic}: it also removes verb
 * prefixes and pronoun suffixes (يكتبون → يكتب, المكتبة → مكتب). Input should be normalised.
 */
export function snowballStemArabic(word: string): string {
  requireString(word, 'word');
  return snowballStem(word);
}
