/**
 * Hostile documents generated on the spot (never stored): a DOCX whose `document.xml` inflates far
 * beyond its size, a PDF whose content stream does, deeply nested and unclosed HTML, binary content
 * named as text, UTF-16 text without a byte-order mark, a YAML alias bomb. Used by the tests and by
 * `scripts/measure-documents.mjs`; nothing here is exported from the package.
 */
import { constants, crc32, deflateRawSync, deflateSync } from 'node:zlib';

interface ZipEntry {
  name: string;
  data: Uint8Array;
}

/** A ZIP archive (deflated entries) built from names and bytes. */
export function zipArchive(entries: readonly ZipEntry[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const compressed = deflateRawSync(entry.data, { level: constants.Z_BEST_COMPRESSION });
    const crc = crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(entry.data.byteLength, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(entry.data.byteLength, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const PACKAGE_RELATIONSHIPS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

/** A DOCX with the given paragraphs (a real, small document when `paragraphs` is short). */
export function docxWithParagraphs(paragraphs: readonly string[], extra: readonly ZipEntry[] = []): Uint8Array {
  const body = paragraphs.map((text) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`).join('');
  const document = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`;
  const encoder = new TextEncoder();
  return zipArchive([
    { name: '[Content_Types].xml', data: encoder.encode(CONTENT_TYPES) },
    { name: '_rels/.rels', data: encoder.encode(PACKAGE_RELATIONSHIPS) },
    { name: 'word/document.xml', data: encoder.encode(document) },
    ...extra,
  ]);
}

/** A DOCX whose `document.xml` inflates to about `inflatedBytes` (one paragraph repeated). */
export function zipBombDocx(inflatedBytes: number): Uint8Array {
  const paragraph = '<w:p><w:r><w:t>all work and no play makes a dull document </w:t></w:r></w:p>';
  const head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
  const tail = '</w:body></w:document>';
  const count = Math.max(1, Math.floor((inflatedBytes - head.length - tail.length) / paragraph.length));
  const document = Buffer.alloc(head.length + count * paragraph.length + tail.length);
  document.write(head, 0, 'latin1');
  document.write(paragraph, head.length, 'latin1');
  // Doubling copies: the buffer fills in log(count) steps.
  let filled = 1;
  while (filled < count) {
    const copy = Math.min(filled, count - filled);
    document.copy(document, head.length + filled * paragraph.length, head.length, head.length + copy * paragraph.length);
    filled += copy;
  }
  document.write(tail, head.length + count * paragraph.length, 'latin1');
  const encoder = new TextEncoder();
  return zipArchive([
    { name: '[Content_Types].xml', data: encoder.encode(CONTENT_TYPES) },
    { name: '_rels/.rels', data: encoder.encode(PACKAGE_RELATIONSHIPS) },
    { name: 'word/document.xml', data: document },
  ]);
}

/** A ZIP-based DOCX with `count` tiny extra entries beside a real document. */
export function manyEntriesDocx(count: number): Uint8Array {
  const extra = Array.from({ length: count }, (_, index) => ({ name: `customXml/item${index}.xml`, data: new TextEncoder().encode('<a/>') }));
  return docxWithParagraphs(['A document with many parts.'], extra);
}

/**
 * A one-page PDF (Helvetica, the given lines of text) whose content stream goes on with
 * `paddingBytes` of text-showing operators (`(a) Tj`, each a run for a text extractor) before
 * compression: a flate bomb when the padding is large.
 */
export function pdfWithText(lines: readonly string[], paddingBytes = 0): Uint8Array {
  const text = lines.map((line, index) => `BT /F1 12 Tf 72 ${720 - index * 16} Td (${line.replace(/[()\\]/g, (c) => `\\${c}`)}) Tj ET`).join('\n');
  const operator = Buffer.from(' 1 0 Td (a) Tj');
  const runs = Math.floor(paddingBytes / operator.length);
  const opening = `${text}\n${runs > 0 ? 'BT /F1 1 Tf 0 10 Td' : ''}`;
  const closing = runs > 0 ? ' ET\n' : '';
  const content = Buffer.alloc(opening.length + runs * operator.length + closing.length);
  content.write(opening, 0, 'latin1');
  if (runs > 0) {
    operator.copy(content, opening.length);
    // Doubling copies fill the runs in log(runs) steps.
    let filled = 1;
    while (filled < runs) {
      const copy = Math.min(filled, runs - filled);
      content.copy(content, opening.length + filled * operator.length, opening.length, opening.length + copy * operator.length);
      filled += copy;
    }
    content.write(closing, opening.length + runs * operator.length, 'latin1');
  }
  const compressed = deflateSync(content, { level: constants.Z_BEST_COMPRESSION });
  const objects = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>'),
    Buffer.concat([Buffer.from(`<< /Length ${compressed.length} /Filter /FlateDecode >>\nstream\n`), compressed, Buffer.from('\nendstream')]),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(offset);
    const object = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    parts.push(object);
    offset += object.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((value) => `${String(value).padStart(10, '0')} 00000 n \n`).join('')}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`;
  parts.push(Buffer.from(xref));
  return new Uint8Array(Buffer.concat(parts));
}

/** HTML with `depth` nested `<div>`s around a paragraph. */
export function deeplyNestedHtml(depth: number): string {
  return `<!doctype html><html><head><title>Deep</title></head><body>${'<div>'.repeat(depth)}<p>The bottom of a very deep page.</p>${'</div>'.repeat(depth)}</body></html>`;
}

/** HTML of `count` unclosed `<b>` elements each followed by a word (every one nests in the last). */
export function unclosedBoldHtml(count: number): string {
  return `<!doctype html><html><head><title>Bold</title></head><body><p>${'<b>x'.repeat(count)}</p></body></html>`;
}

/** A tar archive (one 512-byte header and a text member): binary content however it is named. */
export function tarArchive(memberName: string, content: string): Uint8Array {
  const body = Buffer.from(content, 'utf8');
  const header = Buffer.alloc(512, 0);
  header.write(memberName, 0, 'utf8');
  header.write('0000644\0', 100, 'latin1');
  header.write('0000000\0', 108, 'latin1');
  header.write('0000000\0', 116, 'latin1');
  header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  header.write('00000000000\0', 136, 'latin1');
  header.write('        ', 148, 'latin1');
  header.write('0', 156, 'latin1');
  header.write('ustar\0', 257, 'latin1');
  header.write('00', 263, 'latin1');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  const padded = Buffer.alloc(Math.ceil(body.length / 512) * 512, 0);
  body.copy(padded);
  return new Uint8Array(Buffer.concat([header, padded, Buffer.alloc(1024, 0)]));
}

/** Text encoded as UTF-16 little-endian without a byte-order mark. */
export function utf16LeWithoutBom(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf16le'));
}

/** Markdown whose front matter is a YAML "billion laughs" alias bomb of `levels` levels. */
export function yamlAliasBombMarkdown(levels = 9): string {
  const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let level = 1; level < levels; level++) lines.push(`a${level}: &a${level} [${Array.from({ length: 9 }, () => `*a${level - 1}`).join(',')}]`);
  return `---\n${lines.join('\n')}\n---\n# Laughs\n\nThe body.\n`;
}
