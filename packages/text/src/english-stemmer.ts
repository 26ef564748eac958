import porter2 from 'wink-porter2-stemmer';
import { BoundedCache } from './bounded-cache.js';
import { requireString } from './input-validation.js';

const cache = new BoundedCache<string, string>(50_000);

/**
 * English stemmer: the Porter2 (Snowball English) algorithm from `wink-porter2-stemmer`, memoised
 * in a bounded cache. Expects a lower-case word (as produced by {@link normalizeText}); "running"
 * → "run", "studies" → "studi", "generously" → "generous".
 */
export function stemEnglish(word: string): string {
  requireString(word, 'word');
  return porter2Stem(word);
}

/**
 * Longer "words" are identifiers, hashes or run-together junk, never English words, and the
 * Porter2 implementation is superlinear on them (a 20,000-letter token took seconds): they are
 * returned unstemmed.
 */
export const MAX_STEMMED_LENGTH = 64;

/** Internal: stemEnglish without validation. */
export function porter2Stem(word: string): string {
  if (word.length > MAX_STEMMED_LENGTH) return word;
  const cached = cache.get(word);
  if (cached !== undefined) return cached;
  const stem = porter2(word);
  cache.set(word, stem);
  return stem;
}
