import { inflatedSize } from './inflated-size.js';
import { limitExceeded } from '../errors.js';
import type { ResolvedLimits } from '../limits.js';

const STREAM = Buffer.from('stream');
const END_STREAM = Buffer.from('endstream');
// A stream's dictionary lies within this many bytes before its `stream` keyword.
const DICTIONARY_WINDOW = 2048;

/**
 * Checks every Flate-compressed stream of a PDF but images before PDF.js reads it: each is inflated as a
 * stream whose output is counted and dropped, and one that inflates past `maxPdfStreamBytes`
 * refuses the document (`ZERDA_DOCUMENT_LIMIT`, limit `maxPdfStreamBytes`). A flate bomb in a
 * content stream would otherwise be inflated whole in memory. Streams are found by their
 * `stream`/`endstream` keywords, so a damaged cross-reference table does not hide one.
 */
export async function checkPdfStreams(bytes: Uint8Array, file: string, limits: ResolvedLimits): Promise<void> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const cap = limits.maxPdfStreamBytes;
  let from = 0;
  for (;;) {
    const keyword = buffer.indexOf(STREAM, from);
    if (keyword < 0) return;
    from = keyword + STREAM.length;
    // `endstream` contains `stream`: only a keyword not preceded by "end" opens data.
    if (keyword >= 3 && buffer.toString('latin1', keyword - 3, keyword) === 'end') continue;
    let start = keyword + STREAM.length;
    if (buffer[start] === 0x0d) start++;
    if (buffer[start] === 0x0a) start++;
    const end = buffer.indexOf(END_STREAM, start);
    if (end < 0) return;
    from = end + END_STREAM.length;
    const dictionary = buffer.toString('latin1', Math.max(0, keyword - DICTIONARY_WINDOW), keyword);
    const opening = dictionary.lastIndexOf('obj');
    const own = opening >= 0 ? dictionary.slice(opening) : dictionary;
    // Images are never decoded for text (a large scan inflates to tens of megabytes legitimately).
    if (!/\/(?:FlateDecode|Fl)\b/.test(own) || /\/Subtype\s*\/Image\b/.test(own)) continue;
    const size = await inflatedSize(buffer.subarray(start, end), cap, 'zlib');
    if (size > cap) throw limitExceeded(file, 'pdf', 'maxPdfStreamBytes', cap, `one of its compressed streams inflates to more than ${cap} bytes`);
  }
}
