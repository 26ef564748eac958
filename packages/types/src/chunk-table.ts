import type { DocumentChunk } from './chunk.js';
import type { Metadata } from './json.js';
import { LITTLE_ENDIAN, littleEndianBytes } from './little-endian.js';
import { invalidArgument } from './errors.js';
import {
  readSnapshotArray,
  readSnapshotJson,
  writeSnapshotArray,
  writeSnapshotJson,
  type SnapshotReader,
  type SnapshotWriter,
} from './snapshot.js';

/**
 * A column-wise binary encoding of `DocumentChunk[]` for snapshots: every string field is one file
 * of pages of concatenated text plus a file of lengths, numbers are float64 arrays, flags one byte
 * per chunk. Opening a million chunks is then a handful of large reads and string slices instead of
 * a million JSON documents to parse and validate (measured here: ~17 µs per chunk for JSON lines
 * through the chunk schema, against well under 2 µs).
 *
 * Exactness: strings are written one byte per character when every character is below U+0100, as
 * UTF-8 otherwise when the page is well formed, and as UTF-16 code units when it is not (a lone
 * surrogate survives); numbers as float64, embeddings as the float32 or float64 values they hold. A
 * chunk read back is deep-equal to the chunk written. Version 1 (pages wholly UTF-8 or UTF-16) is
 * still read; the Latin-1 part of version 2 opens as one-byte strings, half the memory of a page
 * decoded from UTF-8 as a whole (one character above U+00FF makes V8 store a whole page two bytes
 * per character), and without UTF-8 decoding.
 *
 * Files (relative to the writer's scope): `table.json`, `<column>.str` and `<column>.len` for the
 * columns id, doc-id, text, source, title and metadata (JSON), `flags.u8`, `index.f64`,
 * `optional.f64`, and, when any chunk carries one, `embedding-lengths.u32`, `embeddings.f32`,
 * `embeddings.f64`.
 */

const FORMAT = 'zerda.chunk-table';
/** Version 2: string pages split into a Latin-1 part and a UTF-8 part (see {@link PageDescriptor}); version 1 is still read. */
const VERSION = 2;
/** Code units per page: large reads, bounded strings (V8 caps one string near 2^29 code units). */
const PAGE_UNITS = 8 * 1024 * 1024;

const HAS_TITLE = 1;
const HAS_TOTAL = 2;
const HAS_START = 4;
const HAS_END = 8;
const HAS_TIMESTAMP = 16;
const SOURCE_IS_DOC_ID = 32;
const ID_IS_DERIVED = 64;
const HAS_METADATA = 128;
/** In `embedding-lengths.u32`: the embedding is a plain number array (kept as float64). */
const FLOAT64_EMBEDDING = 0x8000_0000;
/** In the `.len` of a split page: the string is in the page's UTF-8 part (a length is below 2^30). */
const IN_UTF8_PART = 0x8000_0000;

const COLUMNS = ['id', 'doc-id', 'text', 'source', 'title', 'metadata'] as const;
type Column = (typeof COLUMNS)[number];

/** One page of a string column, as recorded by the column's owner (see {@link writeStringColumn}). */
export interface PageDescriptor {
  /** Strings in the page. */
  strings: number;
  /** Bytes of the page in the `.str` file. */
  bytes: number;
  /**
   * `utf8` or `utf16le`: the page is the strings' text in that encoding. `latin1+utf8` (chunk
   * table version 2): the page is first the strings whose characters are all below U+0100, one byte
   * each (`latin1` bytes), then the other strings in UTF-8; such a string's length in `.len` has
   * bit 31 set. Opening reads the Latin-1 part as one-byte strings (half the memory, no UTF-8
   * decoding), which most text is.
   */
  encoding: 'utf8' | 'utf16le' | 'latin1+utf8';
  /** Bytes of the Latin-1 part (`latin1+utf8` pages only). */
  latin1?: number;
}

