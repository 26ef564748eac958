import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createError, InMemorySnapshot, readChunkTable, readStringColumn, writeChunkTable, writeStringColumn, type DocumentChunk, type SnapshotCheck } from './index.js';

const fail = (file: string, check: SnapshotCheck, reason: string) => createError('ZERDA_CORRUPT_SNAPSHOT', { path: 'memory', file, check, reason });

async function roundTrip(chunks: DocumentChunk[]): Promise<{ read: DocumentChunk[]; snapshot: InMemorySnapshot }> {
  const snapshot = new InMemorySnapshot();
  await writeChunkTable(snapshot.writer('chunks'), chunks);
  return { read: await readChunkTable(snapshot.reader(fail, 'chunks')), snapshot };
}

/** Any string, lone surrogates included. */
const anyText = fc.string({ unit: fc.oneof(fc.constantFrom('a', 'ب', 'ـ', 'ً', '\n', ' ', '😀', '\uD800', '\uDC00', 'é'), fc.string({ unit: 'grapheme', maxLength: 1 })), maxLength: 40 });
const chunkArbitrary = fc.record(
  {
    id: anyText.filter((text) => text.length > 0),
    docId: anyText.filter((text) => text.length > 0),
    text: anyText,
    source: anyText,
    title: anyText,
    metadata: fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 })), { maxKeys: 3 }),
    position: fc.record({ index: fc.nat(), total: fc.integer({ min: 1 }), start: fc.nat(), end: fc.nat() }, { requiredKeys: ['index'] }),
    timestamp: fc.double({ noNaN: true, noDefaultInfinity: true }),
    embedding: fc.oneof(
      fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 4 }).map((values) => Float32Array.from(values)),
      fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 4 }),
    ),
  },
  { requiredKeys: ['id', 'docId', 'text', 'source', 'metadata', 'position'] },
);

