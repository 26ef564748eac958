import { Analyzer, fnv1a } from '@zerda/text';
import type { Embedder } from '@zerda/types';

const analyzer = new Analyzer();

/** A deterministic bag-of-terms embedding (analysed terms hashed into `dimensions` buckets, L2-normalised). */
export function embedText(text: string, dimensions = 256): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const term of analyzer.analyze(text)) vector[fnv1a(term) % dimensions]! += 1;
  let norm = 0;
  for (const value of vector) norm += value * value;
  if (norm > 0) for (let index = 0; index < dimensions; index++) vector[index]! /= Math.sqrt(norm);
  else vector[0] = 1; // keep empty texts embeddable (a unit vector) so stores accept them
  return vector;
}

/** A test Embedder that records every call (texts and kind). */
export class HashingEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly modelId = 'hashing-test';
  readonly calls: Array<{ texts: string[]; kind: string | undefined }> = [];
  constructor(readonly dimensions = 256) {}

  async embed(texts: string[], options?: { kind?: 'query' | 'document' }): Promise<Float32Array[]> {
    this.calls.push({ texts: [...texts], kind: options?.kind });
    return texts.map((text) => embedText(text, this.dimensions));
  }

  /** Texts embedded with the given kind, in order. */
  textsOf(kind: 'query' | 'document'): string[] {
    return this.calls.filter((call) => call.kind === kind).flatMap((call) => call.texts);
  }
}