const isWellFormed: (text: string) => boolean =
  typeof (String.prototype as { isWellFormed?: () => boolean }).isWellFormed === 'function'
    ? (text) => (text as unknown as { isWellFormed(): boolean }).isWellFormed()
    : (text) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/** Node's Buffer where there is one: its Latin-1 conversions are single copies. */
const NodeBuffer = (globalThis as unknown as { Buffer?: { from(text: string, encoding: 'latin1'): Uint8Array; from(buffer: ArrayBuffer, offset: number, length: number): { latin1Slice(start: number, end: number): string } } }).Buffer;

function utf16Bytes(text: string): Uint8Array {
  const units = new Uint16Array(text.length);
  for (let index = 0; index < text.length; index++) units[index] = text.charCodeAt(index);
  return LITTLE_ENDIAN ? new Uint8Array(units.buffer) : littleEndianBytes(units);
}

/** One byte per character of a string whose characters are all below U+0100. */
function latin1Bytes(text: string): Uint8Array {
  if (NodeBuffer) return NodeBuffer.from(text, 'latin1');
  const bytes = new Uint8Array(text.length);
  for (let index = 0; index < text.length; index++) bytes[index] = text.charCodeAt(index);
  return bytes;
}

/** `bytes` as characters: two bytes each (little-endian UTF-16 code units), or one each (Latin-1). */
function fromCodeUnits(bytes: Uint8Array, width: 1 | 2): string {
  if (width === 1 && NodeBuffer) return NodeBuffer.from(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength).latin1Slice(0, bytes.byteLength);
  const parts: string[] = [];
  const step = 16384 * width;
  for (let start = 0; start < bytes.length; start += step) {
    const end = Math.min(bytes.length, start + step);
    const units: number[] = new Array((end - start) / width);
    for (let index = start, unit = 0; index < end; index += width, unit++) units[unit] = width === 1 ? bytes[index]! : bytes[index]! | (bytes[index + 1]! << 8);
    parts.push(String.fromCharCode(...units));
  }
  return parts.join('');
}

function columnValue(chunk: DocumentChunk, column: Column, flags: number): string {
  switch (column) {
    case 'id':
      return flags & ID_IS_DERIVED ? '' : chunk.id;
    case 'doc-id':
      return chunk.docId;
    case 'text':
      return chunk.text;
    case 'source':
      return flags & SOURCE_IS_DOC_ID ? '' : chunk.source;
    case 'title':
      return chunk.title ?? '';
    case 'metadata':
      return flags & HAS_METADATA ? JSON.stringify(chunk.metadata) : '';
  }
}

function flagsOf(chunk: DocumentChunk): number {
  let flags = 0;
  if (chunk.title !== undefined) flags |= HAS_TITLE;
  if (chunk.position.total !== undefined) flags |= HAS_TOTAL;
  if (chunk.position.start !== undefined) flags |= HAS_START;
  if (chunk.position.end !== undefined) flags |= HAS_END;
  if (chunk.timestamp !== undefined) flags |= HAS_TIMESTAMP;
  if (chunk.source === chunk.docId) flags |= SOURCE_IS_DOC_ID;
  if (chunk.id === `${chunk.docId}#${chunk.position.index}`) flags |= ID_IS_DERIVED;
  for (const _key in chunk.metadata) {
    flags |= HAS_METADATA;
    break;
  }
  return flags;
}

/**
 * Encodes `count` strings page by page (each page is encoded only when it is written); fills
 * `lengths` and `pages`. `split`: pages of well-formed text are `latin1+utf8` (else `utf8`).
 */
