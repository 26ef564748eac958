import {
  ContextGuard,
  invalidArgument,
  normalizeText,
  words,
  type ContextGuardStrategy,
  type GuardInput,
  type GuardResult,
  type GuardWarning,
} from '@zerda/context';

/** A term as the guard compares it: the search-normalised words of the term, in order. */
interface DenyTerm {
  term: string;
  words: string[];
}

/** True when `needle` occurs in `haystack` as a run of consecutive words. */
function containsRun(haystack: readonly string[], needle: readonly string[]): boolean {
  outer: for (let start = 0; start + needle.length <= haystack.length; start++) {
    for (let offset = 0; offset < needle.length; offset++) {
      if (haystack[start + offset] !== needle[offset]) continue outer;
    }
    return true;
  }
  return false;
}

/**
 * A custom guard: everything the default `ContextGuard` checks, plus a deny list. A context that
 * contains a denied term (an internal code name, a client's name …) fails the guard with an
 * error-severity `forbidden_term` finding that names the term and the chunks it came from, so the
 * application can refuse to send it to the model.
 *
 * Terms match on whole words after zerda's search normalisation (`normalizeText`): case, Arabic
 * diacritics, tatweel and alef variants do not hide a term ("PROJECT FALCON", "مشروعُ الصَّقر").
 */
export class DenyListGuard implements ContextGuardStrategy {
  private readonly terms: DenyTerm[];

  constructor(
    terms: readonly string[],
    private readonly base: ContextGuardStrategy = new ContextGuard(),
  ) {
    if (!Array.isArray(terms) || terms.some((term) => typeof term !== 'string' || words(normalizeText(term)).length === 0)) {
      throw invalidArgument('terms', 'an array of non-empty terms', terms);
    }
    this.terms = terms.map((term) => ({ term, words: words(normalizeText(term)) }));
  }

  async check(input: GuardInput): Promise<GuardResult> {
    const result = await this.base.check(input);
    const chunkWords = input.chunks.map((used) => ({ id: used.chunk.id, words: words(normalizeText(used.keptText)) }));
    const contextWords = words(normalizeText(result.context));
    const findings: GuardWarning[] = [];
    for (const { term, words: termWords } of this.terms) {
      if (!containsRun(contextWords, termWords)) continue;
      const chunkIds = chunkWords.filter((chunk) => containsRun(chunk.words, termWords)).map((chunk) => chunk.id);
      findings.push({ code: 'forbidden_term', severity: 'error', message: `context contains the forbidden term "${term}"`, chunkIds });
    }
    return { passed: result.passed && findings.length === 0, warnings: [...result.warnings, ...findings], context: result.context };
  }
}
