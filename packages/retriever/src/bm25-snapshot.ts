import type { DocumentChunk } from '@zerda/types';

/** The compacted arrays a {@link Bm25Index} is serialised as (`snapshot()` / `load()`). */
export interface Bm25IndexSnapshot {
  terms: string[];
  chunks: DocumentChunk[];
  textLengths: Uint32Array;
  titleLengths: Uint32Array;
  offsets: Uint32Array;
  postingChunks: Uint32Array;
  postingFrequencies: Uint32Array;
}

/**
 * Checks a snapshot read from untrusted JSON: lengths agree, offsets are non-decreasing and end at
 * the posting count, every posting names an existing chunk and a non-zero frequency, terms are
 * unique. Returns a description of the first problem, or undefined when the snapshot is sound.
 */
export function validateSnapshot(snapshot: Bm25IndexSnapshot): string | undefined {
  const count = snapshot.chunks.length;
  if (snapshot.textLengths.length !== count) return `textLengths has ${snapshot.textLengths.length} entries for ${count} chunks`;
  if (snapshot.titleLengths.length !== count) return `titleLengths has ${snapshot.titleLengths.length} entries for ${count} chunks`;
  if (snapshot.offsets.length !== snapshot.terms.length + 1) return `offsets has ${snapshot.offsets.length} entries for ${snapshot.terms.length} terms`;
  if (snapshot.postingChunks.length !== snapshot.postingFrequencies.length) return 'postingChunks and postingFrequencies differ in length';
  if (snapshot.offsets[0] !== 0) return 'offsets must start at 0';
  for (let term = 0; term < snapshot.terms.length; term++) {
    if (snapshot.offsets[term + 1]! < snapshot.offsets[term]!) return `offsets decrease at term ${term}`;
  }
  if (snapshot.offsets[snapshot.terms.length] !== snapshot.postingChunks.length) return 'offsets do not end at the number of postings';
  // One pass over the postings (a million-chunk index has ~10^8): each names an existing chunk with a
  // non-zero frequency, and — search relies on it — each term's postings are in strictly increasing
  // chunk order.
  const postingChunks = snapshot.postingChunks;
  const postingFrequencies = snapshot.postingFrequencies;
  for (let term = 0; term < snapshot.terms.length; term++) {
    let previous = -1;
    for (let index = snapshot.offsets[term]!, end = snapshot.offsets[term + 1]!; index < end; index++) {
      const chunk = postingChunks[index]!;
      if (chunk >= count) return `posting ${index} names chunk ${chunk} of ${count}`;
      if (postingFrequencies[index] === 0) return `posting ${index} has a zero frequency`;
      if (chunk <= previous) return `postings of term ${JSON.stringify(snapshot.terms[term])} are not in increasing chunk order`;
      previous = chunk;
    }
  }
  if (new Set(snapshot.terms).size !== snapshot.terms.length) return 'terms are not unique';
  const ids = new Set<string>();
  for (const chunk of snapshot.chunks) {
    if (ids.has(chunk.id)) return `chunk id ${JSON.stringify(chunk.id)} appears twice`;
    ids.add(chunk.id);
  }
  return undefined;
}