describe('chunk table', () => {
  it('reads back exactly the chunks written: any Unicode (lone surrogates too), optional fields, both embedding kinds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(chunkArbitrary, { selector: (chunk) => chunk.id, maxLength: 30 }), async (chunks) => {
        const { read } = await roundTrip(chunks as DocumentChunk[]);
        expect(read).toEqual(chunks);
      }),
      { numRuns: 150 },
    );
  });

  it('reads back well-formed text exactly, split into Latin-1 and UTF-8 parts: Arabic, emoji and astral characters, multi-byte text', async () => {
    const wellFormed = fc.string({ unit: fc.oneof(fc.constantFrom('a', 'é', 'ÿ', 'ب', 'ـ', 'ً', '😀', '𝔘', '—', '\n', ' ', 'ß'), fc.string({ unit: 'grapheme', maxLength: 1 })), maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(fc.array(wellFormed, { maxLength: 30 }), async (texts) => {
        const chunks: DocumentChunk[] = texts.map((text, index) => ({ id: `${text}#${index}`, docId: text, text, source: text, title: text, metadata: { text }, position: { index } }));
        const { read, snapshot } = await roundTrip(chunks);
        expect(read).toEqual(chunks);
        const table = JSON.parse(new TextDecoder().decode(snapshot.files.get('chunks/table.json')));
        for (const pages of Object.values(table.columns) as Array<Array<{ encoding: string }>>) for (const page of pages) expect(page.encoding).toBe('latin1+utf8');
      }),
      { numRuns: 150 },
    );
  });

  it('stores derived ids and sources as flags, and Arabic text as UTF-8', async () => {
    const chunks: DocumentChunk[] = [
      { id: 'doc#0', docId: 'doc', text: 'التوليد المعزز بالاسترجاع', source: 'doc', metadata: {}, position: { index: 0 } },
      { id: 'custom', docId: 'doc', text: 'English', source: 'elsewhere', metadata: { lang: 'en' }, position: { index: 1, start: 0, end: 7 }, title: 'T' },
    ];
    const { read, snapshot } = await roundTrip(chunks);
    expect(read).toEqual(chunks);
    expect(snapshot.files.get('chunks/id.str')!.byteLength).toBe('custom'.length);
    expect(snapshot.files.get('chunks/source.str')!.byteLength).toBe('elsewhere'.length);
    expect(snapshot.files.get('chunks/text.str')!.byteLength).toBe(new TextEncoder().encode('التوليد المعزز بالاسترجاعEnglish').byteLength);
  });

  it('splits large columns into pages (each Latin-1 + UTF-8, or UTF-16 on its own) and reads them back', async () => {
    const big = (character: string, index: number): DocumentChunk => ({ id: `big#${index}`, docId: 'big', text: character.repeat(3_000_000) + index, source: 'big', metadata: {}, position: { index } });
    const chunks = [big('a', 0), big('ب', 1), big('é', 2), { ...big('d', 3), text: `lone \uD800 surrogate ${'d'.repeat(1000)}` }];
    const { read, snapshot } = await roundTrip(chunks);
    expect(read).toEqual(chunks);
    const table = JSON.parse(new TextDecoder().decode(snapshot.files.get('chunks/table.json')));
    expect(table.version).toBe(2);
    expect(table.columns.text).toEqual([
      { strings: 3, bytes: 3_000_001 + 6_000_001 + 3_000_001, encoding: 'latin1+utf8', latin1: 3_000_001 * 2 },
      { strings: 1, bytes: chunks[3]!.text.length * 2, encoding: 'utf16le' },
    ]);
    const lengths = new Uint32Array(snapshot.files.get('chunks/text.len')!.slice().buffer);
    expect([...lengths]).toEqual([3_000_001, (0x8000_0000 | 3_000_001) >>> 0, 3_000_001, chunks[3]!.text.length]);
  });

  it('reads Latin-1 text as one-byte strings and the rest from UTF-8, in the order written', async () => {
    const texts = ['plain ASCII', 'naïve café', 'التوليد المعزز', 'emoji 😀 and 𝔘', '', 'ß¿×÷ÿ', 'mixed é and ب'];
    const chunks: DocumentChunk[] = texts.map((text, index) => ({ id: `d#${index}`, docId: 'd', text, source: 'd', metadata: {}, position: { index } }));
    const { read, snapshot } = await roundTrip(chunks);
    expect(read.map((chunk) => chunk.text)).toEqual(texts);
    const narrow = 'plain ASCIInaïve caféß¿×÷ÿ';
    const wide = new TextEncoder().encode('التوليد المعززemoji 😀 and 𝔘mixed é and ب');
    expect(snapshot.files.get('chunks/text.str')!.byteLength).toBe(narrow.length + wide.byteLength);
  });

  it('writes and reads the Latin-1 part without Node\'s Buffer too (browsers), to the same bytes', async () => {
    const chunks: DocumentChunk[] = ['naïve café ÿ', 'plain', 'ب and é', 'x'.repeat(40_000) + 'é'].map((text, index) => ({ id: `d#${index}`, docId: 'd', text, source: 'd', metadata: {}, position: { index } }));
    const { snapshot: withBuffer } = await roundTrip(chunks);
    vi.stubGlobal('Buffer', undefined);
    try {
      vi.resetModules();
      const portable = await import('./chunk-table.js');
      const snapshot = new InMemorySnapshot();
      await portable.writeChunkTable(snapshot.writer(), chunks);
      expect(snapshot.files.get('text.str')).toEqual(withBuffer.files.get('chunks/text.str'));
      expect(await portable.readChunkTable(snapshot.reader(fail))).toEqual(chunks);
    } finally {
      vi.unstubAllGlobals();
      vi.resetModules();
    }
  });

  it('still reads version 1 tables (pages wholly UTF-8), and refuses split pages there and newer versions with a clear message', async () => {
    const chunks: DocumentChunk[] = [
      { id: 'a#0', docId: 'a', text: 'naïve 😀 التوليد', source: 'a', metadata: { k: 'é' }, position: { index: 0 }, title: 'T' },
      { id: 'x', docId: 'a', text: 'plain', source: 'b', metadata: {}, position: { index: 1 } },
    ];
    // A version-1 table: the string columns rewritten as the version-1 writer wrote them.
    const snapshot = new InMemorySnapshot();
    await writeChunkTable(snapshot.writer(), chunks);
    const table = JSON.parse(new TextDecoder().decode(snapshot.files.get('table.json')));
    const version1 = new InMemorySnapshot();
    for (const [name, bytes] of snapshot.files) if (!name.endsWith('.str') && !name.endsWith('.len') && name !== 'table.json') version1.files.set(name, bytes);
    const values: Record<string, string[]> = { id: ['', 'x'], 'doc-id': ['a', 'a'], text: chunks.map((chunk) => chunk.text), source: ['', 'b'], title: ['T', ''], metadata: ['{"k":"é"}', ''] };
    const columns: Record<string, unknown> = {};
    for (const [column, strings] of Object.entries(values)) columns[column] = await writeStringColumn(version1.writer(), column, strings.length, (row) => strings[row]!);
    const writeTable = (json: unknown) => version1.files.set('table.json', new TextEncoder().encode(JSON.stringify(json)));
    writeTable({ ...table, version: 1, columns });
    expect(await readChunkTable(version1.reader(fail))).toEqual(chunks);
    writeTable({ ...table, version: 1 });
    expect(await readChunkTable(version1.reader(fail)).catch((error: unknown) => error)).toMatchObject({ details: { file: 'table.json', check: 'consistency' } });
    writeTable({ ...table, version: 3, columns });
    const newer = await readChunkTable(version1.reader(fail)).catch((error: unknown) => error);
    expect(newer).toMatchObject({ details: { file: 'table.json', check: 'version' } });
    expect((newer as Error).message).toContain('chunk table version 3 is not supported (this zerda reads versions 1 and 2)');
  });

  it('refuses a bad options object of the string-column functions with a ZerdaError naming the field', async () => {
    const snapshot = new InMemorySnapshot();
    await expect(writeStringColumn(snapshot.writer('c'), 'x', 1, () => 'a', { split: 'yes' } as never)).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', details: { field: 'options.split' } });
    await expect(writeStringColumn(snapshot.writer('c'), 'x', 1, () => 'a', null as never)).rejects.toMatchObject({ details: { field: 'options' } });
    const pages = await writeStringColumn(snapshot.writer('c'), 'x', 1, () => 'a', { split: true });
    await expect(readStringColumn(snapshot.reader(fail, 'c'), 'x', 1, pages, 'table.json', { split: 1 } as never)).rejects.toMatchObject({ details: { field: 'options.split' } });
    expect(await readStringColumn(snapshot.reader(fail, 'c'), 'x', 1, pages, 'table.json', { split: true })).toEqual(['a']);
  });

  it('refuses inconsistent tables, naming the file', async () => {
    const chunks: DocumentChunk[] = [{ id: 'a#0', docId: 'a', text: 'hello world', source: 'a', metadata: { k: 1 }, position: { index: 0 } }];
    const damaged = async (change: (files: Map<string, Uint8Array>) => void, written = chunks) => {
      const snapshot = new InMemorySnapshot();
      await writeChunkTable(snapshot.writer(), written);
      change(snapshot.files);
      return readChunkTable(snapshot.reader(fail)).catch((error: unknown) => error);
    };
    expect(await damaged((files) => files.set('text.len', new Uint8Array(new Uint32Array([50]).buffer)))).toMatchObject({ details: { file: 'text.len', check: 'consistency' } });
    expect(await damaged((files) => files.set('metadata.str', new TextEncoder().encode('{"k":')))).toMatchObject({ details: { check: 'size' } });
    expect(await damaged((files) => files.set('metadata.str', new TextEncoder().encode('{"k";1}')))).toMatchObject({ details: { file: 'metadata.str', check: 'json' } });
    const arabic = [{ ...chunks[0]!, text: 'بب' }];
    expect(await damaged((files) => files.set('text.str', new Uint8Array([0xff, 0xfe, 0x20, 0x20])), arabic)).toMatchObject({ details: { file: 'text.str', check: 'encoding' } });
    expect(await damaged((files) => files.set('text.len', new Uint8Array(new Uint32Array([0x8000_0000 | 11]).buffer)))).toMatchObject({ details: { file: 'text.len', check: 'consistency' } });
    const table = (files: Map<string, Uint8Array>) => JSON.parse(new TextDecoder().decode(files.get('table.json')));
    const page = (files: Map<string, Uint8Array>, change: Record<string, unknown>) => {
      const json = table(files);
      json.columns.text = [{ ...json.columns.text[0], ...change }];
      files.set('table.json', new TextEncoder().encode(JSON.stringify(json)));
    };
    expect(await damaged((files) => page(files, { latin1: 12 }))).toMatchObject({ details: { file: 'table.json', check: 'consistency' } });
    expect(await damaged((files) => page(files, { latin1: undefined }))).toMatchObject({ details: { file: 'table.json', check: 'consistency' } });
    expect(await damaged((files) => page(files, { latin1: 0 }))).toMatchObject({ details: { file: 'text.len', check: 'consistency' } });
    expect(await damaged((files) => files.set('flags.u8', new Uint8Array([0, 0])))).toMatchObject({ details: { file: 'flags.u8', check: 'consistency' } });
    expect(await damaged((files) => files.delete('index.f64'))).toMatchObject({ details: { file: 'index.f64', check: 'exists' } });
  });
});
