import { createError, metadataTerms, toDocumentChunk, type DocumentChunk, type Metadata } from '@zerda/types';

/**
 * How a chunk becomes a Pinecone record. Pinecone metadata holds only strings, numbers, booleans
 * and lists of strings, and its filters compare types strictly but know no `null`, no nested
 * values and no `$not`. So the chunk itself travels as JSON text, and what filters need is
 * written beside it in fields whose Pinecone semantics are documented and exact:
 *
 * - `zerda_chunk`: the chunk (text, title, metadata, position, timestamp) as JSON text.
 * - `zerda_doc_id`, `zerda_source`: the chunk's `docId` and `source` strings.
 * - `zerda_terms`: a list of strings — `JSON.stringify([key])` for every metadata key present and
 *   `JSON.stringify([key, value])` for every scalar value (or scalar element of a top-level
 *   array), plus the marker `[]` so that the list is never empty or missing. `$in`/`$nin` on a
 *   list field match when any/no element is listed, which gives type-strict equality with the
 *   any-element rule, and `null` and presence tests, exactly.
 * - `zerda_n_<hex of the key>`: each top-level numeric value, for `$gt`/`$gte`/`$lt`/`$lte`
 *   (Pinecone compares numbers only).
 */
export const CHUNK_FIELD = 'zerda_chunk';
export const DOC_ID_FIELD = 'zerda_doc_id';
export const SOURCE_FIELD = 'zerda_source';
export const TERMS_FIELD = 'zerda_terms';
/** The term every zerda record carries, so that `zerda_terms` always exists. */
export const RECORD_MARKER_TERM = '[]';
/** Pinecone's limit on the metadata of one record. */
export const MAX_METADATA_BYTES = 40 * 1024;

/** Pinecone metadata as this package writes it. */
export type PineconeMetadata = Record<string, string | number | boolean | string[]>;

/** The field holding a metadata key's numeric value (hex keeps any key a safe field name). */
export function numberField(key: string): string {
  return `zerda_n_${Buffer.from(key, 'utf8').toString('hex')}`;
}

interface StoredChunk {
  text: string;
  title?: string;
  metadata: Metadata;
  position: DocumentChunk['position'];
  timestamp?: number;
}

/** Builds the Pinecone metadata of a chunk (see the fields above). */
export function toPineconeMetadata(input: DocumentChunk): PineconeMetadata {
  const chunk = toDocumentChunk(input, 0, 'chunk');
  const stored: StoredChunk = { text: chunk.text, metadata: chunk.metadata, position: chunk.position };
  if (chunk.title !== undefined) stored.title = chunk.title;
  if (chunk.timestamp !== undefined) stored.timestamp = chunk.timestamp;
  const fields: PineconeMetadata = {};
  for (const [key, value] of Object.entries(chunk.metadata)) if (typeof value === 'number') fields[numberField(key)] = value;
  return {
    [CHUNK_FIELD]: JSON.stringify(stored),
    [DOC_ID_FIELD]: chunk.docId,
    [SOURCE_FIELD]: chunk.source,
    [TERMS_FIELD]: [RECORD_MARKER_TERM, ...metadataTerms(chunk.metadata)],
    ...fields,
  };
}

/** Bytes the metadata takes as JSON (how Pinecone measures its limit). */
export function metadataBytes(metadata: PineconeMetadata): number {
  return Buffer.byteLength(JSON.stringify(metadata), 'utf8');
}

/** Rebuilds a chunk from a Pinecone record; a record zerda did not write is reported as corrupt. */
export function fromPineconeRecord(id: string, metadata: Record<string, unknown> | undefined, values: ArrayLike<number> | undefined, location: string): DocumentChunk {
  const raw = metadata?.[CHUNK_FIELD];
  const docId = metadata?.[DOC_ID_FIELD];
  const source = metadata?.[SOURCE_FIELD];
  if (typeof raw !== 'string' || typeof docId !== 'string' || typeof source !== 'string') {
    throw createError('ZERDA_STORE_CORRUPT', { path: `${location}, record ${JSON.stringify(id)}`, reason: `it lacks the ${CHUNK_FIELD}/${DOC_ID_FIELD}/${SOURCE_FIELD} metadata zerda writes (was it written by another program?)` });
  }
  let stored: StoredChunk;
  try {
    stored = JSON.parse(raw) as StoredChunk;
  } catch (error) {
    throw createError('ZERDA_STORE_CORRUPT', { path: `${location}, record ${JSON.stringify(id)}`, reason: `${CHUNK_FIELD} is not valid JSON` }, error);
  }
  if (stored === null || typeof stored !== 'object' || typeof stored.text !== 'string') {
    throw createError('ZERDA_STORE_CORRUPT', { path: `${location}, record ${JSON.stringify(id)}`, reason: `${CHUNK_FIELD} does not hold a chunk` });
  }
  const chunk: DocumentChunk = { id, docId, text: stored.text, source, metadata: stored.metadata, position: stored.position };
  if (stored.title !== undefined) chunk.title = stored.title;
  if (stored.timestamp !== undefined) chunk.timestamp = stored.timestamp;
  if (values !== undefined && values.length > 0) chunk.embedding = Float32Array.from(values);
  return chunk;
}
