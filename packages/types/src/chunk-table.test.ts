import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createError, InMemorySnapshot, readChunkTable, writeChunkTable, type DocumentChunk, type SnapshotCheck } from './index.js';

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

  it('splits large columns into pages (each UTF-8 or UTF-16 on its own) and reads them back', async () => {
    const big = (character: string, index: number): DocumentChunk => ({ id: `big#${index}`, docId: 'big', text: character.repeat(3_000_000) + index, source: 'big', metadata: {}, position: { index } });
    const chunks = [big('a', 0), big('ب', 1), big('c', 2), { ...big('d', 3), text: `lone \uD800 surrogate ${'d'.repeat(1000)}` }];
    const { read, snapshot } = await roundTrip(chunks);
    expect(read).toEqual(chunks);
    const table = JSON.parse(new TextDecoder().decode(snapshot.files.get('chunks/table.json')));
    expect(table.columns.text).toEqual([
      { strings: 3, bytes: 3_000_001 + 6_000_001 + 3_000_001, encoding: 'utf8' },
      { strings: 1, bytes: chunks[3]!.text.length * 2, encoding: 'utf16le' },
    ]);
  });

  it('refuses inconsistent tables, naming the file', async () => {
    const chunks: DocumentChunk[] = [{ id: 'a#0', docId: 'a', text: 'hello world', source: 'a', metadata: { k: 1 }, position: { index: 0 } }];
    const damaged = async (change: (files: Map<string, Uint8Array>) => void) => {
      const snapshot = new InMemorySnapshot();
      await writeChunkTable(snapshot.writer(), chunks);
      change(snapshot.files);
      return readChunkTable(snapshot.reader(fail)).catch((error: unknown) => error);
    };
    expect(await damaged((files) => files.set('text.len', new Uint8Array(new Uint32Array([50]).buffer)))).toMatchObject({ details: { file: 'text.len', check: 'consistency' } });
    expect(await damaged((files) => files.set('metadata.str', new TextEncoder().encode('{"k":')))).toMatchObject({ details: { check: 'size' } });
    expect(await damaged((files) => files.set('metadata.str', new TextEncoder().encode('{"k";1}')))).toMatchObject({ details: { file: 'metadata.str', check: 'json' } });
    expect(await damaged((files) => files.set('text.str', new Uint8Array([0xff, 0xfe, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20])))).toMatchObject({ details: { file: 'text.str', check: 'encoding' } });
    expect(await damaged((files) => files.set('flags.u8', new Uint8Array([0, 0])))).toMatchObject({ details: { file: 'flags.u8', check: 'consistency' } });
    expect(await damaged((files) => files.delete('index.f64'))).toMatchObject({ details: { file: 'index.f64', check: 'exists' } });
  });
});
