import type { Analyzer, Sentence } from '@zerda/text';
import { cosineSimilarity, type Embedding } from '@zerda/types';

/** What the composer knows about the query when it decides which sentences to keep. */
export interface QuerySignal {
  /** Analysed query terms (the analysis' keywords), unique. */
  terms: string[];
  /** The query embedding, when the caller passed one. */
  embedding?: Embedding;
}

/**
 * Scores every sentence of every candidate by how much of the query it covers: the IDF-weighted
 * share of query terms it contains, where IDF is computed over the candidate sentences themselves,
 * so that a term every passage repeats (the topic) counts less than the term that singles out the
 * answer. Scores are in [0, 1]; sentences of a text are scored in the order given.
 */
export function scoreSentences(sentencesPerText: readonly (readonly Sentence[])[], queryTerms: readonly string[], analyzer: Analyzer): number[][] {
  const query = new Set(queryTerms);
  const termsPerSentence: Set<string>[][] = sentencesPerText.map((sentences) =>
    sentences.map((sentence) => {
      const present = new Set<string>();
      if (query.size === 0) return present;
      for (const term of analyzer.analyze(sentence.text)) if (query.has(term)) present.add(term);
      return present;
    }),
  );
  let sentenceCount = 0;
  const documentFrequency = new Map<string, number>();
  for (const sentences of termsPerSentence) {
    for (const present of sentences) {
      sentenceCount += 1;
      for (const term of present) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
  }
  // BM25's non-negative IDF: rarer terms among the candidates weigh more. Terms absent from every
  // candidate are left out of the normaliser so that a sentence covering all that can be covered scores 1.
  const weight = new Map<string, number>();
  let total = 0;
  for (const [term, frequency] of documentFrequency) {
    const idf = Math.log(1 + (sentenceCount - frequency + 0.5) / (frequency + 0.5));
    weight.set(term, idf);
    total += idf;
  }
  return termsPerSentence.map((sentences) =>
    sentences.map((present) => {
      if (total <= 0) return 0;
      let covered = 0;
      for (const term of present) covered += weight.get(term) ?? 0;
      return covered / total;
    }),
  );
}

/**
 * Cosine similarity of a chunk's embedding with the query's, or undefined when either is missing,
 * of another dimension, or all zeros (the shared `cosineSimilarity` of @zerda/types scores those 0;
 * here "unknown" must stay distinguishable from "orthogonal").
 */
export function embeddingSimilarity(left: Embedding | undefined, right: Embedding | undefined): number | undefined {
  if (!left || !right || left.length === 0 || left.length !== right.length) return undefined;
  let zero = true;
  for (let i = 0; i < left.length && zero; i++) if (left[i] !== 0) zero = false;
  if (zero) return undefined;
  zero = true;
  for (let i = 0; i < right.length && zero; i++) if (right[i] !== 0) zero = false;
  if (zero) return undefined;
  return cosineSimilarity(left, right);
}
