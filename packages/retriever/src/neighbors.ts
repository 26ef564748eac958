import { invalidArgument, matchesFilter, parseMetadataFilter, type DocumentChunk, type MetadataFilter } from '@zerda/types';

/** Chunks grouped by document, each group in `position.index` order (ties: insertion order). */
export function groupByDocument(chunks: readonly DocumentChunk[]): Map<string, DocumentChunk[]> {
  const groups = new Map<string, DocumentChunk[]>();
  for (const chunk of chunks) {
    const group = groups.get(chunk.docId);
    if (group) group.push(chunk);
    else groups.set(chunk.docId, [chunk]);
  }
  for (const group of groups.values()) group.sort((a, b) => a.position.index - b.position.index);
  return groups;
}

/**
 * The one neighbour lookup of the retrievers (see `Retriever.neighbors`): for every given chunk,
 * the chunks of its document within `distance` positions, matching the filter, the given chunks
 * excluded, each once, documents in the order the given chunks name them, then by position.
 * Binary search per given chunk.
 */
export function neighborsIn(byDocument: ReadonlyMap<string, readonly DocumentChunk[]>, chunks: unknown, distance: unknown, options: { filter?: MetadataFilter } = {}): DocumentChunk[] {
  if (!Array.isArray(chunks)) throw invalidArgument('chunks', 'an array of chunks', chunks);
  if (typeof distance !== 'number' || !Number.isInteger(distance) || distance < 0) throw invalidArgument('distance', 'an integer >= 0', distance);
  if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an options object', options);
  const filter = options.filter === undefined ? undefined : parseMetadataFilter(options.filter, 'options.filter');
  const given = new Set<string>();
  chunks.forEach((chunk: unknown, index) => {
    const candidate = chunk as DocumentChunk | null;
    if (!candidate || typeof candidate.id !== 'string' || typeof candidate.docId !== 'string' || typeof candidate.position?.index !== 'number') {
      throw invalidArgument(`chunks[${index}]`, 'a document chunk with id, docId and position.index', chunk);
    }
    given.add(candidate.id);
  });
  const found = new Map<string, DocumentChunk>();
  if (distance === 0) return [];
  for (const chunk of chunks as DocumentChunk[]) {
    const group = byDocument.get(chunk.docId);
    if (!group) continue;
    const low = chunk.position.index - distance;
    const high = chunk.position.index + distance;
    let first = 0;
    let last = group.length;
    while (first < last) {
      const middle = (first + last) >> 1;
      if (group[middle]!.position.index < low) first = middle + 1;
      else last = middle;
    }
    for (let at = first; at < group.length && group[at]!.position.index <= high; at++) {
      const neighbor = group[at]!;
      if (given.has(neighbor.id) || found.has(neighbor.id)) continue;
      if (filter && !matchesFilter(neighbor, filter)) continue;
      found.set(neighbor.id, neighbor);
    }
  }
  // Documents in the order the given chunks name them.
  const order = new Map<string, number>();
  for (const chunk of chunks as DocumentChunk[]) if (!order.has(chunk.docId)) order.set(chunk.docId, order.size);
  return [...found.values()].sort((a, b) => (order.get(a.docId) ?? 0) - (order.get(b.docId) ?? 0) || a.position.index - b.position.index);
}