function* stringPages(count: number, valueAt: (index: number) => string, lengths: Uint32Array, pages: PageDescriptor[], split: boolean): Generator<Uint8Array> {
  let first = 0;
  let batch: string[] = [];
  let wide: string[] = [];
  let units = 0;
  let wellFormed = true;
  const flush = (end: number): Uint8Array => {
    let bytes: Uint8Array;
    let descriptor: PageDescriptor;
    if (!wellFormed) {
      for (let index = first; index < end; index++) lengths[index]! &= ~IN_UTF8_PART;
      bytes = utf16Bytes(wide.length === 0 ? batch.join('') : pageInOrder(first, end, valueAt));
      descriptor = { strings: end - first, bytes: bytes.byteLength, encoding: 'utf16le' };
    } else if (split) {
      const narrow = latin1Bytes(batch.join(''));
      const utf8 = new TextEncoder().encode(wide.join(''));
      bytes = new Uint8Array(narrow.byteLength + utf8.byteLength);
      bytes.set(narrow, 0);
      bytes.set(utf8, narrow.byteLength);
      descriptor = { strings: end - first, bytes: bytes.byteLength, encoding: 'latin1+utf8', latin1: narrow.byteLength };
    } else {
      bytes = new TextEncoder().encode(batch.join(''));
      descriptor = { strings: end - first, bytes: bytes.byteLength, encoding: 'utf8' };
    }
    pages.push(descriptor);
    first = end;
    batch = [];
    wide = [];
    units = 0;
    wellFormed = true;
    return bytes;
  };
  for (let index = 0; index < count; index++) {
    const value = valueAt(index);
    lengths[index] = value.length;
    if (wellFormed && !isWellFormed(value)) wellFormed = false;
    if (split && BEYOND_LATIN1.test(value)) {
      lengths[index]! |= IN_UTF8_PART;
      wide.push(value);
    } else batch.push(value);
    units += value.length;
    if (units >= PAGE_UNITS) yield flush(index + 1);
  }
  if (first < count) yield flush(count);
}

/** `options` of the string-column functions: an object whose `split`, when given, is a boolean. */
function checkSplitOption(options: unknown): void {
  if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an object ({ split?: boolean })', options);
  const split = (options as { split?: unknown }).split;
  if (split !== undefined && typeof split !== 'boolean') throw invalidArgument('options.split', 'a boolean', split);
}

/** The strings `first` to `end` in their order (a page that falls back to UTF-16 is written in order). */
function pageInOrder(first: number, end: number, valueAt: (index: number) => string): string {
  const values: string[] = [];
  for (let index = first; index < end; index++) values.push(valueAt(index));
  return values.join('');
}

/**
 * Writes `count` strings as a string column: `<name>.str` (pages of concatenated text, each UTF-8
 * when well formed, UTF-16 code units otherwise, so any JavaScript string survives) and
 * `<name>.len` (each string's length in code units). Returns the page list, which the caller
 * records (in its JSON) and passes to {@link readStringColumn}. `options.split` writes
 * `latin1+utf8` pages (see {@link PageDescriptor}; only for readers that accept them).
 */
export async function writeStringColumn(writer: SnapshotWriter, name: string, count: number, valueAt: (index: number) => string, options: { split?: boolean } = {}): Promise<PageDescriptor[]> {
  checkSplitOption(options);
  const lengths = new Uint32Array(count);
  const pages: PageDescriptor[] = [];
  await writer.writeFile(`${name}.str`, stringPages(count, valueAt, lengths, pages, options.split === true));
  await writeSnapshotArray(writer, `${name}.len`, lengths);
  return pages;
}

/**
 * Writes `chunks` as a chunk table (see the module comment). The chunks must not change until the
 * returned promise settles (callers hold their write lock).
 */
