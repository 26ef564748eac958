import { createError, describeValue, toDocumentChunks, validateEmbedding, type DocumentChunk, type EmbedFunction, type Embedder, type Embedding } from '@zerda/types';

/**
 * Checks an `add` argument: the chunk shape (`toDocumentChunks`), and first every embedding that is
 * present, so that a NaN is reported as ZERDA_INVALID_EMBEDDING whatever array type carries it.
 * Returns validated copies; nothing is written.
 */
export function validateChunks(chunks: unknown): DocumentChunk[] {
  if (Array.isArray(chunks)) {
    chunks.forEach((input, i) => {
      const embedding = (input as Partial<DocumentChunk> | null)?.embedding;
      if (embedding !== undefined) validateEmbedding(embedding, `chunks[${i}].embedding`);
    });
  }
  return toDocumentChunks(chunks as DocumentChunk[], 'chunks');
}

/**
 * Gives every chunk without an embedding one: from `embedder` (one batched call, `kind:
 * 'document'`), or — without an embedder — a ZERDA_INVALID_EMBEDDING naming the first such chunk
 * (saying the store has no embedder when it `takesEmbedder` as an option, else that it embeds nothing).
 * An embedder that fails or answers with the wrong number of vectors is a ZERDA_BACKEND_ERROR.
 */
export async function embedMissing(chunks: DocumentChunk[], embedder: Embedder | EmbedFunction | undefined, takesEmbedder = false): Promise<void> {
  const missing: number[] = [];
  for (let i = 0; i < chunks.length; i++) if (chunks[i]!.embedding === undefined) missing.push(i);
  if (missing.length === 0) return;
  if (!embedder) {
    const why = takesEmbedder ? 'this store has no embedder to compute one' : 'this store does not embed text';
    throw createError('ZERDA_INVALID_EMBEDDING', { field: `chunks[${missing[0]}].embedding`, expected: `an embedding (${why})`, received: 'undefined' });
  }
  const texts = missing.map((i) => chunks[i]!.text);
  let embeddings: Embedding[];
  try {
    embeddings = typeof embedder === 'function' ? await embedder(texts) : await embedder.embed(texts, { kind: 'document' });
  } catch (error) {
    throw createError('ZERDA_BACKEND_ERROR', { component: 'embedder', operation: 'embed', reason: error instanceof Error ? error.message : String(error) }, error);
  }
  if (!Array.isArray(embeddings) || embeddings.length !== texts.length) {
    throw createError('ZERDA_BACKEND_ERROR', { component: 'embedder', operation: 'embed', reason: `expected ${texts.length} embeddings, got ${describeValue(embeddings)}` });
  }
  for (let j = 0; j < missing.length; j++) chunks[missing[j]!]!.embedding = embeddings[j]!;
}

/**
 * Validates the embeddings of a batch against one dimension (`dimensions`, or the first vector's
 * when undefined). Returns them as Float32Arrays, and the dimension.
 */
export function validateVectors(chunks: readonly DocumentChunk[], dimensions: number | undefined): { vectors: Float32Array[]; dimensions: number | undefined } {
  const vectors: Float32Array[] = [];
  for (let i = 0; i < chunks.length; i++) {
    const vector = validateEmbedding(chunks[i]!.embedding, `chunks[${i}].embedding`, dimensions);
    dimensions ??= vector.length;
    vectors.push(vector);
  }
  return { vectors, dimensions };
}
