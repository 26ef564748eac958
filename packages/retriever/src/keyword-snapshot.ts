import {
  readChunkTable,
  readSnapshotArray,
  readSnapshotJson,
  readStringColumn,
  writeChunkTable,
  writeSnapshotArray,
  writeSnapshotJson,
  writeStringColumn,
  type SnapshotReader,
  type SnapshotWriter,
} from '@zerda/types';
import { validateSnapshot, type Bm25IndexSnapshot } from './bm25-snapshot.js';

/**
 * The binary form of a keyword index (the arrays of `Bm25Index.snapshot()`), one file each:
 * `index.json` (counts and the term column's pages), `terms.str`/`terms.len`, `offsets.u32`,
 * `posting-chunks.u32`, `posting-frequencies.u32`, `text-lengths.u32`, `title-lengths.u32`, and
 * the chunks as a chunk table under `chunks/`. Typed arrays are little-endian and are adopted as
 * read (no copy, no base64). This pair is the only place that knows the layout: a new array of the
 * index (block-max metadata …) is one more file here and one more field of the snapshot.
 */
const FORMAT = 'zerda.keyword-index';
const VERSION = 1;

/** Writes an index snapshot (the arrays must not change until this resolved). */
export async function writeKeywordIndex(writer: SnapshotWriter, snapshot: Bm25IndexSnapshot): Promise<void> {
  const terms = await writeStringColumn(writer, 'terms', snapshot.terms.length, (index) => snapshot.terms[index]!);
  await writeSnapshotArray(writer, 'offsets.u32', snapshot.offsets);
  await writeSnapshotArray(writer, 'posting-chunks.u32', snapshot.postingChunks);
  await writeSnapshotArray(writer, 'posting-frequencies.u32', snapshot.postingFrequencies);
  await writeSnapshotArray(writer, 'text-lengths.u32', snapshot.textLengths);
  await writeSnapshotArray(writer, 'title-lengths.u32', snapshot.titleLengths);
  await writeChunkTable(writer.scope('chunks'), snapshot.chunks);
  await writeSnapshotJson(writer, 'index.json', {
    format: FORMAT,
    version: VERSION,
    terms: snapshot.terms.length,
    chunks: snapshot.chunks.length,
    postings: snapshot.postingChunks.length,
    termPages: terms,
  });
}

/** Reads an index snapshot written by {@link writeKeywordIndex}, checked for consistency (`validateSnapshot`). */
export async function readKeywordIndex(reader: SnapshotReader): Promise<Bm25IndexSnapshot> {
  const meta = await readSnapshotJson(reader, 'index.json');
  if (meta.format !== FORMAT) throw reader.corrupt('index.json', 'format', `expected format "${FORMAT}", got ${JSON.stringify(meta.format)}`);
  if (meta.version !== VERSION) throw reader.corrupt('index.json', 'version', `keyword index version ${JSON.stringify(meta.version)} is not supported (this version reads ${VERSION})`);
  for (const field of ['terms', 'chunks', 'postings'] as const) {
    const value = meta[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw reader.corrupt('index.json', 'consistency', `invalid ${field} count ${JSON.stringify(value)}`);
  }
  const termCount = meta.terms as number;
  const chunkCount = meta.chunks as number;
  const postings = meta.postings as number;
  const snapshot: Bm25IndexSnapshot = {
    terms: await readStringColumn(reader, 'terms', termCount, meta.termPages, 'index.json'),
    offsets: await readSnapshotArray(reader, 'offsets.u32', Uint32Array, termCount + 1),
    postingChunks: await readSnapshotArray(reader, 'posting-chunks.u32', Uint32Array, postings),
    postingFrequencies: await readSnapshotArray(reader, 'posting-frequencies.u32', Uint32Array, postings),
    textLengths: await readSnapshotArray(reader, 'text-lengths.u32', Uint32Array, chunkCount),
    titleLengths: await readSnapshotArray(reader, 'title-lengths.u32', Uint32Array, chunkCount),
    chunks: await readChunkTable(reader.scope('chunks')),
  };
  const problem = validateSnapshot(snapshot);
  if (problem) throw reader.corrupt('index.json', 'consistency', `the index files disagree: ${problem}`);
  return snapshot;
}