export async function writeChunkTable(writer: SnapshotWriter, chunks: readonly DocumentChunk[]): Promise<void> {
  const count = chunks.length;
  const flags = new Uint8Array(count);
  const index = new Float64Array(count);
  const optional: number[] = [];
  let embeddingCount = 0;
  for (let row = 0; row < count; row++) {
    const chunk = chunks[row]!;
    const bits = flagsOf(chunk);
    flags[row] = bits;
    index[row] = chunk.position.index;
    if (bits & HAS_TOTAL) optional.push(chunk.position.total!);
    if (bits & HAS_START) optional.push(chunk.position.start!);
    if (bits & HAS_END) optional.push(chunk.position.end!);
    if (bits & HAS_TIMESTAMP) optional.push(chunk.timestamp!);
    if (chunk.embedding !== undefined) embeddingCount++;
  }
  const columns: Record<string, PageDescriptor[]> = {};
  for (const column of COLUMNS) columns[column] = await writeStringColumn(writer, column, count, (row) => columnValue(chunks[row]!, column, flags[row]!), { split: true });
  await writeSnapshotArray(writer, 'flags.u8', flags);
  await writeSnapshotArray(writer, 'index.f64', index);
  await writeSnapshotArray(writer, 'optional.f64', Float64Array.from(optional));
  let embeddings: { float32: number; float64: number } | null = null;
  if (embeddingCount > 0) {
    const lengths = new Uint32Array(count);
    let float32 = 0;
    let float64 = 0;
    for (let row = 0; row < count; row++) {
      const embedding = chunks[row]!.embedding;
      if (embedding === undefined) continue;
      if (embedding.length >= FLOAT64_EMBEDDING) throw new RangeError('an embedding longer than 2^31 values cannot be written');
      const plain = !(embedding instanceof Float32Array);
      lengths[row] = embedding.length | (plain ? FLOAT64_EMBEDDING : 0);
      if (plain) float64 += embedding.length;
      else float32 += embedding.length;
    }
    await writeSnapshotArray(writer, 'embedding-lengths.u32', lengths);
    const pieces = function* (plain: boolean): Generator<Uint8Array> {
      for (let row = 0; row < count; row++) {
        const embedding = chunks[row]!.embedding;
        if (embedding === undefined || (embedding instanceof Float32Array) === plain) continue;
        yield littleEndianBytes(plain ? Float64Array.from(embedding) : (embedding as Float32Array));
      }
    };
    await writer.writeFile('embeddings.f32', pieces(false));
    await writer.writeFile('embeddings.f64', pieces(true));
    embeddings = { float32, float64 };
  }
  // Written last: it describes the files above.
  await writeSnapshotJson(writer, 'table.json', { format: FORMAT, version: VERSION, count, columns, embeddings });
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/**
 * Reads a string column written by {@link writeStringColumn}: its lengths and its pages, decoded and
 * sliced into `count` strings. `pages` is what the writer returned (as read back from JSON: it is
 * checked); `latin1+utf8` pages are accepted only with `options.split`. Inconsistencies are
 * `ZERDA_CORRUPT_SNAPSHOT` errors naming the file.
 */
export async function readStringColumn(reader: SnapshotReader, column: string, count: number, pages: unknown, describedIn = 'table.json', options: { split?: boolean } = {}): Promise<string[]> {
  checkSplitOption(options);
  const lengths = await readSnapshotArray(reader, `${column}.len`, Uint32Array, count);
  if (!Array.isArray(pages)) throw reader.corrupt(describedIn, 'consistency', `the page list of column ${column} is missing`);
  const values: string[] = new Array(count);
  const file = await reader.openFile(`${column}.str`);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const decode = (bytes: Uint8Array, encoding: 'utf8' | 'utf16le' | 'latin1'): string => {
    try {
      return encoding === 'utf8' ? decoder.decode(bytes) : fromCodeUnits(bytes, encoding === 'latin1' ? 1 : 2);
    } catch (error) {
      throw reader.corrupt(`${column}.str`, 'encoding', `a page is not valid ${encoding}`, error);
    }
  };
  let row = 0;
  for (const page of pages as PageDescriptor[]) {
    const split = page?.encoding === 'latin1+utf8' && options.split === true;
    if (
      page === null ||
      typeof page !== 'object' ||
      !isCount(page.strings) ||
      !isCount(page.bytes) ||
      !(page.encoding === 'utf8' || page.encoding === 'utf16le' || split) ||
      (split ? !isCount(page.latin1) || page.latin1 > page.bytes : page.latin1 !== undefined)
    ) {
      throw reader.corrupt(describedIn, 'consistency', `a page of column ${column} is malformed`);
    }
    if (row + page.strings > count) throw reader.corrupt(describedIn, 'consistency', `the pages of column ${column} hold more than ${count} strings`);
    const bytes = await file.read(page.bytes);
    const end = row + page.strings;
    // One pass for every encoding: a split page is its Latin-1 part then its UTF-8 part, each one
    // string sliced in the order of the strings (a length with bit 31 set is in the UTF-8 part);
    // a whole page is all "narrow", so a length with bit 31 set there ends past an empty part.
    const narrow = split ? decode(bytes.subarray(0, page.latin1), 'latin1') : decode(bytes, page.encoding as 'utf8' | 'utf16le');
    const wide = split ? decode(bytes.subarray(page.latin1), 'utf8') : '';
    let inNarrow = 0;
    let inWide = 0;
    for (; row < end; row++) {
      const length = lengths[row]!;
      const inUtf8 = (length & IN_UTF8_PART) !== 0;
      const part = inUtf8 ? wide : narrow;
      const from = inUtf8 ? inWide : inNarrow;
      const stop = from + (length & ~IN_UTF8_PART);
      if (stop > part.length) throw reader.corrupt(`${column}.len`, 'consistency', `string ${row} ends past its page`);
      values[row] = part.slice(from, stop);
      if (inUtf8) inWide = stop;
      else inNarrow = stop;
    }
    if (inNarrow !== narrow.length || inWide !== wide.length) throw reader.corrupt(`${column}.len`, 'consistency', `the lengths of a page of column ${column} do not add up to its text`);
  }
  if (row !== count) throw reader.corrupt(describedIn, 'consistency', `column ${column} holds ${row} strings, expected ${count}`);
  if (file.remaining !== 0) throw reader.corrupt(`${column}.str`, 'size', `${file.remaining} bytes follow the last page`);
  await file.close();
  return values;
}

/**
 * A {@link SnapshotReader} that can share what is read from files of equal content within one open
 * (the readers of `@zerda/persistence` can): the string columns of a chunk table are decoded once
 * when a hybrid snapshot's keyword index and vector store both hold them (stored once, hard linked).
 */
export interface ContentSharingReader extends SnapshotReader {
  /**
   * What `read` returns for the files `names` (relative to this reader), read once per open for each
   * content of those files as the manifest records it; `kind` says how they are read (the same
   * files read another way are another value). Files whose value was shared are verified like every
   * file no component read, before the open returns.
   */
  sharedByContent<T>(kind: string, names: readonly string[], read: () => Promise<T>): Promise<T>;
}

/** Reads a chunk table written by {@link writeChunkTable}; every inconsistency is a `ZERDA_CORRUPT_SNAPSHOT` naming the file. */
export async function readChunkTable(reader: SnapshotReader): Promise<DocumentChunk[]> {
  const table = await readSnapshotJson(reader, 'table.json');
  if (table.format !== FORMAT) throw reader.corrupt('table.json', 'format', `expected format "${FORMAT}", got ${JSON.stringify(table.format)}`);
  if (table.version !== 1 && table.version !== VERSION) throw reader.corrupt('table.json', 'version', `chunk table version ${JSON.stringify(table.version)} is not supported (this zerda reads versions 1 and ${VERSION})`);
  const count = table.count;
  if (!isCount(count)) throw reader.corrupt('table.json', 'consistency', `invalid count ${JSON.stringify(count)}`);
  const columns = table.columns as Record<string, unknown> | null;
  if (columns === null || typeof columns !== 'object') throw reader.corrupt('table.json', 'consistency', 'columns are missing');
  const values = {} as Record<Column, string[]>;
  const sharing = typeof (reader as Partial<ContentSharingReader>).sharedByContent === 'function' ? (reader as ContentSharingReader) : undefined;
  for (const column of COLUMNS) {
    const split = table.version === VERSION;
    const read = () => readStringColumn(reader, column, count, columns[column], 'table.json', { split });
    // The strings are shared (never changed); the chunk objects built from them are this table's own.
    values[column] = await (sharing ? sharing.sharedByContent(`string column ${count} ${split} ${JSON.stringify(columns[column])}`, [`${column}.len`, `${column}.str`], read) : read());
  }
  const flags = await readSnapshotArray(reader, 'flags.u8', Uint8Array, count);
  const index = await readSnapshotArray(reader, 'index.f64', Float64Array, count);
  const optional = await readSnapshotArray(reader, 'optional.f64', Float64Array);
  let embeddingLengths: Uint32Array | undefined;
  let float32: Float32Array | undefined;
  let float64: Float64Array | undefined;
  if (table.embeddings !== null) {
    const expected = table.embeddings as { float32?: unknown; float64?: unknown } | undefined;
    if (!expected || !isCount(expected.float32) || !isCount(expected.float64)) throw reader.corrupt('table.json', 'consistency', 'embeddings is malformed');
    embeddingLengths = await readSnapshotArray(reader, 'embedding-lengths.u32', Uint32Array, count);
    float32 = await readSnapshotArray(reader, 'embeddings.f32', Float32Array, expected.float32);
    float64 = await readSnapshotArray(reader, 'embeddings.f64', Float64Array, expected.float64);
  }

  const chunks: DocumentChunk[] = new Array(count);
  let next = 0;
  let offset32 = 0;
  let offset64 = 0;
  const optionalValue = (): number => {
    if (next >= optional.length) throw reader.corrupt('optional.f64', 'consistency', 'it holds fewer values than the flags announce');
    return optional[next++]!;
  };
  for (let row = 0; row < count; row++) {
    const bits = flags[row]!;
    const docId = values['doc-id'][row]!;
    const positionIndex = index[row]!;
    let metadata: Metadata = {};
    if (bits & HAS_METADATA) {
      try {
        metadata = JSON.parse(values.metadata[row]!) as Metadata;
      } catch (error) {
        throw reader.corrupt('metadata.str', 'json', `the metadata of chunk ${row} is not valid JSON`, error);
      }
      if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) throw reader.corrupt('metadata.str', 'consistency', `the metadata of chunk ${row} is not an object`);
    }
    const position: DocumentChunk['position'] = { index: positionIndex };
    if (bits & HAS_TOTAL) position.total = optionalValue();
    if (bits & HAS_START) position.start = optionalValue();
    if (bits & HAS_END) position.end = optionalValue();
    const chunk: DocumentChunk = {
      id: bits & ID_IS_DERIVED ? `${docId}#${positionIndex}` : values.id[row]!,
      docId,
      text: values.text[row]!,
      source: bits & SOURCE_IS_DOC_ID ? docId : values.source[row]!,
      metadata,
      position,
    };
    if (bits & HAS_TITLE) chunk.title = values.title[row]!;
    if (bits & HAS_TIMESTAMP) chunk.timestamp = optionalValue();
    const encoded = embeddingLengths?.[row] ?? 0;
    if (encoded !== 0) {
      const length = encoded & ~FLOAT64_EMBEDDING;
      if (encoded & FLOAT64_EMBEDDING) {
        if (offset64 + length > float64!.length) throw reader.corrupt('embeddings.f64', 'consistency', 'it holds fewer values than the lengths announce');
        chunk.embedding = Array.from(float64!.subarray(offset64, offset64 + length));
        offset64 += length;
      } else {
        if (offset32 + length > float32!.length) throw reader.corrupt('embeddings.f32', 'consistency', 'it holds fewer values than the lengths announce');
        chunk.embedding = float32!.subarray(offset32, offset32 + length);
        offset32 += length;
      }
    }
    chunks[row] = chunk;
  }
  if (next !== optional.length) throw reader.corrupt('optional.f64', 'consistency', 'it holds more values than the flags announce');
  if (float32 && offset32 !== float32.length) throw reader.corrupt('embeddings.f32', 'consistency', 'it holds more values than the lengths announce');
  if (float64 && offset64 !== float64.length) throw reader.corrupt('embeddings.f64', 'consistency', 'it holds more values than the lengths announce');
  return chunks;
}
