import { BoundedCache } from './bounded-cache.js';
import { requireString } from './input-validation.js';

// Prefixes, longest first so "وال" wins over "و". The definite article and its attached
// prepositions/conjunctions are removed when at least two letters remain.
const ARTICLE_PREFIXES = ['وال', 'بال', 'كال', 'فال', 'لل', 'ال'] as const;
// Suffixes tried in this order, each at most once: possessive/plural/feminine/nisba endings.
const SUFFIXES = ['ها', 'ان', 'ات', 'ون', 'ين', 'يه', 'ية', 'ه', 'ة', 'ي'] as const;
const WAW = 'و';
const MINIMUM_STEM = 2;
// Two-letter suffixes need three letters left: without this, بنات would become بن and قرات قر.
const MINIMUM_STEM_BEFORE_LONG_SUFFIX = 3;

// Words whose leading ال is part of the word, not the article: stripping it would turn الله into
// له ("for him"), a different and very frequent word.
const PROTECTED = new Map<string, string>([
  ['الله', 'الله'],
  ['والله', 'الله'],
  ['بالله', 'الله'],
  ['لله', 'الله'],
  ['اللهم', 'اللهم'],
]);

const cache = new BoundedCache<string, string>(50_000);

/** Internal: the light stemmer without validation or caching. */
export function lightStemArabic(word: string): string {
  const protectedStem = PROTECTED.get(word);
  if (protectedStem !== undefined) return protectedStem;
  let stem = word;
  // A leading conjunction و is removed only from words long enough that و is unlikely to be a root
  // letter (وصل, وجد, ورد … are three-letter words starting with a root و).
  if (stem.length >= 4 && stem.startsWith(WAW)) stem = stem.slice(1);
  for (const prefix of ARTICLE_PREFIXES) {
    if (stem.startsWith(prefix) && stem.length - prefix.length >= MINIMUM_STEM) {
      stem = stem.slice(prefix.length);
      break;
    }
  }
  for (const suffix of SUFFIXES) {
    const minimum = suffix.length > 1 ? MINIMUM_STEM_BEFORE_LONG_SUFFIX : MINIMUM_STEM;
    if (stem.length - suffix.length >= minimum && stem.endsWith(suffix)) stem = stem.slice(0, -suffix.length);
  }
  return stem;
}

/**
 * Light Arabic stemmer for retrieval (in the spirit of Larkey's light10): removes a leading
 * conjunction و (words of 4+ letters), one definite-article prefix (وال بال كال فال لل ال), then the
 * suffixes ها ان ات ون ين يه ية ه ة ي in that order, each at most once, leaving at least three
 * letters before a two-letter suffix and two before a one-letter one. It does not find roots: المكتبة and مكتبات both become مكتب, but كتب stays كتب. The input
 * should already be normalised with {@link normalizeArabic} (alef variants unified, no harakat).
 */
export function stemArabic(word: string): string {
  requireString(word, 'word');
  const cached = cache.get(word);
  if (cached !== undefined) return cached;
  const stem = lightStemArabic(word);
  cache.set(word, stem);
  return stem;
}
