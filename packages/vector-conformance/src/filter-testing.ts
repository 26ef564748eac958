import { matchesFilter, type DocumentChunk, type Metadata, type MetadataFilter } from '@zerda/types';

// Helpers of the adapters' own filter tests (translation to a backend's language, hostile input):
// the conformance suite checks the filter language end to end, these check one translator.

/**
 * A chunk carrying `metadata`, `docId` and `source`, for filter tests: the 3-dimensional embedding
 * varies with `index` so that many such chunks are not all at the same point.
 */
export function chunkWithMetadata(id: string, metadata: Metadata, docId = 'doc', source = 'src', index = 0): DocumentChunk {
  return { id, docId, text: `chunk ${id}`, source, metadata, position: { index }, embedding: [1, index % 7, 0.5] };
}

/** The ids of the `chunks` that `filter` selects under the reference semantics (`matchesFilter`), sorted. */
export function idsMatchingFilter(chunks: readonly DocumentChunk[], filter: MetadataFilter): string[] {
  return chunks
    .filter((chunk) => matchesFilter(chunk, filter))
    .map((chunk) => chunk.id)
    .sort();
}

/**
 * A filter (unparsed input) that puts `key` and `value` into every kind of place a translator writes
 * them: a field equality, `$or` with `$in` (beside a number and null), a range and `$nin` on
 * `docId`, and `$not` over `$exists` and `$ne`. A translator into a query language must keep both
 * inside literals or parameters whatever they contain.
 */
export function hostileFilter(key: string, value: string): Record<string, unknown> {
  return {
    [key]: value,
    $or: [{ [key]: { $in: [value, 1, null] } }, { [key]: { $gte: value, $lt: 5 } }, { docId: { $nin: [value] } }],
    $not: { [key]: { $exists: false, $ne: value } },
  };
}

/**
 * One chunk for every pair of `keys` and `values` (id `k<i>v<j>`), whose metadata holds the value
 * under the key and `[value, j]` under `<key>-list`, in document `doc'<j>` from source `src"<i>`:
 * the rows of the adapters' hostile-filter tests.
 */
export function hostileChunks(keys: readonly string[], values: readonly string[]): DocumentChunk[] {
  return keys.flatMap((key, i) => values.map((value, j) => chunkWithMetadata(`k${i}v${j}`, { [key]: value, [`${key}-list`]: [value, j] }, `doc'${j}`, `src"${i}`)));
}
