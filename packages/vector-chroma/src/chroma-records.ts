import { createError, metadataTerms, presenceTerm, toDocumentChunk, valueTerm, type DocumentChunk, type FilterScalar, type Metadata } from '@zerda/types';

/**
 * How a chunk becomes a Chroma record. The text is the record's document; Chroma metadata holds
 * only strings, numbers and booleans (no arrays, no `null`, no nested values), and its `where`
 * compares numbers only with `$gt`…, needs same-typed `$in` lists and has no `$not`/`$exists`. So
 * the rest of the chunk travels as JSON text, and filters run on keys written beside it:
 *
 * - `zerda_chunk`: `{ title, metadata, position, timestamp }` as JSON text.
 * - `zerda_doc_id`, `zerda_source`: the chunk's `docId` and `source`.
 * - `zt:` + `JSON.stringify([key])` = true when the key is present, and `zt:` +
 *   `JSON.stringify([key, value])` = true for every scalar value (or scalar element of a top-level
 *   array). JSON keeps `1`, `"1"`, `true` and `null` apart, so `{ "zt:…": true }` is type-strict
 *   equality with the any-element rule; Chroma's `$ne` also matches records without the key,
 *   which is exactly zerda's `$ne` and `$nin`.
 * - `zn:` + key: each top-level numeric value (range filters), and `zq:` + key = true beside it;
 *   a range holds only where `zq:` is true, and "no number here" is `zq:` not true.
 *
 * Chroma's upsert merges metadata into an existing record and cannot delete keys, so when a chunk
 * is replaced, the `zt:`/`zq:` keys of the old version that the new one lacks are set to `false`:
 * for filters (`$eq: true`, `$ne: true`) that is the same as absent.
 */
export const CHUNK_KEY = 'zerda_chunk';
export const DOC_ID_KEY = 'zerda_doc_id';
export const SOURCE_KEY = 'zerda_source';

/** Chroma record metadata as this package writes it. */
export type ChromaMetadata = Record<string, string | number | boolean>;

/** The key saying `key` is present. */
export function presenceKey(key: string): string {
  return `zt:${presenceTerm(key)}`;
}

/** The key saying `key` holds `value` (or an array holding it at the top level). */
export function valueKey(key: string, value: FilterScalar): string {
  return `zt:${valueTerm(key, value)}`;
}

/** The key holding `key`'s numeric value. */
export function numberKey(key: string): string {
  return `zn:${key}`;
}

/** The key saying `key` holds a number. */
export function isNumberKey(key: string): string {
  return `zq:${key}`;
}

interface StoredChunk {
  title?: string;
  metadata: Metadata;
  position: DocumentChunk['position'];
  timestamp?: number;
}

/** Builds the Chroma metadata of a chunk (see the keys above). */
export function toChromaMetadata(input: DocumentChunk): ChromaMetadata {
  const chunk = toDocumentChunk(input, 0, 'chunk');
  const stored: StoredChunk = { metadata: chunk.metadata, position: chunk.position };
  if (chunk.title !== undefined) stored.title = chunk.title;
  if (chunk.timestamp !== undefined) stored.timestamp = chunk.timestamp;
  const metadata: ChromaMetadata = { [CHUNK_KEY]: JSON.stringify(stored), [DOC_ID_KEY]: chunk.docId, [SOURCE_KEY]: chunk.source };
  for (const term of metadataTerms(chunk.metadata)) metadata[`zt:${term}`] = true;
  for (const [key, value] of Object.entries(chunk.metadata)) {
    if (typeof value !== 'number') continue;
    metadata[numberKey(key)] = value;
    metadata[isNumberKey(key)] = true;
  }
  return metadata;
}

/** Rebuilds a chunk from a Chroma record; a record zerda did not write is reported as corrupt. */
export function fromChromaRecord(id: string, document: string | null | undefined, metadata: Record<string, unknown> | null | undefined, embedding: ArrayLike<number> | null | undefined, location: string): DocumentChunk {
  const raw = metadata?.[CHUNK_KEY];
  const docId = metadata?.[DOC_ID_KEY];
  const source = metadata?.[SOURCE_KEY];
  if (typeof raw !== 'string' || typeof docId !== 'string' || typeof source !== 'string' || typeof document !== 'string') {
    throw createError('ZERDA_STORE_CORRUPT', { path: `${location}, record ${JSON.stringify(id)}`, reason: `it lacks the document or the ${CHUNK_KEY}/${DOC_ID_KEY}/${SOURCE_KEY} metadata zerda writes (was it written by another program?)` });
  }
  let stored: StoredChunk;
  try {
    stored = JSON.parse(raw) as StoredChunk;
  } catch (error) {
    throw createError('ZERDA_STORE_CORRUPT', { path: `${location}, record ${JSON.stringify(id)}`, reason: `${CHUNK_KEY} is not valid JSON` }, error);
  }
  if (stored === null || typeof stored !== 'object') {
    throw createError('ZERDA_STORE_CORRUPT', { path: `${location}, record ${JSON.stringify(id)}`, reason: `${CHUNK_KEY} does not hold chunk fields` });
  }
  const chunk: DocumentChunk = { id, docId, text: document, source, metadata: stored.metadata, position: stored.position };
  if (stored.title !== undefined) chunk.title = stored.title;
  if (stored.timestamp !== undefined) chunk.timestamp = stored.timestamp;
  if (embedding) chunk.embedding = Float32Array.from(embedding);
  return chunk;
}

/** True for the keys whose `true` value is a fact a filter tests (`zt:` terms, `zq:` number flags). */
export function isFlagKey(key: string): boolean {
  return key.startsWith('zt:') || key.startsWith('zq:');
}
