import { fnv1a, invalidArgument, isStopword, normalizeText, words, type Embedder, type Embedding } from '@zerda/context';

/**
 * A deterministic, offline embedder for examples and tests: character 3-gram feature hashing.
 * Each word of the search-normalised text (`normalizeText`: case, Arabic diacritics, tatweel and
 * letter variants folded), stopwords left out, is padded with a boundary mark and cut into
 * overlapping 3-grams of code points; each distinct 3-gram adds `±(1 + ln count)` to one of
 * `dimensions` buckets (bucket and sign from its hash, so collisions cancel out on average instead
 * of piling up); the vector is L2-normalised.
 *
 * It is **lexical, not semantic**: texts sharing character sequences are close — which tolerates
 * typos, inflections and word order — but synonyms and translations are not. It needs no model
 * download and gives the same vector on every machine, which is what this example needs to compare
 * vector stores. Use a real embedding model (`@zerda/embeddings`) for meaning.
 */
export class TrigramHashingEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly modelId: string;
  readonly dimensions: number;

  constructor(dimensions = 256) {
    if (!Number.isInteger(dimensions) || dimensions < 2) throw invalidArgument('dimensions', 'an integer >= 2', dimensions);
    this.dimensions = dimensions;
    this.modelId = `char-3gram-hashing-${dimensions}`;
  }

  async embed(texts: string[]): Promise<Embedding[]> {
    if (!Array.isArray(texts)) throw invalidArgument('texts', 'an array of strings', texts);
    return texts.map((text) => this.embedOne(text));
  }

  /** The vector of one text (synchronous; `embed` maps it over a batch). */
  embedOne(text: string): Float32Array {
    const counts = new Map<string, number>();
    for (const word of words(normalizeText(text))) {
      if (isStopword(word)) continue;
      const padded = [...`^${word}$`];
      for (let i = 0; i + 3 <= padded.length; i++) {
        const trigram = padded.slice(i, i + 3).join('');
        counts.set(trigram, (counts.get(trigram) ?? 0) + 1);
      }
    }
    const vector = new Float32Array(this.dimensions);
    for (const [trigram, count] of counts) {
      const hash = fnv1a(trigram);
      // Sublinear weight: a 3-gram repeated ten times is evidence, not ten times the evidence.
      vector[hash % this.dimensions]! += (hash & 0x80000000 ? -1 : 1) * (1 + Math.log(count));
    }
    let norm = 0;
    for (const value of vector) norm += value * value;
    // A text without a single word (only punctuation) gets a fixed unit vector rather than zeros,
    // which cosine similarity cannot compare.
    if (norm === 0) {
      vector[0] = 1;
      return vector;
    }
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
    return vector;
  }
}
