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
import { validateSegmentSnapshot, validateSnapshot, type Bm25IndexSnapshot, type Bm25SegmentSnapshot } from './bm25-snapshot.js';
import type { MainSegment } from './postings.js';

/**
 * The binary form of a keyword index, one file per array: `index.json` (counts and the term
 * column's pages), `terms.str`/`terms.len`, the main segment's arrays as they lie in memory
 * (version 2: `offsets.u32`, `block-*.u32|u16`, `chunk-offsets.u16`, `codes.u8`,
 * `exception-*.u32`), `text-lengths.u32`, `title-lengths.u32`, and the chunks as a chunk table under
 * `chunks/`. Typed arrays are little-endian and are adopted as read (no copy, no base64), so opening
 * an index checks the arrays in one pass (`validateSegmentSnapshot`) and rebuilds nothing. Version 1
 * (plain CSR postings with packed frequencies, re-encoded into blocks on open) is still read. This
 * pair is the only place that knows the layout.
 */
const FORMAT = 'zerda.keyword-index';
const VERSION = 2;

/** The segment arrays of version 2: file name, field, element type. */
const SEGMENT_FILES = [
  ['offsets.u32', 'offsets', Uint32Array],
  ['block-offsets.u32', 'blockOffsets', Uint32Array],
  ['block-starts.u32', 'blockStarts', Uint32Array],
  ['block-bases.u32', 'blockBases', Uint32Array],
  ['block-lasts.u32', 'blockLasts', Uint32Array],
  ['block-max-text.u16', 'blockMaxText', Uint16Array],
  ['block-max-title.u16', 'blockMaxTitle', Uint16Array],
  ['block-min-text-length.u16', 'blockMinTextLength', Uint16Array],
  ['block-min-title-length.u16', 'blockMinTitleLength', Uint16Array],
  ['chunk-offsets.u16', 'chunkOffsets', Uint16Array],
  ['codes.u8', 'codes', Uint8Array],
  ['exception-positions.u32', 'exceptionPositions', Uint32Array],
  ['exception-values.u32', 'exceptionValues', Uint32Array],
] as const;

/** How many entries each segment array has, from the counts in `index.json`. */
function segmentLength(field: (typeof SEGMENT_FILES)[number][1], counts: { terms: number; postings: number; blocks: number; exceptions: number }): number {
  switch (field) {
    case 'offsets':
    case 'blockOffsets':
      return counts.terms + 1;
    case 'blockStarts':
      return counts.blocks + 1;
    case 'chunkOffsets':
    case 'codes':
      return counts.postings;
    case 'exceptionPositions':
    case 'exceptionValues':
      return counts.exceptions;
    default:
      return counts.blocks;
  }
}

/** Writes an index snapshot (the arrays must not change until this resolved). */
export async function writeKeywordIndex(writer: SnapshotWriter, snapshot: Bm25SegmentSnapshot): Promise<void> {
  const terms = await writeStringColumn(writer, 'terms', snapshot.terms.length, (index) => snapshot.terms[index]!);
  for (const [file, field] of SEGMENT_FILES) await writeSnapshotArray(writer, file, snapshot.segment[field]);
  await writeSnapshotArray(writer, 'text-lengths.u32', snapshot.textLengths);
  await writeSnapshotArray(writer, 'title-lengths.u32', snapshot.titleLengths);
  await writeChunkTable(writer.scope('chunks'), snapshot.chunks);
  await writeSnapshotJson(writer, 'index.json', {
    format: FORMAT,
    version: VERSION,
    terms: snapshot.terms.length,
    chunks: snapshot.chunks.length,
    postings: snapshot.segment.chunkOffsets.length,
    blocks: snapshot.segment.blockBases.length,
    exceptions: snapshot.segment.exceptionPositions.length,
    termPages: terms,
  });
}

/**
 * Reads an index snapshot written by {@link writeKeywordIndex} (version 2, adopted as read) or by
 * an earlier zerda (version 1), checked for consistency; a problem is the reader's corruption error
 * naming `index.json`.
 */
export async function readKeywordIndex(reader: SnapshotReader): Promise<Bm25IndexSnapshot | Bm25SegmentSnapshot> {
  const meta = await readSnapshotJson(reader, 'index.json');
  if (meta.format !== FORMAT) throw reader.corrupt('index.json', 'format', `expected format "${FORMAT}", got ${JSON.stringify(meta.format)}`);
  if (meta.version !== 1 && meta.version !== VERSION) throw reader.corrupt('index.json', 'version', `keyword index version ${JSON.stringify(meta.version)} is not supported (this version reads 1 and ${VERSION})`);
  const counted = meta.version === 1 ? (['terms', 'chunks', 'postings'] as const) : (['terms', 'chunks', 'postings', 'blocks', 'exceptions'] as const);
  for (const field of counted) {
    const value = meta[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw reader.corrupt('index.json', 'consistency', `invalid ${field} count ${JSON.stringify(value)}`);
  }
  const termCount = meta.terms as number;
  const chunkCount = meta.chunks as number;
  const postings = meta.postings as number;
  const terms = await readStringColumn(reader, 'terms', termCount, meta.termPages, 'index.json');
  if (meta.version === 1) {
    const snapshot: Bm25IndexSnapshot = {
      terms,
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
  const counts = { terms: termCount, postings, blocks: meta.blocks as number, exceptions: meta.exceptions as number };
  const segment = { termCount } as MainSegment;
  for (const [file, field, type] of SEGMENT_FILES) {
    (segment as unknown as Record<string, unknown>)[field] = await readSnapshotArray(reader, file, type as never, segmentLength(field, counts));
  }
  const snapshot: Bm25SegmentSnapshot = {
    terms,
    textLengths: await readSnapshotArray(reader, 'text-lengths.u32', Uint32Array, chunkCount),
    titleLengths: await readSnapshotArray(reader, 'title-lengths.u32', Uint32Array, chunkCount),
    chunks: await readChunkTable(reader.scope('chunks')),
    segment,
  };
  const checked = validateSegmentSnapshot(snapshot);
  if (typeof checked === 'string') throw reader.corrupt('index.json', 'consistency', `the index files disagree: ${checked}`);
  snapshot.ordinalById = checked;
  return snapshot;
}
